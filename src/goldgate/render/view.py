"""The view every renderer reads: a report (and, later, a comparison) in the terms CI shows.

A report is organised for storage (cases with their gold, attempts with what their gold does
not already say). Renderers need other cuts: each attempt's problem, if any; the check that
decided it; where its case is written; which suite figures decided the verdict. They are
made here once, cheaply (no pointer is resolved until a renderer asks for a value), so
JUnit, Markdown, annotations and the terminal agree on every word.

Comparison-dependent parts (regressions, improvements, flaky attempts, McNemar, partial
comparisons) are described by ``ComparisonView``: the minimal shape the renderers need.
When ``goldgate.comparison/1`` lands, one adapter builds a ``ComparisonView`` from it and
passes it as ``comparison``; nothing else changes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Protocol

from goldgate.base import english
from goldgate.base.textsafe import secret_values
from goldgate.gold.splits import is_holdout
from goldgate.render.deltas import McNemarItem, SuiteDelta
from goldgate.report.caserecords import actual_at
from goldgate.report.models import (
    AttemptRecord,
    CaseRecord,
    MetricResult,
    Report,
    SuiteRecord,
)
from goldgate.report.records import ThresholdRecord
from goldgate.scoring.evalscores import SCORE_COMPARISON, public_reason
from goldgate.scoring.outcomes import not_run_reason

if TYPE_CHECKING:  # annotations only: the figures a comparison holds, read as they are
    from goldgate.comparison.models import Figures, MetricDelta

Problem = Literal["runtime", "check_error", "failure", "cancelled", "skipped"]
"""What went wrong with one attempt, if anything, most severe first: a runtime failure (the
target failed or timed out), a check that could not run, gold disagreement, an attempt the
interrupted run never finished, an attempt of a suite that was not authorized."""

RUNTIME_STATUSES = frozenset({"failed", "timed_out"})


@dataclass(frozen=True)
class CheckItem:
    """A check that did not pass, with its values read from the report on request."""

    name: str
    outcome: str
    reason: str | None
    path: str
    expected: Any
    actual_present: bool
    actual: Any


@dataclass(frozen=True)
class Location:
    """Where a case is written: its gold file (as the report names it) and 1-based line."""

    source: str | None
    line: int | None


def repository_path(source: str | None, sources: Mapping[str, str | None] | None) -> str | None:
    """A gold file as the repository names it, for links and annotations: ``sources`` (the
    caller's map from the report's names to workspace-relative paths, made where files can
    be looked at) decides where given; otherwise the report's own name, when it is relative
    and inside (an absolute path or one that climbs out of the working folder names no file
    of the repository)."""
    if source is None:
        return None
    if sources is not None and source in sources:
        return sources[source]
    if source.startswith(("/", "..", "\\")) or ":" in source:
        return None
    return source.replace("\\", "/")


@dataclass(frozen=True)
class AttemptItem:
    """One attempt as CI shows it. ``problem`` is None for an attempt that passed (or whose
    only open checks wait for a person)."""

    suite: str
    case: CaseRecord
    record: AttemptRecord
    repeat: int
    problem: Problem | None
    location: Location

    @property
    def case_id(self) -> str:
        return self.case.id

    @property
    def attempt(self) -> int:
        return self.record.attempt

    @property
    def label(self) -> str:
        """The case id, with ``#n`` when the suite repeats its cases."""
        return f"{self.case.id}#{self.record.attempt}" if self.repeat > 1 else self.case.id

    @property
    def status(self) -> str:
        return self.record.status

    @property
    def holdout(self) -> bool:
        """Held-out gold never appears in what CI shows."""
        return is_holdout(self.case.split)

    @property
    def raised_at(self) -> str:
        """Where in the application its target raised (`` at app/x.py:12``; safe: a file
        and a line), or ''."""
        exception = self.record.exception
        where = exception.where if exception is not None else None
        if where is None:
            return ""
        line = f":{where.line}" if where.line is not None else ""
        return f" at {where.file}{line}"

    @property
    def failure(self) -> str:
        """A runtime failure's reason as recorded, with where its target raised."""
        record = self.record
        return (record.reason or record.status) + self.raised_at

    @property
    def reason(self) -> str:
        """One sentence: why the attempt did not complete, or its first failing check's."""
        record = self.record
        if record.status != "completed":
            return not_run_reason(record.status, record.reason) + self.raised_at
        first = self.deciding_check()
        return "" if first is None else f"{first.name}: {first.reason or first.outcome}"

    def deciding_check(self) -> CheckItem | None:
        """The check that gave the attempt its problem: its first check that could not run
        (a check error), else its first failed check."""
        checks = self.checks(("error", "failed"))
        errors = [check for check in checks if check.outcome == "error"]
        deciding = errors or checks
        return deciding[0] if deciding else None

    def checks(self, outcomes: Sequence[str] = ("failed", "error")) -> list[CheckItem]:
        """The attempt's checks whose outcome is in ``outcomes``, in gold order; actual
        values are resolved from the result document only here."""
        items = []
        for expectation, check in zip(self.case.expectations, self.record.checks, strict=False):
            if check.outcome in outcomes:
                present, actual = actual_at(self.record.result, expectation.path)
                reason = check.reason
                if reason is not None and expectation.comparison == SCORE_COMPARISON:
                    reason = public_reason(reason)  # an eval author's message may hold values
                items.append(
                    CheckItem(
                        expectation.name,
                        check.outcome,
                        reason,
                        expectation.path,
                        expectation.expected,
                        present,
                        actual,
                    )
                )
        return items


