"""A case of a shard's report as the merged report writes it, made from its plain JSON
without pydantic (issue 43: ``report merge`` spends most of its time on its cases, and
validating each and writing it again through pydantic took half of that).

``full_json`` gives what validating a case's plain JSON as a ``CaseRecord`` and
writing it again (``adapter(CaseRecord).dump_python(mode="json")``) gives, for every case
whose values pydantic takes as they are: each record's fields in the order they are
declared, those left out with their defaults. A value pydantic would convert (an integer
where a float is declared, ``"1"`` or ``1.0`` for an integer, ``1`` for a boolean), a key no
record declares, a missing required field, or anything else it is not sure of makes it
answer None, and the caller takes pydantic's path: the bytes are the same either way
(tests/report/test_mergestream.py). Nothing is checked beyond the types: what pydantic would
refuse (a status no attempt has, a negative attempt number), verification of the very bytes
refuses before the merged report is published (``app.merge``). ``case_record`` builds the
record from what ``full_json`` gave, as validating would have (``full_case``: both).

The records' fields are read from their dataclasses, once: a field added to a record is
written here as pydantic writes it, with nothing to change.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, Final, Literal, Union

from goldgate.report.caserecords import CaseRecord
from goldgate.report.recordbase import Shared

__all__ = ["case_record", "full_case", "full_json"]

_NONE: Final = type(None)
_JSON_TYPES: Final[frozenset[type]] = frozenset({str, int, float, bool, _NONE, dict, list})
_SHARED_LIMIT: Final = 1024
"""Records kept to be shared, per field: past it, those kept are let go of."""
_SHARED_TEXT: Final = 256
"""Characters of text a record kept to be shared holds at most: with ``_SHARED_LIMIT``, what
is kept stays within a few megabytes, whatever the report holds."""
_REQUIRED: Final = object()
"""A required field's place in a record's template: filled by every record that passes."""


class _Unsure(Exception):  # private control flow, never leaves here: not a GoldgateError
    """A value pydantic may read otherwise than it stands: its path is taken."""


@dataclass(frozen=True)
class _Nested:
    name: str
    spec: _Spec
    many: bool
    """A tuple of records (a JSON array of objects), not one record."""
    shared: dict[Any, dict[str, Any]] | None
    """Where the field's records are shared when read (``recordbase.Shared``), those made
    so far, by their plain JSON."""
    records: dict[int, list[Any]] | None
    """Where they are shared, the record made of each of ``shared``'s (by its identity:
    [its plain JSON, kept so that no other takes its identity, the record or None until
    made]): a shared record is made once (``case_record``), as validating shares it."""


@dataclass(frozen=True)
class _Spec:
    """What ``_complete`` needs of one record class."""

    kind: type[Any]
    template: dict[str, Any]
    """Every field in order: its default as JSON, or ``_REQUIRED``."""
    required: frozenset[str]
    allowed: dict[str, frozenset[type]]
    """The exact types of plain JSON each field takes as it stands."""
    nested: tuple[_Nested, ...]


_SPECS: dict[type[Any], _Spec] = {}


def _spec(kind: type[Any]) -> _Spec:
    """The record class's ``_Spec``, made once."""
    found = _SPECS.get(kind)
    if found is None:
        found = _SPECS[kind] = _made_spec(kind)
    return found


def _made_spec(kind: type[Any]) -> _Spec:
    hints = typing.get_type_hints(kind)  # Annotated's extras (Shared) left out
    extras = typing.get_type_hints(kind, include_extras=True)
    template: dict[str, Any] = {}
    allowed: dict[str, frozenset[type]] = {}
    nested: list[_Nested] = []
    for field in dataclasses.fields(kind):
        found, inner = _types(hints[field.name])
        allowed[field.name] = found
        if inner is not None:
            marks = getattr(extras[field.name], "__metadata__", ())
            shared: dict[Any, dict[str, Any]] | None = None
            if any(isinstance(mark, Shared) for mark in marks):
                shared = {}
            records: dict[int, list[Any]] | None = None if shared is None else {}
            nested.append(_Nested(field.name, _spec(inner[0]), inner[1], shared, records))
        if field.default is not dataclasses.MISSING:
            template[field.name] = _default_json(field.default)
        elif field.default_factory is not dataclasses.MISSING:  # pragma: no cover - none yet
            template[field.name] = _default_json(field.default_factory())
        else:
            template[field.name] = _REQUIRED
    required = frozenset(name for name, value in template.items() if value is _REQUIRED)
    return _Spec(kind, template, required, allowed, tuple(nested))


