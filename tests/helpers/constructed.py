"""What a run constructs without validating (the records of ``report.records``, written by
``report.plain``) must be what validating it gives: the same values of the same types, and
the same JSON. The classes are the same ones (the report has one model); this holds the
values inside them."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import orjson
from pydantic import BaseModel

from goldgate.report.models import Report, adapter, validated
from goldgate.report.plain import record_json


def assert_constructed_as_validated(report: Report) -> None:
    """``report`` (as a run returns it, and every record in it) equals the report validated
    from its own JSON, field by field and type by type (a list where a tuple belongs, an int
    where a float belongs would differ), and writes the same JSON as the adapter dumps."""
    plain = record_json(report)
    read = validated(Report, plain)
    _same(report, read, "report")
    assert orjson.dumps(plain) == orjson.dumps(adapter(Report).dump_python(read, mode="json"))


def _same(constructed: Any, validated: Any, where: str) -> None:
    assert type(constructed) is type(validated), (where, constructed, validated)
    if isinstance(validated, BaseModel):  # the gold's and the metrics' models inside a suite
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
