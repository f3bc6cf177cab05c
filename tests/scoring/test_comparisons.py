"""exact, set and source_span: the semantics README.md ("Gold") says must hold exactly."""

from __future__ import annotations

import unicodedata
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldgate.base.jsonvalue import MISSING, json_equal
from goldgate.scoring import (
    ABSENT_REASON,
    Outcome,
    compare_exact,
    compare_set,
    compare_source_span,
    set_key,
    source_span_problem,
)

# --- exact -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (True, 1),
        (1, True),
        (False, 0),
        (0, None),
        ("1", 1),
        ("", None),
        ([1, 2], [2, 1]),
        ([[1, 2]], [[2, 1]]),
        ({"a": 1}, {"a": 1, "b": None}),
        ({"a": True}, {"a": 1}),
        (None, "null"),
        ([], {}),
    ],
)
def test_exact_fails_without_coercion(actual: Any, expected: Any) -> None:
    verdict = compare_exact(actual, expected)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (1, 1.0),
        (1.0, 1),
        (0, -0.0),
        (True, True),
        (None, None),
        ({"a": 1, "b": [1, {"c": 2}]}, {"b": [1.0, {"c": 2}], "a": 1}),
        (MappingProxyType({"x": (1, 2)}), {"x": [1, 2]}),
        ("😀", "\U0001f600"),
    ],
)
def test_exact_passes_on_json_equality(actual: Any, expected: Any) -> None:
    assert compare_exact(actual, expected).outcome is Outcome.PASSED


def test_key_order_is_irrelevant_and_array_order_matters() -> None:
    assert compare_exact({"b": 2, "a": 1}, {"a": 1, "b": 2}).outcome is Outcome.PASSED
    verdict = compare_exact(["a", "b"], ["b", "a"])
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason == "the array differs from the expected array at index 0 (both a string)"


def test_strings_compare_code_point_by_code_point_without_normalization() -> None:
    composed = "caf\u00e9"
    decomposed = "cafe\u0301"
    assert unicodedata.normalize("NFC", decomposed) == composed
    verdict = compare_exact(decomposed, composed)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason == "the string has 5 code points, the expected string 4"
    assert compare_exact("Straße", "STRASSE").outcome is Outcome.FAILED
    assert compare_exact("a ", "a").outcome is Outcome.FAILED


def test_absent_is_never_null() -> None:
    for compare in (compare_exact, compare_set):
        verdict = compare(MISSING, None)
        assert verdict.outcome is Outcome.FAILED
        assert verdict.reason == ABSENT_REASON
    # ...and null is not absent: a null actual compares as a value.
    assert compare_exact(None, None).outcome is Outcome.PASSED
    assert compare_exact(None, "x").reason == "expected a string, got null"


def test_exact_reasons_describe_types_and_counts() -> None:
    assert compare_exact(True, 1).reason == "expected a number, got a boolean"
    assert compare_exact([1], [1, 2]).reason == "the array has 1 element, the expected array 2"
    assert (
        compare_exact([1, "x"], [1, 2]).reason
        == "the array differs from the expected array at index 1 (a string where a number was "
        "expected)"
    )
    assert (
        compare_exact({"a": 1, "z": 0}, {"a": 2, "b": 1}).reason
        == "the object lacks 1 expected key, has 1 unexpected key, has 1 value that differs"
    )
    assert compare_exact(2, 3).reason == "the number differs from the expected number"
    assert (
        compare_exact("abcd", "abXd").reason
        == "the string differs from the expected string of the same length (4 code points) "
        "at code point 2"
    )


# --- set ---------------------------------------------------------------------------------------


def test_set_ignores_order_and_duplicates() -> None:
    assert compare_set(["b", "a", "a"], ["a", "b"]).outcome is Outcome.PASSED
    assert compare_set([], []).outcome is Outcome.PASSED
    assert compare_set([1.0, 2], [2, 1, 1]).outcome is Outcome.PASSED
    assert compare_set([{"k": 1, "j": 2}], [{"j": 2, "k": 1}]).outcome is Outcome.PASSED


@pytest.mark.parametrize(
    ("actual", "expected"),
    [([True], [1]), ([1], ["1"]), (["1"], [True]), ([0], [False]), ([None], [0]), ([], [None])],
)
def test_set_does_not_coerce(actual: list[Any], expected: list[Any]) -> None:
    verdict = compare_set(actual, expected)
    assert verdict.outcome is Outcome.FAILED


