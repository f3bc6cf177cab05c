"""What the HTML page shows beside its case table, cut from the report's view: the changes
against a baseline, each suite's figures before and after, its metric panels (heatmap,
bars, per-label counts), its latency histogram and the adjudication queue.

Pure: the view (and the comparison's figures it carries) in, frozen dataclasses out, for
``templates/page.html.j2``. Values stay as the report holds them; the template's finalize
hook makes every one safe (``render.html``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from goldgate.render import htmlfigures
from goldgate.render.view import ChangeItem, ReportView, SuiteView
from goldgate.report.models import MetricResult, Report, SuiteRecord
from goldgate.scoring.metrics import ClassificationMetricResult

if TYPE_CHECKING:
    from goldgate.comparison.models import Delta, Figures, MetricDelta

LIST_CAP = 1_000
"""Rows a list of changes or of the adjudication queue shows; the case table has them all."""


@dataclass(frozen=True)
class Pair:
    """One figure before and after: the baseline's and the candidate's values."""

    name: str
    after: float | None
    before: float | None = None
    compared: bool = False
    kind: str = "ratio"
    """ratio (0 to 1), count or ms: how the values are written."""

    @property
    def delta(self) -> float | None:
        if not self.compared or self.after is None or self.before is None:
            return None
        return self.after - self.before


def _pair(name: str, delta: Delta | None, now: float | None, kind: str = "ratio") -> Pair:
    if delta is None:
        return Pair(name, now, kind=kind)
    return Pair(name, delta.candidate, delta.baseline, True, kind)


# --- changes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeList:
    title: str
    change: str
    items: tuple[ChangeItem, ...]
    total: int


def change_lists(view: ReportView) -> list[ChangeList]:
    """The comparison's changes, regressions first: what flipped, per class."""
    comparison = view.comparison
    if comparison is None:
        return []
    # Regressed and mixed are one list: split in one pass, their first LIST_CAP kept.
    split: dict[str, list[ChangeItem]] = {"regressed": [], "mixed": []}
    totals = dict.fromkeys(split, 0)
    for item in comparison.regressions:
        totals[item.change] += 1
        if totals[item.change] <= LIST_CAP:
            split[item.change].append(item)
    lists = (
        ("Regressed", "regressed", split["regressed"], totals["regressed"]),
        ("Mixed", "mixed", split["mixed"], totals["mixed"]),
        *(
            (title, change, items, len(items))
            for title, change, items in (
                ("Improved", "improved", comparison.improvements),
                ("Flaky", "flaky", comparison.flaky),
                ("Gold changed", "gold changed", comparison.gold_changes),
                ("Input changed", "input changed", comparison.input_changes),
            )
        ),
    )
    return [
        ChangeList(title, change, tuple(islice(items, LIST_CAP)), total)
        for title, change, items, total in lists
        if total
    ]


def overall_pairs(view: ReportView) -> list[Pair]:
    """The run's figures before and after (with a comparison: its overall figures)."""
    comparison = view.comparison
    overall = None if comparison is None else comparison.overall
    if overall is None:
        return []
    return _figure_pairs(overall, expectations=False)


def _figure_pairs(figures: Figures, expectations: bool = True) -> list[Pair]:
    latency = figures.latency
    pairs = [
        _pair("attempt pass rate", figures.attempt_pass_rate, None),
        _pair("check pass rate", figures.check_pass_rate, None),
        Pair(
            "runtime failures",
            figures.runtime_failures.candidate,
            figures.runtime_failures.baseline,
            True,
            "count",
        ),
    ]
    if latency.comparable:
        pairs += [
            _pair("latency p50", latency.p50, None, "ms"),
            _pair("latency p95", latency.p95, None, "ms"),
        ]
    if expectations:
        pairs += [_pair(f"pass rate of {e.name}", e.pass_rate, None) for e in figures.expectations]
    return pairs


# --- suites ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuitePanel:
    suite: SuiteView
    pairs: tuple[Pair, ...]
    """Before and after, with a comparison of this suite; else empty."""
    counts: Mapping[str, int]
    """The comparison's classification of the suite, by class; empty without one."""
    metrics: tuple[MetricPanel, ...]
    latency: htmlfigures.Histogram | None
    latency_note: str | None
    before: SuiteRecord | None = None
    """The baseline report's suite of this name, when the baseline report is at hand."""

    @property
    def name(self) -> str:
        return self.suite.name

    def threshold_before(self, key: str) -> Any:
        """The baseline's threshold ``key`` (its record), or None."""
        if self.before is None:
            return None
        return next((t for t in self.before.thresholds if t.key == key), None)


@dataclass(frozen=True)
class MetricPanel:
    metric: MetricResult
    figures: tuple[Pair, ...]
    heatmap: htmlfigures.Heatmap | None
    bars: htmlfigures.Bars
    compared: str | None
    """Why the metric has no before/after (with a comparison), or None."""
    before: MetricResult | None = None
    """The baseline report's metric of this name and kind, when that report is at hand."""
    heatmap_before: htmlfigures.Heatmap | None = None

    @property
    def multilabel(self) -> bool:
        return self.metric.kind == "multilabel"

    def label_before(self, label: str) -> Any:
        """The baseline's per-label counts of a multilabel ``label``, or None."""
        if self.before is None or self.before.kind != "multilabel":
            return None
        return next((scores for scores in self.before.per_label if scores.label == label), None)


