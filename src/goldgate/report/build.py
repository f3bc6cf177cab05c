"""From attempt outcomes to report records, one case at a time: the case record as plain JSON
data, and per suite the counters, summary figures, metric observations, thresholds and
verdict that are kept while the records themselves go to the file.

What those figures come to (thresholds, verdicts, the run's verdict) is ``report.verdicts``,
shared with reading a report back (``report.verify``); rebuilding a read suite around other
cases is ``report.rebuild``. Pure: nothing here runs a target or touches a file.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from goldgate.base.frozen import built
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import parse_pointer, resolve
from goldgate.gold.compiled import CompiledExpectation, GoldFields
from goldgate.gold.recorded import RecordedCase, recorded_case
from goldgate.report.figures import suite_figures
from goldgate.report.livefigures import (
    JudgeTally,
    LiveTally,
    latencies_kept,
    plain_thresholds,
    written,
)
from goldgate.report.plain import record_json
from goldgate.report.records import (
    AwaitingRecord,
    QueuedJudgeRecord,
    SuiteRecord,
    SuiteStatus,
    TargetRecord,
)
from goldgate.report.verdicts import (
    RUNTIME_FAILURES,
    Figures,
    suite_metrics,
)
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.attempt import AttemptOutcome
from goldgate.scoring.observations import ObservationStatus, ObservationTally
from goldgate.scoring.outcomes import CheckOutcome

if TYPE_CHECKING:
    # Only gold with metrics makes observations: the gold models (and pydantic) are imported
    # where they are used, so Python evals never load them.
    from goldgate.gold.models import Case, Metric
    from goldgate.gold.suites import GoldSuite

_CHECK_FIELDS = (
    "assertions_declared",
    "assertions_held",
    "json_parsed",
    "required_keys_found",
    "required_keys_declared",
)


def check_json(check: CheckOutcome, include_details: bool = False) -> dict[str, Any]:
    """A check as stored: its outcome and only the fields that say something (a judge's
    reason, private, only with details)."""
    record: dict[str, Any] = {"outcome": check.outcome}  # a str enum: written as its value
    if check.reason is not None:
        record["reason"] = check.reason
    fields = vars(check)  # one dict lookup a field (a frozen dataclass keeps its fields there)
    for name in _CHECK_FIELDS:
        value = fields[name]
        if value is not None:
            record[name] = value
    if check.adjudication:
        record["adjudication"] = True
    if check.adjudicated:
        record["adjudicated"] = True
    judge = check.judge
    if judge is not None:
        said: dict[str, Any] = {"name": judge.name, "revision": judge.revision}
        said["verdict"] = judge.verdict
        said["decided"] = judge.decided
        if include_details and judge.reason is not None:
            said["reason"] = judge.reason
        record["judge"] = said
    return record


def attempt_json(outcome: AttemptOutcome, include_details: bool) -> dict[str, Any]:
    """An attempt as stored. Checks only for a completed attempt: every check of any other
    is not_run for the attempt's own reason, which the reader derives."""
    record: dict[str, Any] = {"attempt": outcome.attempt, "status": outcome.status}
    if outcome.reason is not None:
        record["reason"] = outcome.reason
    if outcome.latency_ms is not None:
        record["latency_ms"] = round(outcome.latency_ms, 3)
    document = outcome.document
    if document is not None:
        usage = document.get("usage")
        if usage is not None:
            record["usage"] = usage
    if outcome.retries:
        record["retries"] = outcome.retries
    if outcome.cached:
        record["cached"] = True
    if outcome.cost is not None:
        record["cost"] = outcome.cost
    if outcome.judge_cost is not None:
        record["judge_cost"] = outcome.judge_cost
    if document is not None and include_details:
        record["result"] = document
    if include_details and outcome.stderr:
        record["stderr"] = outcome.stderr
    exception = outcome.exception
    if exception is not None:
        # Its type and place always (the safe comment shows them); its message and frames,
        # like the result document, only with details.
        kept = (
            exception
            if include_details
            else {key: value for key, value in exception.items() if key in ("type", "where")}
        )
        record["exception"] = dict(kept)
    if outcome.status == "completed":
        record["checks"] = [check_json(check, include_details) for check in outcome.checks]
    return record


