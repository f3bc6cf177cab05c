"""The rows every table of the Markdown report and the terminal shows, built once here so
that both say the same words: each a tuple of cells (plain values; how the case cell reads,
a link or a name, is the caller's ``case``), at most six to a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from goldgate.render import text
from goldgate.render.deltas import Figure, SuiteDelta, show
from goldgate.render.view import AttemptItem, ChangeItem, ComparisonView, ReportView, SuiteView
from goldgate.report.models import MetricResult

Cells = tuple[Any, ...]
CaseCell = Callable[[AttemptItem | ChangeItem], Any]
ValueCell = Callable[[AttemptItem, Any, bool], str]

CHANGE_COLUMNS = ("suite", "case", "change", "detail")
PROBLEM_COLUMNS = ("suite", "case", "problem", "reason")
FAILURE_COLUMNS = ("suite", "case", "check", "reason")
VALUE_COLUMNS = ("expected", "actual")
SUITE_COLUMNS = ("suite", "verdict", "attempts", "checks passed", "pass rate", "decided by")
FIGURE_COLUMNS = ("suite", "figure", "baseline", "candidate", "change")
COUNT_COLUMNS = ("suite", "cases", "checks failed", "check errors", "not run", "thresholds")
THRESHOLD_COLUMNS = ("suite", "threshold", "minimum", "actual", "held", "decided the verdict")
COMPARED_THRESHOLD_COLUMNS = ("suite", "threshold", "minimum", "baseline", "candidate", "held")
CONFUSION_COLUMNS = ("gold", "predicted", "attempts")
LABEL_COLUMNS = ("label", "precision", "recall", "F1", "support", "TP · FP · FN · TN")


def change_label(item: ChangeItem) -> str:
    return item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"


def change_row(item: ChangeItem, case: CaseCell) -> Cells:
    return item.suite, case(item), item.change, item.detail


def problem_rows(item: AttemptItem, case: CaseCell, private: bool = False) -> Iterator[Cells]:
    """A runtime failure's one row (where its target raised; ``private``, with the
    exception's message too), or a row per check of an attempt with check errors."""
    if item.problem == "runtime":
        reason = item.failure
        exception = item.record.exception
        if private and not item.holdout and exception is not None and exception.message:
            reason += f": {exception.message}"
        yield item.suite, case(item), item.status, reason
        return
    for check in item.checks(("error", "failed")):
        problem = "check error" if check.outcome == "error" else "failed"
        yield item.suite, case(item), f"{problem}: {check.name}", check.reason or check.outcome


def failure_rows(
    item: AttemptItem, case: CaseCell, value: ValueCell | None = None
) -> Iterator[Cells]:
    """A row per failing check; with ``value``, its expected and actual values too."""
    for check in item.checks(("failed",)):
        row: Cells = (item.suite, case(item), check.name, check.reason or "failed")
        if value is not None:
            row += (
                value(item, check.expected, True),
                value(item, check.actual, check.actual_present),
            )
        yield row


def _deltas(view: ReportView) -> dict[str, SuiteDelta]:
    comparison = view.comparison
    return dict(comparison.deltas) if comparison is not None else {}


def suite_rows(view: ReportView) -> list[Cells]:
    deltas = _deltas(view)
    return [
        (
            suite.name,
            suite.record.verdict,
            f"{suite.record.attempt_count:,}",
            _checks_passed(suite),
            _pass_rate(suite, deltas.get(suite.name)),
            suite.decided_by,
        )
        for suite in view.suites
    ]


def figure_rows(comparison: ComparisonView | None, *, noise: bool = False) -> list[Cells]:
    """Every compared suite's figures before and after (one row each) whose change is a
    finding under the noise rule (``deltas.NOISE_RULE``); ``noise``: those it folds."""
    if comparison is None:
        return []
    return [
        (name, figure.name, *figure.cells())
        for name, delta in comparison.deltas.items()
        for figure in delta.figures
        if figure.beyond_noise != noise
    ]


def count_rows(view: ReportView) -> list[Cells]:
    rows = []
    for suite in view.suites:
        checks = suite.record.counts.checks
        rows.append(
            (
                suite.name,
                f"{suite.record.case_count:,}",
                f"{checks.get('failed', 0):,}",
                f"{checks.get('error', 0):,}",
                f"{checks.get('not_run', 0):,}",
                _held(suite),
            )
        )
    return rows


