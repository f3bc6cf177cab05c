"""The ``exact`` comparison: JSON equality (``true`` is not ``1``, ``1`` equals ``1.0``, object
key order is irrelevant, array order matters, strings compare code point by code point).
Any JSON value is a valid ``expected``: no offline rules, nothing to compile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from goldgate.base.jsonvalue import MISSING, is_array, json_equal, json_type_name
from goldgate.scoring.comparisons import (
    ABSENT,
    PASSED,
    Verdict,
    article,
    failed,
    plural,
)
from goldgate.scoring.kinds.kind import verdict_kind

if TYPE_CHECKING:
    from goldgate.gold.compiled import CompiledExpectation

__all__ = ["KIND", "compare_exact", "describe_difference"]


def compare_exact(actual: Any, expected: Any) -> Verdict:
    """JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``, object key order is
    irrelevant, array order matters, strings compare code point by code point."""
    if actual is MISSING:
        return ABSENT
    if json_equal(actual, expected):
        return PASSED
    return failed(describe_difference(actual, expected))


def describe_difference(actual: Any, expected: Any) -> str:
    """One safe sentence about how two JSON values that are not equal differ."""
    actual_type, expected_type = json_type_name(actual), json_type_name(expected)
    if actual_type != expected_type:
        return f"expected {article(expected_type)}, got {article(actual_type)}"
    if isinstance(actual, str):
        if len(actual) != len(expected):
            return (
                f"the string has {plural(len(actual), 'code point')}, "
                f"the expected string {len(expected)}"
            )
        first = next(i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if a != e)
        return (
            f"the string differs from the expected string of the same length "
            f"({plural(len(actual), 'code point')}) at code point {first}"
        )
    if is_array(actual):
        if len(actual) != len(expected):
            return (
                f"the array has {plural(len(actual), 'element')}, "
                f"the expected array {len(expected)}"
            )
        index = next(
            i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if not json_equal(a, e)
        )
        inner_actual, inner_expected = (
            json_type_name(actual[index]),
            json_type_name(expected[index]),
        )
        return (
            f"the array differs from the expected array at index {index} "
            f"({article(inner_actual)} where {article(inner_expected)} was expected)"
            if inner_actual != inner_expected
            else f"the array differs from the expected array at index {index} "
            f"(both {article(inner_actual)})"
        )
    if isinstance(actual, Mapping):
        missing = sum(1 for key in expected if key not in actual)
        extra = sum(1 for key in actual if key not in expected)
        different = sum(
            1 for key in expected if key in actual and not json_equal(actual[key], expected[key])
        )
        parts = []
        if missing:
            parts.append(f"lacks {plural(missing, 'expected key')}")
        if extra:
            parts.append(f"has {plural(extra, 'unexpected key')}")
        if different:
            parts.append(
                f"has {plural(different, 'value')} that "
                + ("differs" if different == 1 else "differ")
            )
        return "the object " + ", ".join(parts)
    return f"the {actual_type} differs from the expected {expected_type}"


def _verdict(actual: Any, expectation: CompiledExpectation, *_: Any) -> Verdict:
    expected = expectation.expected
    if type(actual) is str and type(expected) is str and actual == expected:
        return PASSED  # the commonest check of all, told without two more calls
    return compare_exact(actual, expected)


KIND = verdict_kind(name="exact", verdict=_verdict)
