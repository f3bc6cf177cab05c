"""A suite's record rebuilt around other cases: every figure its record states recomputed
from them (``report.verdicts``), for reports joined from several (merged shards,
``report.merge``). Read side: it works on records read back, cases and all."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, get_args

from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import resolve_pointer
from goldgate.report.caserecords import CheckOutcomeName, CheckRecord, actual_at
from goldgate.report.figures import suite_figures
from goldgate.report.livefigures import JudgeTally, LiveTally, latencies_kept
from goldgate.report.records import AwaitingRecord, QueuedJudgeRecord, SuiteRecord
from goldgate.report.verdicts import (
    RUNTIME_FAILURES,
    Figures,
    suite_metrics,
)
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.observations import ObservationStatus, ObservationTally

if TYPE_CHECKING:
    from goldgate.gold.models import Metric
    from goldgate.report.caserecords import AttemptRecord, CaseRecord, JudgeRecord

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
        self.observations = [ObservationTally() for _ in record.metric_definitions]
        self.queue: list[AwaitingRecord] = []
        self.live = LiveTally()
        # Kept (8 bytes each) only for a latency maximum to hold them to, as a run keeps them.
        kept = latencies_kept(threshold.key for threshold in record.thresholds)
        self.latencies: array[float] | None = array("d") if kept else None
        self.judges = JudgeTally()

    def add(self, case: CaseRecord) -> None:
        self.cases += 1
        for attempt in case.attempts:
            self._add(case, attempt)

    def _priced(self, case: CaseRecord, attempt: AttemptRecord) -> None:
        """The attempt's live figures and judges' cost (what a subclass also places:
        ``report.shardtally``, whose float sums depend on their order)."""
        self.live.add(attempt.retries, attempt.cached, attempt.cost)
        self.judges.add_cost(attempt.judge_cost)

    def _queued(self, case: CaseRecord, entry: AwaitingRecord) -> None:
        self.queue.append(entry)

    def _observe(self, case: CaseRecord, metric: int, attempt: AttemptRecord) -> None:
        """What the attempt says for metric ``metric`` (``build._observation``), tallied
        (the observation made only where it is new: ``ObservationTally.observe``)."""
        found = _observation(self.suite.metric_definitions[metric], case, attempt)
        if found is not None:
            gold, status, predicted = found
            self.observations[metric].observe(
                case.id, attempt.attempt, gold=gold, status=status, predicted=predicted
            )

    def _add(self, case: CaseRecord, attempt: AttemptRecord) -> None:
        """One attempt's figures, read from its records as ``caserecords.attempt_views``
        joins them (a check with its expectation; none stored: every expectation not run),
        its answer at a check's path resolved only where a figure reads it."""
        status = attempt.status
        self.attempts[status] += 1
        self._priced(case, attempt)
        if self.latencies is not None and attempt.latency_ms is not None:
            self.latencies.append(attempt.latency_ms)
        stored = attempt.checks
        if not stored:  # each not run (which no summary figure counts)
            self.checks["not_run"] += len(case.expectations)
        completed = status == "completed"
        checked: list[_Checked] = []
        for expectation, check in zip(case.expectations if stored else (), stored, strict=True):
            self.checks[check.outcome] += 1
            judge = check.judge
            if judge is not None and completed:
                self.judges.add_check(judge.name, judge.revision, judge.decided)
            actual = None
            if check.adjudication or check.assertions_declared is not None:
                _, actual = actual_at(attempt.result, expectation.path)
            if check.adjudication and isinstance(actual, str):
                entry = AwaitingRecord(
                    case=case.id,
                    attempt=attempt.attempt,
                    check=expectation.name,
                    note=note_of(expectation.expected),
                    digest=output_digest(actual),
                    judge=queued_judge(judge),
                )
                self._queued(case, entry)
            if completed:
                checked.append(_checked(check, actual))
        self.figures.add(checked)
        for metric in range(len(self.suite.metric_definitions)):
            self._observe(case, metric, attempt)

    def record(self) -> SuiteRecord:
        record = self.suite
        summary = self.figures.summary()
        skipped = record.status == "skipped"
        metrics = () if skipped else suite_metrics(record.metric_definitions, self.observations)
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


class _Checked:
    """A stored check as the summary figures read it (``verdicts.CheckFigures``), with its
    answer where they read it (a text check's)."""

    __slots__ = (
        "actual",
        "adjudication",
        "assertions_declared",
        "assertions_held",
        "json_parsed",
        "outcome",
        "required_keys_declared",
        "required_keys_found",
    )

    def __init__(self, check: CheckRecord, actual: Any) -> None:
        self.outcome = check.outcome
        self.adjudication = check.adjudication
        self.assertions_declared = check.assertions_declared
        self.assertions_held = check.assertions_held
        self.json_parsed = check.json_parsed
        self.required_keys_declared = check.required_keys_declared
        self.required_keys_found = check.required_keys_found
        self.actual = actual


_PLAIN_CHECKS = {
    outcome: _Checked(CheckRecord(outcome=outcome), None) for outcome in get_args(CheckOutcomeName)
}
"""The view of a check that holds nothing the figures read but its outcome: most of them."""


def _checked(check: CheckRecord, actual: Any) -> _Checked:
    """``check`` as the figures read it: one of ``_PLAIN_CHECKS`` where it is one of them
    (the figures read its answer only where it declared assertions)."""
    if (
        check.assertions_declared is None
        and not check.adjudication
        and check.json_parsed is None
        and check.required_keys_declared is None
        and check.required_keys_found is None
    ):
        return _PLAIN_CHECKS[check.outcome]
    return _Checked(check, actual)


def queued_judge(said: JudgeRecord | None) -> QueuedJudgeRecord | None:
    """A stored check's judge as its queue entry states it (its reason: kept only where the
    report kept it, with details)."""
    if said is None:
        return None
    return QueuedJudgeRecord(
        name=said.name, revision=said.revision, verdict=said.verdict, reason=said.reason
    )


def _observation(
    metric: Metric, case: CaseRecord, attempt: AttemptRecord
) -> tuple[Any, ObservationStatus, Any] | None:
    """(gold, status, predicted) of the attempt's observation for ``metric``; None where
    the metric does not count the case."""
    if metric.cases is not None and case.id not in metric.cases:
        return None
    gold = next(each.expected for each in case.expectations if each.path == metric.path)
    if attempt.status == "completed" and attempt.result is not None:
        return gold, "observed", resolve_pointer(attempt.result, metric.path)
    status: ObservationStatus = "error" if attempt.status in RUNTIME_FAILURES else "skipped"
    return gold, status, MISSING