def classify(record: AttemptRecord) -> Problem | None:
    """The attempt's problem, if any (see ``Problem``)."""
    status = record.status
    if status in RUNTIME_STATUSES:
        return "runtime"
    if status == "cancelled":
        return "cancelled"
    if status == "skipped":
        return "skipped"
    outcomes = {check.outcome for check in record.checks}
    if "error" in outcomes:
        return "check_error"
    if "failed" in outcomes:
        return "failure"
    return None


@dataclass(frozen=True)
class ThresholdItem:
    record: ThresholdRecord
    decided: bool
    """Whether this threshold decided the suite's verdict: a missed one that failed it, or
    (all held) every one of them, which passed it."""


@dataclass(frozen=True)
class SuiteView:
    record: SuiteRecord
    decided_by: str
    """What decided the suite's verdict, in a few words."""
    thresholds: tuple[ThresholdItem, ...]

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def metrics(self) -> tuple[MetricResult, ...]:
        return self.record.metrics

    def attempts(self) -> Iterator[AttemptItem]:
        """Every attempt of the suite in case-major order, classified."""
        suite = self.record
        for case in suite.cases:
            location = Location(suite.cases_source, case.line)
            for attempt in case.attempts:
                yield AttemptItem(
                    suite.name, case, attempt, suite.repeat, classify(attempt), location
                )

    def problems(
        self, kinds: Sequence[Problem], cases: Iterable[CaseRecord] | None = None
    ) -> Iterator[AttemptItem]:
        """The suite's attempts (of ``cases``, where given: cases of this suite read as a
        stream) whose problem is one of ``kinds``, in case-major order, without building an
        item for any other attempt."""
        suite = self.record
        wanted = frozenset(kinds)
        for case in suite.cases if cases is None else cases:
            location: Location | None = None
            for attempt in case.attempts:
                problem = classify(attempt)
                if problem in wanted:
                    location = location or Location(suite.cases_source, case.line)
                    yield AttemptItem(suite.name, case, attempt, suite.repeat, problem, location)


def _decided_by(suite: SuiteRecord) -> tuple[str, tuple[ThresholdItem, ...]]:
    if suite.status == "skipped":
        return "not run: skipped", ()
    if suite.verdict == "incomplete":
        return "the run was interrupted", ()
    if suite.verdict == "error":
        runtime = suite.counts.attempts.get("failed", 0) + suite.counts.attempts.get("timed_out", 0)
        return english.count(runtime, "runtime failure"), ()
    errors = suite.counts.checks.get("error", 0)
    if suite.thresholds and errors and all(t.held for t in suite.thresholds):
        items = tuple(ThresholdItem(t, False) for t in suite.thresholds)
        return f"{english.count(errors, 'check error')} (thresholds never absorb one)", items
    if suite.thresholds:
        missed = [t for t in suite.thresholds if not t.held]
        if len(suite.thresholds) == 1:
            state = "missed" if missed else "held"
            return f"threshold: {state}", (ThresholdItem(suite.thresholds[0], True),)
        if missed:
            items = tuple(ThresholdItem(t, not t.held) for t in suite.thresholds)
            return f"thresholds: {len(missed)} of {len(suite.thresholds)} missed", items
        items = tuple(ThresholdItem(t, True) for t in suite.thresholds)
        return f"thresholds: all {len(suite.thresholds)} held", items
    failing = suite.counts.checks.get("failed", 0) + suite.counts.checks.get("error", 0)
    if failing:
        return f"every check must pass: {failing:,} did not", ()
    return "every check must pass: all did", ()


