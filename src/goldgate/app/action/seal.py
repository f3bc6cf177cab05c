"""What user code leaves behind is undone before anything of its run is trusted.

- Processes: the program that starts user code becomes the subreaper of its descendants
  (``become_subreaper``: Linux's ``PR_SET_CHILD_SUBREAPER``), so that a process that
  double-forks and calls ``setsid()`` is re-parented to it rather than to init; once user
  code has finished, every descendant is killed, whatever session or group it moved to
  (``reap_descendants``), before the hand-off and its digests are written.
- The runner's files: ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_OUTPUT``, ``GITHUB_STATE``
  and ``GITHUB_STEP_SUMMARY`` are read before user code runs and put back as they were once
  it is gone (``keep_runner_files``, ``restore_runner_files``): what user code wrote there
  (a ``PYTHONPATH=`` line, a folder on the ``PATH``, a forged "passed" in the summary, an
  output) never reaches the runner. User code is not given their paths either
  (``isolation.user_code_environ``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from goldgate.base.reaping import become_subreaper, descendants, reap_descendants

NO_BYTECODE = "/dev/null"
"""A ``pycache_prefix`` under which no ``.pyc`` is found or written."""

RUNNER_FILES = (
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
)
"""The files whose lines the runner obeys after a step (or shows, the summary)."""


def _read(path: str) -> bytes | None:
    """The bytes of the regular file at ``path``; None when there is none there (a FIFO, a
    symlink or a folder planted at the name is not read, never blocks: None too)."""
    import stat

    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        chunks = []
        while chunk := os.read(descriptor, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _put_back(path: str, data: bytes | None) -> None:
    """``path`` holding ``data`` again (none: no file), through a new file renamed into
    place: a symlink planted at the name is replaced, never written through."""
    import shutil

    target = Path(path)
    if target.is_dir() and not target.is_symlink():  # planted at the name: not the runner's
        shutil.rmtree(target)
    if data is None:
        if target.is_symlink() or target.exists():
            target.unlink()
        return
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".goldgate-")
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            os.fchmod(out.fileno(), 0o644)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def keep_runner_files(env: Mapping[str, str]) -> dict[str, bytes | None]:
    """What the runner's files (``RUNNER_FILES``) hold now, by path."""
    paths = [env[name].strip() for name in RUNNER_FILES if env.get(name, "").strip()]
    return {path: _read(path) for path in paths}


def restore_runner_files(kept: Mapping[str, bytes | None]) -> list[str]:
    """Put the runner's files back as ``kept`` says (call ``reap_descendants`` first, so that
    nothing writes them afterwards); the paths that could not be, if any."""
    failed: list[str] = []
    for path, data in kept.items():
        if data is not None and _read(path) == data:
            continue
        try:
            _put_back(path, data)
        except OSError:
            with contextlib.suppress(OSError):  # a folder made read-only: ours to undo
                os.chmod(Path(path).parent, 0o755)
            try:
                _put_back(path, data)
            except OSError:
                failed.append(path)
    return failed


T = TypeVar("T")


def run_sealed(env: Mapping[str, str], body: Callable[[], T]) -> tuple[T, str | None]:
    """``body()`` (which runs user code) with this process the subreaper of what it starts;
    afterwards every descendant is killed and the runner's files of ``env`` are put back.
    Its result, and the sentence saying what could not be undone (a process that still
    runs, a file that could not be put back), if something could not.

    From here on this process reads no bytecode, for good (``sys.pycache_prefix`` under
    ``/dev/null``, where nothing is found or written; importlib reads it at each import): a
    module it imports once user code may run is compiled from its source, never read from a
    ``.pyc`` user code planted to match it. (The action's run step reads, until then, only
    the bytecode its seal step trusted.)"""
    sys.pycache_prefix = NO_BYTECODE
    kept = keep_runner_files(env)
    become_subreaper()
    spared = frozenset(descendants())
    try:
        result = body()
    finally:
        gone = reap_descendants(spared)
        failed = restore_runner_files(kept)
    if not gone:
        return result, "a process user code started could not be stopped"
    if not failed:
        return result, None
    return result, (
        f"the runner's file {failed[0]} could not be put back as it was before user code ran"
    )
