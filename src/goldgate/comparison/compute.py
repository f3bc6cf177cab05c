"""Two report sides in, one ``Comparison`` out. Pure: nothing here reads or writes a file.

The one classification (``Finding``, ``Classes``) is decided here and only here, by
``classify_unit``; every consumer reads it. A check passes only when its outcome is
``passed`` (``error``, ``not_run`` and a check present on one side only are not passing).

- A suite run once: each attempt pair (same suite, case and attempt number) is a unit.
  Regressed: some check went from passing to not passing and none the other way; improved:
  the reverse; mixed: both.
- A suite run with ``--repeat`` on either side: each case is a unit, over every attempt of
  each side. A check dropped when it passed in every attempt before and in none now
  (all-to-none, which is the rule above for one attempt a side), or when Fisher's exact
  test, one-sided, on its pass counts gives p < 0.05; it rose the other way round. A case
  with a drop is regressed (mixed with a rise too), with a rise only improved; a case whose
  checks vary within either run and neither dropped nor rose is flaky: never a regression.
- A check whose change is gold's, not the application's, is left out of those and makes a
  unit ``gold changed`` when nothing else changed: a text check a person's verdict decided
  on one side where the answer is the same on both sides or waits for a verdict on either
  side (a verdict recorded between the runs), and a changed custom expectation compare
  could not re-score. A case whose gold changed (partial) is ``gold changed`` unless its
  application change under the one gold says more; a case whose input changed is ``input
  changed`` and not compared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from goldgate._version import __version__
from goldgate.base.errors import InvalidInputError
from goldgate.comparison.models import (
    REPEAT_RULE,
    SINGLE_RULE,
    AttemptChange,
    AttemptCounts,
    CaseView,
    CheckChange,
    Classes,
    Comparable,
    Comparison,
    CountDelta,
    Delta,
    ExpectationDelta,
    Figures,
    Finding,
    GoldEffect,
    LabelDelta,
    Latency,
    McNemar,
    MetricDelta,
    ReportRef,
    SuiteComparison,
    Unmatched,
    Usage,
    UsageDelta,
)
from goldgate.comparison.rescore import NOT_RESCORED, rescore_case
from goldgate.comparison.sides import (
    OUTCOMES,
    VERDICT,
    WAITING,
    AttemptSide,
    CaseSide,
    ReportSide,
    SuiteSide,
)
from goldgate.comparison.stats import (
    drop_is_significant,
    fisher_drop_p_value,
    mcnemar_p_value,
    nearest_rank,
)
from goldgate.report.digests import bytes_digest, value_digest
from goldgate.report.models import MetricResult

__all__ = ["Unit", "classify", "classify_unit", "compare_sides"]

_RUNTIME_FAILURES = frozenset({"failed", "timed_out"})
REPLAY_REASON = "a replay's latency and usage are its original run's measurements"


def classify(candidate: str, baseline: str, gold: Collection[int] = ()) -> str:
    """The class of an attempt pair from its check codes (one letter per check): improved,
    regressed, mixed, gold changed or unchanged. Positions in ``gold``, and a baseline check
    compare could not re-score, changed by gold: they only make a pair ``gold changed``."""
    if candidate == baseline:
        return "unchanged"
    up = down = by_gold = False
    for position in range(max(len(candidate), len(baseline))):
        now = position < len(candidate) and candidate[position] == "P"
        before = position < len(baseline) and baseline[position] == "P"
        if now == before:
            continue
        if position in gold or (position < len(baseline) and baseline[position] == NOT_RESCORED):
            by_gold = True
        elif now:
            up = True
        else:
            down = True
    if up and down:
        return "mixed"
    if up or down:
        return "improved" if up else "regressed"
    return "gold changed" if by_gold else "unchanged"


# --- the one classification ---------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """What ``classify_unit`` decided for one unit: its class (``unchanged`` included) and a
    safe sentence."""

    change: str
    detail: str


def _judged_by_gold(
    position: int, now: Sequence[AttemptSide], before: Sequence[AttemptSide]
) -> bool:
    """Whether a text check's change at ``position`` is a person's verdict recorded between
    the runs: a verdict decided it on some attempt, and either it waits for a verdict on
    some attempt (nothing to compare) or every answer is the same on both sides."""
    states: list[list[tuple[str, str | None] | None]] = [[], []]
    for side, attempts in enumerate((now, before)):
        for attempt in attempts:
            if attempt.status == "completed":
                judged = attempt.judged
                states[side].append(judged[position] if position < len(judged) else None)
    flat = [state for side in states for state in side if state is not None]
    if not flat:
        return False
    if any(state == WAITING for state, _ in flat):
        return True
    if not any(state == VERDICT for state, _ in flat):
        return False  # queued but decided by assertions on both sides: the application's
    answers = [{None if s is None else s[1] for s in side} for side in states]
    return None not in answers[0] | answers[1] and answers[0] == answers[1]


def _code(attempt: AttemptSide, position: int) -> str | None:
    codes = attempt.codes
    return codes[position] if position < len(codes) else None


def _rates(now: int, now_runs: int, before: int, before_runs: int) -> str:
    return f"passed {before}/{before_runs} before, {now}/{now_runs} now"


def _why(dropped: bool, now: int, now_runs: int, before: int, before_runs: int) -> str:
    """Which test told the change from noise, with its numbers."""
    counts = _rates(now, now_runs, before, before_runs)
    if dropped and before == before_runs and now == 0:
        return f"{counts}: all-to-none"
    if not dropped and now == now_runs and before == 0:
        return f"{counts}: none-to-all"
    if dropped:
        p_value = fisher_drop_p_value(before, before_runs, now, now_runs)
    else:
        p_value = fisher_drop_p_value(now, now_runs, before, before_runs)
    return f"{counts}: Fisher's exact test, one-sided p={p_value:.3g} < 0.05"


def _noise(now: int, now_runs: int, before: int, before_runs: int) -> str:
    counts = _rates(now, now_runs, before, before_runs)
    if now * before_runs < before * now_runs:
        p_value = fisher_drop_p_value(before, before_runs, now, now_runs)
    elif now * before_runs > before * now_runs:
        p_value = fisher_drop_p_value(now, now_runs, before, before_runs)
    else:
        return f"{counts}"
    return f"{counts}; Fisher's exact test, one-sided p={p_value:.3g}, not < 0.05"


def classify_unit(
    names: Sequence[str],
    now: Sequence[AttemptSide],
    before: Sequence[AttemptSide],
    *,
    repeated: bool,
    rescored: bool = False,
) -> Unit:
    """The one classification of one unit: an attempt pair (``repeated`` false, one attempt
    a side) or a case over its repeats (every attempt a side). Skipped attempts are left
    out; ``not compared`` when a side has none left. ``rescored``: the case's gold changed
    and the baseline was re-scored under the candidate's."""
    now = [attempt for attempt in now if attempt.status != "skipped"]
    before = [attempt for attempt in before if attempt.status != "skipped"]
    if not now or not before:
        return Unit("not compared", "skipped on a side")
    now_runs, before_runs = len(now), len(before)
    width = max([len(names), *(len(a.codes) for a in now), *(len(a.codes) for a in before)])
    dropped: list[str] = []
    rose: list[str] = []
    flaky: list[str] = []
    by_gold: list[str] = []
    now_passes, before_passes = _passes(now, width), _passes(before, width)
    # Only these two can make a check's change gold's; most units have neither.
    unscored = any(NOT_RESCORED in attempt.codes for attempt in before)
    judged = any(attempt.judged for attempt in (*now, *before))
    for position in range(width):
        name = names[position] if position < len(names) else f"check {position + 1}"
        passes, passed = now_passes[position], before_passes[position]
        if passes * before_runs == passed * now_runs and not (
            0 < passes < now_runs or 0 < passed < before_runs
        ):
            continue  # the same rate and no noise: nothing to say about this check
        gold = (unscored and any(_code(a, position) == NOT_RESCORED for a in before)) or (
            judged and _judged_by_gold(position, now, before)
        )
        counts = (passes, now_runs, passed, before_runs)
        if gold:
            if passes * before_runs != passed * now_runs:
                by_gold.append(f"{name} ({_gold_reason(position, now, before)})")
            continue
        if (passed == before_runs and passes == 0) or drop_is_significant(
            passed, before_runs, passes, now_runs
        ):
            dropped.append(f"{name} ({_why(True, *counts)})" if repeated else name)
        elif (passes == now_runs and passed == 0) or drop_is_significant(
            passes, now_runs, passed, before_runs
        ):
            rose.append(f"{name} ({_why(False, *counts)})" if repeated else name)
        else:
            flaky.append(f"{name} ({_noise(*counts)})")
    if dropped and rose:
        change = "mixed"
    elif dropped or rose:
        change = "regressed" if dropped else "improved"
    elif flaky:
        change = "flaky"
    elif by_gold or rescored:
        change = "gold changed"
    else:
        change = "unchanged"
    status = ""
    if not repeated and now[0].status != before[0].status:
        status = f"status {before[0].status} -> {now[0].status}"
    return Unit(change, _detail(status, dropped, rose, flaky, by_gold, rescored))


