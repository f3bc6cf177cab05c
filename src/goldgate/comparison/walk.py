"""A suite's candidate and baseline cases walked together, in one pass, as the comparison
meets them (issue 43). Pure but for reading each side's cases (``SuiteSide.raw``).

Where no id repeats on either side (``SuiteSide.repeats``), the two sides are walked place
by place: the candidate's case and the baseline's case at the same place, each read once,
are paired right there when their ids are the same (the usual case: the same gold, the same
order), and no index of cases is made. At the first place where the ids differ, the rest of
the baseline's suite is indexed by id (``CaseKeys``: its ids, input and gold digests and
attempts' counts, about ``opened.KEY_BYTES`` a case, from one pass over those cases) and the
rest of the candidate's cases are looked up in it; the baseline's cases it holds that no
candidate case matched are the removed ones. Where an id may repeat, both sides are indexed
first and a case is paired with the last baseline case of its id, as a mapping by id has it.
Either way the pairs, the added, removed and input-changed cases are those of matching every
candidate case by id.

Without ``--partial`` (``full``), what makes the suites incomparable (another id at a place,
a case on one side only, an input or gold that differs) is refused where the walk finds it;
so is a case without an input (a report written without details).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

from goldgate.comparison.opened import CaseKeys, SuiteSide
from goldgate.comparison.refusals import (
    no_details,
    one_side_only,
    other_case,
    other_gold,
    other_input,
    require_same_cases,
)
from goldgate.comparison.sides import CaseKey, CaseSide, same_expectations, same_gold, same_input

__all__ = ["Met", "SuiteWalk"]

SIDE_BY_SIDE: Final = True
"""Walk the sides place by place where no id repeats (tests set it off: every suite then
takes the indexed way, which pairs the same cases)."""


def _details(side: SuiteSide, case_id: str, present: bool) -> None:
    """A case without an input (``present`` False: its report written without details)
    refused."""
    if not present:
        raise no_details(side.label, side.path, side.name, case_id)


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(frozen=True)
class Met:
    """A candidate case as the walk meets it, in the candidate's order: added (no baseline
    case of its id), its input changed (not compared), or compared with ``before`` (its
    baseline case, with its results where ``rescored``: its gold differs)."""

    id: str
    attempts: int
    change: Literal["added", "input changed", "compared"]
    case: CaseSide | None = None
    before: CaseSide | None = None
    rescored: bool = False


class SuiteWalk:
    """The walk of one pair of suites: iterate it for the candidate's cases (``Met``); each
    baseline id no candidate case matched goes to ``removed`` as it is found, in the
    baseline's order (the comparison's spooled list: never held here). Once it is done, the
    removed cases' attempts and the candidate's attempts."""

    def __init__(
        self,
        candidate: SuiteSide,
        baseline: SuiteSide,
        *,
        full: bool,
        removed: Callable[[str], object],
    ) -> None:
        self.candidate, self.baseline, self.full = candidate, baseline, full
        self.removed = removed
        self.removed_attempts = 0
        self.attempts = 0

    def __iter__(self) -> Iterator[Met]:
        now, before = self.candidate, self.baseline
        walk = (
            self._side_by_side()
            if SIDE_BY_SIDE and not (now.repeats or before.repeats)
            else self._indexed()
        )
        for met in walk:
            self.attempts += met.attempts
            yield met

    # --- place by place -------------------------------------------------------------------

    def _side_by_side(self) -> Iterator[Met]:
        now, before = self.candidate, self.baseline
        for place in range(min(now.count, before.count)):
            raw, other = now.raw(place), before.raw(place)
            now_id, before_id = now.case_id(raw, place), before.case_id(other, place)
            if now_id != before_id:
                if self.full:
                    raise other_case(now.name, place + 1, now_id, before_id)
                yield from self._rest(place, raw)
                return
            yield self._pair(place, raw, other)
        if now.count > before.count:
            for place in range(before.count, now.count):
                key = self._key(now, now.raw(place), place)
                if self.full:
                    raise one_side_only(now.name, key.id, "candidate")
                yield Met(key.id, key.attempts, "added")
        for place in range(now.count, before.count):
            key = self._key(before, before.raw(place), place)
            if self.full:
                raise one_side_only(now.name, key.id, "baseline")
            self._remove(key.id, key.attempts)

    def _pair(self, place: int, raw: Any, other: Any) -> Met:
        """The candidate's case ``raw`` and the baseline's ``other``, both at ``place``, of
        the same id."""
        now, before = self.candidate, self.baseline
        case = now.reduced(raw, place)
        _details(now, case.id, case.input is not None)
        # The same gold, as most pairs have, written alike: its expectations reduced once.
        identical = same_expectations(raw, other)
        was = before.reduced(other, place, like=case if identical else None)
        _details(before, was.id, was.input is not None)
        attempts = len(case.attempts)
        if not same_input(case.input, was.input):
            if self.full:
                mine, theirs = case.input_key(), was.input_key()
                raise other_input(now.name, case.id, _sha256(mine), _sha256(theirs))
            return Met(case.id, attempts, "input changed")
        rescored = not (identical or same_gold(raw, other))
        if rescored:
            if self.full:
                raise other_gold(now.name, case, was)
            was = before.reduced(other, place, keep=True)
        return Met(case.id, attempts, "compared", case, was, rescored)

    def _rest(self, start: int, first: Any) -> Iterator[Met]:
        """The candidate's cases from ``start`` on (``first`` the one there), looked up in an
        index of the baseline's cases from ``start`` on (no id repeats on either side: a
        candidate case from there matches none before it)."""
        now, before = self.candidate, self.baseline
        rest = self._indexed_side(before, start)
        matched = bytearray(len(rest))
        for place in range(start, now.count):
            raw = first if place == start else now.raw(place)
            key = self._key(now, raw, place)
            found = rest.place(key.id, place - start)
            if found is None:
                yield Met(key.id, key.attempts, "added")
                continue
            matched[found] = 1
            yield self._keyed_pair(place, raw, key, rest, found=found, start=start)
        for found, taken in enumerate(matched):
            if not taken:
                self._remove(rest.ids[found], rest.attempts[found])

    # --- by an index of ids ----------------------------------------------------------------

    def _indexed(self) -> Iterator[Met]:
        """Both sides indexed, then every candidate case paired with the last baseline case
        of its id."""
        now, before = self.candidate, self.baseline
        now_keys = self._indexed_side(now, 0)
        before_keys = self._indexed_side(before, 0)
        if self.full:
            require_same_cases(now, before, now_keys, before_keys)
        for place, case_id in enumerate(now_keys.ids):
            found = before_keys.place(case_id, place)
            if found is None:
                yield Met(case_id, now_keys.attempts[place], "added")
                continue
            key = now_keys.key(place)
            yield self._keyed_pair(place, None, key, before_keys, found=found, start=0)
        now_ids = set(now_keys.ids)
        for place, case_id in enumerate(before_keys.ids):
            if case_id not in now_ids:
                self._remove(case_id, before_keys.attempts[place])

    def _keyed_pair(
        self,
        place: int,
        raw: Any,
        key: CaseKey | tuple[str, bytes, bytes, int],
        keys: CaseKeys,
        *,
        found: int,
        start: int,
    ) -> Met:
        """The candidate's case at ``place`` (``raw`` where read already, and its key: id,
        input and gold digests, attempts) with the baseline's case ``found`` of ``keys``
        (whose first is the baseline's case ``start``)."""
        now, before = self.candidate, self.baseline
        case_id, input_digest, gold_digest, attempts = key
        if isinstance(key, CaseKey):
            input_digest, gold_digest = _sha256(key.input_key), _sha256(key.gold_key)
        if input_digest != keys.input_digest(found):
            return Met(case_id, attempts, "input changed")
        rescored = gold_digest != keys.gold_digest(found)
        case = now.case(place) if raw is None else now.reduced(raw, place)
        was = before.case(start + found, keep=rescored)
        return Met(case_id, attempts, "compared", case, was, rescored)

    def _indexed_side(self, side: SuiteSide, start: int) -> CaseKeys:
        """``side``'s cases from ``start`` on, indexed; a case without input refused."""
        keys = side.keys(start)
        for place, case_id in enumerate(keys.ids):
            if not keys.has_input(place):
                raise no_details(side.label, side.path, side.name, case_id)
        return keys

    # --- what both ways share --------------------------------------------------------------

    def _key(self, side: SuiteSide, raw: Any, place: int) -> CaseKey:
        key = side.key(raw, place)
        _details(side, key.id, bool(key.input_key))
        return key

    def _remove(self, case_id: str, attempts: int) -> None:
        self.removed(case_id)
        self.removed_attempts += attempts


def unpaired_attempts(suite: SuiteSide | None) -> int:
    """The attempts of a suite the other side does not have (``--partial``), its cases read
    once (a case without an input refused, as in a suite compared)."""
    total = 0
    for place in range(0 if suite is None else suite.count):
        assert suite is not None
        key = suite.key(suite.raw(place), place)
        _details(suite, key.id, bool(key.input_key))
        total += key.attempts
    return total
