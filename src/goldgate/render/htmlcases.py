"""The HTML page's case table: every attempt as one compact row of JSON, for the page's
script to filter, sort and show (``render.html`` embeds it, escaped, in a
``<script type="application/json">``).

A row is a list, not an object, so that 10,000 attempts cost a few hundred kilobytes:
``[suite, label, outcome, split, latency_ms, reason, change, source, line, detail]`` (and,
with a comparison, what flipped for a row that changed), where suite, outcome, split,
change and source are indexes into the lists beside the rows (``-1``: none) and detail
indexes ``details``, the checks of the attempts that did not pass (``-1`` for one that
passed and did not change). Everything in it went through ``text`` (one line, redacted, bounded);
the script writes it with ``textContent`` only, so no value is ever markup.

With ``values`` a failing check also carries its expected and actual values (never for a
held-out case), and where both are strings, their difference, word by word (``difflib``).
"""

from __future__ import annotations

import difflib
import math
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from goldgate.gold.splits import is_holdout
from goldgate.render import text
from goldgate.render.fanout import BaseSink
from goldgate.render.view import AttemptItem, ComparisonView, Location, SuiteView, classify
from goldgate.report.caserecords import CaseRecord
from goldgate.report.passing import PassingCase

OUTCOMES = (
    "runtime failure",
    "timed out",
    "check error",
    "failed",
    "cancelled",
    "skipped",
    "awaiting verdict",
    "passed",
)
"""Every outcome a row can have, most severe first: the table sorts by this order."""

VALUE_LIMIT = 400
"""Characters of an expected or actual value the page shows."""
DIFF_CELLS = 10_000
"""The largest middle (words of one side times the other's) compared word by word; a longer
one is shown as removed and added whole, so that a page of many long values still renders
in a moment."""

Diff = list[list[Any]]
"""``[[op, text], ...]``: op 0 in both, -1 in expected only, 1 in actual only."""


def outcome(item: AttemptItem) -> str:
    """The row's outcome: its problem in words, or whether a check awaits a person."""
    problem = item.problem
    if problem == "runtime":
        return "timed out" if item.status == "timed_out" else "runtime failure"
    if problem is None:
        waiting = any(
            check.outcome == "not_run" and check.adjudication for check in item.record.checks
        )
        return "awaiting verdict" if waiting else "passed"
    return {
        "failure": "failed",
        "check_error": "check error",
        "cancelled": "cancelled",
        "skipped": "skipped",
    }[problem]


_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")


def diff(expected: str, actual: str) -> Diff:
    """How ``actual`` differs from ``expected``, word by word (a word, a run of spaces or a
    punctuation mark at a time), so that a different word reads as one replaced, not as
    letters that happen to match. The common start and end are set aside first."""
    old, new = _TOKENS.findall(expected), _TOKENS.findall(actual)
    start = 0
    shortest = min(len(old), len(new))
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[-1 - end] == new[-1 - end]:
        end += 1
    middle_old, middle_new = old[start : len(old) - end], new[start : len(new) - end]
    ops: Diff = [[0, "".join(old[:start])]] if start else []
    if len(middle_old) * len(middle_new) <= DIFF_CELLS:
        matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                ops.append([0, "".join(middle_old[i1:i2])])
                continue
            if i2 > i1:
                ops.append([-1, "".join(middle_old[i1:i2])])
            if j2 > j1:
                ops.append([1, "".join(middle_new[j1:j2])])
    else:
        ops += [[op, "".join(part)] for op, part in ((-1, middle_old), (1, middle_new)) if part]
    if end:
        ops.append([0, "".join(old[len(old) - end :])])
    return _joined(ops)


def _joined(ops: Diff) -> Diff:
    """``ops`` with each run of changes as one removal and one addition: a space kept
    between two changed words is part of the change, which then reads as one phrase."""
    joined: Diff = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        if removed:
            joined.append([-1, "".join(removed)])
        if added:
            joined.append([1, "".join(added)])
        removed.clear()
        added.clear()

    for index, (op, part) in enumerate(ops):
        between = 0 < index < len(ops) - 1 and ops[index - 1][0] and ops[index + 1][0]
        if op == 0 and not (between and part.isspace()):
            flush()
            joined.append([0, part])
            continue
        if op <= 0:
            removed.append(part)
        if op >= 0:
            added.append(part)
    flush()
    return joined


