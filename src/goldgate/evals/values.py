"""An eval case's values (input, reference, metadata) as a report holds them, and the fresh
copies each attempt gets of them.

What the decorator or a case declares is checked before a run starts: a value a report
cannot hold as JSON (a set, an object, a NaN) is ``InvalidInputError`` naming the eval and
the case. Each attempt then works on copies, so an eval that changes its input changes
neither the next attempt nor the report's case.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Mapping
from typing import Any, Final

import orjson

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import JSON_SCALARS

__all__ = ["DEEP", "FLAT", "PLAIN", "copying_of", "declared_json", "fresh", "fresh_values"]

_MAX_DEPTH = 200

FLAT: Final = 0
"""Input, reference and metadata are each a scalar or an object or array of scalars."""
PLAIN: Final = 1
"""They are plain JSON (dicts, lists and JSON scalars) nested deeper."""
DEEP: Final = 2
"""They hold other values (tuples, models...), kept as the eval gave them."""
_CONTAINERS: Final = frozenset({dict, list})


def fresh_values(
    copying: int, input_value: Any, reference: Any, metadata: Mapping[str, Any]
) -> tuple[Any, Any, dict[str, Any]]:
    """Fresh copies of input, reference and metadata for one attempt. Scalars and flat
    objects and arrays of scalars (``FLAT``, the common case) are copied one level, which is
    all they have; other plain JSON (``PLAIN``) goes through orjson; anything else is copied
    deeply."""
    if copying == FLAT:
        return (
            input_value.copy() if type(input_value) in _CONTAINERS else input_value,
            reference.copy() if type(reference) in _CONTAINERS else reference,
            dict(metadata),
        )
    if copying == PLAIN:
        with contextlib.suppress(orjson.JSONEncodeError):  # integers beyond 64 bits
            copied = orjson.loads(orjson.dumps((input_value, reference, metadata)))
            return copied[0], copied[1], copied[2]
    return fresh(input_value), fresh(reference), fresh(dict(metadata))


def is_flat(value: Any) -> bool:
    """Whether plain JSON ``value`` is a scalar, or an object or array of scalars only (plain
    JSON: its floats are finite, so a scalar here is one the orjson round trip keeps)."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return kind in JSON_SCALARS
    return set(map(type, items)) <= JSON_SCALARS  # in C: no generator a case


def fresh(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable with it: plain JSON containers copied
    directly (several times faster than ``copy.deepcopy``), anything else deep-copied."""
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if kind is dict:
        return {key: fresh(item) for key, item in value.items()}
    if kind is list:
        return [fresh(item) for item in value]
    if kind is tuple:
        return tuple(fresh(item) for item in value)
    return copy.deepcopy(value)


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _NotJson(Exception):
    pass


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as strict JSON (what a report can hold), or ``_NotJson`` saying what it
    cannot hold. A value that is plain JSON already is returned as it is, not copied."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _NotJson("a number that is NaN or infinite")
        return value
    if isinstance(value, bool | str):
        return bool(value) if isinstance(value, bool) else str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _plain(float(value), depth)
    if depth > _MAX_DEPTH:
        raise _NotJson(f"values nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        changed = kind is not dict
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotJson(f"an object key of type {type(key).__name__}")
            plain = _plain(item, depth + 1)
            changed = changed or plain is not item
            copied[key] = plain
        return copied if changed else value
    if isinstance(value, list | tuple):
        items = [_plain(item, depth + 1) for item in value]
        if kind is list and all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items
    raise _NotJson(f"a value of type {type(value).__name__}")


_EXACT_SCALARS: Final = frozenset({str, int, bool, type(None)})
"""Types whose every value is plain JSON (not float: NaN and infinities are not)."""


def _is_plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is strict JSON made of plain dicts, lists and scalars (checked
    without copying anything: the common case)."""
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth > _MAX_DEPTH:
        return False
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            if type(item) not in _EXACT_SCALARS and not _is_plain(item, depth + 1):
                return False
        return True
    if kind is list:
        return all(type(item) in _EXACT_SCALARS or _is_plain(item, depth + 1) for item in value)
    return False


def declared_json(value: Any, where: str, who: str, what: str) -> Any:
    """``value`` as strict JSON (itself when it is plain JSON already), or ``InvalidInputError``
    naming ``where``, the eval and ``what`` it is."""
    if _is_plain(value):
        return value
    try:
        return _plain(value)
    except _NotJson as error:
        raise InvalidInputError(
            f"{where}: {who}'s {what} holds {error}, which a report cannot hold."
        ) from None


def copying_of(input_value: Any, reference: Any, metadata: Any) -> int:
    """How attempts copy these plain JSON values: ``FLAT`` or ``PLAIN``."""
    flat = is_flat(input_value) and is_flat(reference) and is_flat(metadata)
    return FLAT if flat else PLAIN