def case_json(
    suite: GoldSuite,
    index: int,
    case: Case | RecordedCase,
    attempts: list[dict[str, Any]],
    include_details: bool,
    expectations: Sequence[GoldFields],
) -> dict[str, Any]:
    """A case as stored: identity, input and gold once, then its attempts."""
    record: dict[str, Any] = {"id": case.id}
    if suite.positions is not None:
        record["position"] = suite.positions[index]
    if suite.lines:
        record["line"] = suite.lines[index]
    if case.family is not None:
        record["family"] = case.family
    if case.split is not None:
        record["split"] = case.split
    if include_details:
        record["input"] = case.input.as_json()
    record["expectations"] = [_gold_json(item, include_details) for item in expectations]
    record["attempts"] = attempts
    return record


def _gold_json(expectation: GoldFields, include_details: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"name": expectation.name, "path": expectation.path}
    if expectation.comparison != "exact":
        item["comparison"] = expectation.comparison
    if expectation.scorer is not None:
        item["scorer"] = expectation.scorer
    judge = getattr(expectation, "judge", None)
    if judge is not None:
        item["judge"] = judge
    if include_details:
        item["expected"] = expectation.expected
    return item


class Collector(Protocol):
    """Where a suite's attempts go, in case-major order, and what makes its record."""

    leave_unscored: Callable[[], bool] | None
    """Asked as each attempt starts: whether it may come unscored (a completed attempt with
    no checks) to be scored here (``runner.run_attempt``). None: never."""

    def add(self, outcome: AttemptOutcome) -> None: ...

    def add_unfinished(self, index: int, attempt: int, status: str, reason: str) -> bool: ...

    def record(
        self, target: TargetRecord, *, skip_reason: str | None = None, started: bool = True
    ) -> SuiteRecord: ...


