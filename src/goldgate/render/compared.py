"""The adapter from a comparison (``goldgate.comparison/1``) to the ``ComparisonView`` every
renderer reads. It reads the comparison's one classification (its findings and counts) and
decides nothing itself: regressions (regressed or mixed), improvements, flaky cases, gold
changes and input changes are the comparison's, with their details; per-suite McNemar tests
and what a partial comparison left out. Pure and safe: names, ids, outcomes and numbers,
never a value.
"""

from __future__ import annotations

from collections.abc import Container
from functools import partial
from typing import Protocol

from goldgate.comparison.models import (
    CHANGE_CLASSES,
    REPEAT_RULE,
    Comparison,
    Finding,
    MetricDelta,
    SuiteComparison,
)
from goldgate.comparison.summary import classes_text
from goldgate.render import text
from goldgate.render.changelists import Shown, Units, findings_part, ids_part, items_part
from goldgate.render.costrow import cost_figures, judge_cost_figures
from goldgate.render.deltas import Figure, McNemarItem, SuiteDelta
from goldgate.render.view import REGRESSIONS, ChangeItem, ComparisonView, Location
from goldgate.report.models import Report


class Places(Protocol):
    """Where cases are written, by (suite name, case id): a dictionary, or what a pass over
    a streamed report found (``render.fanout.Locations``)."""

    def get(self, key: tuple[str, str], default: Location, /) -> Location: ...


def _locations(report: Report | None) -> dict[tuple[str, str], Location]:
    if report is None:
        return {}
    return {
        (suite.name, case.id): Location(suite.cases_source, case.line)
        for suite in report.suites
        for case in suite.cases
    }


REVISION_SHOWN = 12
"""Characters of a baseline's revision digest the headline shows: enough to tell two apart,
short enough for the first line of an 800-pixel comment column."""


def short_revision(revision: str) -> str:
    """A revision as the headline names it: a digest (``sha256:...``, a commit id) by its
    first ``REVISION_SHOWN`` hexadecimal digits, any other revision as it is."""
    digits = revision.removeprefix("sha256:")
    if len(digits) > REVISION_SHOWN and all(c in "0123456789abcdefABCDEF" for c in digits):
        return digits[:REVISION_SHOWN]
    return revision


def _baseline_name(comparison: Comparison) -> str:
    """The baseline as ``NAME@REVISION`` (``settings@7bb2904ee915``), as the action names the
    artifact of a commit (``main@abc1234``)."""
    variant = comparison.baseline.variant
    return f"{variant.name}@{short_revision(variant.revision)}"


def _counts(comparison: Comparison) -> str:
    units = {suite.unit for suite in comparison.suites}
    unit = {
        frozenset({"attempt"}): "attempts",
        frozenset({"case"}): "cases over repeats",
    }.get(frozenset(units), "attempts; cases of suites run with --repeat")
    return f"{classes_text(comparison.classes)} ({unit})"


def _headline(comparison: Comparison) -> str:
    classes = comparison.classes
    parts = [
        text.count(classes.count(change), change, change)
        for change in CHANGE_CLASSES
        if classes.count(change)
    ]
    new_failures = comparison.overall.runtime_failures.delta
    if new_failures > 0:
        parts.append(text.count(new_failures, "new runtime failure"))
    return ", ".join(parts) or "nothing changed"


def _metric_figures(metric: MetricDelta) -> tuple[Figure, ...]:
    """A metric's headline figures on both sides: accuracy (exact-set accuracy for
    multilabel) and macro F1."""
    accuracy = ("accuracy", "accuracy")
    if metric.kind == "multilabel":
        accuracy = ("exact_set_accuracy", "exact-set accuracy")
    note = None if metric.comparable else metric.reason or "not comparable"
    figures = []
    for key, name in (accuracy, ("macro_f1", "macro F1")):
        delta = metric.figures.get(key)
        before, after = (None, None) if delta is None else (delta.baseline, delta.candidate)
        figures.append(Figure(name, before, after, "ratio", note))
    return tuple(figures)


def _suite_delta(suite: SuiteComparison) -> SuiteDelta:
    figures = suite.figures
    latency, usage, failures = figures.latency, figures.usage, figures.runtime_failures
    latency_note = None if latency.comparable else latency.reason or "not comparable"
    usage_note = None if usage.comparable else usage.reason or "not comparable"
    summary = suite.summary.get("pass_rate")
    pass_rate = Figure(
        "pass rate",
        None if summary is None else summary.baseline,
        None if summary is None else summary.candidate,
        "rate",
    )
    rows = [
        Figure(
            "attempts passed",
            figures.attempt_pass_rate.baseline,
            figures.attempt_pass_rate.candidate,
            "rate",
        ),
        *(
            [Figure("runtime failures", failures.baseline, failures.candidate, "count")]
            if failures.baseline or failures.candidate
            else []
        ),
        Figure(
            "latency p50",
            latency.p50.baseline,
            latency.p50.candidate,
            "ms",
            latency_note,
            "latency",
        ),
        Figure(
            "latency p95",
            latency.p95.baseline,
            latency.p95.candidate,
            "ms",
            latency_note,
            "latency",
        ),
        *(
            Figure(
                f"{item.key} per attempt",
                item.mean.baseline,
                item.mean.candidate,
                "number",
                usage_note,
                "usage",
            )
            for item in usage.figures
        ),
        *cost_figures(figures.cost),
        *judge_cost_figures(figures.judge_cost),
    ]
    mcnemar = None
    if suite.status == "compared":
        test = figures.mcnemar
        mcnemar = McNemarItem(suite.name, test.regressed, test.improved, test.p_value)
    return SuiteDelta(
        suite.name,
        pass_rate,
        tuple(rows),
        {
            item.key: Figure(item.key, item.value.baseline, item.value.candidate, "ratio")
            for item in suite.thresholds
        },
        {metric.name: _metric_figures(metric) for metric in suite.metrics},
        mcnemar,
    )


