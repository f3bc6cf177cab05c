"""The report's records, defined once: built by a run without pydantic, read through pydantic.

Every record of a report is a frozen dataclass: the ``Report``, its suites (``SuiteRecord``)
here, with the small records of the header and of each suite (dataset, variant, options,
scorers, replay, target, counts, thresholds, queue, verdict), and each suite's cases,
attempts, checks and expectations in ``report.caserecords``. Their defaults, descriptions
and bounds are ``dataclasses.field`` metadata, which pydantic reads as ``Field`` arguments.

A run builds these records and ``report.plain.record_json`` writes them, so a run that needs
no gold models (``goldgate evals run``) never imports pydantic: importing it and defining the
report's and gold's models cost some 70 ms, a third of the start-up of a small run. A suite
as a run ends it has ``cases=()``: its cases are in the report file already, written a case
at a time. Reading a report validates it through these very classes (``report.models``
keeps their pydantic adapters, the JSON schema and the read helpers; ``__pydantic_config__``
refuses unknown keys), so what a run returns and what a reader gets are the same types
(tests/report/test_records.py; tests/conftest.py holds what every in-process run builds to
what validating it gives). Field names are the file format: change them only with a new
format version and a migration (``report.migrate``).
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic resolves them when report.models builds its adapters. The few names a run never
# needs are strings that report.models resolves: a suite's metrics (pydantic models, which
# exist only where gold has metrics) and its cases (a run writes them as plain JSON, and
# defining their classes would be start-up that every run pays for nothing).
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from goldgate.report.recordbase import READ, Record

if TYPE_CHECKING:
    from goldgate.gold.models import Metric
    from goldgate.gold.suites import Dataset
    from goldgate.report.caserecords import AttemptView, CaseRecord
    from goldgate.scoring.metrics import MetricResult

__all__ = [
    "REPORT_FORMAT",
    "REPORT_FORMAT_VERSION",
    "AwaitingRecord",
    "CountsRecord",
    "DatasetRecord",
    "JudgeStandingRecord",
    "LiveRecord",
    "OptionsRecord",
    "PricingRecord",
    "ReplayRecord",
    "Report",
    "ScorerRecord",
    "SuiteJudgeRecord",
    "SuiteRecord",
    "SuiteStatus",
    "SuiteVerdict",
    "TargetRecord",
    "ThresholdRecord",
    "VariantRecord",
    "VerdictRecord",
    "dataset_record",
]

REPORT_FORMAT: Final = "goldgate.report/2"
REPORT_FORMAT_VERSION: Final = int(REPORT_FORMAT.rpartition("/")[2])

SuiteStatus = Literal["ran", "skipped", "not_started"]
SuiteVerdict = Literal["passed", "failed", "error", "skipped", "incomplete"]


@dataclass(frozen=True, repr=False, eq=False)
class DatasetRecord(Record):
    name: str
    revision: str
    fingerprint: str
    path: str | None = None
    __pydantic_config__ = READ


def dataset_record(dataset: "Dataset", display_path: str | None) -> DatasetRecord:
    """The report's record of the gold a run read: its identity and where it was."""
    return DatasetRecord(dataset.name, dataset.revision, dataset.fingerprint, display_path)