def _types(hint: Any) -> tuple[frozenset[type], tuple[type[Any], bool] | None]:
    """The exact types of plain JSON that a field annotated ``hint`` takes as they stand,
    and the record class it holds (and whether a tuple of them), if any."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return _JSON_TYPES, None
    if hint in (str, int, float, bool):
        scalar: type = hint
        return frozenset({scalar}), None
    if origin is Literal:
        return frozenset(type(value) for value in typing.get_args(hint)), None
    if origin is Union or origin is types.UnionType:
        found: set[type] = set()
        inner = None
        for each in typing.get_args(hint):
            if each is _NONE:
                found.add(_NONE)
                continue
            types_, inner = _types(each)
            found |= types_
        return frozenset(found), inner
    if origin is dict:
        return frozenset({dict}), None
    if origin is tuple:
        item, ellipsis = typing.get_args(hint)
        if ellipsis is Ellipsis and isinstance(item, type) and dataclasses.is_dataclass(item):
            record: type[Any] = item
            return frozenset({list}), (record, True)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return frozenset({dict}), (hint, False)
    raise TypeError(f"report.mergecase does not know a field annotated {hint!r}")


def _default_json(value: Any) -> Any:
    if type(value) is tuple:
        return [_default_json(item) for item in value]
    if dataclasses.is_dataclass(value):  # pragma: no cover - no record defaults to one
        raise TypeError("report.mergecase does not know a record's default record")
    return value


def _made(nested: _Nested, value: Any) -> dict[str, Any]:
    """``value`` with every field (plain JSON, as pydantic writes it); where the field's
    records are shared when read (``recordbase.Shared``: checks, expectations; most are
    alike, such as ``{"outcome": "passed"}``), an equal one made before."""
    shared = nested.shared
    if shared is None or type(value) is not dict:
        return _built(nested.spec, value)
    # Types are part of the key: 1, 1.0 and True are equal in Python, not in JSON.
    kinds = tuple(map(type, value.values()))
    if dict in kinds or list in kinds:  # unhashable (an expectation's expected object,
        return _built(nested.spec, value)  # often): told apart before hashing fails
    try:
        key = (tuple(value.items()), kinds)
        found = shared.get(key)
    except TypeError:  # pragma: no cover - plain JSON holds no other unhashable value
        return _built(nested.spec, value)
    if found is None:
        found = _built(nested.spec, value)
        if sum(len(item) for item in value.values() if type(item) is str) <= _SHARED_TEXT:
            records = nested.records
            assert records is not None  # made with shared
            if max(len(shared), len(records)) >= _SHARED_LIMIT:  # bounded, whatever the report
                shared.clear()
                records.clear()
            shared[key] = found
            records[id(found)] = [found, None]
    return found


def _built(spec: _Spec, value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Unsure
    allowed = spec.allowed
    try:
        for name, item in value.items():
            if type(item) not in allowed[name]:
                raise _Unsure
    except KeyError:  # a key the record does not declare
        raise _Unsure from None
    if not spec.required <= value.keys():
        raise _Unsure
    full = {**spec.template, **value}
    for nested in spec.nested:
        item = full[nested.name]
        if item is None:
            continue
        if nested.many:
            full[nested.name] = [_made(nested, each) for each in item]
        else:
            full[nested.name] = _made(nested, item)
    return full


def full_case(plain: Any) -> tuple[dict[str, Any], CaseRecord] | None:
    """The case's plain JSON as pydantic writes the record it validates into (every field,
    in order), and that record; None where pydantic's own path must make them (see the
    module's description). ``plain`` is not changed; what is returned shares its values
    (and nested objects with other cases': the caller changes none of them)."""
    full = full_json(plain)
    return None if full is None else (full, case_record(full))


def full_json(plain: Any) -> dict[str, Any] | None:
    """``full_case``'s plain JSON alone (no record made)."""
    try:
        return _built(_spec(CaseRecord), plain)
    except _Unsure:
        return None


def case_record(full: Any) -> CaseRecord:
    """The record of a case ``full_json`` made (or its plain JSON read back), as validating
    it gives it: nothing is checked again."""
    made: CaseRecord = _record(_spec(CaseRecord), full)
    return made


def _record(spec: _Spec, full: dict[str, Any]) -> Any:
    # The record as validating gives it, its fields set as its own __init__ sets them (a
    # frozen dataclass's, past its __setattr__), all of them at once: several times faster.
    record = object.__new__(spec.kind)
    fields = record.__dict__
    fields.update(full)
    for nested in spec.nested:
        item = full[nested.name]
        if item is None:
            continue
        if nested.records is not None:
            made = nested.records
            if nested.many:
                fields[nested.name] = tuple([_shared_record(nested, made, each) for each in item])
            else:
                fields[nested.name] = _shared_record(nested, made, item)
        elif nested.many:
            fields[nested.name] = tuple([_record(nested.spec, each) for each in item])
        else:
            fields[nested.name] = _record(nested.spec, item)
    return record


def _shared_record(nested: _Nested, made: dict[int, list[Any]], full: dict[str, Any]) -> Any:
    """The record of ``full``: the one made before where ``full`` is one of those shared
    (``_made``), else made now."""
    kept = made.get(id(full))
    if kept is None or kept[0] is not full:
        return _record(nested.spec, full)
    if kept[1] is None:
        kept[1] = _record(nested.spec, full)
    return kept[1]
