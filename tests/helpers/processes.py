"""Proving that processes are gone, on machines whose PID 1 may never reap orphans."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

_PR_SET_CHILD_SUBREAPER = 36


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """Make this process the subreaper of orphans (Linux), so that a killed grandchild is
    reparented here, reaped by ``assert_gone`` and then really gone. Yields whether that
    worked."""
    libc = None
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            libc = ctypes.CDLL(None, use_errno=True)
    enabled = libc is not None and libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield enabled
    finally:
        if enabled and libc is not None:
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] == "Z"


def assert_gone(pids: list[int], *, strict: bool, within: float = 3.0) -> None:
    """Every pid no longer exists (``os.kill(pid, 0)`` raises ProcessLookupError). Without a
    subreaper (``strict`` False), a dead but unreaped orphan (a zombie) counts as gone.
    Survivors are killed before the test fails."""
    deadline = time.monotonic() + within
    alive = list(pids)
    while alive:
        for pid in list(alive):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                alive.remove(pid)
                continue
            if not strict and _is_zombie(pid):
                alive.remove(pid)
        if alive and time.monotonic() > deadline:
            for pid in alive:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            pytest.fail(f"processes {alive} outlived what should have killed them")
        time.sleep(0.02)


def piped_to_cat(
    command: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``command | cat`` in bash, to its end: it ends only once nothing holds the pipe open
    (a daemon that inherited the command's stdout would keep ``cat`` reading). Two minutes
    at most: past that, ``TimeoutExpired``."""
    return subprocess.run(
        ["bash", "-c", f"{shlex.join(command)} | cat"], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip


def signalled_inside(process: subprocess.Popen[str], marker: Path, signum: int) -> tuple[str, str]:
    """Once ``marker`` exists (user code is inside what the test is after), ``signum`` to
    ``process``; its stdout and stderr once it has ended (a minute at most). The process is
    killed if the test fails on the way."""
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        process.send_signal(signum)
        return process.communicate(timeout=60)
    except BaseException:
        process.kill()
        process.communicate()
        raise