def located_cases(comparison: Comparison) -> Container[tuple[str, str]]:
    """The (suite, case id) of every case the comparison lists: those whose place in the gold
    its view shows (``render.fanout.LocationSink`` finds them in one pass); an index of
    hashes (``changelists.Units``), never a set of every listed case."""
    return Units(comparison.suites, lambda suite, finding: _item(suite, finding, {}))


def _item(suite: str, finding: Finding, where: Places) -> ChangeItem:
    return ChangeItem(
        suite,
        finding.case_id,
        finding.attempt,
        finding.change,
        finding.detail,
        where.get((suite, finding.case_id), _NOWHERE),
    )


def _item_of(suite: str, where: Places, finding: Finding) -> ChangeItem:
    return _item(suite, finding, where)


def _labelled(suite: str, case_id: str) -> str:
    return f"{suite}: {case_id}"


def _case_label(suite: str, finding: Finding) -> str:
    return _labelled(suite, finding.case_id)


_NOWHERE = Location(None, None)


def comparison_view(
    comparison: Comparison,
    report: Report | None = None,
    baseline: str | None = None,
    locations: Places | None = None,
) -> ComparisonView:
    """The renderers' view of ``comparison``; ``report`` (its candidate) places each case at
    its gold line, or ``locations`` where a pass over a streamed report found them
    (``located_cases``); ``baseline`` names the baseline (e.g. ``main@abc1234``) where the
    caller knows more than the comparison says (its variant and revision). Its lists are
    read from the comparison's as they are shown (``render.changelists``), never copied."""
    where = _locations(report) if locations is None else locations
    suites = comparison.suites

    def changes(*classes: str) -> Shown[ChangeItem]:
        return Shown(
            [
                findings_part(
                    suite.findings,
                    classes,
                    partial(_item_of, suite.name, where),
                )
                for suite in suites
            ]
        )

    def ids(kind: str, whole: tuple[str, ...]) -> Shown[str]:
        # Whole suites on one side only (a partial comparison, e.g. with another run's
        # report) are listed too: nothing unmatched is silently dropped.
        return Shown(
            [
                items_part(tuple(f"{name} (the whole suite)" for name in whole)),
                *(
                    ids_part(
                        getattr(suite.unmatched, kind),
                        partial(_labelled, suite.name),
                    )
                    for suite in suites
                ),
            ]
        )

    mcnemar = [
        McNemarItem(suite.name, test.regressed, test.improved, test.p_value)
        for suite in suites
        if suite.status == "compared"
        for test in (suite.figures.mcnemar,)
    ]
    changed = Shown(
        [
            findings_part(
                suite.findings,
                ("input changed",),
                partial(_case_label, suite.name),
            )
            for suite in suites
        ]
    )
    return ComparisonView(
        baseline=baseline or _baseline_name(comparison),
        baseline_report=(comparison.baseline.path, comparison.baseline.digest),
        regressions=changes(*REGRESSIONS),
        improvements=changes("improved"),
        flaky=changes("flaky"),
        gold_changes=changes("gold changed"),
        mcnemar=tuple(mcnemar),
        partial=comparison.mode == "partial",
        added=ids("added", comparison.comparable.added_suites),
        removed=ids("removed", comparison.comparable.removed_suites),
        changed=changed,
        input_changes=changes("input changed"),
        counts=_counts(comparison),
        rule=REPEAT_RULE if any(suite.unit == "case" for suite in comparison.suites) else "",
        suite_counts={
            suite.name: {change: suite.classes.count(change) for change in CHANGE_CLASSES}
            | {"unchanged": suite.classes.unchanged}
            for suite in comparison.suites
        },
        headline=_headline(comparison),
        uncompared=(
            *comparison.comparable.added_suites,
            *(suite.name for suite in comparison.suites if suite.status == "skipped"),
        ),
        deltas={
            suite.name: _suite_delta(suite)
            for suite in comparison.suites
            if suite.status == "compared"
        },
        overall=comparison.overall,
        suite_figures={suite.name: suite.figures for suite in comparison.suites},
        metric_deltas={suite.name: suite.metrics for suite in comparison.suites},
        units=Units(suites, lambda suite, finding: _item(suite, finding, where)),
    )
