"""The outcome of a run that executes user code is decided by a process user code cannot end.

``goldgate evaluate``, ``evals run`` and ``evals regrade`` fork before they import anything a
team wrote: the child does the work as before (it inherits stdout and stderr, so output keeps
its order), the parent only waits. Over a private pipe the child says when its report is
written and with which exit code, and when it exits with which code; it also says where the
report's temporary file is, and when it starts and ends an import of user code.

If the child ends without having said so, however it ends (``os._exit(0)`` in a target, a
signal, a segfault), the parent says so in one sentence and exits 4: a report that was never
written is never a pass. An import of user code that does not finish within its deadline
(the run's ``--timeout``) is ended by the parent the same way. SIGINT and SIGTERM sent to the
parent are forwarded to the child, which keeps what finished as an interrupted run does; they
are also written to a second pipe, which the child reads in a thread of its own, so that user
code that ignores or blocks the signal itself (``signal.signal(SIGTERM, SIG_IGN)`` in an async
eval) stops the run all the same.

The parent is the subreaper of the child's descendants (Linux): once the child has ended,
every process that user code started and left running (a daemon, one that called ``setsid``
too) is killed, so that none holds goldgate's stdout, stderr or pipes open after it exits
(``goldgate evals run ... | cat`` ends).

The pipe guards against user code that ends the process, not against code that forges the
messages: code running in the child could write them as goldgate does.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldgate.base.channel import listen_for_stops, open_channel
from goldgate.base.reaping import (
    become_subreaper,
    collect_orphans,
    descendants,
    reap_descendants,
)

__all__ = ["run_child", "supervise"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG = 1
_RUNTIME_FAILURE = 4
"""In the child: the write end of the pipe to the parent."""


@dataclass
class _Heard:
    report: tuple[int, str] | None = None
    exit_code: int | None = None
    temporary: str | None = None
    importing: tuple[str, float] | None = None
    buffer: bytes = b""
    signals: list[int] = field(default_factory=list)

    def take(self, data: bytes) -> None:
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            try:
                kind, *values = json.loads(line)
            except (ValueError, TypeError):
                continue
            if kind == "report":
                self.report = (int(values[0]), str(values[1]))
            elif kind == "exit":
                self.exit_code = int(values[0])
            elif kind == "temp":
                self.temporary = str(values[0])
            elif kind == "import":
                self.importing = (str(values[0]), time.monotonic())
            elif kind == "imported":
                self.importing = None


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"its process was killed by {name}"
    return f"its process exited with status {os.waitstatus_to_exitcode(status)}"


def supervise(*, import_seconds: float, json_output: bool = False) -> int | None:
    """Fork the process that does the work. In the child: None, and the caller goes on (it
    must end with ``os._exit``, announcing its exit code). In the parent: once the child has
    ended, the exit code of the run."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    read_end, write_end = os.pipe()
    stops_read, stops_write = os.pipe()
    parent = os.getpid()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    # What this process had started before (an in-process caller's own children) is not
    # the run's to end.
    spared = frozenset(descendants())
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        for end in (read_end, write_end, stops_read, stops_write):
            os.close(end)
        return None  # no process to spare: the run goes on unsupervised
    if pid == 0:
        os.close(read_end)
        os.close(stops_write)
        open_channel(write_end)
        _die_with(parent)
        listen_for_stops(stops_read)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        return None
    os.close(write_end)
    os.close(stops_read)
    become_subreaper()
    heard = _Heard()

    def forward(signum: int, frame: object) -> None:
        heard.signals.append(signum)
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
        with contextlib.suppress(OSError):  # the child reads it even if its code ignores signum
            os.write(stops_write, bytes([signum]))

    handlers = {number: signal.signal(number, forward) for number in _SIGNALS}
    signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    stopped = False
    try:
        status, overdue = _wait(
            heard, pid=pid, read_end=read_end, import_seconds=import_seconds, spared=spared
        )
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        os.close(read_end)
        os.close(stops_write)
        # What user code left running: nothing outlives the run.
        stopped = reap_descendants(spared)
    code = _outcome(heard, status, overdue, import_seconds, json_output)
    return code if stopped else _not_stopped(code)


def _not_stopped(code: int) -> int:
    """The exit code of a run some process of whose user code could not be stopped: such a
    process may still write the report, or hold stdout open past goldgate's end, so
    nothing the run says is to be trusted (a runtime failure; an interruption stays one)."""
    from goldgate.base.errors import ExitCode, most_severe
    from goldgate.base.stdio import warn

    warn(
        "goldgate: a process user code started could not be stopped; what the run wrote "
        "is not to be trusted."
    )
    if code not in ExitCode.__members__.values():
        return int(ExitCode.RUNTIME_FAILURE)
    return int(most_severe(ExitCode(code), ExitCode.RUNTIME_FAILURE))


