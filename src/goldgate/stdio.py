"""Goldgate's stdout is goldgate's.

Targets, scorers and the modules that define them run inside ``user_output_to_stderr()``:
whatever they write to stdout, through ``print`` or straight to file descriptor 1 (a C
extension, a child process), lands on stderr, so that stdout carries only the safe summary
(one JSON document with ``--format json``), which goldgate writes after the run.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_STDOUT, _STDERR = 1, 2
_REFUSED = (OSError, ValueError)  # ValueError: the file object itself was closed


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


def _drain(streams: Sequence[TextIO | None]) -> None:
    """Flush what user code left in buffers of the real stdout while descriptor 1 was
    stderr. Should stderr refuse it, descriptor 1 becomes /dev/null for the flush, so that
    the text is dropped rather than reaching stdout later."""
    flushed = [_flush(stream) for stream in streams]  # every one, even after a refusal
    if all(flushed):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, _STDOUT)
    finally:
        os.close(devnull)
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
    try:
        yield
    finally:
        _flush(stream)
        sys.stdout, sys.stderr = previous
        if saved is not None:
            _drain([previous[0], sys.__stdout__])
            os.dup2(saved, _STDOUT)
            os.close(saved)