def _detail(
    status: str, dropped: list[str], rose: list[str], flaky: list[str], by_gold: list[str],
    rescored: bool,
) -> str:  # fmt: skip
    parts = [status] if status else []
    for label, names in (
        ("pass to fail", dropped),
        ("fail to pass", rose),
        ("varies within a run", flaky),
        ("gold changed", by_gold),
    ):
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    if rescored:
        parts.append("gold changed: baseline re-scored under the candidate's gold")
    return "; ".join(parts)


def _passes(attempts: Sequence[AttemptSide], width: int) -> list[int]:
    """Per check position, how many of ``attempts`` passed it."""
    counts = [0] * width
    for attempt in attempts:
        for position, code in enumerate(attempt.codes):
            if code == "P":
                counts[position] += 1
    return counts


def _gold_reason(position: int, now: Sequence[AttemptSide], before: Sequence[AttemptSide]) -> str:
    if any(_code(a, position) == NOT_RESCORED for a in before):
        return "a changed custom expectation compare does not re-score"

    def has(attempts: Sequence[AttemptSide], state: str) -> bool:
        return any(
            position < len(a.judged) and (a.judged[position] or ("",))[0] == state for a in attempts
        )

    if has(now, WAITING):
        return "it waits for a person's verdict now"
    if not has(before, VERDICT):
        return "a person's verdict recorded between the runs"
    if not has(now, VERDICT):
        return "a person's verdict removed between the runs"
    return "a person's verdict changed between the runs, same answer"