class SuiteCollector:
    """One suite's attempts, taken in case-major order. Each case's record goes to
    ``write_case`` as soon as its last attempt arrives; only counters, summary sums and the
    distinct observations metrics need (``ObservationTally``) are kept, nothing an attempt
    (issue 43: a run's memory does not grow with its attempts) but the latencies a latency
    maximum needs (8 bytes an attempt) and the queue of checks waiting for a person."""

    leave_unscored: Callable[[], bool] | None = None

    def __init__(
        self,
        suite: GoldSuite,
        repeat: int,
        include_details: bool,
        write_case: Callable[[dict[str, Any]], None],
    ) -> None:
        self.suite = suite
        self.repeat = repeat
        self.include_details = include_details
        self.write_case = write_case
        self.attempts: Counter[str] = Counter()
        self.checks: Counter[str] = Counter()
        self.figures = Figures()
        self.observations = [ObservationTally() for _ in suite.metrics]
        self._metric_scopes: list[tuple[Metric, frozenset[str] | None]] = []
        if suite.metrics:
            from goldgate.gold.rules import metric_scopes

            self._metric_scopes = metric_scopes(suite.metrics)
        self._pending: list[dict[str, Any]] = []
        self.queue: list[AwaitingRecord] = []
        self.count = 0
        self.live = LiveTally()
        self.judges = JudgeTally()
        self.latencies: array[float] | None = (
            array("d") if latencies_kept(suite.thresholds) else None
        )  # kept only for a latency maximum to hold them to

    def case_expectations(self, index: int) -> Sequence[CompiledExpectation]:
        """The expectations of case ``index``, in check order (a subclass may decide them
        per case, as Python evals do for their score keys)."""
        return self.suite.compiled[index]

    def record_expectations(self, index: int, case: Case | RecordedCase) -> Sequence[GoldFields]:
        """The expectations the record of case ``index`` lists: the gold's, read from the
        case itself (nothing is compiled for a case that never ran)."""
        return case.expectations

    def summary(self) -> dict[str, float | None]:
        """The suite's summary figures, which thresholds gate on."""
        return self.figures.summary()

    def _queue(self, outcome: AttemptOutcome) -> None:
        expectations = self.case_expectations(outcome.index)
        for expectation, check in zip(expectations, outcome.checks, strict=True):
            if check.adjudication and isinstance(check.actual, str):
                note = note_of(expectation.expected) if self.include_details else None
                said = check.judge
                self.queue.append(
                    awaiting(
                        case=outcome.case.id,
                        attempt=outcome.attempt,
                        check=expectation.name,
                        note=note,
                        answer=check.actual,
                        judge=None
                        if said is None
                        else QueuedJudgeRecord(
                            name=said.name,
                            revision=said.revision,
                            verdict=said.verdict,
                            reason=said.reason if self.include_details else None,
                        ),
                    )
                )

    def add(self, outcome: AttemptOutcome) -> None:
        self.attempts[outcome.status] += 1
        if outcome.retries or outcome.cached or outcome.cost is not None:
            self.live.add(outcome.retries, outcome.cached, outcome.cost)
        if self.latencies is not None and outcome.latency_ms is not None:
            self.latencies.append(round(outcome.latency_ms, 3))  # as the attempt stores it
        self.judges.add_cost(outcome.judge_cost)
        if outcome.status == "completed":
            counts = self.checks
            queued = False
            for check in outcome.checks:
                counts[check.outcome] += 1
                queued = queued or check.adjudication
                judge = check.judge
                if judge is not None:
                    self.judges.add_check(judge.name, judge.revision, judge.decided)
            self.figures.add(outcome.checks)
            if queued:
                self._queue(outcome)
        else:  # every check is not_run and measures nothing (an interrupted run: many)
            self.checks["not_run"] += len(outcome.checks)
        if self._metric_scopes:
            for (metric, scope), tally in zip(self._metric_scopes, self.observations, strict=True):
                _observe(tally, metric, scope, outcome)
        self._pending.append(attempt_json(outcome, self.include_details))
        self._added(outcome.index, outcome.attempt, outcome.case)

    def add_unfinished(self, index: int, attempt: int, status: str, reason: str) -> bool:
        """What ``add`` of ``attempt.unfinished(...)`` does, without building the outcome and
        its not-run checks: an interrupted run writes every attempt it never started this
        way (100,000 of them within the time CI allows after its signal). False, having done
        nothing, where the outcome itself is needed (a metric observes every attempt)."""
        if self._metric_scopes:
            return False
        case = recorded_case(self.suite.cases, index)
        self.attempts[status] += 1
        self.checks["not_run"] += len(case.expectations)
        self._pending.append({"attempt": attempt, "status": status, "reason": reason})
        self._added(index, attempt, case)
        return True

    def add_written(
        self, attempts: Mapping[str, int], checks: Mapping[str, int], count: int
    ) -> None:
        """Count in ``count`` attempts that another collector of this suite took, whole
        cases whose records are written already (``report.process``: attempts never
        started, written by the run's process while this one wrote those before them)."""
        if self._pending:
            raise ValueError("attempts of a case are pending: not at a case's end")
        self.attempts.update(attempts)
        self.checks.update(checks)
        self.count += count

    def _added(self, index: int, attempt: int, case: Case | RecordedCase) -> None:
        """One more attempt of case ``index`` in ``_pending``: the case is written after
        its last."""
        self.count += 1
        if attempt == self.repeat:
            self.write_case(
                case_json(
                    self.suite,
                    index,
                    case,
                    self._pending,
                    self.include_details,
                    self.record_expectations(index, case),
                )
            )
            self._pending = []

    def record(
        self, target: TargetRecord, *, skip_reason: str | None = None, started: bool = True
    ) -> SuiteRecord:
        """The suite's record without its cases (they are in the file already)."""
        suite = self.suite
        summary = self.summary()
        skipped = skip_reason is not None
        metrics = () if skipped else suite_metrics(suite.metrics, self.observations)
        status: SuiteStatus = "skipped" if skipped else "ran" if started else "not_started"
        figures = suite_figures(
            self, status, summary=summary, metrics=metrics, bounds=suite.thresholds
        )
        # Every value is built here, of the type the record declares (tests/conftest.py
        # validates what each in-process run builds).
        return SuiteRecord(
            name=suite.name,
            fingerprint=suite.fingerprint,
            workflow=suite.workflow,
            flow=suite.flow,
            step=suite.step,
            target=target,
            cases_source=suite.cases_source,
            status=status,
            skip_reason=skip_reason,
            repeat=self.repeat,
            case_count=len(suite.cases),
            whole_case_count=suite.whole_case_count,
            metric_definitions=tuple(suite.metrics),
            attempt_count=self.count,
            cases=(),
            counts=figures.counts,
            summary={
                key: None if value is None else float(value) for key, value in summary.items()
            },
            adjudication=self.figures.adjudication,
            judges=self.judges.records(),
            judge_cost=self.judges.cost,
            adjudication_queue=tuple(self.queue),
            metrics=metrics,
            thresholds=figures.thresholds,
            live=self.live.record(target.pricing),
            verdict=figures.verdict,
        )