def suite_view(suite: SuiteRecord) -> SuiteView:
    decided_by, thresholds = _decided_by(suite)
    if not thresholds:
        thresholds = tuple(ThresholdItem(t, False) for t in suite.thresholds)
    return SuiteView(suite, decided_by, thresholds)


# --- comparison: the shape renderers need, filled by an adapter when comparisons land ----------


@dataclass(frozen=True)
class ChangeItem:
    """One unit of the comparison's one classification: an attempt (``attempt`` its number)
    or a whole case (``attempt`` 0: a case over its repeats, or one whose input changed)."""

    suite: str
    case_id: str
    attempt: int
    change: str
    """regressed, mixed, improved, flaky, gold changed or input changed."""
    detail: str = ""
    """One safe sentence: which checks changed, their pass counts and the test that decided."""
    location: Location = Location(None, None)


class UnitLookup(Protocol):
    """Finds the unit of the comparison's one classification an attempt belongs to."""

    def change_of(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None: ...

    def attempt_or_case(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        """The attempt's own unit's finding, else its case's (attempt 0) when the case is
        the unit."""
        ...


@dataclass(frozen=True)
class ComparisonView:
    """What a comparison adds to the view, read from its one classification: renderers
    decide nothing about regressions themselves. ``partial`` lists case ids that could not
    be compared because the pull request added or removed them or changed their input
    (``changed``: "input changed")."""

    baseline: str
    """How to name the baseline, e.g. its commit or report file."""
    baseline_report: tuple[str, str] | None = None
    """Where the baseline report was (its path as the comparison gives it) and the digest
    of its bytes: a renderer that draws the baseline's side too is given that report when
    it is still there with those bytes."""
    regressions: Sequence[ChangeItem] = ()
    """Regressed and mixed units: what ``--fail-on-regression`` fails on. These lists are
    read as sequences (``render.changelists``: made as they are read, never held whole)."""
    improvements: Sequence[ChangeItem] = ()
    flaky: Sequence[ChangeItem] = ()
    gold_changes: Sequence[ChangeItem] = ()
    mcnemar: tuple[McNemarItem, ...] = ()
    partial: bool = False
    added: Sequence[str] = ()
    removed: Sequence[str] = ()
    changed: Sequence[str] = ()
    input_changes: Sequence[ChangeItem] = ()
    counts: str = ""
    """The one classification's counts in words, e.g. "2 regressed, 1 mixed, ..."."""
    rule: str = ""
    """How a regression was decided with --repeat (empty when no suite repeats)."""
    suite_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Per suite: the one classification's counts by class."""
    headline: str = ""
    """What changed, in a few counts for the first line: "3 regressed, 2 improved, 1 new
    runtime failure" (only the classes that occurred), or "nothing changed"."""
    uncompared: tuple[str, ...] = ()
    """The candidate's suites the comparison did not compare: not in the baseline, or skipped
    on either side (a live suite the model-free baseline did not run)."""
    deltas: Mapping[str, SuiteDelta] = field(default_factory=dict)
    """Per compared suite: its figures, thresholds and metrics before and after."""
    overall: Figures | None = None
    """The comparison's figures over every compared suite: each a baseline and a candidate
    value (pass rates, runtime failures, latency percentiles), for a before/after view."""
    suite_figures: Mapping[str, Figures] = field(default_factory=dict)
    """Per compared suite: its figures, as ``overall``."""
    metric_deltas: Mapping[str, tuple[MetricDelta, ...]] = field(default_factory=dict)
    """Per compared suite: each metric's figures and per-label scores on both sides."""
    units: UnitLookup | None = field(default=None, compare=False, repr=False)
    """Where the unit of an attempt is found (``render.changelists.Units``: an index, not
    every item); None: the lists above are searched (a view made of tuples)."""

    @cached_property
    def _by_unit(self) -> dict[tuple[str, str, int], ChangeItem]:
        units: dict[tuple[str, str, int], ChangeItem] = {}
        for items in (
            self.input_changes,
            self.gold_changes,
            self.flaky,
            self.improvements,
            self.regressions,
        ):
            for item in items:
                units[item.suite, item.case_id, item.attempt] = item
        return units

    def change_of(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        """The class of an attempt: its own unit's, or its case's when the case is the unit."""
        if self.units is not None:
            return self.units.attempt_or_case(suite, case_id, attempt)
        units = self._by_unit
        return units.get((suite, case_id, attempt)) or units.get((suite, case_id, 0))

    def regression_of(self, suite: str, case_id: str, attempt: int) -> ChangeItem | None:
        item = self.change_of(suite, case_id, attempt)
        return item if item is not None and item.change in REGRESSIONS else None


REGRESSIONS = ("regressed", "mixed")


@dataclass(frozen=True)
class Collected:
    """The cases as the listing renderers read them: attempts per problem (``passed`` for
    those without one) and, per problem kind, the first ``cap`` attempts with their place in
    case-major order."""

    counts: dict[str, int]
    cap: int
    items: dict[str, list[tuple[int, AttemptItem]]] = field(default_factory=dict)

    def problems(self, kinds: Sequence[Problem]) -> Iterator[AttemptItem]:
        """The attempts whose problem is one of ``kinds`` in case-major order: exactly the
        first ``cap`` of them (what was kept of each kind)."""
        lists = [self.items.get(kind, []) for kind in dict.fromkeys(kinds)]
        for _, item in heapq.merge(*lists, key=lambda placed: placed[0]):
            yield item


# --- the report ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportView:
    report: Report
    suites: tuple[SuiteView, ...]
    comparison: ComparisonView | None = None
    collected: Collected | None = None
    """The cases as one pass over them kept them (``render.fanout``), where the report was
    streamed: its suites then hold no cases."""

    @cached_property
    def counts(self) -> dict[str, int]:
        """Attempts per problem over the whole run (``passed`` for those without one);
        counted on first use, since JUnit never needs it."""
        if self.collected is not None:
            return dict(self.collected.counts)
        return _problem_counts(self.report.suites)

    @property
    def verdict_word(self) -> str:
        verdict = self.report.verdict
        if verdict.exit_code == 130:
            return "interrupted"
        if not verdict.evaluated and verdict.exit_code == 0:
            return "nothing evaluated"
        return "passed" if verdict.passed else "failed"

    def problems(self, kinds: Sequence[Problem]) -> Iterator[AttemptItem]:
        if self.collected is not None:
            yield from self.collected.problems(kinds)
            return
        for suite in self.suites:
            yield from suite.problems(kinds)

    @property
    def skipped_suites(self) -> tuple[SuiteView, ...]:
        return tuple(suite for suite in self.suites if suite.record.status == "skipped")


def _problem_counts(suites: Sequence[SuiteRecord]) -> dict[str, int]:
    counts = {"runtime": 0, "check_error": 0, "failure": 0, "cancelled": 0, "skipped": 0}
    passed = 0
    for suite in suites:
        for case in suite.cases:
            for attempt in case.attempts:
                problem = classify(attempt)
                if problem is None:
                    passed += 1
                else:
                    counts[problem] += 1
    return {**counts, "passed": passed}


def build_view(
    report: Report, comparison: ComparisonView | None = None, collected: Collected | None = None
) -> ReportView:
    """The view of ``report`` (and ``comparison``, when there is one) that renderers read;
    ``collected``: its cases as a pass over them kept them (the report's suites hold none)."""
    secret_values()  # the secrets to redact from this rendering: as the environment holds them
    suites = tuple(suite_view(suite) for suite in report.suites)
    return ReportView(report, suites, comparison, collected)


_EXPLANATIONS = {
    0: "Every suite that ran passed.",
    1: "A check failed or could not run, or a threshold was missed.",
    2: "Nothing was run.",
    3: "Nothing was run.",
    4: "A target raised, timed out, exited non-zero or returned something that is not a "
    "result document (even where gold expected that failure).",
    130: "What finished is kept in an incomplete report.",
}


def exit_explanation(code: int, evaluated: bool = True) -> str:
    """What an exit code means, in one sentence after its name."""
    if code == 0 and not evaluated:
        return "No check ran: every suite was skipped, or no attempt completed."
    return _EXPLANATIONS.get(code, f"Exit code {code}.")
