"""The report: everything one run produced, versioned, frozen, with private detail inside.

``format`` is the first field of every report file. A newer format is refused with a clear
message and older ones are migrated on load (``report.io``). Field names are the file format:
change them only with a new format version and a migration.

Format 2 is compact: each case's input and gold are stored once, beside its attempts; a check
stores only what gold and the result document do not already say. ``SuiteRecord.attempts``
joins them back into flat attempt and check views (with ``actual`` and ``expected``) for code
that reads reports.

The small records of the header and of each suite (dataset, variant, options, scorers,
replay, target, counts, thresholds, queue, verdict) are defined once, as the dataclasses of
``report.records`` that a run builds; they are this module's field types, so reading a
report validates them through that definition. The per-case records (cases, attempts,
checks, expectations) are models here only: a run writes them as plain JSON.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic would otherwise eval() every field's annotation when a process defines the models.
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import PointerSyntaxError, resolve_pointer
from goldgate.gold.models import Metric
from goldgate.report.records import (
    AwaitingRecord,
    CountsRecord,
    DatasetRecord,
    OptionsRecord,
    ReplayRecord,
    ScorerRecord,
    SuiteStatus,
    SuiteVerdict,
    TargetRecord,
    ThresholdRecord,
    VariantRecord,
    VerdictRecord,
    not_run_reason,
)
from goldgate.scoring.metrics import ClassificationMetricResult, MultilabelMetricResult

CheckOutcomeName = Literal["passed", "failed", "error", "not_run"]
AttemptStatus = Literal["completed", "failed", "timed_out", "skipped", "cancelled"]
"""completed: the target returned a result document; failed: it raised, exited non-zero or
returned something that is not a result document; timed_out: no result within the deadline;
skipped: the suite was not authorized (live without --live); cancelled: the run was
interrupted before the attempt finished."""


def problem_words(problem: Any) -> str:
    """pydantic's message for a validation ``problem`` (one of ``errors()``), worded as for a
    model where it is in a dataclass of ``report.records``, which pydantic words otherwise:
    those records were models once, and what a reader is told about them stays the same."""
    kind = problem["type"]
    if kind == "unexpected_keyword_argument":
        return "Extra inputs are not permitted"
    if kind == "dataclass_type":
        return f"Input should be a valid dictionary or instance of {problem['ctx']['class_name']}"
    return str(problem["msg"])


class _Record(BaseModel):
    # Built on first validation: a run constructs its records without validating them and
    # writes them with report.plain, so that no run pays for building these models. The
    # header's and suites' small records are report.records' dataclasses, validated as
    # fields of these models.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


SHARED = "shared records"
"""The validation context key of a dict in which reading a report shares equal records."""


def _shared(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """A list of small records (a report has hundreds of thousands of checks, most of them
    ``{"outcome": "passed"}``) validated into records shared by every equal one: frozen, so
    one instance serves them all, and a report reads into a fraction of the memory. Only
    where the validation context holds the cache (``report.io``); a list holding anything
    new is validated whole, so a problem is still named at its place."""
    cache = info.context.get(SHARED) if isinstance(info.context, dict) else None
    if cache is None or type(value) is not list:
        return handler(value)
    name = info.field_name
    keys: list[Any] = []
    found: list[Any] = []
    missing = False
    try:
        for item in value:
            if type(item) is not dict:
                return handler(value)
            # Types are part of the key: 1, 1.0 and True are equal in Python, not in JSON.
            key = (name, tuple(item.items()), tuple(map(type, item.values())))
            record = cache.get(key)
            missing = missing or record is None
            keys.append(key)
            found.append(record)
    except TypeError:  # an unhashable value (a list, an object): validated as it is
        return handler(value)
    if not missing:
        return tuple(found)
    records = handler(value)
    for key, record in zip(keys, records, strict=True):
        cache.setdefault(key, record)
    return records


class CheckRecord(_Record):
    """What one check of a completed attempt found, beyond its gold and the result."""

    outcome: CheckOutcomeName
    reason: str | None = Field(None, description="One safe sentence for anything but passed.")
    assertions_declared: int | None = None
    assertions_held: int | None = None
    adjudication: bool = False
    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None
    adjudicated: bool = Field(
        False,
        description="A person's verdict recorded for this very answer in the project's verdict "
        "store decided the check; it no longer waits for one.",
    )


class AttemptRecord(_Record):
    """One execution of one case. Identity: (suite, case id, attempt)."""

    attempt: int = Field(ge=1, description="1-based attempt number within the case.")
    status: AttemptStatus
    reason: str | None = Field(None, description="One safe sentence when not completed.")
    latency_ms: float | None = None
    usage: Any = Field(None, description="The result document's /usage, when it has one.")
    result: dict[str, Any] | None = Field(None, description="Private: the result document.")
    stderr: str | None = Field(None, description="Private: a command target's stderr tail.")
    checks: tuple[CheckRecord, ...] = Field(
        (),
        description="One per expectation for a completed attempt; empty otherwise (every "
        "check of an attempt that did not complete is not_run for the attempt's reason).",
    )

    _shared_checks = field_validator("checks", mode="wrap")(_shared)


class ExpectationRecord(_Record):
    name: str
    path: str
    comparison: str = "exact"
    scorer: str | None = None
    expected: Any = Field(None, description="Private: the gold value; only with details.")


class CaseRecord(_Record):
    """A case, its gold (stored once) and its attempts in order."""

    id: str
    position: int | None = Field(
        None, description="In a shard's report: the case's position in the whole suite."
    )
    line: int | None = Field(
        None, ge=1, description="1-based line of the case's opening brace in cases_source."
    )
    family: str | None = None
    split: str | None = None
    input: dict[str, Any] | None = Field(None, description="Private: the case envelope.")
    expectations: tuple[ExpectationRecord, ...]
    attempts: tuple[AttemptRecord, ...]

    _shared_expectations = field_validator("expectations", mode="wrap")(_shared)


MetricResult = Annotated[
    ClassificationMetricResult | MultilabelMetricResult, Field(discriminator="kind")
]


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


def _actual(result: dict[str, Any] | None, path: str) -> tuple[bool, Any]:
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
        present, actual = _actual(attempt.result, expectation.path)
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
            )
        )
    return tuple(views)


class SuiteRecord(_Record):
    name: str
    fingerprint: str
    workflow: str
    flow: str | None
    step: str | None
    target: TargetRecord
    cases_source: str | None = Field(None, description="The file the cases came from.")
    status: SuiteStatus
    skip_reason: str | None = None
    repeat: int = Field(1, ge=1, description="Attempts per case.")
    case_count: int
    whole_case_count: int | None = Field(
        None, description="In a shard's report: how many cases the whole suite has."
    )
    metric_definitions: tuple[Metric, ...] = Field(
        (), description="The suite's metrics as its gold declares them (for merging shards)."
    )
    attempt_count: int
    cases: tuple[CaseRecord, ...] = Field(description="Every case in order, with its attempts.")
    counts: CountsRecord
    summary: dict[str, float | None] = Field(
        description="pass_rate, expect.satisfied, json.parse, schema.requiredCoverage, "
        "text.chars; None where nothing was measured."
    )
    adjudication: int = Field(0, description="Checks waiting for a human verdict.")
    adjudication_queue: tuple[AwaitingRecord, ...] = Field(
        (), description="Every check waiting for a human verdict, in case-major order."
    )
    metrics: tuple[MetricResult, ...] = Field(
        (), description="Empty for a skipped suite: nothing was measured, not zero."
    )
    thresholds: tuple[ThresholdRecord, ...] = ()
    verdict: SuiteVerdict

    def iter_attempts(self) -> Iterator[AttemptView]:
        """Every attempt in case-major order, joined with its case's gold."""
        for case in self.cases:
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
                )

    @property
    def attempts(self) -> tuple[AttemptView, ...]:
        return tuple(self.iter_attempts())


class Report(_Record):
    format: Literal["goldgate.report/2"] = "goldgate.report/2"
    goldgate_version: str
    started_at: str
    dataset: DatasetRecord
    variant: VariantRecord
    options: OptionsRecord
    scorers: tuple[ScorerRecord, ...] = ()
    replay_of: ReplayRecord | None = Field(
        None, description="For a replay: the saved report whose results it re-scored."
    )
    suites: tuple[SuiteRecord, ...]
    complete: bool = Field(description="False when the run was interrupted.")
    interruption: str | None = Field(
        None, description="What stopped an incomplete run: SIGINT or SIGTERM."
    )
    finished_at: str
    duration_seconds: float
    verdict: VerdictRecord
