"""``plainly_valid`` accepts only cases the case record's validation accepts: random edits of
a valid case, with values of every JSON type in every field (and keys added or removed), are
either validated by pydantic or left to it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from goldgate.report.caseshape import plainly_valid
from goldgate.report.models import CaseRecord, adapter

CASE: dict[str, Any] = {
    "id": "case-1",
    "position": 3,
    "line": 2,
    "family": "f",
    "split": "holdout",
    "input": {"payload": {"message": "hi"}},
    "expectations": [
        {"name": "status", "path": "/execution/status", "expected": "completed"},
        {"name": "n", "path": "/n", "comparison": "text", "scorer": None, "judge": "j"},
    ],
    "attempts": [
        {
            "attempt": 1,
            "status": "completed",
            "latency_ms": 0.5,
            "usage": {"tokens": 3},
            "retries": 0,
            "cached": False,
            "cost": 0.25,
            "judge_cost": 0,
            "result": {"execution": {"status": "completed"}},
            "checks": [
                {"outcome": "passed"},
                {
                    "outcome": "failed",
                    "reason": "r",
                    "assertions_declared": 2,
                    "assertions_held": 1,
                    "adjudication": True,
                    "json_parsed": None,
                    "required_keys_found": None,
                    "adjudicated": False,
                },
            ],
        },
        {"attempt": 2, "status": "failed", "reason": "boom", "stderr": "x", "checks": []},
        {  # the commonest shape, which plainly_valid tests on its own
            "attempt": 3,
            "status": "completed",
            "latency_ms": 1,
            "result": {"n": "x"},
            "checks": [{"outcome": "passed"}, {"outcome": "failed", "reason": "r"}],
        },
    ],
}

VALUES = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        -1,
        1,
        2,
        2**60,
        10**400,
        0.5,
        -0.5,
        float("nan"),
        float("inf"),
        "",
        "passed",
        "completed",
        "failed",
        "x",
        [],
        [1],
        {},
        {"a": 1},
        {1: 2},
        {"outcome": "passed"},
        {"type": "E"},
    ]
)


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every dict key and list index under ``value``, as paths."""
    found = []
    if isinstance(value, dict):
        for key, each in value.items():
            found.append((*at, key))
            found += _places(each, (*at, key))
    elif isinstance(value, list):
        for index, each in enumerate(value):
            found.append((*at, index))
            found += _places(each, (*at, index))
    return found


PLACES = _places(CASE)
KEYS = st.sampled_from(sorted({str(path[-1]) for path in PLACES} | {"extra", "judge"}))


def edits_of(base: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Copies of ``base`` with one to three random edits: a value of any JSON type set at a
    place, a key deleted, or a key added."""
    places = _places(base)

    @st.composite
    def edited(draw: Any) -> Any:
        case = copy.deepcopy(base)
        for _ in range(draw(st.integers(1, 3))):
            path = draw(st.sampled_from(places))
            holder = case
            try:
                for step in path[:-1]:
                    holder = holder[step]
                action = draw(st.sampled_from(["set", "delete", "add"]))
                if action == "set":
                    holder[path[-1]] = draw(VALUES)
                elif action == "delete" and isinstance(holder, dict):
                    del holder[path[-1]]
                elif isinstance(holder, dict):
                    holder[draw(KEYS)] = draw(VALUES)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier edit changed the path
        return case

    return edited()


def _valid(case: Any) -> bool:
    try:
        adapter(CaseRecord).validate_python(case)
    except ValidationError:
        return False
    return True


def test_the_plain_cases_of_a_report_are_recognised() -> None:
    assert _valid(CASE)
    assert plainly_valid(CASE)
    assert plainly_valid({"id": "a", "expectations": [], "attempts": []})


COMPLETED = {"attempt": 1, "status": "completed", "latency_ms": 1, "result": {}, "checks": []}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("line", 0),
        ("input", {1: 2}),
        ("attempts", [{"attempt": 1, "status": "done"}]),
        ("attempts", [{**COMPLETED, "attempt": 0}]),
        ("attempts", [{**COMPLETED, "status": "done"}]),
        ("attempts", [{**COMPLETED, "latency_ms": "x"}]),
        ("attempts", [{**COMPLETED, "result": {1: 2}}]),
        ("attempts", [{**COMPLETED, "checks": [{"outcome": "x"}]}]),
    ],
)
def test_what_validation_refuses_is_left_to_it(field: str, value: Any) -> None:
    case = {**CASE, field: value}
    assert not plainly_valid(case)
    assert not _valid(case)


@settings(max_examples=400, deadline=None)
@given(edits_of(CASE))
def test_a_case_recognised_is_a_case_validation_accepts(case: Any) -> None:
    if plainly_valid(case):
        assert _valid(case), case


def test_every_key_it_knows_is_a_field_of_its_record() -> None:
    """A field a record loses is then refused by validation: the hand check must not keep
    accepting it. (A field a record gains is left to validation until the check knows it.)"""
    from dataclasses import fields

    from goldgate.report import caseshape
    from goldgate.report.caserecords import (
        AttemptRecord,
        CheckRecord,
        ExpectationRecord,
    )

    for known, record in (
        (caseshape._CASE_KEYS, CaseRecord),
        (caseshape._EXPECTATION_KEYS, ExpectationRecord),
        (caseshape._ATTEMPT_KEYS, AttemptRecord),
        (caseshape._CHECK_KEYS, CheckRecord),
    ):
        assert known <= {field.name for field in fields(record)}, record
