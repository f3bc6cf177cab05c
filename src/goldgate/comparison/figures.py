"""What each side's attempts add up to, and the deltas a comparison shows: ``Figures`` and
``MetricDelta``.

``Tally`` adds up a suite's classes and each side's attempts (``SideTally``: pass rates,
per-expectation pass counts, runtime failures, latencies, usage); tallies merge, so the
overall figures are the suites' added up. ``figures_of`` turns a tally into deltas (and
McNemar's test); a replay's latency and usage are its original run's, so they are not
compared. ``metric_deltas`` compares each suite's metrics by name.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from goldgate.comparison.cost import cost_figures, judge_cost_delta
from goldgate.comparison.models import (
    AttemptCounts,
    CountDelta,
    Delta,
    ExpectationDelta,
    Figures,
    LabelDelta,
    Latency,
    McNemar,
    MetricDelta,
    ThresholdDelta,
    Usage,
    UsageDelta,
)
from goldgate.comparison.opened import SuiteSide
from goldgate.comparison.refusals import catalog
from goldgate.comparison.rescore import NOT_RESCORED
from goldgate.comparison.sides import AttemptSide
from goldgate.comparison.stats import mcnemar_p_value, nearest_rank
from goldgate.report.models import MetricResult

__all__ = [
    "REPLAY_REASON",
    "SideTally",
    "Tally",
    "figures_of",
    "metric_deltas",
    "summary_deltas",
    "threshold_deltas",
]

_RUNTIME_FAILURES = frozenset({"failed", "timed_out"})
REPLAY_REASON = "a replay's latency and usage are its original run's measurements"


@dataclass
class SideTally:
    """What one side's attempts add up to."""

    attempts: int = 0
    passing: int = 0
    checks: int = 0
    passed: int = 0
    runtime_failures: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))
    """Every latency (8 bytes each): the percentiles need them all."""
    usage: dict[str, float] = field(default_factory=dict)
    named: dict[str, list[int]] = field(default_factory=dict)
    """Per expectation name, its checks and those passed (read as ``by_name``)."""
    cost: float = 0.0
    priced: int = 0
    currencies: set[str] = field(default_factory=set)
    """The currencies of the suites' pricing (set by the comparison, per suite)."""
    judge_cost: float = 0.0
    judged: int = 0
    """Attempts whose judges' calls were priced (``judge_cost``, apart from ``cost``)."""
    pending: dict[tuple[tuple[str, ...], str], int] = field(default_factory=dict)
    """Attempts by their expectations' names and check codes, not yet added per name: a
    suite's cases share a few, so the sums per name run once for each (``by_name``)."""

    @property
    def by_name(self) -> dict[str, list[int]]:
        """Per expectation name (in the order the attempts first name it), its checks and
        those passed."""
        if self.pending:
            pending, self.pending = self.pending, {}
            named = self.named
            for (names, codes), count in pending.items():
                for name, code in zip(names, codes, strict=False):
                    if code == NOT_RESCORED:
                        continue
                    entry = named.get(name)
                    if entry is None:
                        entry = named[name] = [0, 0]
                    entry[0] += count
                    if code == "P":
                        entry[1] += count
        return self.named

    def add_case(self, attempts: Sequence[AttemptSide], names: tuple[str, ...]) -> None:
        """A case's attempts (skipped ones left out). Attempts are tallied by their check
        codes first: a case's repeats mostly share one, so per-name sums run once."""
        tally: dict[str, int] = {}
        for attempt in attempts:
            status = attempt.status
            if status == "skipped":
                continue
            tally[attempt.codes] = tally.get(attempt.codes, 0) + 1
            if status in _RUNTIME_FAILURES:
                self.runtime_failures += 1
            if attempt.latency_ms is not None:
                self.latencies.append(float(attempt.latency_ms))
            if attempt.usage is not None:
                for key, value in _numbers(attempt.usage, ""):
                    self.usage[key] = self.usage.get(key, 0.0) + value
            if type(attempt.cost) is float or type(attempt.cost) is int:
                self.cost += attempt.cost
                self.priced += 1
            if type(attempt.judge_cost) is float or type(attempt.judge_cost) is int:
                self.judge_cost += attempt.judge_cost
                self.judged += 1
        pending = self.pending
        for codes, count in tally.items():
            passed = codes.count("P")
            self.attempts += count
            self.passing += count if passed == len(codes) else 0
            self.checks += count * len(codes)
            self.passed += count * passed
            group = (names, codes)
            pending[group] = pending.get(group, 0) + count

    def merge(self, other: SideTally) -> None:
        self.attempts += other.attempts
        self.passing += other.passing
        self.checks += other.checks
        self.passed += other.passed
        self.runtime_failures += other.runtime_failures
        self.latencies.extend(other.latencies)
        for key, value in other.usage.items():
            self.usage[key] = self.usage.get(key, 0.0) + value
        self.cost += other.cost
        self.priced += other.priced
        self.judge_cost += other.judge_cost
        self.judged += other.judged
        self.currencies |= other.currencies
        by_name = self.by_name
        for name, (checks, passed) in other.by_name.items():
            tally = by_name.setdefault(name, [0, 0])
            tally[0] += checks
            tally[1] += passed