def _check_detail(item: AttemptItem, values: bool) -> list[list[Any]]:
    """Each check of ``item`` that did not pass: ``[name, outcome, reason]``, and with
    ``values`` (not held out) ``expected, actual, diff`` (``diff`` null unless both are
    strings)."""
    record = item.record
    if record.status != "completed":
        reason = text.one_line(item.reason)
        return [["(the attempt)", item.status, reason]]
    shown = []
    for check in item.checks(("failed", "error", "not_run")):
        entry: list[Any] = [text.name(check.name), check.outcome, text.one_line(check.reason or "")]
        if values and not item.holdout:
            expected, actual = check.expected, check.actual
            both = isinstance(expected, str) and isinstance(actual, str) and check.actual_present
            if both:
                old = text.one_line(expected, VALUE_LIMIT)
                new = text.one_line(actual, VALUE_LIMIT)
                entry += [old, new, diff(old, new)]
            else:
                entry += [
                    text.json_value(expected, True, VALUE_LIMIT),
                    text.json_value(actual, check.actual_present, VALUE_LIMIT),
                    None,
                ]
        shown.append(entry)
    return shown


@dataclass
class _Index:
    """Names of one column, each stored once and referred to by its position."""

    names: list[str] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)

    def of(self, name: str | None) -> int:
        if name is None:
            return -1
        found = self.positions.get(name)
        if found is None:
            found = self.positions[name] = len(self.names)
            self.names.append(name)
        return found


