"""From attempt outcomes to report records, one case at a time: the case record as plain JSON
data, and per suite the counters, summary figures, metric observations, thresholds and
verdict that are kept while the records themselves go to the file.

Pure: nothing here runs a target or touches a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode, most_severe
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import parse_pointer, resolve, resolve_pointer
from goldgate.gold._stream.store import RecordedCase, recorded_case
from goldgate.gold.compiled import CompiledExpectation, GoldFields
from goldgate.report.plain import record_json
from goldgate.report.records import (
    AwaitingRecord,
    CountsRecord,
    SuiteRecord,
    SuiteStatus,
    SuiteVerdict,
    TargetRecord,
    ThresholdRecord,
    VerdictRecord,
)
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.attempt import AttemptOutcome
from goldgate.scoring.observations import Observation, ObservationStatus
from goldgate.scoring.outcomes import CheckOutcome

if TYPE_CHECKING:
    # Only gold with metrics makes observations, and only merging reads reports back: the
    # models (and pydantic) are imported where they are used, so Python evals never load them.
    from goldgate.gold.models import Case, Metric
    from goldgate.gold.suites import GoldSuite
    from goldgate.report import models
    from goldgate.report.models import AttemptView, MetricResult

ATTEMPT_STATUSES = ("completed", "failed", "timed_out", "skipped", "cancelled")
CHECK_OUTCOMES = ("passed", "failed", "error", "not_run")
_RUNTIME_FAILURES = ("failed", "timed_out")
_CHECK_FIELDS = (
    "assertions_declared",
    "assertions_held",
    "json_parsed",
    "required_keys_found",
    "required_keys_declared",
)


def check_json(check: CheckOutcome) -> dict[str, Any]:
    """A check as stored: its outcome and only the fields that say something."""
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
        if include_details:
            record["result"] = document
    if include_details and outcome.stderr:
        record["stderr"] = outcome.stderr
    if outcome.status == "completed":
        record["checks"] = [check_json(check) for check in outcome.checks]
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
    if include_details:
        item["expected"] = expectation.expected
    return item


class CheckFigures(Protocol):
    """What the summary figures read of a check (an outcome, a view, a stored record)."""

    @property
    def outcome(self) -> str: ...
    @property
    def adjudication(self) -> bool: ...
    @property
    def assertions_declared(self) -> int | None: ...
    @property
    def assertions_held(self) -> int | None: ...
    @property
    def actual(self) -> Any: ...
    @property
    def json_parsed(self) -> bool | None: ...
    @property
    def required_keys_declared(self) -> int | None: ...
    @property
    def required_keys_found(self) -> int | None: ...


class _Figures:
    """The suite-wide figures thresholds can gate on, summed as attempts arrive.

    pass_rate is passed / (passed + failed + error) over checks that ran; the text figures are
    taken over the checks that declared them, so absent is never zero.
    """

    def __init__(self) -> None:
        self.ran = self.passed = self.declared = self.held = 0
        self.parsed = self.parse_seen = self.keys = self.keys_declared = 0
        self.chars = self.texts = 0
        self.adjudication = 0

    def add(self, checks: Sequence[CheckFigures]) -> None:
        """Check outcomes as scored, or checks as read back from a report."""
        for check in checks:
            if check.outcome != "not_run":
                self.ran += 1
                self.passed += check.outcome == "passed"
            if check.adjudication:
                self.adjudication += 1
            if check.assertions_declared is not None:
                self.declared += check.assertions_declared
                self.held += check.assertions_held or 0
                if isinstance(check.actual, str):
                    self.chars += len(check.actual)
                    self.texts += 1
            if check.json_parsed is not None:
                self.parse_seen += 1
                self.parsed += check.json_parsed
            if check.required_keys_declared:
                self.keys_declared += check.required_keys_declared
                self.keys += check.required_keys_found or 0

    def summary(self) -> dict[str, float | None]:
        def ratio(numerator: int, denominator: int) -> float | None:
            return numerator / denominator if denominator else None

        return {
            "pass_rate": ratio(self.passed, self.ran),
            "expect.satisfied": ratio(self.held, self.declared),
            "json.parse": ratio(self.parsed, self.parse_seen),
            "schema.requiredCoverage": ratio(self.keys, self.keys_declared),
            "text.chars": ratio(self.chars, self.texts),
        }


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
    observations metrics need are kept."""

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
        self.figures = _Figures()
        self.observations: list[list[Observation]] = [[] for _ in suite.metrics]
        self._metric_scopes: list[tuple[Metric, frozenset[str] | None]] = []
        if suite.metrics:
            from goldgate.gold.rules import metric_scopes

            self._metric_scopes = metric_scopes(suite.metrics)
        self._pending: list[dict[str, Any]] = []
        self.queue: list[AwaitingRecord] = []
        self.count = 0

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
                self.queue.append(
                    AwaitingRecord(
                        outcome.case.id,
                        outcome.attempt,
                        expectation.name,
                        note,
                        output_digest(check.actual),
                    )
                )

    def add(self, outcome: AttemptOutcome) -> None:
        self.attempts[outcome.status] += 1
        if outcome.status == "completed":
            counts = self.checks
            queued = False
            for check in outcome.checks:
                counts[check.outcome] += 1
                queued = queued or check.adjudication
            self.figures.add(outcome.checks)
            if queued:
                self._queue(outcome)
        else:  # every check is not_run and measures nothing (an interrupted run: many)
            self.checks["not_run"] += len(outcome.checks)
        if self._metric_scopes:
            for (metric, scope), observations in zip(
                self._metric_scopes, self.observations, strict=True
            ):
                observation = _observation(metric, scope, outcome)
                if observation is not None:
                    observations.append(observation)
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
        metrics = () if skipped else _metrics(suite.metrics, self.observations)
        thresholds = _thresholds(suite.thresholds, summary, metrics)
        counts = CountsRecord(
            {status: self.attempts[status] for status in ATTEMPT_STATUSES},
            {outcome: self.checks[outcome] for outcome in CHECK_OUTCOMES},
        )
        verdict: SuiteVerdict
        status: SuiteStatus
        if skipped:
            verdict, status = "skipped", "skipped"
        elif not started:
            verdict, status = "incomplete", "not_started"
        else:
            status = "ran"
            verdict = _verdict(counts, thresholds, bool(suite.thresholds))
        # Every value is built here, of the type the model declares (tests/conftest.py
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
            counts=counts,
            summary={
                key: None if value is None else float(value) for key, value in summary.items()
            },
            adjudication=self.figures.adjudication,
            adjudication_queue=tuple(self.queue),
            metrics=metrics,
            thresholds=thresholds,
            verdict=verdict,
        )


