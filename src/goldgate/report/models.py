"""The report: everything one run produced, versioned, frozen, with private detail inside.

``format`` is the first field of every report file. A newer format is refused with a clear
message and older ones are migrated on load (``report.io``). Field names are the file format:
change them only with a new format version and a migration.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from goldgate.scoring.metrics import ClassificationMetricResult, MultilabelMetricResult

REPORT_FORMAT_VERSION = 1

CheckOutcomeName = Literal["passed", "failed", "error", "not_run"]
AttemptStatus = Literal["completed", "failed", "timed_out", "skipped", "cancelled"]
"""completed: the target returned a result document; failed: it raised, exited non-zero or
returned something that is not a result document; timed_out: no result within the deadline;
skipped: the suite was not authorized (live without --live); cancelled: the run was
interrupted before the attempt finished."""
SuiteVerdict = Literal["passed", "failed", "error", "skipped", "incomplete"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckRecord(_Record):
    """One expectation applied to one attempt."""

    name: str
    path: str
    comparison: str
    scorer: str | None = None
    outcome: CheckOutcomeName
    reason: str | None = Field(None, description="One safe sentence for anything but passed.")
    actual_present: bool = Field(description="False when nothing was at the path (absent).")
    actual: Any = Field(None, description="Private: the value found; only with details.")
    expected: Any = Field(None, description="Private: the gold value; only with details.")
    assertions_declared: int | None = None
    assertions_held: int | None = None
    adjudication: bool = False
    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None


class AttemptRecord(_Record):
    """One execution of one case. Identity: (suite, case_id, attempt)."""

    case_id: str
    attempt: int = Field(ge=1, description="1-based attempt number within the case.")
    family: str | None = None
    split: str | None = None
    status: AttemptStatus
    reason: str | None = Field(None, description="One safe sentence when not completed.")
    latency_ms: float | None = None
    usage: Any = Field(None, description="The result document's /usage, when it has one.")
    input: dict[str, Any] | None = Field(None, description="Private: the case envelope.")
    result: dict[str, Any] | None = Field(None, description="Private: the result document.")
    stderr: str | None = Field(None, description="Private: a command target's stderr tail.")
    checks: tuple[CheckRecord, ...]


class TargetRecord(_Record):
    kind: str
    workflow_revision: str | None
    live: bool
    identity: dict[str, Any] = Field(
        default_factory=dict, description="Import path, argv or URL; never header values."
    )


class ThresholdRecord(_Record):
    key: str
    minimum: float
    actual: float | None = Field(description="None when nothing was measured.")
    held: bool


class CountsRecord(_Record):
    attempts: dict[str, int]
    checks: dict[str, int]


MetricResult = Annotated[
    ClassificationMetricResult | MultilabelMetricResult, Field(discriminator="kind")
]


class SuiteRecord(_Record):
    name: str
    fingerprint: str
    workflow: str
    flow: str | None
    step: str | None
    target: TargetRecord
    status: Literal["ran", "skipped", "not_started"]
    skip_reason: str | None = None
    case_count: int
    attempt_count: int
    counts: CountsRecord
    summary: dict[str, float | None] = Field(
        description="pass_rate, expect.satisfied, json.parse, schema.requiredCoverage, "
        "text.chars; None where nothing was measured."
    )
    metrics: tuple[MetricResult, ...] = ()
    thresholds: tuple[ThresholdRecord, ...] = ()
    verdict: SuiteVerdict
    attempts: tuple[AttemptRecord, ...]


class DatasetRecord(_Record):
    name: str
    revision: str
    fingerprint: str
    path: str | None = None


class VariantRecord(_Record):
    name: str
    revision: str
    configuration_revision: str | None


class OptionsRecord(_Record):
    max_concurrency: int
    timeout: float
    repeat: int
    suites: tuple[str, ...] = Field(description="Suites asked for with --suite; empty: all.")
    live: bool
    include_details: bool


class ScorerRecord(_Record):
    name: str
    revision: str


class VerdictRecord(_Record):
    passed: bool
    exit_code: int
    meaning: str
    suites: dict[str, int] = Field(description="How many suites ended with each verdict.")


class Report(_Record):
    format: Literal["goldgate.report/1"] = "goldgate.report/1"
    goldgate_version: str
    complete: bool = Field(description="False when the run was interrupted.")
    started_at: str
    finished_at: str
    duration_seconds: float
    dataset: DatasetRecord
    variant: VariantRecord
    options: OptionsRecord
    scorers: tuple[ScorerRecord, ...] = ()
    suites: tuple[SuiteRecord, ...]
    verdict: VerdictRecord