def test_set_counts_distinct_differences() -> None:
    verdict = compare_set([True, 1, 1], [1, "1", "x"])
    assert verdict.reason == "the set lacks 2 expected elements and has 1 unexpected element"


def test_set_keeps_nested_array_order() -> None:
    assert compare_set([[1, 2], [3]], [[3], [1, 2]]).outcome is Outcome.PASSED
    assert compare_set([[2, 1]], [[1, 2]]).outcome is Outcome.FAILED


def test_set_needs_top_level_arrays() -> None:
    verdict = compare_set({"a": 1}, ["a"])
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason == "expected an array for a set comparison, got an object"
    assert compare_set("ab", ["a", "b"]).reason == (
        "expected an array for a set comparison, got a string"
    )
    assert compare_set(None, []).reason == "expected an array for a set comparison, got null"
    error = compare_set(["a"], "a")
    assert error.outcome is Outcome.ERROR
    assert error.reason == "the expected value of a set comparison must be an array, got a string"


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, -1.0, 2.5])
    | st.sampled_from(["", "1", "a", "é", "e\u0301"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "1"]), children, max_size=3)
    ),
    max_leaves=8,
)


@given(_json, _json)
def test_set_key_agrees_with_json_equal(left: Any, right: Any) -> None:
    assert (set_key(left) == set_key(right)) is json_equal(left, right)


@given(st.lists(_json, max_size=5), st.lists(_json, max_size=5))
def test_set_agrees_with_pairwise_json_equality(actual: list[Any], expected: list[Any]) -> None:
    covered = all(any(json_equal(a, e) for e in expected) for a in actual) and all(
        any(json_equal(a, e) for a in actual) for e in expected
    )
    assert (compare_set(actual, expected).outcome is Outcome.PASSED) is covered


# --- source_span -------------------------------------------------------------------------------


def _envelope(message: Any) -> dict[str, Any]:
    return {"payload": {"message": message}, "metadata": {}}


def _span(required: list[int], allowed: list[int], path: str = "/payload/message") -> Any:
    return {"input_path": path, "required": required, "allowed": allowed}


def test_source_span_seed_example() -> None:
    envelope = _envelope("Cancel renewal for account C-1.")
    expected = _span([0, 14], [0, 29])
    for candidate in ("Cancel renewal", "Cancel renewal for account", "Cancel renewal for acc"):
        assert compare_source_span(candidate, expected, envelope).outcome is Outcome.PASSED
    for candidate in ("Cancel", "cancel renewal", "Cancel renewal for account C-1."):
        assert compare_source_span(candidate, expected, envelope).outcome is Outcome.FAILED


def test_source_span_finds_a_later_occurrence() -> None:
    #          0123456789012345678901234
    source = "ab ab ab xab ab"  # "ab" at 0, 3, 6, 10 and 13
    envelope = _envelope(source)
    # Only the occurrence at 10 fits.
    expected = _span([10, 12], [9, 12])
    assert compare_source_span("ab", expected, envelope).outcome is Outcome.PASSED
    assert compare_source_span("xab", expected, envelope).outcome is Outcome.PASSED
    # Earlier occurrences lie inside allowed but do not cover required.
    wide = _span([10, 12], [0, 15])
    assert compare_source_span("ab", wide, envelope).outcome is Outcome.PASSED
    assert compare_source_span("ab", _span([13, 15], [12, 15]), envelope).outcome is Outcome.PASSED
    verdict = compare_source_span("ab", _span([1, 2], [1, 2]), envelope)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason == (
        "the extraction occurs 5 times in the source, but no occurrence covers required [1, 2) "
        "within allowed [1, 2)"
    )


def test_source_span_counts_overlapping_occurrences() -> None:
    envelope = _envelope("aaaa")
    verdict = compare_source_span("aa", _span([3, 4], [3, 4]), envelope)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.reason is not None
    assert "occurs 3 times" in verdict.reason
    assert compare_source_span("aa", _span([2, 4], [1, 4]), envelope).outcome is Outcome.PASSED