# --- refusals -----------------------------------------------------------------------------------


def _refuse(what: str) -> InvalidInputError:
    return InvalidInputError(f"cannot compare: {what}.")


def _sides(label: str, candidate: object, baseline: object) -> str:
    return f"{label} is {candidate!r} in the candidate but {baseline!r} in the baseline"


def _digests(label: str, candidate: bytes | object, baseline: bytes | object) -> str:
    def digest(value: bytes | object) -> str:
        return bytes_digest(value) if isinstance(value, bytes) else value_digest(value)

    return f"{label} differs (candidate {digest(candidate)}, baseline {digest(baseline)})"


def _require_complete(side: ReportSide) -> None:
    header = side.header
    if not header.complete:
        raise _refuse(
            f"the {side.label} report {side.path} is incomplete (interrupted by "
            f"{header.interruption or 'a signal'}); compare needs complete attempts"
        )
    for suite in side.suites:
        for case in suite.cases:
            if not case.input_key:
                raise _refuse(
                    f"the {side.label} report {side.path} was written without details "
                    f"(suite {suite.name!r}, case {case.id!r} has no input); compare needs "
                    "inputs to match"
                )


def _require_same_scorers(candidate: ReportSide, baseline: ReportSide) -> None:
    before = {scorer.name: scorer.revision for scorer in baseline.header.scorers}
    for scorer in candidate.header.scorers:
        if scorer.name in before and before[scorer.name] != scorer.revision:
            raise _refuse(
                _sides(f"scorer {scorer.name!r} revision", scorer.revision, before[scorer.name])
            )


