"""goldgate's RFC 6901 resolution against the jsonpointer package, on generated documents.

goldgate keeps its own pointer code: it is faster on gold's few repeated paths and stricter
where gold needs it (an absent value is ``MISSING``, never ``null``; ``-`` is absent, where
jsonpointer answers an ``EndOfList`` marker). Wherever both define an answer, they must agree:
the same value at the same place, or both absent."""

from __future__ import annotations

from typing import Any

import jsonpointer
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import format_pointer, resolve_pointer
from helpers.strategies import json_values

_ABSENT = object()


def _paths(document: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every path that leads to a value of ``document``, the root included."""
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, str(index)))
    return found


# Tokens that trip pointer code: escapes, index spellings RFC 6901 does not allow (leading
# zero, sign, spaces, non-ASCII digits), the past-the-end '-', and the empty key.
_ODD_TOKENS = st.sampled_from(
    ["", "-", "0", "00", "01", "1", "+1", "-1", " 1", "1 ", "١", "~", "/", "~0", "~1", "a", "x"]
)


def _jsonpointer_says(document: Any, pointer: str) -> Any:
    value = jsonpointer.resolve_pointer(document, pointer, _ABSENT)
    return _ABSENT if isinstance(value, jsonpointer.EndOfList) else value


def _goldgate_says(document: Any, pointer: str) -> Any:
    value = resolve_pointer(document, pointer)
    return _ABSENT if value is MISSING else value


@settings(max_examples=150, deadline=None)
@given(document=json_values, data=st.data())
def test_every_present_path_resolves_to_the_same_value_with_both(
    document: Any, data: st.DataObject
) -> None:
    path = data.draw(st.sampled_from(_paths(document)))
    pointer = format_pointer(path)

    ours = _goldgate_says(document, pointer)

    assert ours is not _ABSENT
    assert ours is _jsonpointer_says(document, pointer)


@settings(max_examples=150, deadline=None)
@given(document=json_values, data=st.data())
def test_any_pointer_is_absent_or_the_same_value_with_both(
    document: Any, data: st.DataObject
) -> None:
    start = data.draw(st.sampled_from(_paths(document)))
    extra = data.draw(st.lists(_ODD_TOKENS | st.text(max_size=3), max_size=3))
    pointer = format_pointer((*start, *extra))

    assert _goldgate_says(document, pointer) is _jsonpointer_says(document, pointer)


def test_the_places_where_only_goldgate_is_strict() -> None:
    document = {"items": [10, 20]}

    assert isinstance(jsonpointer.resolve_pointer(document, "/items/-"), jsonpointer.EndOfList)
    assert resolve_pointer(document, "/items/-") is MISSING
    assert resolve_pointer({"a": None}, "/a") is None
    assert resolve_pointer({"a": None}, "/b") is MISSING
