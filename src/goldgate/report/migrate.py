"""Migrations of older report formats, one function per version step, applied in order.

Each takes the plain JSON value of a report in format N and returns it in format N + 1, so a
report of any older version reads as the current one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MIGRATIONS"]

_CHECK_FIELDS = (
    "outcome",
    "reason",
    "assertions_declared",
    "assertions_held",
    "adjudication",
    "json_parsed",
    "required_keys_found",
    "required_keys_declared",
)
_ATTEMPT_FIELDS = ("attempt", "status", "reason", "latency_ms", "usage", "result", "stderr")


def _case_groups(attempts: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Format 1 lists attempts in case-major order: consecutive runs of one case id."""
    groups: list[list[dict[str, Any]]] = []
    for attempt in attempts:
        if groups and groups[-1][0]["case_id"] == attempt["case_id"]:
            groups[-1].append(attempt)
        else:
            groups.append([attempt])
    return groups


def _case_2(attempts: list[dict[str, Any]]) -> dict[str, Any]:
    first = attempts[0]
    return {
        "id": first["case_id"],
        "family": first.get("family"),
        "split": first.get("split"),
        "input": first.get("input"),
        "expectations": [
            {key: check.get(key) for key in ("name", "path", "comparison", "scorer", "expected")}
            for check in first["checks"]
        ],
        "attempts": [
            {
                **{key: attempt.get(key) for key in _ATTEMPT_FIELDS},
                "checks": [
                    {key: check[key] for key in _CHECK_FIELDS if key in check}
                    for check in attempt["checks"]
                ]
                if attempt["status"] == "completed"
                else [],
            }
            for attempt in attempts
        ],
    }


def _awaiting(attempt: dict[str, Any], check: dict[str, Any], details: bool) -> dict[str, Any]:
    """The queue entry format 2 keeps for a format-1 check that waits for a person."""
    from goldgate.scoring.adjudication import note_of, output_digest

    return {
        "case": attempt["case_id"],
        "attempt": attempt["attempt"],
        "check": check["name"],
        "note": note_of(check.get("expected")) if details else None,
        "digest": output_digest(check["actual"]),
    }


def _1_to_2(report: dict[str, Any]) -> dict[str, Any]:
    """Format 2 stores each case's input and gold once, beside its attempts, and a check only
    as what gold and the result do not say; the verdict says whether anything was evaluated
    and how many checks wait for a person (per suite, with the queue of them)."""
    migrated = {**report, "format": "goldgate.report/2", "interruption": None}
    repeat = report.get("options", {}).get("repeat", 1)
    suites = []
    adjudication = 0
    evaluated = False
    details = report.get("options", {}).get("include_details") is True
    for suite in report.get("suites", []):
        attempts = suite.get("attempts", [])
        waiting = 0
        queue = []
        for attempt in attempts:
            for check in attempt.get("checks", []):
                waiting += bool(check.get("adjudication"))
                evaluated = evaluated or check.get("outcome") != "not_run"
                if check.get("adjudication") and isinstance(check.get("actual"), str):
                    queue.append(_awaiting(attempt, check, details))
        adjudication += waiting
        rest = {key: value for key, value in suite.items() if key != "attempts"}
        suites.append(
            {
                "adjudication": waiting,
                "adjudication_queue": queue,
                **rest,
                "cases_source": None,
                "repeat": repeat,
                "cases": [_case_2(group) for group in _case_groups(attempts)],
            }
        )
    migrated["suites"] = suites
    verdict = report.get("verdict")
    if isinstance(verdict, dict):
        migrated["verdict"] = {**verdict, "evaluated": evaluated, "adjudication": adjudication}
    return migrated


MIGRATIONS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (_1_to_2,)
"""MIGRATIONS[N - 1] turns format N into format N + 1."""
