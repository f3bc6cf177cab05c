"""Frozen dataclasses built on hot paths without running their generated ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, one call a
field: an attempt builds several such records, and their ``__init__`` was a tenth of the run
loop. ``built`` gives the instance its field dict in one step. It is for values that hold the
class's invariants by construction (no ``__post_init__`` runs); every use is tested equal to
the constructor, field by field (tests/base/test_frozen.py).
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["built"]

T = TypeVar("T")

_new = object.__new__
_set = object.__setattr__


def built(kind: type[T], fields: dict[str, Any]) -> T:
    """An instance of the frozen (non-slotted) dataclass ``kind`` whose fields are ``fields``:
    every field, in declaration order."""
    instance = _new(kind)
    _set(instance, "__dict__", fields)
    return instance