def test_source_span_uses_code_points_for_astral_characters() -> None:
    source = "😀😀 ok 😀"
    envelope = _envelope(source)
    assert source.index("ok") == 3
    assert compare_source_span("ok", _span([3, 5], [3, 5]), envelope).outcome is Outcome.PASSED
    assert compare_source_span("😀 ok", _span([3, 5], [1, 5]), envelope).outcome is Outcome.PASSED
    # UTF-16 offsets (5, 7) would be wrong here.
    assert compare_source_span("ok", _span([5, 7], [5, 7]), envelope).outcome is Outcome.FAILED


def test_source_span_is_verbatim() -> None:
    envelope = _envelope("caf\u00e9 bar")
    assert (
        compare_source_span("cafe\u0301", _span([0, 4], [0, 4]), envelope).outcome is Outcome.FAILED
    )
    verdict = compare_source_span("CAFÉ", _span([0, 4], [0, 4]), envelope)
    assert verdict.reason == "the extraction (4 code points) does not occur verbatim in the source"


def test_source_span_failures_and_errors() -> None:
    envelope = _envelope("hello world")
    expected = _span([0, 5], [0, 11])
    assert compare_source_span(MISSING, expected, envelope).reason == ABSENT_REASON
    assert compare_source_span(None, expected, envelope).reason == (
        "expected a string extraction, got null"
    )
    assert compare_source_span(["hello"], expected, envelope).outcome is Outcome.FAILED
    assert compare_source_span("", expected, envelope).outcome is Outcome.FAILED

    out_of_range = compare_source_span("hello", _span([0, 5], [0, 12]), envelope)
    assert out_of_range.outcome is Outcome.ERROR
    assert out_of_range.reason == (
        "source_span allowed [0, 12) does not fit the source of 11 code points"
    )
    not_a_string = compare_source_span("x", expected, _envelope(42))
    assert not_a_string.outcome is Outcome.ERROR
    assert not_a_string.reason == (
        "the source at input_path /payload/message is a number, not a string"
    )
    absent = compare_source_span("x", _span([0, 1], [0, 1], "/payload/nope"), envelope)
    assert absent.outcome is Outcome.ERROR
    bad_pointer = compare_source_span("x", _span([0, 1], [0, 1], "payload"), envelope)
    assert bad_pointer.outcome is Outcome.ERROR


@pytest.mark.parametrize(
    ("expected", "problem"),
    [
        ("text", "a source_span expects {input_path, required, allowed}, found string"),
        (
            {"input_path": "/payload/m", "required": [0, 1]},
            "a source_span expectation needs 'allowed'",
        ),
        ({"input_path": "/p", "required": [0, 1], "allowed": [0, 1], "x": 1}, 'unknown key "x"'),
        (
            {"input_path": 3, "required": [0, 1], "allowed": [0, 1]},
            "a JSON pointer must be a string",
        ),
        (
            {"input_path": "a", "required": [0, 1], "allowed": [0, 1]},
            "must be empty or start with '/'",
        ),
        (
            {"input_path": "/p", "required": [0, True], "allowed": [0, 1]},
            "'required' is a [start, end] pair",
        ),
        (
            {"input_path": "/p", "required": [0, 1.0], "allowed": [0, 1]},
            "'required' is a [start, end] pair",
        ),
        (
            {"input_path": "/p", "required": [0, 1, 2], "allowed": [0, 1]},
            "'required' is a [start, end] pair",
        ),
        (
            {"input_path": "/p", "required": [1, 1], "allowed": [0, 1]},
            "'required' must be a nonempty range",
        ),
        (
            {"input_path": "/p", "required": [0, 3], "allowed": [1, 3]},
            "'required' must lie inside 'allowed'",
        ),
        (
            {"input_path": "/p", "required": [0, 3], "allowed": [0, 2]},
            "'required' must lie inside 'allowed'",
        ),
        (
            {"input_path": "/p", "required": [0, 3], "allowed": [-1, 3]},
            "'allowed' is a [start, end] pair of nonnegative",
        ),
    ],
)
def test_malformed_source_span_expectations_are_errors(expected: Any, problem: str) -> None:
    message = source_span_problem(expected)
    assert message is not None
    assert problem in message
    verdict = compare_source_span("x", expected, _envelope("xyz"))
    assert verdict.outcome is Outcome.ERROR
    assert verdict.reason == message
