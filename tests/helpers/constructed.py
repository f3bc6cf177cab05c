"""What a run constructs without validating (``report.plain``) must be what validating it
gives: the same values of the same types, and the same JSON."""

from __future__ import annotations

import math
from typing import Any

import orjson
from pydantic import BaseModel

from goldgate.report.models import Report
from goldgate.report.plain import record_json


def assert_constructed_as_validated(report: Report) -> None:
    """``report`` (and every record in it) equals the report validated from its own JSON,
    field by field and type by type (a list where a tuple belongs, an int where a float
    belongs would differ), and writes the same JSON as ``model_dump`` does."""
    plain = record_json(report)
    validated = Report.model_validate(plain)
    _same(report, validated, "report")
    assert orjson.dumps(plain) == orjson.dumps(validated.model_dump(mode="json"))


def _same(constructed: Any, validated: Any, where: str) -> None:
    assert type(constructed) is type(validated), (where, constructed, validated)
    if isinstance(validated, BaseModel):
        for name in type(validated).__pydantic_fields__:
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