def _metrics(
    metrics: Sequence[Metric], observations: Sequence[Sequence[Observation]]
) -> tuple[MetricResult, ...]:
    """Each metric computed over its observations; gold without metrics (Python evals
    among it) never imports the metric models."""
    if not metrics:
        return ()
    from goldgate.scoring.metrics import compute_metric

    return tuple(
        compute_metric(metric, found) for metric, found in zip(metrics, observations, strict=True)
    )


_HEAD_FIELDS = {
    "name", "fingerprint", "workflow", "flow", "step", "target", "cases_source", "status",
    "skip_reason", "repeat", "case_count", "whole_case_count", "metric_definitions",
}  # fmt: skip


_TAIL_FIELDS = {
    "attempt_count", "counts", "summary", "adjudication", "adjudication_queue", "metrics",
    "thresholds", "verdict",
}  # fmt: skip


def suite_head(record: SuiteRecord | models.SuiteRecord) -> dict[str, Any]:
    """What a suite's record says before its cases."""
    return record_json(record, by_alias=True, include=_HEAD_FIELDS)


def suite_tail(record: SuiteRecord | models.SuiteRecord) -> dict[str, Any]:
    """What a suite's record says after its cases."""
    return record_json(record, include=_TAIL_FIELDS)


@cache
def _tokens(path: str) -> tuple[str, ...]:
    """A metric's path parsed once (gold paths are checked pointers)."""
    return parse_pointer(path)


def _observation(
    metric: Metric, scope: frozenset[str] | None, outcome: AttemptOutcome
) -> Observation | None:
    """What the attempt says for ``metric`` (``scope``: the case ids it includes, ``None``
    for all); None for a case the metric leaves out."""
    if scope is not None and outcome.case.id not in scope:
        return None
    expected = next(e.expected for e in outcome.case.expectations if e.path == metric.path)
    if outcome.status == "completed" and outcome.document is not None:
        predicted: Any = resolve(outcome.document, _tokens(metric.path))
        status: ObservationStatus = "observed"
    else:
        predicted = MISSING
        status = "error" if outcome.status in _RUNTIME_FAILURES else "skipped"
    return Observation(outcome.case.id, outcome.attempt, expected, status, predicted)


def _thresholds(
    thresholds: Mapping[str, float], summary: Mapping[str, float | None], metrics: Sequence[Any]
) -> tuple[ThresholdRecord, ...]:
    by_name = {metric.name: metric for metric in metrics}
    records = []
    for key, minimum in thresholds.items():
        if key in summary:
            actual = summary[key]
        else:
            name, _, figure = key.rpartition(".")
            actual = _metric_figure(by_name.get(name), figure)
        records.append(
            ThresholdRecord(
                key,
                float(minimum),
                None if actual is None else float(actual),
                actual is not None and actual >= minimum,
            )
        )
    return tuple(records)


def _metric_figure(metric: Any, figure: str) -> float | None:
    if metric is None:
        return None
    if figure.startswith(("micro_", "macro_")):
        average, _, measure = figure.partition("_")
        return float(getattr(getattr(metric, average), measure))
    value = getattr(metric, figure, None)
    return None if value is None else float(value)


def _verdict(
    counts: CountsRecord | models.CountsRecord,
    thresholds: Sequence[ThresholdRecord],
    gated: bool,
) -> SuiteVerdict:
    if counts.attempts["cancelled"]:
        return "incomplete"
    if counts.attempts["failed"] or counts.attempts["timed_out"]:
        return "error"
    if counts.checks["error"]:  # thresholds absorb disagreement, never a check that broke
        return "failed"
    if gated:
        return "passed" if all(threshold.held for threshold in thresholds) else "failed"
    return "passed" if not counts.checks["failed"] else "failed"


