"""Reading the report's records: their pydantic adapters, their JSON schema, their errors.

The records are defined once, as the frozen dataclasses of ``report.records`` (the report,
its suites and the small records of both) and ``report.caserecords`` (cases, attempts,
checks, expectations), which a run builds without pydantic. Reading a report validates it
through those very classes with a pydantic ``TypeAdapter`` each (``adapter``, built on first
use), so a report read back holds the types a run returns. They are named here too, for the
code that reads reports.

``format`` is the first field of every report file. A newer format is refused with a clear
message and older ones are migrated on load (``report.io``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import TypeAdapter

from goldgate.gold.models import Metric
from goldgate.report.caserecords import (
    AttemptRecord,
    AttemptStatus,
    AttemptView,
    CaseRecord,
    CheckOutcomeName,
    CheckRecord,
    CheckView,
    ExceptionRecord,
    ExpectationRecord,
    FrameRecord,
    JudgeRecord,
)
from goldgate.report.recordbase import SHARED
from goldgate.report.records import (
    AwaitingRecord,
    CountsRecord,
    DatasetRecord,
    JudgeStandingRecord,
    LiveRecord,
    OptionsRecord,
    PricingRecord,
    ReplayRecord,
    Report,
    ScorerRecord,
    SuiteJudgeRecord,
    SuiteRecord,
    SuiteStatus,
    SuiteVerdict,
    TargetRecord,
    ThresholdRecord,
    VariantRecord,
    VerdictRecord,
)
from goldgate.scoring.metrics import MetricResult

__all__ = [
    "SHARED",
    "AttemptRecord",
    "AttemptStatus",
    "AttemptView",
    "AwaitingRecord",
    "CaseRecord",
    "CheckOutcomeName",
    "CheckRecord",
    "CheckView",
    "CountsRecord",
    "DatasetRecord",
    "ExceptionRecord",
    "ExpectationRecord",
    "FrameRecord",
    "JudgeRecord",
    "JudgeStandingRecord",
    "LiveRecord",
    "MetricResult",
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
    "adapter",
    "json_schema",
    "problem_words",
    "validated",
]

R = TypeVar("R")

_NAMES = {"Metric": Metric, "MetricResult": MetricResult, "CaseRecord": CaseRecord}
"""What the records' string annotations name: pydantic's models of the gold and of the
metrics (``report.records`` imports no pydantic) and the case records (which a run, writing
cases as plain JSON, never defines)."""

_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def adapter(kind: type[R]) -> TypeAdapter[R]:
    """The pydantic adapter that reads and writes the record class ``kind``, built once."""
    found = _ADAPTERS.get(kind)
    if found is None:
        # Each record defers building (recordbase.READ): built here, with the names its
        # string annotations need.
        found = TypeAdapter(kind)
        found.rebuild(_types_namespace=_NAMES)
        _ADAPTERS[kind] = found
    return found


def validated(kind: type[R], value: Any, context: dict[str, Any] | None = None) -> R:
    """``value`` (plain JSON data) validated as the record class ``kind``."""
    return adapter(kind).validate_python(value, context=context)


def json_schema(kind: type[Any]) -> dict[str, Any]:
    """The JSON schema of the record class ``kind`` (aliases as the file has them)."""
    return adapter(kind).json_schema(by_alias=True)


def problem_words(problem: Any) -> str:
    """pydantic's message for a validation ``problem`` (one of ``errors()``), worded as it
    words a model's: the records were models once, and what a reader is told about them
    stays the same (a dataclass's unknown key and wrong type are worded otherwise)."""
    kind = problem["type"]
    if kind == "unexpected_keyword_argument":
        return "Extra inputs are not permitted"
    if kind == "dataclass_type":
        return f"Input should be a valid dictionary or instance of {problem['ctx']['class_name']}"
    return str(problem["msg"])
