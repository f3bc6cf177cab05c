"""source_span's quick shape check agrees with its rules: a span it passes has no problem
(``source_span_problems``), and one with a problem is named by the rules, as before."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.scoring.kinds.source_span import (
    _plainly_well_formed,
    source_span_problem,
    source_span_problems,
)

_BOUNDS = st.integers(-2, 6) | st.sampled_from([True, False, 1.0, "1", None])
_SPANS = st.lists(_BOUNDS, min_size=0, max_size=3) | st.tuples(_BOUNDS, _BOUNDS) | st.none()
_POINTERS = st.sampled_from(["/payload/text", "", "payload", "/a~2", "/a~0b", 3, None])
_KEYS = st.sampled_from(["input_path", "required", "allowed", "extra"])


@st.composite
def expectations(draw: Any) -> Any:
    value = {"input_path": draw(_POINTERS), "required": draw(_SPANS), "allowed": draw(_SPANS)}
    for key in draw(st.lists(_KEYS, max_size=2)):
        if draw(st.booleans()):
            value.pop(key, None)
        else:
            value[key] = draw(_SPANS)
    return value


@settings(max_examples=400, deadline=None)
@given(expectations())
def test_a_span_passed_quickly_has_no_problem(expected: Any) -> None:
    if _plainly_well_formed(expected):
        assert list(source_span_problems(expected, None)) == []
    first = next((message for _, message in source_span_problems(expected, None)), None)
    assert source_span_problem(expected) == first


def test_the_plain_span_is_passed_quickly() -> None:
    span = {"input_path": "/payload/message", "required": [0, 7], "allowed": [0, 57]}
    assert _plainly_well_formed(span)
    assert not _plainly_well_formed({**span, "required": [3, 3]})
    assert (
        source_span_problem({**span, "required": [3, 3]}) == "'required' must be a nonempty range"
    )
