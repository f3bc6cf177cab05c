"""What reading a report may take, stated and enforced (docs/report-format.md).

Reading a report (parsed, validated, verified; rendered, compared or merged) takes at most
``READ_FACTOR`` times its size plus ``READ_BASE_MB`` megabytes of address space at its peak,
and what is made of it holds at most ``HELD_FACTOR`` times its size once read; a report read
a case at a time, ``READ_FACTOR`` times its largest case (``admit_case``). Before a report
is read whole its size is weighed against the memory the process may still take
(``base.memorylimit``: the address-space limit, the cgroup's ``memory.max``,
``GOLDGATE_MEMORY_LIMIT``) less what
the reports read before it hold: a report that cannot fit is refused with one sentence
naming it (exit 2), before anything of it is read. Running out of memory while reading
anyway (``memory_bounded``) says the same sentence: never a traceback, and never a C
extension short of memory (orjson's parser, short of memory, crashes the process: it is
taken only where ``FAST_FACTOR`` times the size fits, else the standard library's).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Final

from goldgate.base.errors import InvalidInputError, ReportRefusedError
from goldgate.base.memorylimit import MEGABYTE, MEMORY_LIMIT_VARIABLE, memory_left
from goldgate.base.textsafe import escape_control

__all__ = [
    "ELEMENT_WEIGHT",
    "FAST_FACTOR",
    "HELD_FACTOR",
    "MARK_WEIGHTS",
    "READ_BASE_MB",
    "READ_FACTOR",
    "admit_case",
    "admit_dense",
    "admit_report",
    "lean_parse",
    "let_go_after",
    "memory_bounded",
    "weighed",
]

READ_FACTOR: Final = 10
READ_BASE_MB: Final = 64
MARK_WEIGHTS: Final = ((b"{", 30), (b"[", 30), (b":", 20), (b",", 4))
"""Bytes of text each ``{``, ``[``, ``:`` and ``,`` of a report weighs at least (``weighed``):
parsed, each object or array takes some hundred bytes, each member and element tens, so a
report dense in small values (a result of a million ``{"k": "v"}``) takes far more memory
than its bytes say, and is weighed as the text it would be at that density."""
_BRACE, _BRACKET, _COLON, _COMMA = (
    dict(MARK_WEIGHTS)[mark] for mark in (b"{", b"[", b":", b",")
)  # MARK_WEIGHTS by mark, for ``weighed``
ELEMENT_WEIGHT: Final = 32
"""Bytes of text each ``,`` weighs at least, on its own (``weighed``): orjson, writing an
array again (verification, digests, renderers), sets aside about 256 bytes of address space
for each of its elements at once, so that a result of 4 million small numbers (8 MB of
text) takes a gigabyte for a moment, and crashes the process where it cannot."""
HELD_FACTOR: Final = 9
FAST_FACTOR: Final = 24


class _Ledger:
    """What this process could take when it first read a report, and what the reports it
    read since hold (freed memory stays in the process's address space, where the next
    report reuses it: the limit less the address space held now undercounts what is left)."""

    def __init__(self) -> None:
        self.first_left: int | None = None
        self.held = 0

    def left(self) -> int | None:
        now = memory_left()
        if now is None:
            return None
        if self.first_left is None:
            self.first_left = now
        return max(now, self.first_left - self.held)


_LEDGER = _Ledger()


def admit_report(path: str, size: int, held: int = HELD_FACTOR, peak: int = READ_FACTOR) -> None:
    """Refuse (``ReportRefusedError``, exit 2) to read the report at ``path`` of ``size``
    bytes when it cannot fit in the memory this process may still take (``peak`` times its
    size at most, plus ``READ_BASE_MB``); else count what it will hold once read (``held``
    times its size)."""
    left = _LEDGER.left()
    if left is not None and peak * size + READ_BASE_MB * MEGABYTE > left:
        raise too_large_to_read(path, size, left)
    _LEDGER.held += held * size


def admit_case(path: str, size: int, held: int = 0) -> None:
    """Refuse (``ReportRefusedError``, exit 2) a report read a case at a time whose largest
    case, of ``size`` bytes, cannot be read in the memory this process may still take
    (``READ_FACTOR`` times its size plus ``READ_BASE_MB``, plus ``held`` bytes its reader
    keeps, such as a comparison's index of its cases): nothing else of a streamed report
    grows with it. ``held`` is then counted against the reports read after it."""
    left = _LEDGER.left()
    if left is not None and READ_FACTOR * size + held + READ_BASE_MB * MEGABYTE > left:
        room = f", and {left / MEGABYTE:.0f} MB is left"
        raise ReportRefusedError(
            f"{escape_control(path)}: a case of {size / MEGABYTE:.1f} MB is too large to read "
            f"in the memory this process may use (reading a case takes up to {READ_FACTOR} "
            f"times its size plus {READ_BASE_MB} MB{room}; {MEMORY_LIMIT_VARIABLE} and "
            "docs/report-format.md say more)."
        )
    _LEDGER.held += held


def too_large_to_read(
    path: str, size: int, left: int | None, weighed: int | None = None
) -> ReportRefusedError:
    """The one sentence for a report this process has not the memory to read (``weighed``:
    the size its values weigh as, where they are denser than its bytes say)."""
    room = "" if left is None else f", and {left / MEGABYTE:.0f} MB is left"
    dense = ""
    if weighed is not None and weighed > size:
        dense = f", holding values as densely as {weighed / MEGABYTE:.1f} MB of text would"
    return ReportRefusedError(
        f"{escape_control(path)}: too large to read in the memory this process may use "
        f"({size / MEGABYTE:.1f} MB{dense}; reading a report takes up to {READ_FACTOR} times "
        f"its size plus {READ_BASE_MB} MB{room}; {MEMORY_LIMIT_VARIABLE} and "
        "docs/report-format.md say more)."
    )


_NOT_MARKS: Final = bytes(set(range(256)) - {mark[0] for mark, _ in MARK_WEIGHTS})
_MARKS_APART: Final = 1 << 20
"""Text up to this size has its marks taken apart before they are counted (``weighed``)."""


def weighed(data: bytes) -> int:
    """The size ``data``, JSON text, weighs as when read: its bytes, or its ``{``, ``[``,
    ``:`` and ``,`` weighed by ``MARK_WEIGHTS``, or its ``,`` by ``ELEMENT_WEIGHT``,
    whichever is most (counted in C, strings included: never fewer than there are)."""
    # Every case is weighed: its marks taken apart first (one pass over its bytes, leaving
    # a tenth of them) are counted in a third of the time four passes take. Not a whole
    # report's text: the marks apart would be a tenth of it more in memory.
    marks = data.translate(None, _NOT_MARKS) if len(data) <= _MARKS_APART else data
    count = marks.count  # each mark counted once, without a generator
    commas = count(b",")
    values = _BRACE * count(b"{") + _BRACKET * count(b"[") + _COLON * count(b":") + _COMMA * commas
    return max(len(data), values, ELEMENT_WEIGHT * commas)


def admit_dense(path: str, data: bytes) -> int:
    """Refuse (``ReportRefusedError``, exit 2) report text, already read and admitted by its
    size, whose values weigh more than its bytes (``weighed``) when what reading them takes
    cannot fit in the memory this process may still take; else count what they hold once
    read. The size it weighs as, for ``lean_parse``."""
    size, weight = len(data), weighed(data)
    if weight > size:
        left = memory_left()
        if left is not None and READ_FACTOR * weight + READ_BASE_MB * MEGABYTE > left:
            raise too_large_to_read(path, size, left, weight)
        _LEDGER.held += HELD_FACTOR * (weight - size)
    return weight


def lean_parse(size: int) -> bool:
    """Whether to parse ``size`` bytes of JSON with the parser that takes less memory."""
    left = _LEDGER.left()
    return left is not None and FAST_FACTOR * size + READ_BASE_MB * MEGABYTE > left


@contextlib.contextmanager
def let_go_after() -> Iterator[None]:
    """What the reports read inside the block hold is let go of when it ends (the sides of a
    comparison, once compared): no longer counted against the reports read after it."""
    held = _LEDGER.held
    try:
        yield
    finally:
        _LEDGER.held = held


def memory_bounded(path: str) -> contextlib.AbstractContextManager[None]:
    """Running out of memory while reading the report at ``path`` is the sentence of a report
    too large to read (exit 2), not a traceback: what was being read is let go of as the
    error leaves, so there is memory enough to say so. (A class, not a generator: it is
    entered for every case read.)"""
    return _MemoryBounded(path)


class _MemoryBounded(contextlib.AbstractContextManager[None]):
    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: object
    ) -> None:
        if kind is None or not issubclass(kind, MemoryError):
            return
        del error, trace
        path, size = self.path, 0
        with contextlib.suppress(OSError):
            size = os.path.getsize(path)
        left = None
        with contextlib.suppress(InvalidInputError, MemoryError):
            left = memory_left()
        raise too_large_to_read(path, size, left) from None
