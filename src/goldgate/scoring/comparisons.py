"""The built-in comparisons of a value against reviewed gold: exact, set and source_span.

Pure and synchronous. An absent actual (``MISSING``) is never compared as ``null``: it fails
every comparison with ``ABSENT_REASON``. Reasons describe differences by JSON type, length,
count, index and path only, never by content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from goldgate.base.jsonvalue import MISSING, is_array, json_equal, json_type_name
from goldgate.base.pointers import parse_pointer as _parse_pointer
from goldgate.base.pointers import resolve
from goldgate.gold.shapes import first_problem, source_span_problems
from goldgate.scoring.outcomes import ABSENT_REASON, Outcome

__all__ = [
    "Verdict",
    "compare_exact",
    "compare_set",
    "compare_source_span",
    "describe_difference",
    "set_key",
    "source_span_problem",
]


@dataclass(frozen=True)
class Verdict:
    """A comparison's result: passed, failed or error, with a safe reason unless passed."""

    outcome: Outcome
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.outcome is Outcome.NOT_RUN:
            raise ValueError("a comparison verdict is passed, failed or error")
        if self.outcome is not Outcome.PASSED and not self.reason:
            raise ValueError("a verdict other than passed needs a reason")


PASSED = Verdict(Outcome.PASSED)
ABSENT = Verdict(Outcome.FAILED, ABSENT_REASON)


def _failed(reason: str) -> Verdict:
    return Verdict(Outcome.FAILED, reason)


def _error(reason: str) -> Verdict:
    return Verdict(Outcome.ERROR, reason)


def _a(type_name: str) -> str:
    """``a string``, ``an array``, ``null``, ``nothing``."""
    if type_name in ("null", "nothing"):
        return type_name
    return ("an " if type_name[0] in "aeiou" else "a ") + type_name


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# --- exact -------------------------------------------------------------------------------------


def compare_exact(actual: Any, expected: Any) -> Verdict:
    """JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``, object key order is
    irrelevant, array order matters, strings compare code point by code point."""
    if actual is MISSING:
        return ABSENT
    if json_equal(actual, expected):
        return PASSED
    return _failed(describe_difference(actual, expected))


def describe_difference(actual: Any, expected: Any) -> str:
    """One safe sentence about how two JSON values that are not equal differ."""
    actual_type, expected_type = json_type_name(actual), json_type_name(expected)
    if actual_type != expected_type:
        return f"expected {_a(expected_type)}, got {_a(actual_type)}"
    if isinstance(actual, str):
        if len(actual) != len(expected):
            return (
                f"the string has {_plural(len(actual), 'code point')}, "
                f"the expected string {len(expected)}"
            )
        first = next(i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if a != e)
        return (
            f"the string differs from the expected string of the same length "
            f"({_plural(len(actual), 'code point')}) at code point {first}"
        )
    if is_array(actual):
        if len(actual) != len(expected):
            return (
                f"the array has {_plural(len(actual), 'element')}, "
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
            f"({_a(inner_actual)} where {_a(inner_expected)} was expected)"
            if inner_actual != inner_expected
            else f"the array differs from the expected array at index {index} "
            f"(both {_a(inner_actual)})"
        )
    if isinstance(actual, Mapping):
        missing = sum(1 for key in expected if key not in actual)
        extra = sum(1 for key in actual if key not in expected)
        different = sum(
            1 for key in expected if key in actual and not json_equal(actual[key], expected[key])
        )
        parts = []
        if missing:
            parts.append(f"lacks {_plural(missing, 'expected key')}")
        if extra:
            parts.append(f"has {_plural(extra, 'unexpected key')}")
        if different:
            parts.append(
                f"has {_plural(different, 'value')} that "
                + ("differs" if different == 1 else "differ")
            )
        return "the object " + ", ".join(parts)
    return f"the {actual_type} differs from the expected {expected_type}"


# --- set ---------------------------------------------------------------------------------------


