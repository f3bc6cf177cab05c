"""The gold models: manifest, suites, cases, envelopes, expectations, metrics, thresholds.

Every model refuses unknown keys (a typo must not silently disable a check) and is frozen.
``Expectation`` also accepts the seed's positional form for the Python API. Its
``comparison`` names a registered comparison kind (``gold.kinds``): the names it accepts and
the JSON Schema's enum are read from the registry when gold is validated or a schema made.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic would otherwise eval() every field's annotation when a process defines the models.
import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, field_validator
from pydantic_core import PydanticCustomError

from goldgate.base.textsafe import quote, refuse_control
from goldgate.gold.kinds import comparison_kinds, gold_file_names, unknown_comparison
from goldgate.gold.maxima import MAXIMUM_THRESHOLDS as MAXIMA
from goldgate.gold.shapes import dot_path_problem

MetricKind = Literal["classification", "multilabel"]
Label = str | None

NonEmpty = Annotated[str, Field(min_length=1)]
Name = Annotated[str, Field(min_length=1), AfterValidator(refuse_control)]
"""A nonempty name, id or revision without control characters, not starting with ``::``:
anything gold names may be printed, at the start of a line too."""


def _dot_path(value: str) -> str:
    problem = dot_path_problem(value)
    if problem is not None:
        raise ValueError(f"path {problem}")
    return value


DotPath = Annotated[str, Field(min_length=1), AfterValidator(_dot_path)]
"""A dot path into an answer parsed as JSON (``answer.items.0``): no empty segment."""
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


def _registered(name: Any) -> str:
    kinds = comparison_kinds()
    kind = kinds.get(name) if type(name) is str else None
    if kind is None or not kind.in_gold_files:
        # A literal's error, as when the names were a Literal: the same sentence
        # ('must be one of "exact", ... or "text", found ...', base.problems) and type.
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": unknown_comparison(kinds)}
        )
    return name  # type: ignore[no-any-return]


def _comparison_enum(schema: dict[str, Any]) -> None:
    schema["type"] = "string"
    schema["enum"] = gold_file_names(comparison_kinds())


ComparisonName = Annotated[str, PlainValidator(_registered)]
"""The name of a comparison kind gold files may use (``goldgate.scoring.kinds``)."""

# The summary figures a suite can gate on. Counters such as text.chars are reported only.
RUN_THRESHOLDS = ("pass_rate", "expect.satisfied", "json.parse", "schema.requiredCoverage")
MAXIMUM_THRESHOLDS = MAXIMA  # goldgate.gold.maxima: what the report decides reads it too
METRIC_THRESHOLDS = (
    "accuracy",
    "coverage",
    "micro_precision",
    "micro_recall",
    "micro_f1",
    "macro_precision",
    "macro_recall",
    "macro_f1",
    "exact_set_accuracy",
)
_ID = re.compile(r"\S(?:.*\S)?", re.DOTALL)
_M = TypeVar("_M", bound=BaseModel)


class _Gold(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)


class Envelope(_Gold):
    """A case's input: what the target receives."""

    payload: dict[str, Any]
    metadata: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        """The envelope as the JSON object targets receive and input paths point into (the
        loaded values themselves, not copies: treat them as read-only)."""
        return {"payload": self.payload, "metadata": self.metadata}


class Expectation(_Gold):
    """One reviewed claim: the value at ``path`` of the result compares to ``expected``."""

    name: Name
    path: str = Field(description="RFC 6901 pointer into the result document.")
    expected: Any = Field(description="The reviewed value; required even when null.")
    comparison: ComparisonName = Field("exact", json_schema_extra=_comparison_enum)
    scorer: Name | None = Field(None, description="Registered scorer name, for custom.")
    judge: Name | None = Field(
        None,
        description="A judge of the settings that decides the part of a text expectation a "
        "person would (its prose expected, or its note), once calibrated (docs/judges.md).",
    )

    def __init__(
        self,
        name: str | None = None,
        path: str | None = None,
        expected: Any = None,
        comparison: str = "exact",
        scorer: str | None = None,
        /,
        **fields: Any,
    ) -> None:
        # The seed's Python API builds expectations positionally; files go through
        # model_validate, which does not call __init__.
        if name is not None:
            fields = {
                "name": name,
                "path": path,
                "expected": expected,
                "comparison": comparison,
                "scorer": scorer,
                **fields,
            }
        super().__init__(**fields)

    # Validation need not call this __init__ (it only maps the positional form to fields):
    # pydantic then builds expectations without a Python call each, which loading feels.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