def _die_with(parent: int) -> None:
    """In the child: be killed when the parent is (a tool that kills only the process it
    started, the OOM killer), as the run would be without a supervisor (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it was gone before the request took effect
        os._exit(int(_RUNTIME_FAILURE))


def _wait(
    heard: _Heard, *, pid: int, read_end: int, import_seconds: float, spared: frozenset[int]
) -> tuple[int, str | None]:
    """Wait for the child, reading what it says; the child's wait status and, when an import
    ran past its deadline (the child is then killed), what was being imported."""
    try:
        waiter: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        waiter = None
    # User code's orphans are this process's children (it is their subreaper): each one's
    # end wakes the wait (SIGCHLD into a pipe) and is collected then, not when the run ends.
    ended, ending = os.pipe()
    os.set_blocking(ending, False)
    previous = signal.signal(signal.SIGCHLD, lambda signum, frame: _poke(ending))
    watched = [read_end, ended] + ([waiter] if waiter is not None else [])
    overdue: str | None = None
    try:
        while True:
            timeout = 0.05 if waiter is None else None
            if heard.importing is not None and overdue is None:
                left = heard.importing[1] + import_seconds - time.monotonic()
                timeout = max(0.0, left if timeout is None else min(timeout, left))
            ready, _, _ = select.select(watched, [], [], timeout)
            if ended in ready:
                with contextlib.suppress(OSError):
                    os.read(ended, 4096)
                collect_orphans(spared, kept=pid)
            if read_end in ready:
                data = os.read(read_end, 65536)
                if data:
                    heard.take(data)
                else:  # every writer is gone; the child's end is near
                    watched.remove(read_end)
            if heard.importing is not None and overdue is None:
                what, started = heard.importing
                if time.monotonic() - started >= import_seconds:
                    overdue = what
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if read_end not in watched and waiter is None:
                _, status = os.waitpid(pid, 0)
                break
    finally:
        signal.signal(signal.SIGCHLD, previous)
        os.close(ended)
        os.close(ending)
        if waiter is not None:
            os.close(waiter)
    with contextlib.suppress(OSError):  # what it said just before it ended
        os.set_blocking(read_end, False)
        while data := os.read(read_end, 65536):
            heard.take(data)
    return status, overdue


def _poke(descriptor: int) -> None:
    with contextlib.suppress(OSError):  # full: a wake-up is already waiting
        os.write(descriptor, b"!")


def _kept(temporary: Path, display_path: Any) -> str:
    """What the sentence says of the report's temporary file: where it is when it holds
    what the run wrote before it ended (the report is written in chunks of a megabyte);
    an empty one is removed."""
    try:
        size = temporary.stat().st_size
    except OSError:
        return ""
    if size == 0:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return ""
    return f"; what it wrote before it ended is in {display_path(temporary)}"


def _outcome(
    heard: _Heard, status: int, overdue: str | None, import_seconds: float, json_output: bool
) -> int:
    from goldgate.base.errors import ExitCode, most_severe
    from goldgate.base.problems import display_path
    from goldgate.base.stdio import warn

    if heard.exit_code is not None and overdue is None:
        return heard.exit_code
    if heard.report is not None:
        return heard.report[0]
    if overdue is not None:
        sentence = (
            f"importing {overdue} did not finish within {import_seconds:g} s (--timeout); "
            "nothing was run."
        )
    else:
        kept = ""
        if heard.temporary is not None:
            kept = _kept(Path(heard.temporary), display_path)
        sentence = f"the run ended without writing its report ({_how_it_ended(status)}){kept}."
    warn(f"goldgate: {sentence}")
    if json_output:
        from goldgate.app.conclude import emit_json_refusal

        emit_json_refusal(sentence)
    code = ExitCode.RUNTIME_FAILURE
    if heard.signals:  # a real signal to goldgate: interrupted, whatever the child did
        code = most_severe(code, ExitCode.INTERRUPTED)
    return int(code)


def run_child(argv: list[str], env: dict[str, str]) -> int:
    """Run ``argv`` (a goldgate command that supervises its own run) as a new program with
    exactly ``env``, forwarding SIGINT and SIGTERM to it; its exit code. A child killed by a
    signal wrote no report: one sentence, and exit 4 (130 when goldgate was interrupted)."""
    import subprocess

    from goldgate.base.errors import ExitCode
    from goldgate.base.stdio import warn

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    received: list[int] = []
    started: list[subprocess.Popen[bytes]] = []

    def forward(signum: int, frame: object) -> None:
        received.append(signum)
        if started:
            with contextlib.suppress(OSError):
                started[0].send_signal(signum)

    handlers = {number: signal.signal(number, forward) for number in _SIGNALS}
    try:
        process = subprocess.Popen(argv, env=env, close_fds=True)
        started.append(process)
        if received:  # it came while the child was starting
            process.send_signal(received[0])
        code = process.wait()
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    if code >= 0:
        return code
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    warn(f"goldgate: the run ended without writing its report (its process was killed by {name}).")
    return int(ExitCode.INTERRUPTED if received else ExitCode.RUNTIME_FAILURE)