def _metric_figures(metric: MetricResult, delta: MetricDelta | None) -> tuple[Pair, ...]:
    found = {} if delta is None or not delta.comparable else delta.figures
    if isinstance(metric, ClassificationMetricResult):
        head = [("accuracy", "accuracy", metric.accuracy)]
    else:
        head = [("exact-set accuracy", "exact_set_accuracy", metric.exact_set_accuracy)]
    values = [*head, ("coverage", "coverage", metric.coverage)]
    for average in ("micro", "macro"):
        scores = getattr(metric, average)
        for measure in htmlfigures.MEASURES:
            value = getattr(scores, measure)
            values.append((f"{average} {measure}", f"{average}_{measure}", value))
    return tuple(_pair(name, found.get(key), now) for name, key, now in values)


def _bars(metric: MetricResult, delta: MetricDelta | None) -> htmlfigures.Bars:
    before: dict[Any, dict[str, float | None]] = {}
    averages: dict[str, dict[str, float | None]] = {"micro": {}, "macro": {}}
    if delta is not None and delta.comparable:
        for label in delta.per_label:
            before[label.label] = {
                "precision": label.precision.baseline,
                "recall": label.recall.baseline,
                "f1": label.f1.baseline,
            }
        for average, measures in averages.items():
            for measure in htmlfigures.MEASURES:
                found = delta.figures.get(f"{average}_{measure}")
                measures[measure] = None if found is None else found.baseline
    groups: list[htmlfigures.Scores] = [
        (
            htmlfigures.label_text(scores.label),
            {m: getattr(scores, m) for m in htmlfigures.MEASURES},
            before.get(scores.label, {}),
            False,
        )
        for scores in metric.per_label
    ]
    for average in ("micro", "macro"):
        scores = getattr(metric, average)
        values = {m: getattr(scores, m) for m in htmlfigures.MEASURES}
        groups.append((average, values, averages[average], True))
    return htmlfigures.bars(groups)


def _metric_panel(
    metric: MetricResult,
    deltas: Mapping[str, MetricDelta] | None,
    before: SuiteRecord | None,
) -> MetricPanel:
    delta = None if deltas is None else deltas.get(metric.name)
    compared = None
    if deltas is not None:
        if delta is None:
            compared = "not in the comparison"
        elif not delta.comparable:
            compared = delta.reason or "not comparable"
    then = None
    if before is not None and compared is None:
        then = next((m for m in before.metrics if m.name == metric.name), None)
    return MetricPanel(
        metric,
        _metric_figures(metric, delta),
        htmlfigures.heatmap(metric) if isinstance(metric, ClassificationMetricResult) else None,
        _bars(metric, delta),
        compared,
        then,
        htmlfigures.heatmap(then) if isinstance(then, ClassificationMetricResult) else None,
    )


Latencies = tuple[Mapping[str, Sequence[float]], Mapping[str, Sequence[float]] | None]
"""Each suite's latencies, the report's and the baseline's (None: not at hand), as a pass
over their cases kept them."""


def suite_panels(
    view: ReportView, baseline: Report | None, latencies: Latencies
) -> Iterator[SuitePanel]:
    """Each suite's panel: its figures before and after, metrics and latency; with the
    ``baseline`` report itself, also the baseline's heatmaps, counts and latencies."""
    comparison = view.comparison
    replayed = view.report.replay_of is not None
    earlier = {} if baseline is None or comparison is None else {s.name: s for s in baseline.suites}
    now, then = latencies
    for suite in view.suites:
        figures = None if comparison is None else comparison.suite_figures.get(suite.name)
        deltas = None
        if comparison is not None:
            deltas = {d.name: d for d in comparison.metric_deltas.get(suite.name, ())}
        ran = suite.record.status == "ran"
        pairs = () if figures is None or not ran else tuple(_figure_pairs(figures))
        counts = {} if comparison is None else comparison.suite_counts.get(suite.name, {})
        before = earlier.get(suite.name)
        metrics = tuple(_metric_panel(metric, deltas, before) for metric in suite.metrics)
        note = "copied from the replayed run, not measured again" if replayed else None
        measured_before = None
        if before is not None:
            measured_before = () if then is None else then.get(before.name, ())
        latency = htmlfigures.histogram(now.get(suite.name, ()), measured_before)
        yield SuitePanel(suite, pairs, counts, metrics, latency, note, before)


# --- the adjudication queue ---------------------------------------------------------------------


@dataclass(frozen=True)
class Awaiting:
    suite: str
    case: str
    attempt: int
    check: str
    note: str | None
    """The sentence the adjudicator reads: only with values, never for a held-out case."""


def queue(
    view: ReportView, values: bool, held_out: Mapping[str, set[str]]
) -> tuple[list[Awaiting], int]:
    """The checks waiting for a human verdict (at most ``LIST_CAP``) and how many there are;
    ``held_out``: per suite, the held-out cases among those its queue names."""
    shown: list[Awaiting] = []
    total = 0
    for suite in view.suites:
        record = suite.record
        held = held_out.get(record.name, set())
        for entry in record.adjudication_queue:
            total += 1
            if len(shown) < LIST_CAP:
                note = entry.note if values and entry.case not in held else None
                shown.append(Awaiting(record.name, entry.case, entry.attempt, entry.check, note))
    return shown, total