def _require_same_target(candidate: SuiteSide, baseline: SuiteSide) -> None:
    where = f"suite {candidate.name!r}: "
    now, before = candidate.record, baseline.record
    for label in ("workflow", "flow", "step"):
        if getattr(now, label) != getattr(before, label):
            raise _refuse(
                where + _sides(f"the {label}", getattr(now, label), getattr(before, label))
            )
    if now.target.kind != before.target.kind:
        raise _refuse(where + _sides("the target kind", now.target.kind, before.target.kind))
    if value_digest(now.target.identity) != value_digest(before.target.identity):
        raise _refuse(
            where + _digests("the target identity", now.target.identity, before.target.identity)
        )


def _catalog(metric: MetricResult) -> tuple[str, str, tuple[str | None, ...]]:
    return metric.kind, metric.path, tuple(metric.labels)


def _require_same_catalogs(candidate: SuiteSide, baseline: SuiteSide) -> None:
    where = f"suite {candidate.name!r}: "
    before = {metric.name: metric for metric in baseline.record.metrics}
    now = {metric.name: metric for metric in candidate.record.metrics}
    for name in [*now, *(n for n in before if n not in now)]:
        if name not in before or name not in now:
            side = "candidate" if name in now else "baseline"
            raise _refuse(where + f"metric {name!r} is in the {side} only")
        if _catalog(now[name]) != _catalog(before[name]):
            raise _refuse(
                where
                + _digests(
                    f"the catalog of metric {name!r}", _catalog(now[name]), _catalog(before[name])
                )
            )


def _gold_difference(candidate: CaseSide, baseline: CaseSide) -> str:
    now, before = candidate.expectations, baseline.expectations
    if len(now) != len(before):
        return _sides("the number of expectations", len(now), len(before))
    for mine, theirs in zip(now, before, strict=True):
        for label in ("name", "path", "comparison", "scorer"):
            if getattr(mine, label) != getattr(theirs, label):
                return f"expectation {mine.name!r}: " + _sides(
                    label, getattr(mine, label), getattr(theirs, label)
                )
        if mine.key() != theirs.key():
            return f"expectation {mine.name!r}: " + _digests(
                "expected", mine.expected, theirs.expected
            )
    return "the gold differs"  # pragma: no cover - equal expectations have equal keys


def _require_same_cases(candidate: SuiteSide, baseline: SuiteSide) -> None:
    where = f"suite {candidate.name!r}: "
    for position, (now, before) in enumerate(
        zip(candidate.cases, baseline.cases, strict=False), start=1
    ):
        if now.id != before.id:
            raise _refuse(where + _sides(f"case {position}", now.id, before.id) + _PARTIAL)
    if len(candidate.cases) != len(baseline.cases):
        longer = candidate if len(candidate.cases) > len(baseline.cases) else baseline
        extra = longer.cases[min(len(candidate.cases), len(baseline.cases))]
        side = "candidate" if longer is candidate else "baseline"
        raise _refuse(where + f"case {extra.id!r} is in the {side} only" + _PARTIAL)
    for now, before in zip(candidate.cases, baseline.cases, strict=True):
        case = f"suite {candidate.name!r}, case {now.id!r}: "
        if now.input_key != before.input_key:
            raise _refuse(case + _digests("the input", now.input_key, before.input_key) + _PARTIAL)
        if now.gold_key != before.gold_key:
            raise _refuse(case + "the gold differs: " + _gold_difference(now, before) + _PARTIAL)


