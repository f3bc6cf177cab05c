"""A suite's cases in the report: each case, its gold (stored once) and its attempts, and the
flat views of attempts and checks that code reading reports joins them into.

Format 2 is compact: each case's input and gold are stored once, beside its attempts; a
check stores only what gold and the result document do not already say.
``report.records.SuiteRecord.attempts`` joins them back into flat attempt and check views
(with ``actual`` and ``expected``). A run writes these records as plain JSON a case at a time
(``report.build``); reading a report validates them through these very classes
(``report.models``).
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic resolves them when report.models builds its adapters.
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import resolve_pointer
from goldgate.report.recordbase import READ, Record, Shared
from goldgate.scoring.outcomes import not_run_reason

__all__ = [
    "AttemptRecord",
    "AttemptStatus",
    "AttemptView",
    "CaseRecord",
    "CheckOutcomeName",
    "CheckRecord",
    "CheckView",
    "ExceptionRecord",
    "ExpectationRecord",
    "FrameRecord",
    "JudgeRecord",
    "actual_at",
    "attempt_views",
    "exception_fields",
]

CheckOutcomeName = Literal["passed", "failed", "error", "not_run"]
AttemptStatus = Literal["completed", "failed", "timed_out", "skipped", "cancelled"]
"""completed: the target returned a result document; failed: it raised, exited non-zero or
returned something that is not a result document; timed_out: no result within the deadline;
skipped: the suite was not authorized (live without --live); cancelled: the run was
interrupted before the attempt finished."""


# Keyword-only, as every container record: fields with defaults come before ones without.
@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class JudgeRecord(Record):
    """What the expectation's judge said of the answer (docs/judges.md)."""

    name: str
    revision: str
    verdict: Literal["pass", "fail"] | None = field(
        default=None, metadata={"description": "The judge's verdict; null: it gave none."}
    )
    decided: bool = field(
        default=False,
        metadata={
            "description": "The judge was calibrated and its verdict decided the check; "
            "false: it only suggested one, and the check waits for a person."
        },
    )
    reason: str | None = field(
        default=None,
        metadata={"description": "Private: the judge's reason, as it wrote it; only with details."},
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class CheckRecord(Record):
    """What one check of a completed attempt found, beyond its gold and the result."""

    outcome: CheckOutcomeName
    reason: str | None = field(
        default=None, metadata={"description": "One safe sentence for anything but passed."}
    )
    assertions_declared: int | None = None
    assertions_held: int | None = None
    adjudication: bool = False
    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None
    adjudicated: bool = field(
        default=False,
        metadata={
            "description": "A person's verdict recorded for this very answer, judged against "
            "this very gold, in the project's verdict store decided the check; it no longer "
            "waits for one."
        },
    )
    judge: JudgeRecord | None = None
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class FrameRecord(Record):
    """One frame of a traceback: its file, 1-based line and function."""

    file: str
    line: int | None = None
    function: str
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class ExceptionRecord(Record):
    """What a python target (or a Python eval) raised: its type and where in the
    application, always; its message and last frames only with details (private, as a
    result document is)."""

    type: str = field(metadata={"description": "The exception's qualified type name."})
    where: FrameRecord | None = field(
        default=None,
        metadata={
            "description": "The innermost frame of the application (not goldgate's, not the "
            "standard library's, not an installed package's, where another frame is), its "
            "file relative to the project folder where it lies inside."
        },
    )
    message: str | None = field(
        default=None,
        metadata={"description": "Private: str() of the exception, bounded; only with details."},
    )
    frames: tuple[FrameRecord, ...] = field(
        default=(),
        metadata={
            "description": "Private: the innermost frames, outermost first; only with details."
        },
    )
    __pydantic_config__ = READ


def exception_fields(record: ExceptionRecord | None) -> dict[str, Any] | None:
    """A stored exception as the plain fields a run writes (a replay copies it over)."""
    if record is None:
        return None

    def frame(item: FrameRecord) -> dict[str, Any]:
        return {"file": item.file, "line": item.line, "function": item.function}

    fields: dict[str, Any] = {"type": record.type}
    if record.where is not None:
        fields["where"] = frame(record.where)
    if record.message is not None:
        fields["message"] = record.message
    if record.frames:
        fields["frames"] = [frame(item) for item in record.frames]
    return fields


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class AttemptRecord(Record):
    """One execution of one case. Identity: (suite, case id, attempt)."""

    attempt: int = field(
        metadata={"ge": 1, "description": "1-based attempt number within the case."}
    )
    status: AttemptStatus
    reason: str | None = field(
        default=None, metadata={"description": "One safe sentence when not completed."}
    )
    latency_ms: float | None = None
    usage: Any = field(
        default=None, metadata={"description": "The result document's /usage, when it has one."}
    )
    retries: int = field(
        default=0,
        metadata={
            "ge": 0,
            "description": "Calls after the first that a live target made for this attempt "
            "(the workflow's retry settings).",
        },
    )
    cached: bool = field(
        default=False,
        metadata={
            "description": "The answer came from the response cache (--cache): no call was made."
        },
    )
    cost: float | None = field(
        default=None,
        metadata={
            "ge": 0,
            "description": "The usage priced by the workflow's pricing (its currency is the "
            "suite target's); None without pricing or usage.",
        },
    )
    judge_cost: float | None = field(
        default=None,
        metadata={
            "ge": 0,
            "description": "What asking judges about this attempt's answers cost, priced by "
            "the judges' workflows; apart from the application's cost.",
        },
    )
    result: dict[str, Any] | None = field(
        default=None, metadata={"description": "Private: the result document."}
    )
    stderr: str | None = field(
        default=None, metadata={"description": "Private: a command target's stderr tail."}
    )
    exception: ExceptionRecord | None = field(
        default=None,
        metadata={"description": "A failed attempt: what its python target or eval raised."},
    )
    checks: Annotated[tuple[CheckRecord, ...], Shared("checks")] = field(
        default=(),
        metadata={
            "description": "One per expectation for a completed attempt; empty otherwise "
            "(every check of an attempt that did not complete is not_run for the attempt's "
            "reason)."
        },
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class ExpectationRecord(Record):
    # No docstring: the report's JSON schema describes none for it.
    name: str
    path: str
    comparison: str = "exact"
    scorer: str | None = None
    judge: str | None = field(
        default=None,
        metadata={"description": "The judge that decides what a person would (docs/judges.md)."},
    )
    expected: Any = field(
        default=None, metadata={"description": "Private: the gold value; only with details."}
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class CaseRecord(Record):
    """A case, its gold (stored once) and its attempts in order."""

    id: str
    position: int | None = field(
        default=None,
        metadata={"description": "In a shard's report: the case's position in the whole suite."},
    )
    line: int | None = field(
        default=None,
        metadata={
            "ge": 1,
            "description": "1-based line of the case's opening brace in cases_source.",
        },
    )
    family: str | None = None
    split: str | None = None
    input: dict[str, Any] | None = field(
        default=None, metadata={"description": "Private: the case envelope."}
    )
    expectations: Annotated[tuple[ExpectationRecord, ...], Shared("expectations")]
    attempts: tuple[AttemptRecord, ...]
    __pydantic_config__ = READ


@dataclass(frozen=True)
class CheckView:
    """One check as code reads it: its expectation, outcome and (with details) values."""

    name: str
    path: str
    comparison: str
    scorer: str | None
    outcome: CheckOutcomeName
    reason: str | None
    actual_present: bool
    actual: Any
    expected: Any
    assertions_declared: int | None = None
    assertions_held: int | None = None
    adjudication: bool = False
    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None
    adjudicated: bool = False
    judge: JudgeRecord | None = None


@dataclass(frozen=True)
class AttemptView:
    """One attempt with its case's identity and input, and every check."""

    case_id: str
    attempt: int
    family: str | None
    split: str | None
    status: AttemptStatus
    reason: str | None
    latency_ms: float | None
    usage: Any
    input: dict[str, Any] | None
    result: dict[str, Any] | None
    stderr: str | None
    checks: tuple[CheckView, ...]
    retries: int = 0
    cached: bool = False
    cost: float | None = None
    judge_cost: float | None = None


def attempt_views(case: CaseRecord) -> Iterator[AttemptView]:
    """Every attempt of ``case`` in order, joined with its gold."""
    for attempt in case.attempts:
        yield AttemptView(
            case.id,
            attempt.attempt,
            case.family,
            case.split,
            attempt.status,
            attempt.reason,
            attempt.latency_ms,
            attempt.usage,
            case.input,
            attempt.result,
            attempt.stderr,
            _check_views(case, attempt),
            attempt.retries,
            attempt.cached,
            attempt.cost,
            attempt.judge_cost,
        )


def actual_at(result: dict[str, Any] | None, path: str) -> tuple[bool, Any]:
    """(present, value) at ``path`` of a result document; absent is not null."""
    if result is None:
        return False, None
    try:
        value = resolve_pointer(result, path)
    except PointerSyntaxError:
        return False, None
    return (False, None) if value is MISSING else (True, value)


def _check_views(case: CaseRecord, attempt: AttemptRecord) -> tuple[CheckView, ...]:
    if not attempt.checks:
        why = not_run_reason(attempt.status, attempt.reason)
        return tuple(
            CheckView(
                e.name, e.path, e.comparison, e.scorer, "not_run", why, False, None, e.expected
            )
            for e in case.expectations
        )
    views = []
    for expectation, check in zip(case.expectations, attempt.checks, strict=True):
        present, actual = actual_at(attempt.result, expectation.path)
        views.append(
            CheckView(
                expectation.name,
                expectation.path,
                expectation.comparison,
                expectation.scorer,
                check.outcome,
                check.reason,
                present,
                actual,
                expectation.expected,
                check.assertions_declared,
                check.assertions_held,
                check.adjudication,
                check.json_parsed,
                check.required_keys_found,
                check.required_keys_declared,
                check.adjudicated,
                check.judge,
            )
        )
    return tuple(views)
