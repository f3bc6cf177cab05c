"""Goldgate's stdout is goldgate's, and no standard stream can fail a run.

Targets, scorers and the modules that define them run inside ``user_output_to_stderr()``:
whatever they write to stdout, through ``print`` or straight to file descriptor 1 (a C
extension, a child process), lands on stderr, so that stdout carries only the safe summary
(one JSON document with ``--format json``), which goldgate writes after the run.

Every write of goldgate's own is best effort: a closed, full or dead stream (no reader) is
dropped, never raised. ``write_stdout`` says whether the text got through, so that the caller
can say on stderr where the report is when stdout is gone.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

from goldgate.base.textsafe import printable

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_STDIN, _STDOUT, _STDERR = 0, 1, 2
_REFUSED = (OSError, ValueError)  # ValueError: the file object itself was closed
_stdout_failed = False


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def streams_inheritable() -> bool:
    """Whether stdout and stderr are descriptors 1 and 2, which a child or a new program can
    share (not so for a caller that captures them in memory, an in-process test)."""
    try:
        return sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        return False


def claim_standard_streams() -> None:
    """Put /dev/null on a closed file descriptor 0, 1 or 2, and give Python a stream for it.

    Left free, the number goes to the next file opened (the report, a command's pipe), and
    what is meant for stdout or stderr would land in that file. A closed stdout gets /dev/null
    read-only, so that writing the summary still fails and the report path goes to stderr; a
    closed stderr gets it writable and swallows what is written."""
    for fd, flags in ((_STDIN, os.O_RDONLY), (_STDOUT, os.O_RDONLY), (_STDERR, os.O_WRONLY)):
        if not _is_open(fd):
            plug = os.open(os.devnull, flags)
            if plug != fd:
                os.dup2(plug, fd)
                os.close(plug)
    # Python starts with None for a stream whose descriptor was closed.
    if sys.stdout is None:
        sys.stdout = open(_STDOUT, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(  # noqa: SIM115
            _STDERR, "w", encoding="utf-8", errors="backslashreplace", closefd=False
        )


class _Forgiving(io.RawIOBase):
    """Writes to a file descriptor; what it refuses (closed, full, no reader) is dropped."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:  # progress draws a bar only on a terminal
        return os.isatty(self._fd)

    def write(self, data: ReadableBuffer) -> int:
        view = memoryview(data).cast("B")
        with contextlib.suppress(OSError):
            done = 0
            while done < len(view):
                done += os.write(self._fd, view[done:])
        return len(view)


def _forgiving_text(fd: int) -> TextIO:
    raw = io.BufferedWriter(_Forgiving(fd))
    return io.TextIOWrapper(
        raw, encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True
    )


def _flush(stream: TextIO | None) -> bool:
    if stream is None:
        return True
    try:
        stream.flush()
    except _REFUSED:
        return False
    return True


def _to_devnull(fd: int) -> None:
    """Point descriptor ``fd`` at /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _silence(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at /dev/null and drop what it still buffers, so that
    nothing tries to write it again (Python exits with 120 when it cannot flush stdout)."""
    try:
        fd = stream.fileno()
    except _REFUSED:
        return
    _to_devnull(fd)
    _flush(stream)


def _drain(streams: Sequence[TextIO | None]) -> None:
    """Flush what user code left in buffers of the real stdout while descriptor 1 was
    stderr. Should stderr refuse it, descriptor 1 becomes /dev/null for the flush, so that
    the text is dropped rather than reaching stdout later."""
    flushed = [_flush(stream) for stream in streams]  # every one, even after a refusal
    if all(flushed):
        return
    _to_devnull(_STDOUT)
    for stream in streams:
        _flush(stream)


@contextlib.contextmanager
def user_output_to_stderr() -> Iterator[None]:
    """While the block runs, descriptor 1 is a copy of descriptor 2, and ``sys.stdout`` and
    ``sys.stderr`` write to descriptor 2, dropping what it refuses (a broken stderr must not
    fail a target that prints). Everything is restored on the way out."""
    _flush(sys.stdout)  # what goldgate wrote before belongs on stdout
    try:
        saved: int | None = os.dup(_STDOUT)
    except OSError:
        saved = None
    if saved is not None:
        try:
            os.dup2(_STDERR, _STDOUT)
        except OSError:
            os.close(saved)
            saved = None
    previous = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = stream = _forgiving_text(_STDERR)
    _redirected.append((saved, previous, stream))
    try:
        yield
    finally:
        end_user_output()


_redirected: list[tuple[int | None, tuple[TextIO, TextIO], TextIO]] = []


def end_user_output() -> None:
    """Give goldgate its stdout back now (the end of ``user_output_to_stderr``; called early
    by the watchdog's thread, which writes the summary of a run whose loop is stuck)."""
    if not _redirected:
        return
    saved, previous, stream = _redirected.pop()
    _flush(stream)
    sys.stdout, sys.stderr = previous
    if saved is not None:
        _drain([previous[0], sys.__stdout__])
        os.dup2(saved, _STDOUT)
        os.close(saved)


def write_stdout(text: str, end: str = "\n") -> bool:
    """``text`` and ``end`` on stdout, no line of it a workflow command (``printable``);
    False when stdout refuses it (closed, full, no reader), then and for every later call:
    the caller says on stderr what was lost."""
    return _write_stdout(printable(text + end))


def write_json(document: object) -> bool:
    """``document`` as indented JSON on stdout (``write_stdout``). ``##[`` can only stand
    inside a JSON string, where it is written as ``#\\u0023[``: the value read back is the
    same, and the line is no workflow command."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return write_stdout(text.replace("##[", "#\\u0023["))


def write_commands(commands: str) -> bool:
    """goldgate's own workflow commands on stdout, as ``write_stdout`` but not neutralised:
    every piece of data in them must already be escaped (``goldgate.render.workflow_commands``)."""
    return _write_stdout(commands)


def write_stderr_command(command: str) -> None:
    """One of goldgate's own workflow commands on stderr, not neutralised: for a command that
    must come before what user code writes there (see ``goldgate.app.action``)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(command + "\n")
        stream.flush()
    except _REFUSED:
        _silence(stream)


def _write_stdout(text: str) -> bool:
    global _stdout_failed  # noqa: PLW0603 - one process, one stdout
    if _stdout_failed:
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except _REFUSED:
        _stdout_failed = True
        _silence(sys.stdout)
        return False
    return True


def warn(text: str) -> None:
    """``text`` and a newline on stderr, if stderr takes it; no line of it a workflow
    command (the runner reads stderr too)."""
    stream = sys.stderr
    if stream is None:  # started without stderr, outside the console script
        return
    try:
        stream.write(printable(text + "\n"))
        stream.flush()
    except _REFUSED:
        _silence(stream)


def settle_streams() -> None:
    """Flush stdout and stderr before exiting, dropping what they refuse, so that exiting
    neither fails nor prints "Exception ignored" about them."""
    for stream in (sys.stdout, sys.stderr):
        if not _flush(stream):
            _silence(stream)
