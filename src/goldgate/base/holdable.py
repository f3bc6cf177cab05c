"""Whether a value that user code produced can be written into a report as JSON, and if not,
what and where the first value that cannot is: a string with a lone surrogate (a truncated
model answer), an integer past Python's limit on digits (``sys.get_int_max_str_digits()``),
a number that is NaN or infinite, an object key that is not a string, or a value that is not
JSON at all. Where is a JSON pointer; the value itself is never named (it is the user's data,
and may be private).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from goldgate.base.pointers import format_pointer
from goldgate.base.textsafe import escape_control

__all__ = ["Unholdable", "unholdable"]

_MAX_DEPTH: Final = 1000
_POINTER_LIMIT: Final = 200
_STRICT: Final = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
"""orjson writes dates and dataclasses as it sees fit: here they are not JSON."""


@dataclass(frozen=True)
class Unholdable:
    """The first value a report cannot hold: ``what`` it is, and ``where`` (a JSON pointer
    from the value checked, ``""`` for the value itself)."""

    what: str
    where: str

    def sentence(self, whose: str) -> str:
        """One sentence: ``whose`` ("the eval's result") holds it at its place."""
        where = self.where
        if len(where) > _POINTER_LIMIT:
            where = where[:_POINTER_LIMIT] + "..."
        at = f" at {where}" if where else ""
        return f"{whose} holds {self.what}{at}, which a report cannot hold"


def _text_fits(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _int_fits(number: int) -> bool:
    limit = sys.get_int_max_str_digits()
    if limit == 0 or number.bit_length() < limit * 3:  # fewer digits than the limit, surely
        return True
    try:
        str(number)
    except ValueError:
        return False
    return True


def _first(value: Any, path: list[str | int]) -> Unholdable | None:
    kind = type(value)
    if value is None or kind is bool:
        return None
    if isinstance(value, str):
        return None if _text_fits(value) else _at("a string that is not UTF-8", path)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if _int_fits(value) else _at("an integer with too many digits", path)
    if isinstance(value, float):
        return None if math.isfinite(value) else _at("a number that is NaN or infinite", path)
    if len(path) >= _MAX_DEPTH:
        return _at(f"values nested deeper than {_MAX_DEPTH} levels", path)
    is_object = isinstance(value, Mapping)
    if is_object:
        entries: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list | tuple):
        entries = enumerate(value)
    else:
        return _at(f"a value of type {escape_control(kind.__name__)}", path)
    for key, item in entries:  # each key before the value it holds: in document order
        if is_object and not isinstance(key, str):
            return _at(f"an object key of type {type(key).__name__}", path)
        if is_object and not _text_fits(key):
            return _at("an object key that is not UTF-8", path)
        path.append(key)
        found = _first(item, path)
        path.pop()
        if found is not None:
            return found
    return None


def _at(what: str, path: list[str | int]) -> Unholdable:
    return Unholdable(what, escape_control(format_pointer(path)))


def unholdable(value: Any) -> Unholdable | None:
    """None when ``value`` is JSON a report can hold as it is; else the first value that is
    not (in document order). Plain JSON takes one pass of orjson (which refuses lone
    surrogates, integers past 64 bits, other types and non-string keys, and writes NaN and
    infinities as ``null``, so text with a ``null`` in it is looked at closely)."""
    try:
        data = orjson.dumps(value, option=_STRICT)
    except (orjson.JSONEncodeError, TypeError):
        pass
    else:
        if b"null" not in data:
            return None
    try:
        return _first(value, [])
    except RecursionError:
        return Unholdable(f"values nested deeper than {_MAX_DEPTH} levels", "")
