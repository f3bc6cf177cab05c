"""The records a run builds for its report, without pydantic.

A run writes a handful of small records (the header's dataset, variant and options, each
suite's target, counts, thresholds and queue, the verdict) and keeps them for the summary it
prints. They are named tuples here, with the fields of ``report.models``' models of the same
name in the same order, so that a run that needs no gold models (``goldgate evals run``)
never imports pydantic: importing it and defining the report's and gold's models cost some
70 ms, a third of the start-up of a small run. ``report.plain.record_json`` writes them as
``model_dump`` writes the models; code that reads reports validates them into the models in
full.

tests/report/test_records.py holds each to its model (the same fields, in order);
tests/conftest.py holds what every in-process run builds to what validating it gives.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): each
# string annotation of a named tuple is compiled as a forward reference when the class is
# made, which took most of this module's import (6 ms).
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

if TYPE_CHECKING:  # annotations only: a suite's metrics exist only where its gold has some
    from goldgate.gold.models import Metric
    from goldgate.gold.suites import Dataset
    from goldgate.scoring.metrics import ClassificationMetricResult, MultilabelMetricResult

__all__ = [
    "REPORT_FORMAT",
    "REPORT_FORMAT_VERSION",
    "AwaitingRecord",
    "CountsRecord",
    "DatasetRecord",
    "OptionsRecord",
    "ReplayRecord",
    "RunReport",
    "ScorerRecord",
    "SuiteRecord",
    "SuiteStatus",
    "SuiteVerdict",
    "TargetRecord",
    "ThresholdRecord",
    "VariantRecord",
    "VerdictRecord",
    "dataset_record",
    "from_model",
    "not_run_reason",
]

REPORT_FORMAT_VERSION = 2
REPORT_FORMAT = f"goldgate.report/{REPORT_FORMAT_VERSION}"

SuiteStatus = Literal["ran", "skipped", "not_started"]
SuiteVerdict = Literal["passed", "failed", "error", "skipped", "incomplete"]


def not_run_reason(status: str, reason: str | None) -> str:
    """The reason every check of an attempt that did not complete carries."""
    if status == "failed":
        return f"the attempt failed: {reason}"
    return reason or f"the attempt is {status}"


class DatasetRecord(NamedTuple):
    name: str
    revision: str
    fingerprint: str
    path: str | None


def dataset_record(dataset: "Dataset", display_path: str | None) -> DatasetRecord:
    """The report's record of the gold a run read: its identity and where it was."""
    return DatasetRecord(dataset.name, dataset.revision, dataset.fingerprint, display_path)


class VariantRecord(NamedTuple):
    name: str
    revision: str
    configuration_revision: str | None


class OptionsRecord(NamedTuple):
    max_concurrency: int
    timeout: float
    repeat: int
    suites: tuple[str, ...]
    live: bool
    include_details: bool
    shard: str | None


class ScorerRecord(NamedTuple):
    name: str
    revision: str


class ReplayRecord(NamedTuple):
    path: str
    digest: str
    started_at: str
    measured_by_original_run: bool


class TargetRecord(NamedTuple):
    kind: str
    workflow_revision: str | None
    live: bool
    identity: dict[str, Any]


class ThresholdRecord(NamedTuple):
    key: str
    minimum: float
    actual: float | None
    held: bool


class AwaitingRecord(NamedTuple):
    case: str
    attempt: int
    check: str
    note: str | None
    digest: str


class CountsRecord(NamedTuple):
    attempts: dict[str, int]
    checks: dict[str, int]


class SuiteRecord(NamedTuple):
    """A suite as a run ends it; its cases are in the report file already (``cases`` is
    empty)."""

    name: str
    fingerprint: str
    workflow: str
    flow: str | None
    step: str | None
    target: TargetRecord
    cases_source: str | None
    status: SuiteStatus
    skip_reason: str | None
    repeat: int
    case_count: int
    whole_case_count: int | None
    metric_definitions: tuple["Metric", ...]
    attempt_count: int
    cases: tuple[()]
    counts: CountsRecord
    summary: dict[str, float | None]
    adjudication: int
    adjudication_queue: tuple[AwaitingRecord, ...]
    metrics: tuple["ClassificationMetricResult | MultilabelMetricResult", ...]
    thresholds: tuple[ThresholdRecord, ...]
    verdict: SuiteVerdict


class VerdictRecord(NamedTuple):
    passed: bool
    exit_code: int
    meaning: str
    suites: dict[str, int]
    evaluated: bool
    adjudication: int


class RunReport(NamedTuple):
    """``report.models.Report`` as a run returns it for its summary: every suite without its
    cases."""

    format: str
    goldgate_version: str
    started_at: str
    dataset: DatasetRecord
    variant: VariantRecord
    options: OptionsRecord
    scorers: tuple[ScorerRecord, ...]
    replay_of: ReplayRecord | None
    suites: tuple[SuiteRecord, ...]
    complete: bool
    interruption: str | None
    finished_at: str
    duration_seconds: float
    verdict: VerdictRecord


_Flat = TypeVar("_Flat", DatasetRecord, VariantRecord, OptionsRecord, ReplayRecord, TargetRecord)


def from_model(kind: type[_Flat], model: Any) -> _Flat:
    """The record of ``kind`` holding the fields of ``model``, its model in a report read back
    (a replay runs under the saved report's variant, options and targets)."""
    return kind._make(getattr(model, name) for name in kind._fields)
