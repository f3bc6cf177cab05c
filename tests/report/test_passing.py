"""``passing_case`` takes a case from its plain JSON only where every attempt passed and
its validated record says exactly what it took: random edits of a passing case (values of
every JSON type in every field, keys added or removed) are either taken, equal to what the
record says, or left to validation (None)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from pydantic import ValidationError

from goldgate.render.view import classify
from goldgate.report.models import CaseRecord, adapter
from goldgate.report.passing import PassingCase, passing_case

from .test_caseshape import CASE, edits_of

PASSING: dict[str, Any] = {
    **copy.deepcopy(CASE),
    "attempts": [
        {
            "attempt": 1,
            "status": "completed",
            "latency_ms": 1,  # an int: the record's float
            "result": {"execution": {"status": "completed"}},
            "checks": [{"outcome": "passed"}, {"outcome": "passed"}],
        },
        {
            "attempt": 2,
            "status": "completed",
            "latency_ms": 0.5,
            "usage": {"tokens": 3},
            "cost": 0.25,
            "result": {"n": "x"},
            "checks": [
                {"outcome": "passed"},
                {"outcome": "not_run", "adjudication": True, "reason": "awaits a person"},
            ],
        },
        {"attempt": 3, "status": "completed", "result": None, "checks": []},
    ],
}


def _said_by_record(case: Any) -> PassingCase | None:
    """What the validated record says of ``case`` where every attempt of it passed (as the
    renderers classify it); None where it is invalid or an attempt did not pass."""
    try:
        record = adapter(CaseRecord).validate_python(case)
    except ValidationError:
        return None
    if any(classify(attempt) is not None for attempt in record.attempts):
        return None
    attempts = tuple(
        (
            attempt.attempt,
            attempt.latency_ms,
            any(c.outcome == "not_run" and c.adjudication for c in attempt.checks),
        )
        for attempt in record.attempts
    )
    return PassingCase(record.id, record.line, record.split, attempts)


def test_a_passing_case_is_taken_as_its_record_says() -> None:
    taken = passing_case(PASSING)
    assert taken == _said_by_record(PASSING)
    assert taken is not None
    assert taken.attempts == ((1, 1.0, False), (2, 0.5, True), (3, None, False))
    assert type(taken.attempts[0][1]) is float


def test_a_case_with_an_attempt_that_did_not_pass_is_left_to_validation() -> None:
    assert passing_case(CASE) is None  # a failed check, a failed attempt
    for status in ("failed", "timed_out", "skipped", "cancelled"):
        case = copy.deepcopy(PASSING)
        case["attempts"][2]["status"] = status
        assert passing_case(case) is None, status
    for outcome in ("failed", "error"):
        case = copy.deepcopy(PASSING)
        case["attempts"][1]["checks"][0]["outcome"] = outcome
        assert passing_case(case) is None, outcome


@settings(max_examples=500, deadline=None)
@given(edits_of(PASSING))
def test_a_case_taken_is_what_its_record_says(case: Any) -> None:
    taken = passing_case(case)
    if taken is not None:
        assert taken == _said_by_record(case), case