def threshold_table(view: ReportView) -> tuple[tuple[str, ...], list[Cells]]:
    """The thresholds table's columns and rows: with a comparison, each threshold's value
    before and after; without, whether it decided the verdict."""
    deltas = _deltas(view)
    rows: list[Cells] = []
    for suite in view.suites:
        delta = deltas.get(suite.name)
        for item in suite.thresholds:
            record = item.record
            held = "yes" if record.held else "no"
            minimum = text.bound(record.minimum, record.maximum)
            actual = text.ratio(record.actual)
            if deltas:
                before = delta.thresholds.get(record.key) if delta is not None else None
                baseline = before.before() if before is not None else "n/a"
                rows.append((suite.name, record.key, minimum, baseline, actual, held))
            else:
                decided = "yes" if item.decided else "no"
                rows.append((suite.name, record.key, minimum, actual, held, decided))
    return (COMPARED_THRESHOLD_COLUMNS if deltas else THRESHOLD_COLUMNS), rows


def metric_table(metric: MetricResult) -> tuple[tuple[str, ...], list[Cells]]:
    """A classification metric's confusion matrix as the cells that hold attempts (a matrix
    of every label and kind of unavailable observation would not fit six columns), or a
    multilabel metric's per-label scores."""
    if metric.kind == "classification":
        confusion = metric.confusion
        cells: list[Cells] = [
            (_label(gold), _label(predicted), f"{count:,}")
            for gold, row in zip(confusion.rows, confusion.matrix, strict=False)
            for predicted, count in zip(confusion.columns, row, strict=False)
            if count
        ]
        return CONFUSION_COLUMNS, cells
    rows: list[Cells] = [
        (
            _label(scores.label),
            text.ratio(scores.precision),
            text.ratio(scores.recall),
            text.ratio(scores.f1),
            f"{scores.support:,}",
            f"{scores.tp:,} · {scores.fp:,} · {scores.fn:,} · {scores.tn:,}",
        )
        for scores in metric.per_label
    ]
    return LABEL_COLUMNS, rows


def metric_title(view: ReportView, suite: SuiteView, metric: MetricResult) -> str:
    """A metric in one line: suite, name, kind and headline figures (with a comparison,
    each one's baseline value beside it)."""
    delta = _deltas(view).get(suite.name)
    before = delta.metrics.get(metric.name, ()) if delta is not None else ()
    return f"{suite.name} · {metric.name} ({metric.kind}): {metric_summary(metric, before)}"


def metric_summary(metric: MetricResult, before: Sequence[Figure] = ()) -> str:
    """A metric's headline figures in words; with ``before`` (a comparison), each one's
    baseline value beside it."""
    baseline = {figure.name: figure for figure in before}

    def figure(name: str, value: float | None) -> str:
        known = baseline.get(name)
        if known is None:
            return f"{name} {text.ratio(value)}"
        return f"{name} {text.ratio(value)} (baseline {show(known.baseline, 'ratio')})"

    if metric.kind == "classification":
        head = figure("accuracy", metric.accuracy)
    else:
        head = figure("exact-set accuracy", metric.exact_set_accuracy)
    return (
        f"{head}, {figure('macro F1', metric.macro.f1)}, coverage {text.ratio(metric.coverage)}, "
        f"micro F1 {text.ratio(metric.micro.f1)}, support {metric.support:,}"
    )


def _checks_passed(suite: SuiteView) -> str:
    """Checks passed of all, and what the pass rate does not count: checks that await a
    person's review, and others that did not run ("2 of 3, 1 awaits review")."""
    checks = suite.record.counts.checks
    shown = f"{checks.get('passed', 0):,} of {sum(checks.values()):,}"
    awaiting = min(suite.record.adjudication, checks.get("not_run", 0))
    others = checks.get("not_run", 0) - awaiting
    if awaiting:
        shown += f", {text.count(awaiting, 'awaits review', 'await review')}"
    if others and suite.record.status == "ran":  # a skipped suite says so in its verdict
        shown += f", {text.count(others, 'not run', 'not run')}"
    return shown


def _pass_rate(suite: SuiteView, delta: SuiteDelta | None) -> str:
    rate = text.percent(suite.record.summary.get("pass_rate"))
    if delta is None:
        return rate
    figure = delta.pass_rate
    change = figure.change
    return rate if change == "n/a" else f"{rate} ({change} from {figure.before()})"


def _held(suite: SuiteView) -> str:
    thresholds = suite.record.thresholds
    if not thresholds:
        return "none"
    return f"{sum(t.held for t in thresholds)} of {len(thresholds)} held"


def _label(value: str | None) -> str:
    return "null" if value is None else value
