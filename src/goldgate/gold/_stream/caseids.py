"""A streamed case file's ids, held as bytes: a run keeps them from the check to its end, in
its own process and in the report process forked from it.

Each id is kept as its UTF-8 bytes, one after the other, with where each ends: about 18 bytes
a case for an id of ten characters, where a list of strings holds about 67 (50 MB less at
1,000,000 cases, in each process). While the file is checked, an index of the ids' hashes
finds a repeated id (24 to 40 bytes a case, where a set of the id strings held about 100:
at 1,000,000 cases, some 100 MB at the check's peak, which a run's processes kept as their
high-water mark); it is dropped once the check is done (``seal``). An id is made again, from
its bytes, only when asked for (a shard's choice, a metric's cases, a case read back).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

__all__ = ["CaseIds"]

_FIRST_SLOTS = 8


class CaseIds(Sequence[str]):
    """Each case's id, in file order (see the module's description)."""

    __slots__ = ("_ends", "_hashes", "_slots", "_text")

    def __init__(self) -> None:
        self._text = bytearray()
        self._ends = array("q")
        self._hashes: array[int] | None = array("q")
        """Each id's ``hash``, while indexed."""
        self._slots = array("q", bytes(8 * _FIRST_SLOTS))
        """Open addressing over the hashes: each slot 0 or an id's position plus one."""

    def append(self, case_id: str) -> None:
        self._text += case_id.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._text))
        hashes = self._hashes
        if hashes is None:
            return
        hashes.append(hash(case_id))
        if 2 * len(hashes) > len(self._slots):
            self._slots = array("q", bytes(8 * 2 * len(self._slots)))
            for position in range(len(hashes)):
                self._place(position)
        else:
            self._place(len(hashes) - 1)

    def _place(self, position: int) -> None:
        assert self._hashes is not None
        slots = self._slots
        mask = len(slots) - 1
        slot = self._hashes[position] & mask
        while slots[slot]:
            slot = (slot + 1) & mask
        slots[slot] = position + 1

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        hashes = self._hashes
        if hashes is None:  # sealed: no run asks, so no index is kept for it
            return any(value == case_id for case_id in self)
        wanted = hash(value)
        slots = self._slots
        mask = len(slots) - 1
        slot = wanted & mask
        while found := slots[slot]:
            if hashes[found - 1] == wanted and self._at(found - 1) == value:
                return True
            slot = (slot + 1) & mask
        return False

    def seal(self) -> None:
        """The check is done: the index that finds a repeated id is let go."""
        self._hashes = None
        self._slots = array("q")

    def __len__(self) -> int:
        return len(self._ends)

    def _at(self, index: int) -> str:
        start = self._ends[index - 1] if index else 0
        return self._text[start : self._ends[index]].decode("utf-8", "surrogatepass")

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._at(index)

    def __iter__(self) -> Iterator[str]:
        text, start = self._text, 0
        for end in self._ends:
            yield text[start:end].decode("utf-8", "surrogatepass")
            start = end