_PARTIAL = " (--partial compares what matches and lists the rest)"


def _require_same_suites(candidate: ReportSide, baseline: ReportSide) -> None:
    now = [suite.name for suite in candidate.suites]
    before = [suite.name for suite in baseline.suites]
    for position, (mine, theirs) in enumerate(zip(now, before, strict=False), start=1):
        if mine != theirs:
            raise _refuse(_sides(f"suite {position}", mine, theirs) + _PARTIAL)
    if len(now) != len(before):
        extra = now[len(before)] if len(now) > len(before) else before[len(now)]
        side = "candidate" if len(now) > len(before) else "baseline"
        raise _refuse(f"suite {extra!r} is in the {side} only" + _PARTIAL)


# --- tallies ------------------------------------------------------------------------------------


@dataclass
class _Side:
    """What one side's attempts add up to."""

    attempts: int = 0
    passing: int = 0
    checks: int = 0
    passed: int = 0
    runtime_failures: int = 0
    latencies: list[float] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)
    by_name: dict[str, list[int]] = field(default_factory=dict)

    def add_case(self, attempts: Sequence[AttemptSide], names: Sequence[str]) -> None:
        """A case's attempts (skipped ones left out). Attempts are tallied by their check
        codes first: a case's repeats mostly share one, so per-name sums run once."""
        tally: Counter[str] = Counter()
        for attempt in attempts:
            status = attempt.status
            if status == "skipped":
                continue
            tally[attempt.codes] += 1
            if status in _RUNTIME_FAILURES:
                self.runtime_failures += 1
            if attempt.latency_ms is not None:
                self.latencies.append(float(attempt.latency_ms))
            if attempt.usage is not None:
                for key, value in _numbers(attempt.usage, ""):
                    self.usage[key] = self.usage.get(key, 0.0) + value
        by_name = self.by_name
        for codes, count in tally.items():
            passed = codes.count("P")
            self.attempts += count
            self.passing += count if passed == len(codes) else 0
            self.checks += count * len(codes)
            self.passed += count * passed
            for name, code in zip(names, codes, strict=False):
                if code == NOT_RESCORED:
                    continue
                entry = by_name.get(name)
                if entry is None:
                    entry = by_name[name] = [0, 0]
                entry[0] += count
                if code == "P":
                    entry[1] += count

    def merge(self, other: _Side) -> None:
        self.attempts += other.attempts
        self.passing += other.passing
        self.checks += other.checks
        self.passed += other.passed
        self.runtime_failures += other.runtime_failures
        self.latencies.extend(other.latencies)
        for key, value in other.usage.items():
            self.usage[key] = self.usage.get(key, 0.0) + value
        for name, (checks, passed) in other.by_name.items():
            tally = self.by_name.setdefault(name, [0, 0])
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
class _Tally:
    classes: Counter[str] = field(default_factory=Counter)
    candidate: _Side = field(default_factory=_Side)
    baseline: _Side = field(default_factory=_Side)

    def merge(self, other: _Tally) -> None:
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


def _figures(tally: _Tally, replay: bool) -> Figures:
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
    if _catalog(now) != _catalog(before):
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


def _metrics(candidate: SuiteSide, baseline: SuiteSide) -> tuple[MetricDelta, ...]:
    now = {metric.name: metric for metric in candidate.record.metrics}
    before = {metric.name: metric for metric in baseline.record.metrics}
    names = list(dict.fromkeys([*now, *before]))
    return tuple(_metric_delta(name, now.get(name), before.get(name)) for name in names)


# --- one suite ----------------------------------------------------------------------------------