def awaiting(
    *,
    case: str,
    attempt: int,
    check: str,
    note: str | None,
    answer: str,
    judge: QueuedJudgeRecord | None = None,
) -> AwaitingRecord:
    """The queue's record of a check waiting for a verdict on ``answer``: one per such check,
    built without the dataclass's ``__init__`` (under half its cost; tests/base/test_frozen.py
    holds it to the constructor)."""
    fields = {
        "case": case,
        "attempt": attempt,
        "check": check,
        "note": note,
        "digest": output_digest(answer),
        "judge": judge,
    }
    return built(AwaitingRecord, fields)


_HEAD_FIELDS = {
    "name",
    "fingerprint",
    "workflow",
    "flow",
    "step",
    "target",
    "cases_source",
    "status",
    "skip_reason",
    "repeat",
    "case_count",
    "whole_case_count",
    "metric_definitions",
}


_TAIL_FIELDS = {
    "attempt_count",
    "counts",
    "summary",
    "adjudication",
    "judges",
    "judge_cost",
    "adjudication_queue",
    "metrics",
    "thresholds",
    "live",
    "verdict",
}


def suite_head(record: SuiteRecord) -> dict[str, Any]:
    """What a suite's record says before its cases."""
    head = record_json(record, by_alias=True, include=_HEAD_FIELDS)
    written(head["target"], ("pricing",))
    return head


def suite_tail(record: SuiteRecord) -> dict[str, Any]:
    """What a suite's record says after its cases."""
    tail = written(record_json(record, include=_TAIL_FIELDS), ("live", "judge_cost"))
    if not tail["judges"]:  # written only where a judge reviewed a check
        del tail["judges"]
    tail["thresholds"] = plain_thresholds(tail["thresholds"])
    return tail


@cache
def _tokens(path: str) -> tuple[str, ...]:
    """A metric's path parsed once (gold paths are checked pointers)."""
    return parse_pointer(path)


def _observe(
    tally: ObservationTally, metric: Metric, scope: frozenset[str] | None, outcome: AttemptOutcome
) -> None:
    """What the attempt says for ``metric`` into its tally (``scope``: the case ids it
    includes, ``None`` for all); nothing for a case the metric leaves out."""
    case = outcome.case
    if scope is not None and case.id not in scope:
        return
    expected = next(e.expected for e in case.expectations if e.path == metric.path)
    status: ObservationStatus
    if outcome.status == "completed" and outcome.document is not None:
        predicted: Any = resolve(outcome.document, _tokens(metric.path))
        status = "observed"
    else:
        predicted = MISSING
        status = "error" if outcome.status in RUNTIME_FAILURES else "skipped"
    tally.observe(case.id, outcome.attempt, gold=expected, status=status, predicted=predicted)
