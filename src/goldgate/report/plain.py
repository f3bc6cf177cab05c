"""A report's records as JSON, as pydantic writes them (``mode="json"``).

A run builds its records as the frozen dataclasses of ``report.records`` and
``report.caserecords``, without pydantic; code that reads reports gets the same classes,
validated through ``report.models``' adapters. ``record_json`` writes a record as its
adapter's ``dump_python(mode="json")`` does (and the gold's and metrics' pydantic models
inside a suite as their ``model_dump(mode="json")``): fields in declaration order, nested
records as objects, tuples as lists; ``include`` and ``by_alias`` as in pydantic.
tests/report/test_plain.py holds it to pydantic for every record type, and holds what a run
constructs to what validating it would give.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from goldgate.base.jsonvalue import JSON_SCALARS

__all__ = ["record_json"]


def record_json(
    record: Any, *, by_alias: bool = False, include: Collection[str] | None = None
) -> dict[str, Any]:
    """``record`` as pydantic writes it (``mode="json"``, ``by_alias``, ``include``): a
    record of the report, or a pydantic model of the gold or of the metrics a suite holds."""
    kind = type(record)
    plain: dict[str, Any] = {}
    values = record.__dict__
    fields = getattr(kind, "__pydantic_fields__", None)
    if fields is None:  # a record of the report (a dataclass): no aliases
        for name in kind.__dataclass_fields__:
            if include is None or name in include:
                plain[name] = _json_value(values[name], by_alias)
        return plain
    for name, field in fields.items():
        if include is not None and name not in include:
            continue
        key = (field.serialization_alias or field.alias or name) if by_alias else name
        plain[key] = _json_value(values[name], by_alias)
    return plain


def _json_value(value: Any, by_alias: bool) -> Any:
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if kind is tuple or kind is list:
        return [_json_value(item, by_alias) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {key: _json_value(item, by_alias) for key, item in value.items()}
    if hasattr(kind, "__pydantic_fields__") or hasattr(kind, "__dataclass_fields__"):
        return record_json(value, by_alias=by_alias)
    raise TypeError(f"a report record holds a {kind.__name__}, which record_json does not write")
