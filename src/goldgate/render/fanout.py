"""One pass over a report's cases, fed to every renderer at once (issue 43).

A report read as a stream (``report.streamread``) hands out its cases one at a time; the
renderers need different things from them: the problem counts, the first few problems of
each kind (Markdown, annotations, the terminal), the check run's annotations by severity,
where the compared cases are written, JUnit's testcases, the HTML page's rows. Each is a
``CaseSink``; ``feed`` walks the suites and their cases once and hands each case to every
sink, so that what is kept is each sink's own bounded part, never the list of cases.

``Collected`` (what ``ProblemSink`` keeps) stands in a ``ReportView`` for the cases: the
counts ``ReportView.counts`` gives and, per problem kind, the first ``cap`` attempts in
case-major order, which is all a renderer that lists at most ``cap`` of them reads.
Pure: nothing here reads or writes anything.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import ClassVar, Protocol

from goldgate.render.view import (
    AttemptItem,
    Collected,
    Location,
    Problem,
    SuiteView,
    classify,
)
from goldgate.report.caserecords import CaseRecord
from goldgate.report.passing import PassingCase
from goldgate.report.records import SuiteRecord

__all__ = [
    "BaseSink",
    "CaseSink",
    "LatencySink",
    "LocationSink",
    "Locations",
    "ProblemSink",
    "baseline_latencies",
    "feed",
    "takes_passing",
    "whole",
]

PROBLEMS: tuple[Problem, ...] = ("runtime", "check_error", "failure", "cancelled", "skipped")


class CaseSink(Protocol):
    """What one renderer takes from a pass over the cases: each suite as it starts, each of
    its cases in order, the suite's end, and the end of the report. A sink that
    ``takes_passing`` is handed a case whose every attempt passed as a ``PassingCase``
    (``passing``), its record not validated: what it makes of it is what ``case`` makes of
    the record."""

    takes_passing: ClassVar[bool]

    def suite(self, suite: SuiteView) -> None: ...

    def case(self, suite: SuiteView, case: CaseRecord) -> None: ...

    def passing(self, suite: SuiteView, case: PassingCase) -> None: ...

    def suite_end(self, suite: SuiteView) -> None: ...

    def end(self) -> None: ...


def takes_passing(sinks: Sequence[CaseSink]) -> bool:
    """Whether every one of ``sinks`` takes a passing case as a ``PassingCase``: then the
    cases fed to them may be (``report.streamread.StreamedReport.cases_or_passing``)."""
    return all(sink.takes_passing for sink in sinks)


def feed(
    suites: Iterable[tuple[SuiteView, Iterable[CaseRecord | PassingCase]]],
    sinks: Sequence[CaseSink],
) -> None:
    """Every suite of ``suites`` and each of its cases, once, to every sink in turn; a
    ``PassingCase`` only where every sink ``takes_passing``."""
    for view, cases in suites:
        for sink in sinks:
            sink.suite(view)
        for case in cases:
            if type(case) is PassingCase:
                for sink in sinks:
                    sink.passing(view, case)
            else:
                assert not isinstance(case, PassingCase)
                for sink in sinks:
                    sink.case(view, case)
        for sink in sinks:
            sink.suite_end(view)
    for sink in sinks:
        sink.end()


def whole(suites: Sequence[SuiteView]) -> Iterator[tuple[SuiteView, Iterable[CaseRecord]]]:
    """The suites of a report held whole, with their own cases, for ``feed``."""
    for suite in suites:
        yield suite, suite.record.cases


class BaseSink:
    """A sink that ignores what it is not interested in (and is handed every case's
    record: ``takes_passing`` False)."""

    takes_passing: ClassVar[bool] = False

    def suite(self, suite: SuiteView) -> None:
        return None

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        return None

    def passing(self, suite: SuiteView, case: PassingCase) -> None:
        raise TypeError(f"{type(self).__name__} takes every case's record")

    def suite_end(self, suite: SuiteView) -> None:
        return None

    def end(self) -> None:
        return None


class ProblemSink(BaseSink):
    """Counts every attempt by its problem and keeps the first ``cap`` of each kind."""

    def __init__(self, cap: int) -> None:
        self.cap = max(cap, 0)
        self._counts: dict[str, int] = dict.fromkeys(PROBLEMS, 0)
        self._passed = 0
        self._items: dict[str, list[tuple[int, AttemptItem]]] = {kind: [] for kind in PROBLEMS}
        self._place = 0
        self.collected: Collected | None = None

    takes_passing = True

    def passing(self, suite: SuiteView, case: PassingCase) -> None:
        self._place += len(case.attempts)
        self._passed += len(case.attempts)

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        record = suite.record
        location: Location | None = None
        for attempt in case.attempts:
            problem = classify(attempt)
            self._place += 1
            if problem is None:
                self._passed += 1
                continue
            self._counts[problem] += 1
            kept = self._items[problem]
            if len(kept) < self.cap:
                location = location or Location(record.cases_source, case.line)
                item = AttemptItem(record.name, case, attempt, record.repeat, problem, location)
                kept.append((self._place, item))

    def end(self) -> None:
        counts: dict[str, int] = {**self._counts, "passed": self._passed}
        self.collected = Collected(counts, self.cap, self._items)


class LocationSink(BaseSink):
    """Where each of ``wanted`` (suite name, case id) is written: only the cases a
    comparison lists, never every case, and of those 16 bytes each (``Locations``)."""

    def __init__(self, wanted: Container[tuple[str, str]]) -> None:
        self._wanted = wanted
        self.locations = Locations()

    takes_passing = True

    def case(self, suite: SuiteView, case: CaseRecord | PassingCase) -> None:
        record = suite.record
        key = (record.name, case.id)
        if key in self._wanted:
            self.locations.add(key, record.cases_source, case.line)

    passing = case


_LINE_BITS = 40
_FAR = (1 << _LINE_BITS) - 1


class Locations:
    """Where cases are written, by (suite name, case id): each case's key as a 64-bit hash
    in a sorted array beside its line and gold file's number (16 bytes a case; each file
    named once). A key is found by its hash, as ``render.changelists.Units`` finds whether a
    case is listed: only the cases added here are ever looked up. A key added twice is
    where it was added last, as in a dictionary."""

    def __init__(self) -> None:
        self._hashes: array[int] = array("q")
        self._places: array[int] = array("q")
        self._sources: dict[str | None, int] = {}
        self._named: list[str | None] = []
        self._far: dict[tuple[str, str], int] = {}
        """Lines past what 40 bits hold (none a real gold file has), by key."""
        self._sorted = True

    def __len__(self) -> int:
        return len(self._hashes)

    def add(self, key: tuple[str, str], source: str | None, line: int | None) -> None:
        number = self._sources.get(source)
        if number is None:
            number = self._sources[source] = len(self._named)
            self._named.append(source)
        stored = 0 if line is None else line + 1
        if not 0 <= stored < _FAR:
            self._far[key], stored = line or 0, _FAR
        self._hashes.append(hash(key))
        self._places.append(number << _LINE_BITS | stored)
        self._sorted = False

    def get(self, key: tuple[str, str], default: Location, /) -> Location:
        """Where the case ``key`` is written, or ``default`` where it was not added."""
        if not self._sorted:  # stable: a key added twice keeps its order
            order = sorted(range(len(self._hashes)), key=self._hashes.__getitem__)
            self._hashes = array("q", (self._hashes[place] for place in order))
            self._places = array("q", (self._places[place] for place in order))
            self._sorted = True
        hashed = hash(key)
        place = bisect_right(self._hashes, hashed) - 1
        if place < 0 or self._hashes[place] != hashed:
            return default
        packed = self._places[place]
        stored = packed & _FAR
        source = self._named[packed >> _LINE_BITS]
        if stored == _FAR:
            return Location(source, self._far[key])
        return Location(source, None if stored == 0 else stored - 1)


def baseline_latencies(suites: Iterable[SuiteRecord]) -> dict[str, array[float]]:
    """Each suite's latencies, of a report held whole: the baseline's side of the page's
    histograms."""
    sink = LatencySink()
    for suite in suites:
        sink.suite_cases(suite.name, suite.cases)
    return sink.latencies


class LatencySink(BaseSink):
    """Each suite's latencies as a pass over the cases meets them (the baseline's, which
    the page only needs for its histograms)."""

    def __init__(self) -> None:
        self.latencies: dict[str, array[float]] = {}

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        self.suite_cases(suite.record.name, (case,))

    def suite_cases(self, name: str, cases: Iterable[CaseRecord]) -> None:
        kept = self.latencies.setdefault(name, array("d"))
        for case in cases:
            kept.extend(a.latency_ms for a in case.attempts if a.latency_ms is not None)
