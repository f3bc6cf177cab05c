"""The ``set`` comparison: top-level arrays compared as sets of elements under exact JSON
equality (order and duplicates ignored, nothing coerced, nested arrays keep their order).
Its offline rule: ``expected`` is an array. (``set_``: ``set`` is a builtin.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from goldgate.base.jsonvalue import MISSING, is_array, json_type_name
from goldgate.gold.shapes import Problem
from goldgate.scoring.comparisons import (
    ABSENT,
    PASSED,
    Verdict,
    article,
    error,
    failed,
    plural,
)
from goldgate.scoring.kinds.kind import value_verdict, verdict_kind

__all__ = ["KIND", "compare_set", "set_key"]


def _rules(expected: Any, form: Any, envelope: Mapping[str, Any]) -> Sequence[Problem]:
    if isinstance(expected, list):
        return ()
    return [(("expected",), f"a set comparison expects an array, found {json_type_name(expected)}")]


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
        return error(
            f"the expected value of a set comparison must be an array, "
            f"got {article(json_type_name(expected))}"
        )
    if not is_array(actual):
        return failed(
            f"expected an array for a set comparison, got {article(json_type_name(actual))}"
        )
    actual_keys = {set_key(item) for item in actual}
    expected_keys = {set_key(item) for item in expected}
    if actual_keys == expected_keys:
        return PASSED
    lacking = len(expected_keys - actual_keys)
    extra = len(actual_keys - expected_keys)
    parts = []
    if lacking:
        parts.append(f"lacks {plural(lacking, 'expected element')}")
    if extra:
        parts.append(f"has {plural(extra, 'unexpected element')}")
    return failed("the set " + " and ".join(parts))


KIND = verdict_kind(name="set", rules=_rules, verdict=value_verdict(compare_set))