def _numbers(value: Any, prefix: str) -> Iterator[tuple[str, float]]:
    """Every numeric leaf of a usage value, by dotted path (booleans are not numbers)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers(item, f"{prefix}.{index}" if prefix else str(index))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield prefix or "usage", float(value)


@dataclass
class Tally:
    classes: Counter[str] = field(default_factory=Counter)
    candidate: SideTally = field(default_factory=SideTally)
    baseline: SideTally = field(default_factory=SideTally)

    def merge(self, other: Tally) -> None:
        self.classes.update(other.classes)
        self.candidate.merge(other.candidate)
        self.baseline.merge(other.baseline)


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _delta(candidate: float | None, baseline: float | None, comparable: bool = True) -> Delta:
    both = candidate is not None and baseline is not None and comparable
    return Delta(
        candidate=candidate,
        baseline=baseline,
        delta=candidate - baseline if both else None,  # type: ignore[operator]
    )


def figures_of(tally: Tally, replay: bool) -> Figures:
    now, before = tally.candidate, tally.baseline
    classes = tally.classes
    names = list(dict.fromkeys([*now.by_name, *before.by_name]))
    expectations = tuple(
        ExpectationDelta(
            name=name,
            candidate_checks=now.by_name.get(name, [0, 0])[0],
            baseline_checks=before.by_name.get(name, [0, 0])[0],
            pass_rate=_delta(
                _ratio(*_reversed(now.by_name.get(name))),
                _ratio(*_reversed(before.by_name.get(name))),
            ),
        )
        for name in names
    )
    latencies_now, latencies_before = sorted(now.latencies), sorted(before.latencies)
    usage_keys = sorted(set(now.usage) | set(before.usage))
    reason = REPLAY_REASON if replay else None
    return Figures(
        attempts=AttemptCounts(
            improved=classes["improved"],
            regressed=classes["regressed"],
            mixed=classes["mixed"],
            gold_changed=classes["gold changed"],
            unchanged=classes["unchanged"],
            not_compared=classes["not_compared"],
            candidate_only=classes["candidate_only"],
            baseline_only=classes["baseline_only"],
        ),
        attempt_pass_rate=_delta(
            _ratio(now.passing, now.attempts), _ratio(before.passing, before.attempts)
        ),
        check_pass_rate=_delta(
            _ratio(now.passed, now.checks), _ratio(before.passed, before.checks)
        ),
        mcnemar=McNemar(
            improved=classes["improved"],
            regressed=classes["regressed"],
            p_value=mcnemar_p_value(classes["improved"], classes["regressed"]),
        ),
        expectations=expectations,
        runtime_failures=CountDelta(
            candidate=now.runtime_failures,
            baseline=before.runtime_failures,
            delta=now.runtime_failures - before.runtime_failures,
        ),
        latency=Latency(
            comparable=not replay,
            reason=reason,
            p50=_delta(
                nearest_rank(latencies_now, 50), nearest_rank(latencies_before, 50), not replay
            ),
            p95=_delta(
                nearest_rank(latencies_now, 95), nearest_rank(latencies_before, 95), not replay
            ),
        ),
        usage=Usage(
            comparable=not replay,
            reason=reason,
            figures=tuple(
                UsageDelta(
                    key=key,
                    mean=_delta(
                        _mean(now.usage.get(key, 0.0), now.attempts),
                        _mean(before.usage.get(key, 0.0), before.attempts),
                        not replay,
                    ),
                )
                for key in usage_keys
            ),
        ),
        cost=cost_figures(now, before, reason),
        judge_cost=judge_cost_delta(now, before, reason),
    )


def _reversed(tally: list[int] | None) -> tuple[int, int]:
    """(passed, checks) from a [checks, passed] tally, for ``_ratio``."""
    return (0, 0) if tally is None else (tally[1], tally[0])


def _mean(total: float, count: int) -> float | None:
    return total / count if count else None


# --- metrics ------------------------------------------------------------------------------------

_AVERAGED = ("precision", "recall", "f1")


def _metric_delta(name: str, now: MetricResult | None, before: MetricResult | None) -> MetricDelta:
    if now is None or before is None:
        side = "candidate" if now is not None else "baseline"
        kind = (now or before).kind  # type: ignore[union-attr]
        return MetricDelta(name=name, kind=kind, comparable=False, reason=f"in the {side} only")
    if catalog(now) != catalog(before):
        return MetricDelta(name=name, kind=now.kind, comparable=False, reason="the catalog differs")
    figures: dict[str, Delta] = {}
    if now.kind == "classification" and before.kind == "classification":
        figures["accuracy"] = _delta(now.accuracy, before.accuracy)
    elif now.kind == "multilabel" and before.kind == "multilabel":
        figures["exact_set_accuracy"] = _delta(now.exact_set_accuracy, before.exact_set_accuracy)
    figures["coverage"] = _delta(now.coverage, before.coverage)
    for average in ("micro", "macro"):
        for measure in _AVERAGED:
            figures[f"{average}_{measure}"] = _delta(
                getattr(getattr(now, average), measure), getattr(getattr(before, average), measure)
            )
    labels: tuple[Any, ...] = now.per_label
    theirs_labels: tuple[Any, ...] = before.per_label
    per_label = tuple(
        LabelDelta(
            label=mine.label,
            precision=_delta(mine.precision, theirs.precision),
            recall=_delta(mine.recall, theirs.recall),
            f1=_delta(mine.f1, theirs.f1),
        )
        for mine, theirs in zip(labels, theirs_labels, strict=True)
    )
    return MetricDelta(
        name=name, kind=now.kind, comparable=True, figures=figures, per_label=per_label
    )


def metric_deltas(candidate: SuiteSide, baseline: SuiteSide) -> tuple[MetricDelta, ...]:
    now = {metric.name: metric for metric in candidate.record.metrics}
    before = {metric.name: metric for metric in baseline.record.metrics}
    names = list(dict.fromkeys([*now, *before]))
    return tuple(_metric_delta(name, now.get(name), before.get(name)) for name in names)


def threshold_deltas(candidate: SuiteSide, baseline: SuiteSide) -> tuple[ThresholdDelta, ...]:
    """Each threshold's value on both sides, by key: the candidate's in its order, then any
    the baseline alone declared (so a dropped threshold still shows what it was)."""
    now = {t.key: t for t in candidate.record.thresholds}
    before = {t.key: t for t in baseline.record.thresholds}
    deltas = []
    for key in dict.fromkeys([*now, *before]):
        mine, theirs = now.get(key), before.get(key)
        declared = mine or theirs
        assert declared is not None
        deltas.append(
            ThresholdDelta(
                key=key,
                minimum=declared.minimum,
                value=_delta(
                    None if mine is None else mine.actual,
                    None if theirs is None else theirs.actual,
                ),
                candidate_held=None if mine is None else mine.held,
                baseline_held=None if theirs is None else theirs.held,
            )
        )
    return tuple(deltas)


def summary_deltas(candidate: SuiteSide, baseline: SuiteSide) -> dict[str, Delta]:
    """Each figure of the two suites' summaries (``pass_rate``, ``expect.satisfied``...),
    the candidate's keys first: the figures the thresholds are stated in."""
    now, before = candidate.record.summary, baseline.record.summary
    return {key: _delta(now.get(key), before.get(key)) for key in dict.fromkeys([*now, *before])}