@dataclass
class _Effect:
    cases: int = 0
    attempts: int = 0
    newly_failing: int = 0
    newly_passing: int = 0
    added: int = 0
    removed: int = 0
    not_rescored: int = 0

    def add(self, case: CaseSide, old: AttemptSide, new: AttemptSide, names: Sequence[str]) -> None:
        self.attempts += 1
        before = dict(zip(case.names, old.codes, strict=True))
        after = dict(zip(names, new.codes, strict=True))
        for name, code in after.items():
            if code == NOT_RESCORED:
                self.not_rescored += 1
            elif name not in before:
                self.added += 1
            elif before[name] == "P" and code != "P":
                self.newly_failing += 1
            elif before[name] != "P" and code == "P":
                self.newly_passing += 1
        self.removed += sum(1 for name in before if name not in after)

    def merge(self, other: _Effect) -> None:
        self.cases += other.cases
        self.attempts += other.attempts
        self.newly_failing += other.newly_failing
        self.newly_passing += other.newly_passing
        self.added += other.added
        self.removed += other.removed
        self.not_rescored += other.not_rescored


def _outcome(code: str | None) -> str | None:
    return None if code is None or code == NOT_RESCORED else OUTCOMES[code]


def _change(
    case: CaseSide, now: AttemptSide, before: AttemptSide, before_codes: str, change: str,
    rescored: bool,
) -> AttemptChange:  # fmt: skip
    names = case.names
    checks = []
    for position, name in enumerate(names):
        mine = now.codes[position] if position < len(now.codes) else None
        theirs = before_codes[position] if position < len(before_codes) else None
        if (mine == "P") != (theirs == "P"):
            checks.append(
                CheckChange(name=name, candidate=_outcome(mine), baseline=_outcome(theirs))
            )
    return AttemptChange(
        case_id=case.id,
        attempt=now.attempt,
        change=change,
        candidate_status=now.status,
        baseline_status=before.status,
        rescored=rescored,
        checks=tuple(checks),
    )


def _case_view(
    case_id: str, now: Sequence[AttemptSide], before: Sequence[AttemptSide], change: str
) -> CaseView:
    def passes(attempts: Iterable[AttemptSide]) -> tuple[int, int]:
        ran = [a for a in attempts if a.status != "skipped"]
        return sum(1 for a in ran if a.codes.count("P") == len(a.codes)), len(ran)

    mine, mine_n = passes(now)
    theirs, theirs_n = passes(before)
    return CaseView(
        case_id=case_id,
        candidate_passes=mine,
        candidate_attempts=mine_n,
        baseline_passes=theirs,
        baseline_attempts=theirs_n,
        candidate_flaky=_varies(now),
        baseline_flaky=_varies(before),
        change="unchanged" if change == "not compared" else change,
    )


def _varies(attempts: Sequence[AttemptSide]) -> bool:
    """Whether the attempts that ran disagree on some check's passing."""
    ran = {tuple(code == "P" for code in a.codes) for a in attempts if a.status != "skipped"}
    return len(ran) > 1


def _gold_positions(now: AttemptSide, before: AttemptSide) -> frozenset[int]:
    if not (now.judged or before.judged):
        return frozenset()
    width = max(len(now.judged), len(before.judged))
    return frozenset(p for p in range(width) if _judged_by_gold(p, (now,), (before,)))


def _pairs(
    case: CaseSide, before_attempts: Sequence[AttemptSide], classes: Counter[str], rescored: bool
) -> list[AttemptChange]:
    """Classify a case's attempt pairs (attempt k with attempt k) into ``classes``; attempts
    beyond the other side's repeats are counted, never dropped. Returns what changed."""
    changes = []
    paired = min(len(case.attempts), len(before_attempts))
    classes["candidate_only"] += len(case.attempts) - paired
    classes["baseline_only"] += len(before_attempts) - paired
    for now, before in zip(case.attempts, before_attempts, strict=False):
        if now.status == "skipped" or before.status == "skipped":
            classes["not_compared"] += 1
            continue
        change = classify(now.codes, before.codes, _gold_positions(now, before))
        classes[change] += 1
        if change != "unchanged":
            changes.append(_change(case, now, before, before.codes, change, rescored))
    return changes


