"""The report's records, defined once: built by a run without pydantic, read through pydantic.

The header's dataset, variant and options, each suite's target, counts, thresholds and queue,
and the verdict are frozen dataclasses here, with their defaults, descriptions and bounds
(``dataclasses.field`` metadata, which pydantic reads as ``Field`` arguments). A run builds
them and ``report.plain.record_json`` writes them, so a run that needs no gold models
(``goldgate evals run``) never imports pydantic: importing it and defining the report's and
gold's models cost some 70 ms, a third of the start-up of a small run. ``report.models``
declares them as the field types of its ``Report`` and ``SuiteRecord``, so reading a report
validates each through this very definition (``__pydantic_config__`` refuses unknown keys).

``SuiteRecord`` and ``RunReport`` are the run's own summaries of a suite and of the report,
without cases. They keep their own copy of the fields of ``report.models``' ``SuiteRecord``
and ``Report`` (pydantic models with cases and methods, which everything reading reports
uses as models): tests/report/test_records.py holds the two to the same fields, in order;
tests/conftest.py holds what every in-process run builds to what validating it gives.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic resolves the leaf records' annotations when report.models builds, and string
# annotations here would need this module's TYPE_CHECKING names at that point.
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

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


_READ = {"extra": "forbid"}
"""pydantic's config for each record as ``report.models`` reads it (``__pydantic_config__``, a
plain dict: no pydantic here): an unknown key is refused, as everywhere in a report."""


class _Record:
    """repr, == and hash as a frozen dataclass generates them: by the fields, in order.

    Each record is ``dataclass(frozen=True, repr=False, eq=False)`` and takes these: dataclass
    compiles every method it generates, class by class, and generating these three for the
    twelve records doubled this module's import, which every run pays
    (tests/report/test_records.py holds them to what dataclass generates)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__dataclass_fields__)

    def __repr__(self) -> str:
        shown = (f"{name}={getattr(self, name)!r}" for name in self.__dataclass_fields__)
        return f"{type(self).__qualname__}({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())


@dataclass(frozen=True, repr=False, eq=False)
class DatasetRecord(_Record):
    name: str
    revision: str
    fingerprint: str
    path: str | None = None
    __pydantic_config__ = _READ


def dataset_record(dataset: "Dataset", display_path: str | None) -> DatasetRecord:
    """The report's record of the gold a run read: its identity and where it was."""
    return DatasetRecord(dataset.name, dataset.revision, dataset.fingerprint, display_path)


@dataclass(frozen=True, repr=False, eq=False)
class VariantRecord(_Record):
    name: str
    revision: str
    configuration_revision: str | None
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class OptionsRecord(_Record):
    max_concurrency: int
    timeout: float
    repeat: int
    suites: tuple[str, ...] = field(
        metadata={"description": "Suites asked for with --suite; empty: all."}
    )
    live: bool
    include_details: bool
    shard: str | None = field(
        default=None, metadata={"description": "K/N when the run was shard K of N."}
    )
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class ScorerRecord(_Record):
    name: str
    revision: str
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class ReplayRecord(_Record):
    """The saved report a replay re-scored: its latency and usage are that run's."""

    path: str = field(metadata={"description": "The replayed report, as given."})
    digest: str = field(metadata={"description": "sha256 of the replayed report file's bytes."})
    started_at: str = field(metadata={"description": "When the original run started."})
    measured_by_original_run: bool = field(
        default=True,
        metadata={
            "description": "latency_ms and usage are the original run's measurements, copied "
            "and never re-measured: a replay cannot establish a latency change."
        },
    )
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class TargetRecord(_Record):
    kind: str
    workflow_revision: str | None
    live: bool
    identity: dict[str, Any] = field(
        default_factory=dict,
        metadata={"description": "Import path, argv or URL; never header values."},
    )
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class ThresholdRecord(_Record):
    key: str
    minimum: float
    actual: float | None = field(metadata={"description": "None when nothing was measured."})
    held: bool
    __pydantic_config__ = _READ


# Keyword-only: note, which a report may leave out, comes before digest, which it may not.
@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class AwaitingRecord(_Record):
    """One check of one attempt waiting for a person's verdict."""

    case: str
    attempt: int = field(metadata={"ge": 1})
    check: str = field(metadata={"description": "The expectation's name (an eval's: expect)."})
    note: str | None = field(
        default=None,
        metadata={
            "description": "Private: the sentence the adjudicator reads (the expectation's "
            "note, or its prose); only with details."
        },
    )
    digest: str = field(metadata={"description": "sha256 of the answer the verdict is about."})
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class CountsRecord(_Record):
    attempts: dict[str, int]
    checks: dict[str, int]
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class SuiteRecord(_Record):
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


@dataclass(frozen=True, repr=False, eq=False)
class VerdictRecord(_Record):
    passed: bool
    exit_code: int
    meaning: str
    suites: dict[str, int] = field(
        metadata={"description": "How many suites ended with each verdict."}
    )
    evaluated: bool = field(
        default=True, metadata={"description": "False when no check ran at all."}
    )
    adjudication: int = field(
        default=0, metadata={"description": "Checks waiting for a human verdict."}
    )
    __pydantic_config__ = _READ


@dataclass(frozen=True, repr=False, eq=False)
class RunReport(_Record):
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