_SUITE_EXIT = {
    "passed": ExitCode.PASSED,
    "skipped": ExitCode.PASSED,
    "failed": ExitCode.GOLD_DISAGREEMENT,
    "error": ExitCode.RUNTIME_FAILURE,
    "incomplete": ExitCode.INTERRUPTED,
}

NOTHING_EVALUATED = "nothing was evaluated"


STUCK = "watchdog"
"""The interruption of a run the watchdog ended: a target kept the event loop blocked and no
signal asked for the stop."""
STUCK_MEANING = (
    "runtime failure: a target kept the event loop blocked and could not be stopped; what "
    "finished is in the report"
)


def run_verdict(
    suites: Sequence[SuiteRecord | models.SuiteRecord],
    interrupted: bool,
    adjudication: int = 0,
    *,
    interruption: str | None = None,
) -> VerdictRecord:
    """The run's verdict: the most severe of its suites' (130 > 4 > 1 > 0). A run in which no
    check ran and nothing failed says so: 'nothing was evaluated' (exit 0). A run the
    watchdog ended (``interruption`` is ``STUCK``) is incomplete, but nobody interrupted it:
    what its suites left unfinished is a runtime failure (4), never 130."""
    stuck = interruption == STUCK
    stopped = ExitCode.RUNTIME_FAILURE if stuck else ExitCode.INTERRUPTED
    code = most_severe(
        *(
            stopped if suite.verdict == "incomplete" else _SUITE_EXIT[suite.verdict]
            for suite in suites
        ),
        stopped if interrupted else ExitCode.PASSED,
    )
    evaluated = any(
        suite.counts.checks.get(outcome, 0) for suite in suites for outcome in CHECK_OUTCOMES[:3]
    )
    meaning = EXIT_CODE_MEANINGS[code]
    if code is ExitCode.PASSED and not evaluated:
        meaning = NOTHING_EVALUATED
    elif stuck and code is ExitCode.RUNTIME_FAILURE:
        meaning = STUCK_MEANING
    return VerdictRecord(
        passed=code is ExitCode.PASSED,
        exit_code=int(code),
        meaning=meaning,
        suites=dict(Counter(suite.verdict for suite in suites)),
        evaluated=evaluated,
        adjudication=adjudication,
    )


def rebuild_suite(
    record: models.SuiteRecord, cases: Sequence[models.CaseRecord]
) -> models.SuiteRecord:
    """``record`` with ``cases`` and every figure recomputed from them: counts, summary,
    metrics (over the observations, from the suite's metric definitions), thresholds and
    verdict. Used where cases from several reports are joined (merged shards)."""
    from goldgate.report.models import AwaitingRecord as Awaiting
    from goldgate.report.models import CountsRecord as Counts
    from goldgate.report.models import ThresholdRecord as Threshold

    attempts: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    figures = _Figures()
    observations: list[list[Observation]] = [[] for _ in record.metric_definitions]
    rebuilt = record.model_copy(update={"cases": tuple(cases)})
    queue: list[Awaiting] = []
    for view in rebuilt.iter_attempts():
        attempts[view.status] += 1
        for check in view.checks:
            checks[check.outcome] += 1
            if check.adjudication and isinstance(check.actual, str):
                queue.append(
                    Awaiting(
                        case=view.case_id,
                        attempt=view.attempt,
                        check=check.name,
                        note=note_of(check.expected),
                        digest=output_digest(check.actual),
                    )
                )
        if view.status == "completed":
            figures.add(view.checks)
        for metric, found in zip(record.metric_definitions, observations, strict=True):
            observation = _view_observation(metric, view)
            if observation is not None:
                found.append(observation)
    counts = Counts(
        attempts={status: attempts[status] for status in ATTEMPT_STATUSES},
        checks={outcome: checks[outcome] for outcome in CHECK_OUTCOMES},
    )
    summary = figures.summary()
    skipped = record.status == "skipped"
    metrics = () if skipped else _metrics(record.metric_definitions, observations)
    thresholds = _thresholds(
        {threshold.key: threshold.minimum for threshold in record.thresholds}, summary, metrics
    )
    verdict = (
        record.verdict
        if record.status != "ran"
        else _verdict(counts, thresholds, bool(record.thresholds))
    )
    return rebuilt.model_copy(
        update={
            "case_count": len(cases),
            "attempt_count": sum(attempts.values()),
            "counts": counts,
            "summary": summary,
            "adjudication": figures.adjudication,
            "adjudication_queue": tuple(queue),
            "metrics": metrics,
            "thresholds": tuple(Threshold(**threshold._asdict()) for threshold in thresholds),
            "verdict": verdict,
        }
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
        status = "error" if view.status in _RUNTIME_FAILURES else "skipped"
    return Observation(view.case_id, view.attempt, gold, status, predicted)