@dataclass(frozen=True, repr=False, eq=False)
class VariantRecord(Record):
    name: str
    revision: str
    configuration_revision: str | None
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class OptionsRecord(Record):
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
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class ScorerRecord(Record):
    name: str
    revision: str
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class JudgeStandingRecord(Record):
    """A judge as the run found it (docs/judges.md): its revision, whether its verdicts
    decide checks, and its calibration record's figures."""

    name: str
    revision: str
    standing: Literal["calibrated", "uncalibrated", "stale"] = field(
        metadata={
            "description": "calibrated: its verdicts decide checks; uncalibrated or stale (its "
            "record is for another revision): they are suggestions beside the queued answer."
        }
    )
    why: str = field(metadata={"description": "One safe sentence saying why."})
    verdicts: int | None = field(
        default=None, metadata={"description": "Human verdicts its record was measured on."}
    )
    kappa: float | None = None
    kappa_ci95: tuple[float, float] | None = None
    record_revision: str | None = field(
        default=None, metadata={"description": "The revision its calibration record is for."}
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class SuiteJudgeRecord(Record):
    """What one judge did in a suite: the checks it decided, and those it only suggested a
    verdict for."""

    name: str
    revision: str
    decided: int = 0
    suggested: int = 0
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class ReplayRecord(Record):
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
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class PricingRecord(Record):
    """The workflow's prices, with which its attempts' costs were computed."""

    input_per_million: float
    output_per_million: float
    currency: str
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class LiveRecord(Record):
    """What a live suite's (or run's) calls came to. Written only where there is something to
    say: a suite with retries, cached answers or priced attempts."""

    retries: int = field(default=0, metadata={"ge": 0, "description": "Retries, all attempts."})
    cached: int = field(
        default=0, metadata={"ge": 0, "description": "Attempts answered from the cache."}
    )
    cost: float | None = field(
        default=None,
        metadata={
            "description": "What the priced attempts' answers cost, cached ones included (so "
            "that runs compare whatever the cache held); None: nothing was priced."
        },
    )
    spent: float | None = field(
        default=None,
        metadata={"description": "What this run paid: the cost of the answers it called for."},
    )
    currency: str | None = field(
        default=None, metadata={"description": "The prices' currency; None when they differ."}
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class TargetRecord(Record):
    kind: str
    workflow_revision: str | None
    live: bool
    identity: dict[str, Any] = field(
        default_factory=dict,
        metadata={"description": "Import path, argv or URL; never header values."},
    )
    pricing: PricingRecord | None = field(
        default=None,
        metadata={"description": "The workflow's prices, when it has some (written only then)."},
    )
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class ThresholdRecord(Record):
    key: str
    minimum: float | None = field(
        metadata={"description": "The figure must be at least this; None for a maximum."}
    )
    actual: float | None = field(metadata={"description": "None when nothing was measured."})
    held: bool
    maximum: float | None = field(
        default=None,
        metadata={
            "description": "For cost.* and latency.*: the figure must stay at or under this "
            "(a maximum, never a minimum)."
        },
    )
    __pydantic_config__ = READ

    @property
    def bound(self) -> float:
        """The threshold as gold states it: its maximum, or else its minimum."""
        bound = self.minimum if self.maximum is None else self.maximum
        return 0.0 if bound is None else bound


# Keyword-only: note, which a report may leave out, comes before digest, which it may not.
@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class AwaitingRecord(Record):
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
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class CountsRecord(Record):
    attempts: dict[str, int]
    checks: dict[str, int]
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False)
class VerdictRecord(Record):
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
    __pydantic_config__ = READ


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class SuiteRecord(Record):
    # No docstring: the report's JSON schema describes none for it.
    name: str
    fingerprint: str
    workflow: str
    flow: str | None
    step: str | None
    target: TargetRecord
    cases_source: str | None = field(
        default=None, metadata={"description": "The file the cases came from."}
    )
    status: SuiteStatus
    skip_reason: str | None = None
    repeat: int = field(default=1, metadata={"ge": 1, "description": "Attempts per case."})
    case_count: int
    whole_case_count: int | None = field(
        default=None,
        metadata={"description": "In a shard's report: how many cases the whole suite has."},
    )
    metric_definitions: tuple["Metric", ...] = field(
        default=(),
        metadata={
            "description": "The suite's metrics as its gold declares them (for merging shards)."
        },
    )
    attempt_count: int
    cases: tuple["CaseRecord", ...] = field(
        metadata={"description": "Every case in order, with its attempts."}
    )
    counts: CountsRecord
    summary: dict[str, float | None] = field(
        metadata={
            "description": "pass_rate, expect.satisfied, json.parse, schema.requiredCoverage, "
            "text.chars; None where nothing was measured."
        }
    )
    adjudication: int = field(
        default=0, metadata={"description": "Checks waiting for a human verdict."}
    )
    judges: tuple[SuiteJudgeRecord, ...] = field(
        default=(),
        metadata={"description": "Per judge, the checks it decided or only suggested."},
    )
    judge_cost: float | None = field(
        default=None,
        metadata={
            "ge": 0,
            "description": "What asking judges cost in this suite, apart from the "
            "application's cost (live.cost).",
        },
    )
    adjudication_queue: tuple[AwaitingRecord, ...] = field(
        default=(),
        metadata={"description": "Every check waiting for a human verdict, in case-major order."},
    )
    metrics: tuple["MetricResult", ...] = field(
        default=(),
        metadata={"description": "Empty for a skipped suite: nothing was measured, not zero."},
    )
    thresholds: tuple[ThresholdRecord, ...] = ()
    live: LiveRecord | None = field(
        default=None,
        metadata={
            "description": "Retries, cached answers and cost of a live suite's attempts "
            "(written only when there is any)."
        },
    )
    verdict: SuiteVerdict
    __pydantic_config__ = READ

    def iter_attempts(self) -> Iterator["AttemptView"]:
        """Every attempt in case-major order, joined with its case's gold."""
        from goldgate.report.caserecords import attempt_views

        for case in self.cases:
            yield from attempt_views(case)

    @property
    def attempts(self) -> tuple["AttemptView", ...]:
        return tuple(self.iter_attempts())


@dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class Report(Record):
    # No docstring: the report's JSON schema describes none for it.
    format: Literal["goldgate.report/2"] = REPORT_FORMAT
    goldgate_version: str
    started_at: str
    dataset: DatasetRecord
    variant: VariantRecord
    options: OptionsRecord
    scorers: tuple[ScorerRecord, ...] = ()
    judges: tuple[JudgeStandingRecord, ...] = field(
        default=(), metadata={"description": "The judges a --live run asked, as it found them."}
    )
    replay_of: ReplayRecord | None = field(
        default=None,
        metadata={"description": "For a replay: the saved report whose results it re-scored."},
    )
    suites: tuple[SuiteRecord, ...]
    complete: bool = field(metadata={"description": "False when the run was interrupted."})
    interruption: str | None = field(
        default=None, metadata={"description": "What stopped an incomplete run: SIGINT or SIGTERM."}
    )
    finished_at: str
    duration_seconds: float
    verdict: VerdictRecord
    live: LiveRecord | None = field(
        default=None,
        metadata={"description": "The suites' live figures added up (written only when any)."},
    )
    __pydantic_config__ = READ
