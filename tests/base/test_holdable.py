"""What a report cannot hold of what user code gives: found wherever it is, named by what it
is and a JSON pointer to it, never by its value."""

from __future__ import annotations

import json
import math
import sys
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.base.holdable import Unholdable, unholdable

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _writable(value: Any) -> bool:
    """What the report's writers can write: strict JSON text that is UTF-8."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError):
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_value_is_holdable_exactly_when_it_can_be_written(value: Any) -> None:
    assert (unholdable(value) is None) == _writable(value)


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ({"a": [1, {"b": "cut \ud83d"}]}, ("a string that is not UTF-8", "/a/1/b")),
        ({"ok": 1, "\udc80": 2}, ("an object key that is not UTF-8", "")),
        (
            {"n": 10 ** (sys.get_int_max_str_digits() + 1)},
            ("an integer with too many digits", "/n"),
        ),
        ({"a/b": [0.5, math.inf]}, ("a number that is NaN or infinite", "/a~1b/1")),
        ({"x": {1: "one"}}, ("an object key of type int", "/x")),
        ({"s": {1, 2}}, ("a value of type set", "/s")),
        (MappingProxyType({"t": (1, math.nan)}), ("a number that is NaN or infinite", "/t/1")),
        ("\ud800", ("a string that is not UTF-8", "")),
    ],
)
def test_what_and_where_never_the_value(value: Any, found: tuple[str, str]) -> None:
    problem = unholdable(value)

    assert problem is not None
    assert (problem.what, problem.where) == found


def test_a_value_whose_only_null_is_a_null_is_holdable() -> None:
    assert unholdable({"a": None, "b": [None, 1.5, "x"]}) is None


def test_the_sentence_says_whose_what_and_where() -> None:
    sentence = Unholdable("a number that is NaN or infinite", "/output").sentence("the result")

    assert sentence == (
        "the result holds a number that is NaN or infinite at /output, which a report cannot hold"
    )


def test_a_pointer_with_control_characters_is_escaped() -> None:
    problem = unholdable({"a\nb": math.nan})

    assert problem is not None
    assert "\n" not in problem.where
