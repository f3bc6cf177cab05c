"""Reports built as models, for what a real run cannot easily produce: an interrupted run,
thousands of failing cases, reasons full of control characters. Counts and verdicts are
derived from the attempts the way goldgate derives them."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

from goldgate.report.models import (
    AttemptRecord,
    AwaitingRecord,
    CaseRecord,
    CheckRecord,
    CountsRecord,
    DatasetRecord,
    ExpectationRecord,
    MetricResult,
    OptionsRecord,
    Report,
    SuiteRecord,
    TargetRecord,
    ThresholdRecord,
    VariantRecord,
)
from goldgate.report.verdicts import ATTEMPT_STATUSES, CHECK_OUTCOMES, run_verdict

FIXED_TIME = "2026-01-01T00:00:00+00:00"


def expectation(
    name: str, path: str = "/payload/category", expected: Any = "billing"
) -> ExpectationRecord:
    return ExpectationRecord(name=name, path=path, expected=expected)


def attempt(
    n: int = 1,
    status: str = "completed",
    outcomes: Sequence[str] = ("passed",),
    *,
    reason: str | None = None,
    reasons: Sequence[str | None] | None = None,
    latency_ms: float | None = 12.5,
    result: dict[str, Any] | None = None,
) -> AttemptRecord:
    """An attempt; a completed one gets one check per outcome (with ``reasons``, or a
    generic reason for anything but passed)."""
    checks: tuple[CheckRecord, ...] = ()
    if status == "completed":
        reasons = reasons or [None] * len(outcomes)
        checks = tuple(
            CheckRecord(
                outcome=outcome,  # type: ignore[arg-type]
                reason=why if why is not None or outcome == "passed" else f"the check {outcome}",
            )
            for outcome, why in zip(outcomes, reasons, strict=True)
        )
    elif reason is None:
        reason = {
            "failed": "ValueError: the application broke",
            "timed_out": "no result within 5 s",
            "skipped": "not authorized",
            "cancelled": "the run was interrupted (SIGINT)",
        }[status]
    return AttemptRecord(
        attempt=n,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        latency_ms=latency_ms if status in ("completed", "failed", "timed_out") else None,
        result=result,
        checks=checks,
    )


def case(
    case_id: str,
    attempts: Sequence[AttemptRecord],
    expectations: Sequence[ExpectationRecord] | None = None,
    *,
    line: int | None = None,
    split: str | None = None,
) -> CaseRecord:
    if expectations is None:
        width = max((len(a.checks) for a in attempts), default=1) or 1
        expectations = [expectation(f"check_{i + 1}") for i in range(width)]
    return CaseRecord(
        id=case_id,
        line=line,
        split=split,
        expectations=tuple(expectations),
        attempts=tuple(attempts),
    )


def suite(
    name: str,
    cases: Sequence[CaseRecord],
    *,
    repeat: int = 1,
    status: str = "ran",
    skip_reason: str | None = None,
    thresholds: Sequence[ThresholdRecord] = (),
    metrics: Sequence[MetricResult] = (),
    cases_source: str | None = "evaluation/cases/gold.json",
    adjudication: int = 0,
    adjudication_queue: Sequence[AwaitingRecord] = (),
    live: bool = False,
) -> SuiteRecord:
    attempts: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    for record in cases:
        for each in record.attempts:
            attempts[each.status] += 1
            if each.checks:
                checks.update(check.outcome for check in each.checks)
            else:
                checks["not_run"] += len(record.expectations)
    ran = checks["passed"] + checks["failed"] + checks["error"]
    counts = CountsRecord(
        attempts={s: attempts[s] for s in ATTEMPT_STATUSES},
        checks={o: checks[o] for o in CHECK_OUTCOMES},
    )
    if status == "skipped":
        verdict = "skipped"
    elif status == "not_started" or attempts["cancelled"]:
        verdict = "incomplete"
    elif attempts["failed"] or attempts["timed_out"]:
        verdict = "error"
    elif thresholds:
        verdict = "passed" if all(t.held for t in thresholds) else "failed"
    else:
        verdict = "failed" if checks["failed"] or checks["error"] else "passed"
    return SuiteRecord(
        name=name,
        fingerprint="sha256:" + "0" * 64,
        workflow="triage",
        flow=None,
        step=None,
        target=TargetRecord(kind="python", workflow_revision="r1", live=live),
        cases_source=cases_source,
        status=status,  # type: ignore[arg-type]
        skip_reason=skip_reason,
        repeat=repeat,
        case_count=len(cases),
        attempt_count=sum(len(c.attempts) for c in cases),
        cases=tuple(cases),
        counts=counts,
        summary={
            "pass_rate": checks["passed"] / ran if ran else None,
            "expect.satisfied": None,
            "json.parse": None,
            "schema.requiredCoverage": None,
            "text.chars": None,
        },
        adjudication=adjudication or len(adjudication_queue),
        adjudication_queue=tuple(adjudication_queue),
        metrics=tuple(metrics),
        thresholds=tuple(thresholds),
        verdict=verdict,  # type: ignore[arg-type]
    )


def report(
    suites: Sequence[SuiteRecord],
    *,
    name: str = "built_gold",
    revision: str = "r1",
    complete: bool = True,
    interruption: str | None = None,
) -> Report:
    records = tuple(suites)
    adjudication = sum(s.adjudication for s in records)
    return Report(
        goldgate_version="0.0.0",
        started_at=FIXED_TIME,
        dataset=DatasetRecord(name=name, revision=revision, fingerprint="sha256:" + "1" * 64),
        variant=VariantRecord(name="candidate", revision="v1", configuration_revision=None),
        options=OptionsRecord(
            max_concurrency=1,
            timeout=300,
            repeat=max((s.repeat for s in records), default=1),
            suites=(),
            live=False,
            include_details=True,
        ),
        suites=records,
        complete=complete,
        interruption=interruption,
        finished_at=FIXED_TIME,
        duration_seconds=1.0,
        verdict=run_verdict(records, not complete, adjudication),
    )


def many_attempts(attempts: int, reason: str = "the check failed") -> Report:
    """One suite of ``attempts`` single-attempt cases, every tenth failing its second check
    (with ``reason``), latencies spread over 17 values."""
    cases = [
        case(
            f"case-{index:05d}",
            [
                attempt(
                    1,
                    outcomes=("passed", "failed" if index % 10 == 9 else "passed"),
                    reasons=[None, reason if index % 10 == 9 else None],
                    latency_ms=3.0 + index % 17,
                    result={"payload": {"category": f"answer {index}"}},
                )
            ],
            [expectation("status"), expectation("category", expected=f"gold {index}")],
            line=2 + 12 * index,
        )
        for index in range(attempts)
    ]
    return report([suite("bulk", cases)])


def normalized(value: Report) -> Report:
    """A report from a real run with everything that changes between runs made fixed:
    timings, the version, and each attempt's latency (1 ms more per attempt of a suite)."""
    suites = []
    for record in value.suites:
        cases, index = [], 0
        for each in record.cases:
            attempts = []
            for one in each.attempts:
                index += 1
                latency = None if one.latency_ms is None else round(index * 1.0 + 0.2345, 4)
                attempts.append(dataclasses.replace(one, latency_ms=latency))
            cases.append(dataclasses.replace(each, attempts=tuple(attempts)))
        suites.append(
            dataclasses.replace(
                record,
                cases=tuple(cases),
                target=dataclasses.replace(record.target, identity={}),
            )
        )
    return dataclasses.replace(
        value,
        suites=tuple(suites),
        started_at=FIXED_TIME,
        finished_at=FIXED_TIME,
        duration_seconds=1.0,
        goldgate_version="0.0.0",
    )