def set_key(value: Any) -> Any:
    """A hashable key such that ``set_key(a) == set_key(b)`` exactly when ``json_equal(a, b)``.

    Booleans, numbers, strings and null are tagged with their JSON type so that ``true``,
    ``1`` and ``"1"`` stay distinct while ``1`` and ``1.0`` meet; arrays keep their order;
    objects ignore key order.
    """
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if is_array(value):
        return ("array", tuple(set_key(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", frozenset((key, set_key(item)) for key, item in value.items()))
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def compare_set(actual: Any, expected: Any) -> Verdict:
    """Top-level arrays compared as sets of elements under exact JSON equality: order and
    duplicates are ignored, nothing is coerced, nested arrays keep their order."""
    if actual is MISSING:
        return ABSENT
    if not is_array(expected):
        return _error(
            f"the expected value of a set comparison must be an array, "
            f"got {_a(json_type_name(expected))}"
        )
    if not is_array(actual):
        return _failed(f"expected an array for a set comparison, got {_a(json_type_name(actual))}")
    actual_keys = {set_key(item) for item in actual}
    expected_keys = {set_key(item) for item in expected}
    if actual_keys == expected_keys:
        return PASSED
    lacking = len(expected_keys - actual_keys)
    extra = len(actual_keys - expected_keys)
    parts = []
    if lacking:
        parts.append(f"lacks {_plural(lacking, 'expected element')}")
    if extra:
        parts.append(f"has {_plural(extra, 'unexpected element')}")
    return _failed("the set " + " and ".join(parts))


# --- source_span -------------------------------------------------------------------------------


def source_span_problem(expected: Any) -> str | None:
    """Why ``expected`` is not a well-formed source_span expectation, or ``None``: the shape
    only (the offline check's rules); whether the ranges fit the source needs the input."""
    return first_problem(source_span_problems(expected, None))


def compare_source_span(actual: Any, expected: Any, envelope: Any) -> Verdict:
    """A verbatim extraction: ``actual`` must occur in the source (the case input at
    ``expected["input_path"]``) at some code-point offset ``p`` with
    ``allowed.start <= p <= required.start`` and
    ``required.end <= p + len(actual) <= allowed.end``."""
    if actual is MISSING:
        return ABSENT
    problem = source_span_problem(expected)
    if problem is not None:
        return _error(problem)
    input_path: str = expected["input_path"]
    source = resolve(envelope, _parse_pointer(input_path))
    if source is MISSING:
        return _error(f"the source at input_path {input_path} is absent from the case input")
    if not isinstance(source, str):
        return _error(
            f"the source at input_path {input_path} is {_a(json_type_name(source))}, not a string"
        )
    (required_start, required_end), (allowed_start, allowed_end) = (
        expected["required"],
        expected["allowed"],
    )
    if allowed_end > len(source):
        return _error(
            f"source_span allowed [{allowed_start}, {allowed_end}) does not fit the source "
            f"of {_plural(len(source), 'code point')}"
        )
    if not isinstance(actual, str):
        return _failed(f"expected a string extraction, got {_a(json_type_name(actual))}")
    length = len(actual)
    if length == 0:
        return _failed("the extraction is an empty string")
    # Offsets p that satisfy both bounds form one interval [low, high]; a bounded find
    # looks for an occurrence starting anywhere in it (p + length <= high + length).
    low = max(allowed_start, required_end - length)
    high = min(required_start, allowed_end - length)
    if low <= high and source.find(actual, low, high + length) != -1:
        return PASSED
    occurrences = _count_occurrences(source, actual)
    if occurrences == 0:
        return _failed(
            f"the extraction ({_plural(length, 'code point')}) does not occur verbatim "
            "in the source"
        )
    return _failed(
        f"the extraction occurs {_plural(occurrences, 'time')} in the source, but no occurrence "
        f"covers required [{required_start}, {required_end}) "
        f"within allowed [{allowed_start}, {allowed_end})"
    )


def _count_occurrences(source: str, candidate: str) -> int:
    """How many offsets ``candidate`` occurs at, overlapping occurrences included."""
    count, position = 0, source.find(candidate)
    while position != -1:
        count += 1
        position = source.find(candidate, position + 1)
    return count
