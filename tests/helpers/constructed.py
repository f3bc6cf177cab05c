"""What a run constructs without validating (``report.records``, written by ``report.plain``)
must be what validating it gives: the same values of the same types, and the same JSON.

The small records are the very classes a report reads into; the run's suite and report
summaries (``SuiteRecord``, ``RunReport``) are held to the models of the same fields."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import orjson
from pydantic import BaseModel

from goldgate.report.models import Report
from goldgate.report.plain import record_json


def assert_constructed_as_validated(report: Any) -> None:
    """``report`` (a run's ``RunReport``, and every record in it) equals the report validated
    from its own JSON, field by field and type by type (a list where a tuple belongs, an int
    where a float belongs would differ; each record is the model's namesake, with its fields
    in its order), and writes the same JSON as ``model_dump`` does."""
    plain = record_json(report)
    validated = Report.model_validate(plain)
    _same(report, validated, "report")
    assert orjson.dumps(plain) == orjson.dumps(validated.model_dump(mode="json"))


_NAMESAKES = {"Report": "RunReport"}
"""report.records' name for a model where it is not the model's own."""


def _same(constructed: Any, validated: Any, where: str) -> None:
    kind = type(constructed)
    if isinstance(validated, BaseModel) and dataclasses.is_dataclass(kind):  # a run's summary
        model = type(validated)
        assert kind.__name__ == _NAMESAKES.get(model.__name__, model.__name__), where
        assert [f.name for f in dataclasses.fields(kind)] == list(model.__pydantic_fields__), where
    else:
        assert kind is type(validated), (where, constructed, validated)
    if isinstance(validated, BaseModel):
        for name in type(validated).__pydantic_fields__:
            _same(getattr(constructed, name), getattr(validated, name), f"{where}.{name}")
    elif dataclasses.is_dataclass(validated):
        for field in dataclasses.fields(validated):
            name = field.name
            _same(getattr(constructed, name), getattr(validated, name), f"{where}.{name}")
    elif isinstance(validated, tuple | list):
        assert len(constructed) == len(validated), where
        for index, (left, right) in enumerate(zip(constructed, validated, strict=True)):
            _same(left, right, f"{where}[{index}]")
    elif isinstance(validated, dict):
        assert list(constructed) == list(validated), where
        for key in validated:
            _same(constructed[key], validated[key], f"{where}.{key}")
    elif isinstance(validated, float) and math.isnan(validated):
        assert math.isnan(constructed), where
    else:
        assert constructed == validated, (where, constructed, validated)