@dataclass
class _SuiteResult:
    comparison: SuiteComparison
    tally: _Tally
    effect: _Effect


def _compare_suite(
    candidate: SuiteSide, baseline: SuiteSide, partial: bool, replay: bool, baseline_path: str
) -> _SuiteResult:
    _require_same_target(candidate, baseline)
    if not partial:
        _require_same_catalogs(candidate, baseline)
        _require_same_cases(candidate, baseline)
    before_cases = {case.id: case for case in baseline.cases}
    now_ids = {case.id for case in candidate.cases}
    skipped = "skipped" in (candidate.record.status, baseline.record.status)
    repeated = max(candidate.record.repeat, baseline.record.repeat) > 1
    tally, effect = _Tally(), _Effect()
    changes: list[AttemptChange] = []
    views: list[CaseView] = []
    added: list[str] = []
    input_changed: list[str] = []
    rescored_ids: list[str] = []
    counts = Counter[str]()
    findings: list[Finding] = []
    classes = Counter[str]()
    for case in candidate.cases:
        before_case = before_cases.get(case.id)
        if before_case is None:
            added.append(case.id)
            counts["added"] += len(case.attempts)
            continue
        if case.input_key != before_case.input_key:
            input_changed.append(case.id)
            counts["input_changed"] += len(case.attempts)
            classes["input changed"] += 1
            findings.append(
                Finding(
                    case_id=case.id,
                    attempt=0,
                    change="input changed",
                    detail="input changed: not compared (its input differs from the baseline's)",
                )
            )
            continue
        names = case.names
        rescored = case.gold_key != before_case.gold_key
        before_attempts = before_case.attempts
        if rescored:
            rescored_ids.append(case.id)
            effect.cases += 1
            before_attempts = rescore_case(case, before_case, candidate.name, baseline_path)
            for old, new in zip(before_case.attempts, before_attempts, strict=True):
                effect.add(before_case, old, new, names)
        tally.candidate.add_case(case.attempts, names)
        tally.baseline.add_case(before_attempts, names)
        changes.extend(_pairs(case, before_attempts, tally.classes, rescored))
        view = _classify_case(case, before_attempts, repeated, rescored, findings, classes)
        if view is not None:
            views.append(view)
    removed = [case for case in baseline.cases if case.id not in now_ids]
    unmatched = Unmatched(
        added=tuple(added),
        removed=tuple(case.id for case in removed),
        input_changed=tuple(input_changed),
        rescored=tuple(rescored_ids),
        added_attempts=counts["added"],
        removed_attempts=sum(len(case.attempts) for case in removed),
        input_changed_attempts=counts["input_changed"],
    )
    same_cases = not (added or removed or input_changed or rescored_ids)
    comparison = SuiteComparison(
        name=candidate.name,
        status="skipped" if skipped else "compared",
        repeat=CountDelta(
            candidate=candidate.record.repeat,
            baseline=baseline.record.repeat,
            delta=candidate.record.repeat - baseline.record.repeat,
        ),
        figures=_figures(tally, replay),
        metrics=_metrics(candidate, baseline),
        changes=tuple(changes),
        case_changes=dict(Counter(view.change for view in views)) if repeated else {},
        cases=tuple(views),
        unmatched=unmatched,
        metrics_scope="same cases" if same_cases else "each report's cases",
        unit="case" if repeated else "attempt",
        rule=REPEAT_RULE if repeated else SINGLE_RULE,
        classes=Classes(**{key.replace(" ", "_"): value for key, value in classes.items()}),
        findings=tuple(findings),
    )
    return _SuiteResult(comparison, tally, effect)


