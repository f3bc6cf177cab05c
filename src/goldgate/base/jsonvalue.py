"""JSON values: frozen (``FrozenJson``), absent (``MISSING``, never ``null``), compared with
JSON's own equality, and written canonically. Loading is ``strictjson``; pointers are
``pointers``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, TypeAlias

import orjson

JsonValue: TypeAlias = Any
"""A plain JSON value as ``json`` produces it: dict, list, str, int, float, bool or None."""

FrozenJson: TypeAlias = (
    bool | int | float | str | tuple["FrozenJson", ...] | Mapping[str, "FrozenJson"] | None
)
"""A JSON value that cannot be changed: arrays are tuples, objects are read-only mappings."""


class _Missing:
    """The outcome of a pointer that resolves to nothing. Distinct from JSON ``null``."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


def freeze(value: JsonValue) -> FrozenJson:
    """A deep, read-only copy of a plain JSON value, safe to hand to user code."""
    if isinstance(value, dict):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    return value  # type: ignore[no-any-return]


JSON_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""The exact types of JSON's scalars as Python holds them (``type(value) in JSON_SCALARS``:
subclasses, such as a str enum, are not among them)."""


def thaw(value: FrozenJson | JsonValue) -> JsonValue:
    """A plain, JSON-serialisable copy of a (possibly frozen) JSON value."""
    if type(value) in JSON_SCALARS:  # the common case, without the abstract-class checks below
        return value
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``, key order is irrelevant,
    array order matters, strings compare code point by code point."""
    if type(left) is str and type(right) is str:  # the most common pair, told first
        return left == right
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if is_array(left) and is_array(right):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return False


def is_array(value: Any) -> bool:
    return isinstance(value, list | tuple)


def json_type_name(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is MISSING:
        return "nothing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if is_array(value):
        return "array"
    return type(value).__name__


_DIGITS_AS_ZEROS: Final = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_NUMBER: Final = b"0" * 19


def loads_exact(data: bytes, *, lean: bool = False) -> Any:
    """JSON text (known to be valid JSON) parsed as the standard library parses it, through
    orjson where that gives the same values: orjson reads an integer beyond 64 bits as a
    float, so text with a run of 19 or more digits anywhere (inside a string too: rare, and
    then only slower) is left to ``json``. The run is looked for in the text with its digits
    as zeros and everything else as spaces: two C passes, where a regular expression took
    longer than parsing.

    ``lean``: parse with ``json`` alone, which is slower but sets aside far less memory on
    the way (orjson's peak address space is about 20 times the text's size, ``json``'s about
    10, the values included) and, short of memory, raises ``MemoryError`` where orjson may
    crash the process."""
    if lean or not orjson_reads_exactly(data):
        return json.loads(data)
    return orjson.loads(data)


def orjson_reads_exactly(data: bytes) -> bool:
    """Whether orjson parses the JSON text ``data`` into the values the standard library
    gives (``loads_exact``): no run of 19 or more digits anywhere in it."""
    return _LONG_NUMBER not in data.translate(_DIGITS_AS_ZEROS)


def canonical_bytes(value: JsonValue, *, has_floats: bool = True) -> bytes:
    """``canonical_json(value)`` as UTF-8. A value without floats (``has_floats=False``, as
    the parser saw it) takes orjson, whose sorted output is the same bytes for every string
    and integer (floats it spells differently, e.g. 1e16 for 1e+16)."""
    if not has_floats:
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # an integer past 64 bits, or a value that is not plain JSON
            pass
    return canonical_json(value).encode("utf-8")


def canonical_json(value: JsonValue) -> str:
    """One text per JSON value: sorted keys, no whitespace, so hashes ignore formatting."""
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=_plain_mapping,
    )


def _plain_mapping(value: Any) -> Any:
    # Frozen objects are read-only mappings, which json cannot write by itself; tuples it can.
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not a JSON value")


# --- RFC 6901 pointers ------------------------------------------------------------------------
