"""A stored case whose every attempt passed, taken from its plain JSON without validating
its record (issue 43).

Most cases of a report passed, and most of what renders them only counts a passing attempt
and writes one line for it (JUnit's testcase). ``passing_case`` takes such a case from its
plain JSON where ``report.caseshape.plainly_valid`` says that validating it would give a
record of exactly these values: its id, line, and each attempt's number and latency (a
float, as the record holds it). Any other case (one attempt with a problem, anything
``plainly_valid`` does not recognise) is None: the caller validates it. An attempt passed
as ``render.view.classify`` decides: completed, no check failed or in error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from goldgate.report.caseshape import plainly_valid

__all__ = ["PassingCase", "passing_case"]

_FAILING = frozenset({"failed", "error"})


@dataclass(frozen=True, slots=True)
class PassingCase:
    """A case every attempt of which passed: what its record says of it that a renderer of
    passing attempts reads."""

    id: str
    line: int | None
    split: str | None
    attempts: tuple[tuple[int, float | None, bool], ...]
    """Each attempt's number, latency in milliseconds, and whether a check of it awaits a
    person's verdict (not run, for adjudication), in order."""


def passing_case(raw: Any) -> PassingCase | None:
    """The case ``raw`` (a stored case's plain JSON) where every attempt passed and its
    record is surely these very values; None otherwise (validate it)."""
    if type(raw) is not dict:
        return None
    attempts = raw.get("attempts")
    if type(attempts) is not list:
        return None
    waits = []
    for attempt in attempts:
        if type(attempt) is not dict or attempt.get("status") != "completed":
            return None
        checks = attempt.get("checks", ())
        if type(checks) is not list:
            return None
        waiting = False
        for check in checks:
            if type(check) is not dict:
                return None
            outcome = check.get("outcome")
            if type(outcome) is not str or outcome in _FAILING:
                return None
            waiting = waiting or (outcome == "not_run" and check.get("adjudication") is True)
        waits.append(waiting)
    # Last: most of what it looks at was looked at; then every value below is of its type.
    if not plainly_valid(raw):
        return None
    taken = tuple(
        (attempt["attempt"], _float(attempt.get("latency_ms")), waiting)
        for attempt, waiting in zip(attempts, waits, strict=True)
    )
    return PassingCase(raw["id"], raw.get("line"), raw.get("split"), taken)


def _float(latency: float | None) -> float | None:
    """A latency as the record holds it: an integer as a float."""
    return None if latency is None else float(latency)