def _classify_case(
    case: CaseSide, before_attempts: Sequence[AttemptSide], repeated: bool, rescored: bool,
    findings: list[Finding], classes: Counter[str],
) -> CaseView | None:  # fmt: skip
    """The one classification of a compared case into ``findings`` and ``classes``: the case
    over its repeats (and its view), or each attempt pair of a suite run once."""
    names = case.names
    if repeated:
        unit = classify_unit(
            names, case.attempts, before_attempts, repeated=True, rescored=rescored
        )
        _record(findings, classes, case.id, 0, unit)
        return _case_view(case.id, case.attempts, before_attempts, unit.change)
    for now, before in zip(case.attempts, before_attempts, strict=False):
        if (
            now.codes == before.codes
            and not rescored
            and "skipped" not in (now.status, before.status)
        ):
            classes["unchanged"] += 1  # most pairs: nothing to classify
            continue
        unit = classify_unit(names, (now,), (before,), repeated=False, rescored=rescored)
        _record(findings, classes, case.id, now.attempt, unit)
    return None


def _record(
    findings: list[Finding], classes: Counter[str], case_id: str, attempt: int, unit: Unit
) -> None:
    classes[unit.change] += 1
    if unit.change not in ("unchanged", "not compared"):
        findings.append(
            Finding(case_id=case_id, attempt=attempt, change=unit.change, detail=unit.detail)
        )


# --- the whole comparison -----------------------------------------------------------------------


def _reference(side: ReportSide) -> ReportRef:
    header = side.header
    return ReportRef(
        path=side.path,
        digest=side.digest,
        started_at=header.started_at,
        dataset=header.dataset,
        variant=header.variant,
        replay_of=header.replay_of.digest if header.replay_of is not None else None,
    )


def compare_sides(
    candidate: ReportSide, baseline: ReportSide, *, partial: bool, now: datetime
) -> Comparison:
    """The comparison of two sides, or ``InvalidInputError`` naming the first thing that
    makes them incomparable."""
    _require_complete(candidate)
    _require_complete(baseline)
    _require_same_scorers(candidate, baseline)
    if not partial:
        _require_same_suites(candidate, baseline)
    replay = candidate.is_replay or baseline.is_replay
    results = []
    added_suites = []
    for suite in candidate.suites:
        other = baseline.suite(suite.name)
        if other is None:
            added_suites.append(suite.name)
            continue
        results.append(_compare_suite(suite, other, partial, replay, baseline.path))
    removed_suites = [s.name for s in baseline.suites if candidate.suite(s.name) is None]
    overall, effect = _Tally(), _Effect()
    for result in results:
        overall.merge(result.tally)
        effect.merge(result.effect)
    figures = _figures(overall, replay)
    counts = figures.attempts
    compared = (
        counts.improved + counts.regressed + counts.mixed + counts.gold_changed + counts.unchanged
    )
    classes = Classes()
    for result in results:
        classes = classes.plus(result.comparison.classes)
    total = sum(len(case.attempts) for suite in candidate.suites for case in suite.cases)
    return Comparison(
        goldgate_version=__version__,
        created_at=now.isoformat(),
        mode="partial" if partial else "full",
        candidate=_reference(candidate),
        baseline=_reference(baseline),
        comparable=Comparable(
            candidate_attempts=total,
            compared_attempts=compared,
            share=compared / total if total else 0.0,
            added_suites=tuple(added_suites),
            removed_suites=tuple(removed_suites),
        ),
        regressions=classes.regressions > 0,
        classes=classes,
        overall=figures,
        suites=tuple(result.comparison for result in results),
        gold_effect=GoldEffect(
            rescored_cases=effect.cases,
            rescored_attempts=effect.attempts,
            newly_failing=effect.newly_failing,
            newly_passing=effect.newly_passing,
            added_checks=effect.added,
            removed_checks=effect.removed,
            not_rescored=effect.not_rescored,
        )
        if partial
        else None,
    )
