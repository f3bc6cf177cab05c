"""A stored case checked by hand where that decides: most cases of a report hold only plain
values of the plainest types, which ``plainly_valid`` recognises at a fraction of what
validating the case's record (``report.models``) costs. It accepts only what that validation
accepts; whatever it does not recognise (an exception, a judge, a bool where a number goes,
an unknown key...) is left to the validation, which says what is wrong and where.

The keys are listed here, not taken from the records: a field a record gains is validated
until this check knows its type (tests/report/test_caseshape.py holds each list to its
record's fields)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["plainly_valid"]

_CASE_KEYS = frozenset(
    {"id", "position", "line", "family", "split", "input", "expectations", "attempts"}
)
_EXPECTATION_KEYS = frozenset({"name", "path", "comparison", "scorer", "judge", "expected"})
_ATTEMPT_KEYS = frozenset(
    {
        "attempt",
        "status",
        "reason",
        "latency_ms",
        "usage",
        "retries",
        "cached",
        "cost",
        "judge_cost",
        "result",
        "stderr",
        "exception",
        "checks",
    }
)
_CHECK_KEYS = frozenset(
    {
        "outcome",
        "reason",
        "assertions_declared",
        "assertions_held",
        "adjudication",
        "json_parsed",
        "required_keys_found",
        "required_keys_declared",
        "adjudicated",
        "judge",
    }
)
_STATUSES = frozenset({"completed", "failed", "timed_out", "skipped", "cancelled"})
_OUTCOMES = frozenset({"passed", "failed", "error", "not_run"})
_EXACT_FLOAT = 2**53


def _text(value: Any) -> bool:
    return value is None or type(value) is str


def _count(value: Any) -> bool:
    return value is None or type(value) is int


def _number(value: Any) -> bool:
    """A finite float, or an int a float holds exactly."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return kind is int and -_EXACT_FLOAT <= value <= _EXACT_FLOAT


_STR = frozenset({str})


def _document(value: Any) -> bool:
    # The keys' types as a set, compared in C: a third of a generator over them.
    return value is None or (type(value) is dict and _STR.issuperset(map(type, value)))


def _flag(value: Any) -> bool:
    return value is None or type(value) is bool


def _one_of(value: Any, names: frozenset[str]) -> bool:
    return type(value) is str and value in names


def _checks(checks: list[Any]) -> bool:
    for check in checks:  # a loop, not a call a check: most are an outcome alone
        if type(check) is not dict:
            return False
        if len(check) == 1:
            outcome = check.get("outcome")
            if type(outcome) is not str or outcome not in _OUTCOMES:
                return False
        elif not _check(check):
            return False
    return True


def _check(check: dict[str, Any]) -> bool:
    get = check.get
    return (
        check.keys() <= _CHECK_KEYS
        and _one_of(get("outcome"), _OUTCOMES)
        and _text(get("reason"))
        and _count(get("assertions_declared"))
        and _count(get("assertions_held"))
        and _count(get("required_keys_found"))
        and _count(get("required_keys_declared"))
        and type(get("adjudication", False)) is bool
        and type(get("adjudicated", False)) is bool
        and _flag(get("json_parsed"))
        and get("judge") is None
    )


_COMPLETED_KEYS = frozenset({"attempt", "status", "latency_ms", "result", "checks"})
"""The fields of most attempts of a report with details: a completed attempt's."""


def _completed(attempt: dict[str, Any]) -> bool:
    """``_attempt`` of an attempt of ``_COMPLETED_KEYS`` exactly: those fields alone."""
    number, status, latency, checks = (
        attempt["attempt"],
        attempt["status"],
        attempt["latency_ms"],
        attempt["checks"],
    )
    return (
        type(number) is int
        and number >= 1
        and type(status) is str
        and status in _STATUSES
        and (latency is None or _number(latency))
        and _document(attempt["result"])
        and type(checks) is list
        and _checks(checks)
    )


def _attempt(attempt: Any) -> bool:
    if type(attempt) is not dict:
        return False
    if attempt.keys() == _COMPLETED_KEYS:  # most attempts: their fields tested alone
        return _completed(attempt)
    if not attempt.keys() <= _ATTEMPT_KEYS:
        return False
    get = attempt.get
    number, latency, cost, judge_cost = (
        get("attempt"),
        get("latency_ms"),
        get("cost"),
        get("judge_cost"),
    )
    retries = get("retries", 0)
    checks = get("checks", [])
    # The plainest fields tested in place, not each in a call: this runs for every attempt.
    status, reason, stderr = get("status"), get("reason"), get("stderr")
    return (
        type(number) is int
        and number >= 1
        and type(status) is str
        and status in _STATUSES
        and (reason is None or type(reason) is str)
        and (latency is None or _number(latency))
        and type(retries) is int
        and retries >= 0
        and type(get("cached", False)) is bool
        and (cost is None or (_number(cost) and cost >= 0))
        and (judge_cost is None or (_number(judge_cost) and judge_cost >= 0))
        and _document(get("result"))
        and (stderr is None or type(stderr) is str)
        and get("exception") is None
        and type(checks) is list
        and _checks(checks)
    )


def _expectations(expectations: list[Any]) -> bool:
    for expectation in expectations:  # a loop, not a call an expectation
        if type(expectation) is not dict or not expectation.keys() <= _EXPECTATION_KEYS:
            return False
        get = expectation.get
        scorer, judge = get("scorer"), get("judge")
        if not (
            type(get("name")) is str
            and type(get("path")) is str
            and type(get("comparison", "")) is str
            and (scorer is None or type(scorer) is str)
            and (judge is None or type(judge) is str)
        ):
            return False
    return True


def plainly_valid(case: Any) -> bool:
    """Whether ``case`` (a stored case's plain JSON) is certainly a valid case record: only
    then is it not validated. ``False`` says nothing: validate it."""
    if type(case) is not dict or not case.keys() <= _CASE_KEYS:
        return False
    get = case.get
    line, position = get("line"), get("position")
    expectations, attempts = get("expectations"), get("attempts")
    family, split = get("family"), get("split")
    return (
        type(get("id")) is str
        and (position is None or type(position) is int)
        and (line is None or (type(line) is int and line >= 1))
        and (family is None or type(family) is str)
        and (split is None or type(split) is str)
        and _document(get("input"))
        and type(expectations) is list
        and type(attempts) is list
        and _expectations(expectations)
        and all(map(_attempt, attempts))
    )
