"""A report's own records as JSON, without building pydantic's serializers.

A run writes a handful of small records (the header's dataset, variant and options, each
suite's target, counts and thresholds, the verdict). Building the report models' validators
and serializers for them cost more than running a thousand eval cases, on every run: the
models are therefore built lazily (``defer_build``), a run constructs its records without
validating them (``model_construct``: it built every value itself, of the declared type),
and ``record_json`` writes them. Code that reads reports still validates them in full.

``record_json`` gives what ``model_dump(mode="json")`` gives for these records: fields in
declaration order, nested records as objects, tuples as lists; ``include`` and ``by_alias``
as in ``model_dump``. tests/report/test_plain.py holds it to ``model_dump`` for every record
type, and holds what a run constructs to what validating it would give.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import BaseModel

from goldgate.jsonvalue import JSON_SCALARS

__all__ = ["record_json"]


def record_json(
    record: BaseModel, *, by_alias: bool = False, include: Collection[str] | None = None
) -> dict[str, Any]:
    """``record.model_dump(mode="json", by_alias=by_alias, include=include)``."""
    values = record.__dict__
    plain: dict[str, Any] = {}
    for name, field in type(record).__pydantic_fields__.items():
        if include is not None and name not in include:
            continue
        key = (field.serialization_alias or field.alias or name) if by_alias else name
        plain[key] = _json_value(values[name], by_alias)
    return plain


def _json_value(value: Any, by_alias: bool) -> Any:
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if isinstance(value, BaseModel):
        return record_json(value, by_alias=by_alias)
    if kind is tuple or kind is list:
        return [_json_value(item, by_alias) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {key: _json_value(item, by_alias) for key, item in value.items()}
    raise TypeError(f"a report record holds a {kind.__name__}, which record_json does not write")
