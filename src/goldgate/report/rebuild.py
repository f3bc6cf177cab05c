"""A suite's record rebuilt around other cases: every figure its record states recomputed
from them (``report.verdicts``), for reports joined from several (merged shards,
``report.merge``). Read side: it works on records read back, cases and all."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from typing import TYPE_CHECKING, Any

from goldgate.base.jsonvalue import MISSING, canonical_json
from goldgate.base.pointers import resolve_pointer
from goldgate.report.caserecords import attempt_views
from goldgate.report.figures import suite_figures
from goldgate.report.livefigures import JudgeTally, LiveTally
from goldgate.report.records import AwaitingRecord, QueuedJudgeRecord, SuiteRecord
from goldgate.report.verdicts import (
    RUNTIME_FAILURES,
    Figures,
    suite_metrics,
)
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.observations import Observation, ObservationStatus

if TYPE_CHECKING:
    from goldgate.gold.models import Metric
    from goldgate.report.caserecords import AttemptView, CaseRecord, JudgeRecord

__all__ = ["SuiteRebuild", "rebuild_suite"]


def rebuild_suite(record: SuiteRecord, cases: Sequence[CaseRecord]) -> SuiteRecord:
    """``record`` with ``cases`` and every figure recomputed from them: counts, summary,
    metrics (over the observations, from the suite's metric definitions), thresholds and
    verdict. Used where cases from several reports are joined (merged shards)."""
    rebuilt = SuiteRebuild(record)
    for case in cases:
        rebuilt.add(case)
    return replace(rebuilt.record(), cases=tuple(cases))


class SuiteRebuild:
    """``rebuild_suite`` a case at a time: ``add`` each case in order, then ``record`` is
    the suite's record with every figure recomputed and its cases left out (a merge that
    writes each case as it goes, ``report.mergestream``)."""

    def __init__(self, record: SuiteRecord) -> None:
        self.suite = replace(record, cases=())
        self.cases = 0
        self.attempts: Counter[str] = Counter()
        self.checks: Counter[str] = Counter()
        self.figures = Figures()
        self.observations = [_Observed() for _ in record.metric_definitions]
        self.queue: list[AwaitingRecord] = []
        self.live = LiveTally()
        # Kept only for a latency maximum to hold them to (as a run keeps them), 8 bytes each.
        latency = any(threshold.key.startswith("latency.") for threshold in record.thresholds)
        self.latencies: array[float] | None = array("d") if latency else None
        self.judges = JudgeTally()

    def add(self, case: CaseRecord) -> None:
        self.cases += 1
        for view in attempt_views(case):
            self._add(view)

    def _add(self, view: AttemptView) -> None:
        self.attempts[view.status] += 1
        self.live.add(view.retries, view.cached, view.cost)
        self.judges.add_cost(view.judge_cost)
        if self.latencies is not None and view.latency_ms is not None:
            self.latencies.append(view.latency_ms)
        for check in view.checks:
            self.checks[check.outcome] += 1
            if check.judge is not None and view.status == "completed":
                self.judges.add_check(check.judge.name, check.judge.revision, check.judge.decided)
            if check.adjudication and isinstance(check.actual, str):
                self.queue.append(
                    AwaitingRecord(
                        case=view.case_id,
                        attempt=view.attempt,
                        check=check.name,
                        note=note_of(check.expected),
                        digest=output_digest(check.actual),
                        judge=queued_judge(check.judge),
                    )
                )
        if view.status == "completed":
            self.figures.add(view.checks)
        for metric, found in zip(self.suite.metric_definitions, self.observations, strict=True):
            observation = _view_observation(metric, view)
            if observation is not None:
                found.add(observation)

    def record(self) -> SuiteRecord:
        record = self.suite
        summary = self.figures.summary()
        skipped = record.status == "skipped"
        observations = [found.each() for found in self.observations]
        metrics = () if skipped else suite_metrics(record.metric_definitions, observations)
        bounds = {threshold.key: threshold.bound for threshold in record.thresholds}
        tally = _Tally(self.attempts, self.checks, self.live, self.latencies)
        decided = suite_figures(
            tally, record.status, summary=summary, metrics=metrics, bounds=bounds
        )
        return replace(
            record,
            case_count=self.cases,
            attempt_count=sum(self.attempts.values()),
            counts=decided.counts,
            summary=summary,
            adjudication=self.figures.adjudication,
            judges=self.judges.records(),
            judge_cost=self.judges.cost,
            adjudication_queue=tuple(self.queue),
            metrics=metrics,
            thresholds=decided.thresholds,
            live=self.live.record(record.target.pricing),
            verdict=decided.verdict,
        )


@dataclass(frozen=True)
class _Tally:
    """The rebuilt suite's tallies (``figures.SuiteTally``)."""

    attempts: Counter[str]
    checks: Counter[str]
    live: LiveTally
    latencies: array[float] | None


class _Observed:
    """A metric's observations as a tally: each distinct observation (its gold, status and
    prediction) once, the first attempt that made it and how many did, in the order first
    made. A metric counts observations (``scoring.metrics``), so the observations it is
    given again (``each``: each distinct one as many times as it was made, in that order)
    give the result all of them in the suite's order give, and the refusal of gold outside
    its catalog names the same first case; held meanwhile: the distinct observations, not
    one a case (issue 43: a merge's memory stays flat)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[object, ...], list[Any]] = {}

    def add(self, observation: Observation) -> None:
        key = (_key(observation.gold), observation.status, _key(observation.predicted))
        found = self.seen.get(key)
        if found is None:
            self.seen[key] = [observation, 1]
        else:
            found[1] += 1

    def each(self) -> Iterator[Observation]:
        for observation, count in self.seen.values():
            yield from repeat(observation, count)


def _key(value: Any) -> tuple[object, ...]:
    """What tells two observed values apart as a metric does (by type and value: ``1``,
    ``1.0``, ``True`` and ``"1"`` are different labels or none)."""
    if value is MISSING:
        return (MISSING,)
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    return (kind, canonical_json(value))


def queued_judge(said: JudgeRecord | None) -> QueuedJudgeRecord | None:
    """A stored check's judge as its queue entry states it (its reason: kept only where the
    report kept it, with details)."""
    if said is None:
        return None
    return QueuedJudgeRecord(
        name=said.name, revision=said.revision, verdict=said.verdict, reason=said.reason
    )


def _view_observation(metric: Metric, view: AttemptView) -> Observation | None:
    if metric.cases is not None and view.case_id not in metric.cases:
        return None
    gold = next(check.expected for check in view.checks if check.path == metric.path)
    if view.status == "completed" and view.result is not None:
        predicted: Any = resolve_pointer(view.result, metric.path)
        status: ObservationStatus = "observed"
    else:
        predicted = MISSING
        status = "error" if view.status in RUNTIME_FAILURES else "skipped"
    return Observation(view.case_id, view.attempt, gold, status, predicted)