def _latency(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


@dataclass(frozen=True, slots=True)
class _Row:
    """What a row of the table says of its attempt besides its outcome and detail."""

    suite: str
    case_id: str
    label: str
    attempt: int
    split: str | None
    latency_ms: float | None
    location: Location


class CaseTableSink(BaseSink):
    """The case table (see the module) as a pass over the cases meets them: each row and
    each detail as JSON, escaped for the page, to its own spool (``rows``, ``details``: the
    caller's writes, each piece after the first led by a comma); the column names, how many
    rows, which outcomes occur, each suite's latencies (for its histogram) and the held-out
    cases its adjudication queue names are kept."""

    def __init__(
        self,
        comparison: ComparisonView | None,
        values: bool,
        rows: Callable[[str], object],
        details: Callable[[str], object],
    ) -> None:
        self._comparison, self.values = comparison, values
        self._rows, self._details = rows, details
        self.suites, self.splits, self.changes, self.sources = (
            _Index(),
            _Index(),
            _Index(),
            _Index(),
        )
        self.outcomes = _Index(list(OUTCOMES), {name: i for i, name in enumerate(OUTCOMES)})
        self.row_count = 0
        self.detail_count = 0
        self.present: set[int] = set()
        self.latencies: dict[str, array[float]] = {}
        self.held: dict[str, set[str]] = {}
        self._queued: frozenset[str] = frozenset()
        self._shown: dict[str | None, str | None] = {}
        """Each suite's name, source and split as ``text`` writes them, made once."""

    def suite(self, suite: SuiteView) -> None:
        record = suite.record
        self.latencies.setdefault(record.name, array("d"))
        self.held.setdefault(record.name, set())
        self._queued = frozenset(entry.case for entry in record.adjudication_queue)
        self._shown.clear()

    def _named(self, value: str | None) -> str | None:
        """The module's ``_named(value)``, each distinct value made once a suite (a suite's
        rows share a name, a source and a few splits)."""
        try:
            return self._shown[value]
        except KeyError:
            if len(self._shown) >= 1024:  # splits as many as the cases: kept bounded
                self._shown.clear()
            shown = self._shown[value] = _named(value)
            return shown

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        record = suite.record
        if case.id in self._queued and is_holdout(case.split):
            self.held[record.name].add(case.id)
        location = Location(record.cases_source, case.line)
        latencies = self.latencies[record.name]
        for attempt in case.attempts:
            if attempt.latency_ms is not None:
                latencies.append(attempt.latency_ms)
            problem = classify(attempt)
            item = AttemptItem(record.name, case, attempt, record.repeat, problem, location)
            self._row(item)

    def _detail(self, checks: list[Any]) -> int:
        self._details(("," if self.detail_count else "") + escaped_json(checks))
        self.detail_count += 1
        return self.detail_count - 1

    takes_passing = True

    def passing(self, suite: SuiteView, case: PassingCase) -> None:
        """``case`` for a case every attempt of which passed: the same rows, from what its
        bytes say (``report.passing``)."""
        record = suite.record
        if case.id in self._queued and is_holdout(case.split):
            self.held[record.name].add(case.id)
        latencies = self.latencies[record.name]
        location = Location(record.cases_source, case.line)
        for attempt, latency_ms, waiting in case.attempts:
            if latency_ms is not None:
                latencies.append(latency_ms)
            label = f"{case.id}#{attempt}" if record.repeat > 1 else case.id
            shown = "awaiting verdict" if waiting else "passed"
            row = _Row(record.name, case.id, label, attempt, case.split, latency_ms, location)
            self._put(row, shown, -1, "")  # a passing attempt's reason: none

    def _row(self, item: AttemptItem) -> None:
        shown = outcome(item)
        detail = -1
        if shown not in ("passed", "awaiting verdict"):
            detail = self._detail(_check_detail(item, self.values))
        row = _Row(
            item.suite,
            item.case_id,
            item.label,
            item.attempt,
            item.case.split,
            item.record.latency_ms,
            item.location,
        )
        self._put(row, shown, detail, item.reason)

    def _put(self, row: _Row, shown: str, detail: int, reason: str) -> None:
        """The row of an attempt shown as ``shown``, with its checks' detail (-1: none)."""
        found = None
        if self._comparison is not None:
            found = self._comparison.change_of(row.suite, row.case_id, row.attempt)
        if found is not None and detail == -1:  # a row that changed always opens
            detail = self._detail([])
        shown_at = self.outcomes.of(shown)
        self.present.add(shown_at)
        cells = [
            self.suites.of(self._named(row.suite)),
            text.name(row.label),
            shown_at,
            self.splits.of(self._named(row.split)),
            _latency(row.latency_ms),
            text.one_line(reason) if detail != -1 else "",
            -1 if found is None else self.changes.of(found.change),
            self.sources.of(self._named(row.location.source)),
            row.location.line,
            detail,
        ]
        if found is not None:
            cells.append(text.one_line(found.detail))
        self._rows(("," if self.row_count else "") + escaped_json(cells))
        self.row_count += 1

    def names(self) -> dict[str, list[str]]:
        """The columns' names, as the page's filters list them."""
        return {
            "suites": self.suites.names,
            "outcomes": self.outcomes.names,
            "splits": self.splits.names,
            "changes": self.changes.names,
            "sources": self.sources.names,
        }

    def assemble(
        self, write: Callable[[str], object], rows: Callable[[], None], details: Callable[[], None]
    ) -> None:
        """The table's JSON, escaped, to ``write``: ``rows()`` and ``details()`` copy the
        spooled rows and details in order."""
        head = escaped_json(self.names())
        write(head[:-1] + ',"rows":[')
        rows()
        write('],"details":[')
        details()
        write('],"values":' + escaped_json(self.values) + "}")


_JSON_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))


def escaped_json(data: Any) -> str:
    """``data`` as JSON with ``<``, ``>`` and ``&`` escaped: text that ends no script."""
    encoded = orjson.dumps(data)
    for raw, escaped in _JSON_ESCAPES:
        encoded = encoded.replace(raw, escaped)
    return encoded.decode("utf-8")


def _named(value: str | None) -> str | None:
    return None if value is None else text.name(value)
