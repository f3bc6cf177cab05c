"""A comparison's lists as the renderers read them, never materialized (issue 43): the
``ComparisonView``'s changes of each class and its unmatched ids are ``Shown`` sequences over
the comparison's own lists (``comparison.spool.Listed``, in memory or spooled), each item
made when a renderer reads it (the capped lists read their first few); ``Units`` finds the
unit of an attempt, and whether a case is listed, by a sorted index of 64-bit hashes
(16 bytes a unit) instead of a dictionary of every item. Pure: the lists are read as
sequences, nothing here opens a file."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Generic, TypeVar, overload

from goldgate.comparison.models import Finding, SuiteComparison, finding_change
from goldgate.comparison.spool import Listed
from goldgate.render.view import ChangeItem

__all__ = ["Part", "Shown", "Units", "findings_part", "ids_part", "items_part"]

T = TypeVar("T")


@dataclass(frozen=True)
class Part(Generic[T]):
    """A run of a ``Shown`` sequence: how many, the item at a place, every item in order."""

    size: int
    at: Callable[[int], T]
    each: Callable[[], Iterator[T]]


def items_part(items: Sequence[T]) -> Part[T]:
    """Items already made (a few: whole suites on one side only)."""
    return Part(len(items), items.__getitem__, lambda: iter(items))


def findings_part(
    findings: Listed[Finding], changes: Sequence[str], make: Callable[[Finding], T]
) -> Part[T]:
    """A suite's findings of the classes ``changes``, in the comparison's order, made into
    what is shown by ``make`` when read."""
    places = findings.places(finding_change)
    wanted = [places[change] for change in changes if change in places]
    picked: Sequence[int] = wanted[0] if len(wanted) == 1 else array("Q", sorted(chain(*wanted)))
    return Part(
        len(picked),
        lambda place: make(findings[picked[place]]),
        lambda: (make(findings[place]) for place in picked),
    )


def ids_part(ids: Listed[str], make: Callable[[str], T]) -> Part[T]:
    """A suite's unmatched ids, each made into what is shown by ``make`` when read."""
    return Part(len(ids), lambda place: make(ids[place]), lambda: map(make, ids))


class Shown(Sequence[T]):
    """A read-only sequence of parts, each item made when it is read."""

    __slots__ = ("_parts", "_size")

    def __init__(self, parts: Sequence[Part[T]]) -> None:
        self._parts = tuple(part for part in parts if part.size)
        self._size = sum(part.size for part in self._parts)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self[place] for place in range(*index.indices(self._size)))
        place = index + self._size if index < 0 else index
        if not 0 <= place < self._size:
            raise IndexError("index out of range")
        for part in self._parts:
            if place < part.size:
                return part.at(place)
            place -= part.size
        raise IndexError("index out of range")  # pragma: no cover - the sizes add up

    def __iter__(self) -> Iterator[T]:
        return chain.from_iterable(part.each() for part in self._parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(self._size)

    def __repr__(self) -> str:
        return f"Shown({self._size} items)"


def _hash(*key: object) -> int:
    return hash(key)


@dataclass(frozen=True)
class _Index:
    """Each finding's unit and case as 64-bit hashes, sorted, beside where it is."""

    units: array[int]
    where: array[int]
    cases: array[int]


def _index(suites: Sequence[SuiteComparison]) -> _Index:
    units: array[int] = array("q")
    cases: array[int] = array("q")
    where: array[int] = array("Q")
    for number, suite in enumerate(suites):
        for place, finding in enumerate(suite.findings):
            units.append(_hash(suite.name, finding.case_id, finding.attempt))
            cases.append(_hash(suite.name, finding.case_id))
            where.append(number << _PLACE_BITS | place)
    order = sorted(range(len(units)), key=units.__getitem__)
    return _Index(
        array("q", (units[place] for place in order)),
        array("Q", (where[place] for place in order)),
        array("q", sorted(cases)),
    )


def _same(mine: Sequence[object], theirs: Sequence[object]) -> bool:
    return len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs, strict=True))


_PLACE_BITS = 40
_LAST: list[tuple[tuple[SuiteComparison, ...], _Index]] = []
"""The index of the last comparison's suites: a pass looks its cases up, then the view made
after the pass its units, in the same comparison."""


class Units:
    """The findings of a comparison's suites, found by unit (suite, case id, attempt) and by
    case (suite, case id): each a 64-bit hash in a sorted array beside where its finding is
    (16 bytes a finding), the finding read again (and its key checked) when one is found.
    The index is made on first use."""

    def __init__(
        self, suites: Sequence[SuiteComparison], make: Callable[[str, Finding], ChangeItem]
    ) -> None:
        self._suites = tuple(suites)
        self._make = make
        self._found: _Index | None = None

    def _index(self) -> _Index:
        found = self._found
        if found is None:  # shared with the last Units of the same suites, then kept here
            if not (_LAST and _same(_LAST[0][0], self._suites)):
                _LAST[:] = [(self._suites, _index(self._suites))]
            found = self._found = _LAST[0][1]
        return found

    def change_of(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        """The finding of the unit (suite, case id, attempt), or None."""
        return self._unit(self._index(), suite, case_id, attempt)

    def attempt_or_case(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        """The finding of the unit (suite, case id, attempt), else of its case as the unit
        (attempt 0), or None: one look-up where the case has no finding (most cases)."""
        index = self._index()
        cases, hashed = index.cases, _hash(suite, case_id)
        place = bisect_left(cases, hashed)
        if place == len(cases) or cases[place] != hashed:
            return None
        found = self._unit(index, suite, case_id, attempt)
        return found or self._unit(index, suite, case_id, 0)

    def _unit(self, index: _Index, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        key = _hash(suite, case_id, attempt)
        for place in range(bisect_left(index.units, key), len(index.units)):
            if index.units[place] != key:
                break
            where = index.where[place]
            found = self._suites[where >> _PLACE_BITS]
            finding = found.findings[where & ((1 << _PLACE_BITS) - 1)]
            if found.name == suite and (finding.case_id, finding.attempt) == (case_id, attempt):
                return self._make(suite, finding)
        return None

    def __contains__(self, key: object) -> bool:
        """Whether a (suite, case id) has a finding (a hash's match: the locations a pass
        looks up for these cases are only ever read for the cases listed)."""
        if not isinstance(key, tuple):
            return False
        cases, hashed = self._index().cases, _hash(*key)
        place = bisect_left(cases, hashed)
        return place < len(cases) and cases[place] == hashed