class Case(_Gold):
    id: Name
    input: Envelope
    expectations: list[Expectation] = Field(min_length=1)
    family: Name | None = Field(None, description="The behaviour family the case belongs to.")
    split: Name | None = Field(None, description="e.g. 'dev' or 'holdout'.")
    source: Name | None = Field(None, description="Where the case came from.")
    note: str | None = Field(None, description="For reviewers; never checked.")

    @field_validator("id")
    @classmethod
    def _no_outer_space(cls, value: str) -> str:
        if not _ID.fullmatch(value):
            raise ValueError(f"case id {quote(value)} must not start or end with whitespace")
        return value


class Metric(_Gold):
    name: Name
    path: str
    kind: MetricKind
    labels: list[Label] = Field(min_length=1)
    cases: list[Name] | None = Field(
        None, description="Case ids the metric includes; all of the suite's cases by default."
    )


class TextOptions(_Gold):
    """Suite-wide options for text comparisons."""

    json_: bool = Field(False, alias="json", description="Answers must parse as JSON.")
    requiredKeys: list[DotPath] = Field(
        default_factory=list, description="Dot paths every parsed answer should have."
    )


class Suite(_Gold):
    name: Name
    workflow: Name
    flow: Name | None = None
    step: Name | None = None
    cases: list[Any] | NonEmpty = Field(
        description="A nonempty array of cases, or the relative path of a case file."
    )
    metrics: list[Metric] = Field(default_factory=list)
    thresholds: dict[str, Annotated[float, Field(ge=0.0)]] = Field(
        default_factory=dict,
        description="Minimums between 0 and 1 for rates and metric figures; maxima for "
        "cost.total, cost.per_attempt, latency.p50_ms and latency.p95_ms.",
    )
    text: TextOptions | None = None
    description: str | None = None


class Manifest(_Gold):
    schema_: str | None = Field(None, alias="$schema")
    name: Name
    revision: Name
    suites: list[Suite] = Field(min_length=1)
    description: str | None = None


# --- Building checked gold again without validating it ------------------------------------

_new = object.__new__
_set = object.__setattr__


def constructed(kind: type[_M], values: dict[str, Any], given: Iterable[str]) -> _M:
    """What ``kind.model_construct(**values)`` returns, several times faster: ``values``
    holds every field in the order of its declaration, ``given`` the fields passed
    explicitly (``model_fields_set``). Only for values that validated as ``kind`` before.
    tests/gold/test_trusted.py checks it against validation and ``model_construct``."""
    model = _new(kind)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(given))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def _trusted_expectation(raw: dict[str, Any]) -> Expectation:
    get = raw.get
    values = {
        "name": raw["name"],
        "path": raw["path"],
        "expected": raw["expected"],
        "comparison": get("comparison", "exact"),
        "scorer": get("scorer"),
        "judge": get("judge"),
    }
    return constructed(Expectation, values, raw)


def trusted_case(raw: dict[str, Any]) -> Case:
    """The ``Case`` that validating ``raw`` gives, built without validating: ``raw`` must be
    JSON that validated as a case before (a streamed case file's bytes read back, their
    checksum matching the checked ones). A third of the cost of validating it again."""
    envelope = raw["input"]
    get = raw.get
    values = {
        "id": raw["id"],
        "input": constructed(
            Envelope, {"payload": envelope["payload"], "metadata": envelope["metadata"]}, envelope
        ),
        "expectations": [_trusted_expectation(item) for item in raw["expectations"]],
        "family": get("family"),
        "split": get("split"),
        "source": get("source"),
        "note": get("note"),
    }
    return constructed(Case, values, raw)
