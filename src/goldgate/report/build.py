"""From attempt outcomes to report records: summary figures, metrics, thresholds, verdicts.

Pure functions: nothing here runs a target or touches a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from goldgate.dataset.gold import GoldSuite
from goldgate.dataset.models import Case, Metric
from goldgate.errors import EXIT_CODE_MEANINGS, ExitCode, most_severe
from goldgate.execution.runner import AttemptOutcome, attempt_identities, unfinished
from goldgate.jsonvalue import MISSING, resolve_pointer
from goldgate.report.models import (
    AttemptRecord,
    CheckRecord,
    CountsRecord,
    MetricResult,
    SuiteRecord,
    TargetRecord,
    ThresholdRecord,
    VerdictRecord,
)
from goldgate.scoring import CheckOutcome, Observation, ObservationStatus, compute_metric

ATTEMPT_STATUSES = ("completed", "failed", "timed_out", "skipped", "cancelled")
CHECK_OUTCOMES = ("passed", "failed", "error", "not_run")
_RUNTIME_FAILURES = ("failed", "timed_out")


@dataclass(frozen=True)
class SuiteRun:
    """How one suite ended: its attempts (``None`` where the run was interrupted first)."""

    suite: GoldSuite
    target: TargetRecord
    attempts: Sequence[AttemptOutcome | None]
    repeat: int
    skip_reason: str | None = None
    started: bool = True


def _check_record(
    case: Case, index: int, outcome: CheckOutcome, include_details: bool
) -> CheckRecord:
    expectation = case.expectations[index]
    return CheckRecord(
        name=expectation.name,
        path=expectation.path,
        comparison=expectation.comparison,
        scorer=expectation.scorer,
        outcome=outcome.outcome.value,
        reason=outcome.reason,
        actual_present=outcome.actual_present,
        actual=outcome.actual if include_details else None,
        expected=expectation.expected if include_details else None,
        assertions_declared=outcome.assertions_declared,
        assertions_held=outcome.assertions_held,
        adjudication=outcome.adjudication,
        json_parsed=outcome.json_parsed,
        required_keys_found=outcome.required_keys_found,
        required_keys_declared=outcome.required_keys_declared,
    )


def _attempt_record(outcome: AttemptOutcome, include_details: bool) -> AttemptRecord:
    case = outcome.case
    document = outcome.document
    usage = document.get("usage") if document is not None else None
    return AttemptRecord(
        case_id=case.id,
        attempt=outcome.attempt,
        family=case.family,
        split=case.split,
        status=outcome.status,
        reason=outcome.reason,
        latency_ms=outcome.latency_ms,
        usage=usage,
        input=case.input.as_json() if include_details else None,
        result=dict(document) if include_details and document is not None else None,
        stderr=outcome.stderr if include_details else None,
        checks=tuple(
            _check_record(case, index, check, include_details)
            for index, check in enumerate(outcome.checks)
        ),
    )


def summary_figures(attempts: Sequence[AttemptOutcome]) -> dict[str, float | None]:
    """The suite-wide figures thresholds can gate on (``text.chars`` is a counter only).

    pass_rate is passed / (passed + failed + error) over checks that ran; the text figures
    are taken over the checks that declared them, so absent is never zero.
    """
    ran = passed = declared = held = parsed = parse_seen = keys = keys_declared = 0
    chars: list[int] = []
    for attempt in attempts:
        for check in attempt.checks:
            if check.outcome.value != "not_run":
                ran += 1
                passed += check.passed
            if check.assertions_declared:
                declared += check.assertions_declared
                held += check.assertions_held or 0
            if check.json_parsed is not None:
                parse_seen += 1
                parsed += check.json_parsed
            if check.required_keys_declared:
                keys_declared += check.required_keys_declared
                keys += check.required_keys_found or 0
            if check.assertions_declared is not None and isinstance(check.actual, str):
                chars.append(len(check.actual))
    return {
        "pass_rate": passed / ran if ran else None,
        "expect.satisfied": held / declared if declared else None,
        "json.parse": parsed / parse_seen if parse_seen else None,
        "schema.requiredCoverage": keys / keys_declared if keys_declared else None,
        "text.chars": sum(chars) / len(chars) if chars else None,
    }


def _observations(metric: Metric, attempts: Sequence[AttemptOutcome]) -> list[Observation]:
    included = set(metric.cases) if metric.cases is not None else None
    observations = []
    for attempt in attempts:
        case = attempt.case
        if included is not None and case.id not in included:
            continue
        gold = next(e.expected for e in case.expectations if e.path == metric.path)
        if attempt.status == "completed" and attempt.document is not None:
            predicted: Any = resolve_pointer(attempt.document, metric.path)
            status: ObservationStatus = "observed"
        else:
            predicted = MISSING
            status = "error" if attempt.status in _RUNTIME_FAILURES else "skipped"
        observations.append(Observation(case.id, attempt.attempt, gold, status, predicted))
    return observations


def _thresholds(
    thresholds: dict[str, float], summary: dict[str, float | None], metrics: Sequence[Any]
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
                key=key,
                minimum=minimum,
                actual=actual,
                held=actual is not None and actual >= minimum,
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


def _counts(attempts: Sequence[AttemptOutcome]) -> CountsRecord:
    attempt_counts = Counter(attempt.status for attempt in attempts)
    check_counts = Counter(check.outcome.value for a in attempts for check in a.checks)
    return CountsRecord(
        attempts={status: attempt_counts[status] for status in ATTEMPT_STATUSES},
        checks={outcome: check_counts[outcome] for outcome in CHECK_OUTCOMES},
    )


def build_suite_record(run: SuiteRun, include_details: bool) -> SuiteRecord:
    suite = run.suite
    attempts = _complete_slots(run)
    summary = summary_figures(attempts)
    metrics: tuple[MetricResult, ...] = tuple(
        compute_metric(metric, _observations(metric, attempts)) for metric in suite.metrics
    )
    thresholds = _thresholds(suite.thresholds, summary, metrics)
    counts = _counts(attempts)
    if run.skip_reason is not None:
        verdict, status = "skipped", "skipped"
    elif not run.started:
        verdict, status = "incomplete", "not_started"
    else:
        status = "ran"
        verdict = _verdict(counts, thresholds, bool(suite.thresholds))
    return SuiteRecord(
        name=suite.name,
        fingerprint=suite.fingerprint,
        workflow=suite.workflow,
        flow=suite.flow,
        step=suite.step,
        target=run.target,
        status=status,
        skip_reason=run.skip_reason,
        case_count=len(suite.cases),
        attempt_count=len(attempts),
        counts=counts,
        summary=summary,
        metrics=metrics,
        thresholds=thresholds,
        verdict=verdict,
        attempts=tuple(_attempt_record(attempt, include_details) for attempt in attempts),
    )


def _complete_slots(run: SuiteRun) -> list[AttemptOutcome]:
    """Every attempt identity, with skipped or cancelled records where nothing ran."""
    identities = list(attempt_identities(run.suite, run.repeat))
    if run.skip_reason is not None:
        return [unfinished(case, n, "skipped", run.skip_reason) for case, n in identities]
    slots = list(run.attempts) if run.started else [None] * len(identities)
    reason = "the run was interrupted before this attempt finished"
    return [
        slot if slot is not None else unfinished(case, n, "cancelled", reason)
        for slot, (case, n) in zip(slots, identities, strict=True)
    ]


def _verdict(counts: CountsRecord, thresholds: Sequence[ThresholdRecord], gated: bool) -> str:
    if counts.attempts["cancelled"]:
        return "incomplete"
    if counts.attempts["failed"] or counts.attempts["timed_out"]:
        return "error"
    if gated:
        return "passed" if all(threshold.held for threshold in thresholds) else "failed"
    return "passed" if not (counts.checks["failed"] or counts.checks["error"]) else "failed"


_SUITE_EXIT = {
    "passed": ExitCode.PASSED,
    "skipped": ExitCode.PASSED,
    "failed": ExitCode.GOLD_DISAGREEMENT,
    "error": ExitCode.RUNTIME_FAILURE,
    "incomplete": ExitCode.INTERRUPTED,
}


def run_verdict(suites: Sequence[SuiteRecord], interrupted: bool) -> VerdictRecord:
    """The run's verdict: the most severe of its suites' (130 > 4 > 1 > 0)."""
    code = most_severe(
        *(_SUITE_EXIT[suite.verdict] for suite in suites),
        ExitCode.INTERRUPTED if interrupted else ExitCode.PASSED,
    )
    return VerdictRecord(
        passed=code is ExitCode.PASSED,
        exit_code=int(code),
        meaning=EXIT_CODE_MEANINGS[code],
        suites=dict(Counter(suite.verdict for suite in suites)),
    )
