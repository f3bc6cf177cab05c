"""A baseline case re-scored under the candidate's gold, as replay would score it, so that a
partial comparison measures the application's change alone. Pure: no scorer code runs.

Each of the candidate's expectations is, for every saved attempt of the baseline:
- the baseline's own outcome where the baseline has the very same expectation (same name,
  path, comparison, scorer and expected value: scoring it again gives the same outcome);
- scored with ``score_compiled`` (what replay uses) where it is new or changed;
- absent (``-``) where it is a changed custom expectation: compare runs no scorer code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import loads_exact
from goldgate.comparison.sides import CODES, AttemptSide, CaseSide, Expectation
from goldgate.gold.compiled import compile_expectation
from goldgate.gold.models import Expectation as GoldExpectation
from goldgate.scoring import score_compiled

__all__ = ["NOT_RESCORED", "rescore_case"]

NOT_RESCORED = "-"


def _compiled(expectation: Expectation) -> Any:
    try:
        gold = GoldExpectation.model_validate(
            {
                "name": expectation.name,
                "path": expectation.path,
                "expected": expectation.expected,
                "comparison": expectation.comparison,
                "scorer": expectation.scorer,
            }
        )
    except ValidationError:
        return None
    return compile_expectation(gold)


def _code(compiled: Any, result: Mapping[str, Any], envelope: Mapping[str, Any]) -> str:
    if compiled is None:
        return "E"
    return CODES[score_compiled(compiled, result, envelope).outcome.value]


def rescore_case(
    candidate: CaseSide, baseline: CaseSide, suite: str, baseline_path: str
) -> tuple[AttemptSide, ...]:
    """The baseline's attempts with one code per candidate expectation (``NOT_RESCORED``
    for a changed custom one). ``InvalidInputError`` when a completed attempt's result was
    not saved (a report written without details)."""
    keys = {e.key(): position for position, e in enumerate(baseline.expectations)}
    plan: list[tuple[int | None, Any, bool]] = []  # (baseline position, compiled, custom)
    for expectation in candidate.expectations:
        position = keys.get(expectation.key())
        if position is not None:
            plan.append((position, None, False))
        elif expectation.comparison == "custom":
            plan.append((None, None, True))
        else:
            plan.append((None, _compiled(expectation), False))
    envelope: Mapping[str, Any] = loads_exact(candidate.input_key())
    rescored = []
    for attempt in baseline.attempts:
        completed = attempt.status == "completed"
        if completed and attempt.result is None:
            raise InvalidInputError(
                f"cannot compare: suite {suite!r}, case {candidate.id!r}: attempt "
                f"{attempt.attempt} of {baseline_path} has no saved result to re-score under "
                "the candidate's gold (the report was written without details)."
            )
        codes = []
        for position, compiled, custom in plan:
            if position is not None:
                codes.append(attempt.codes[position])
            elif not completed:
                codes.append("N")
            elif custom:
                codes.append(NOT_RESCORED)
            else:
                assert attempt.result is not None
                codes.append(_code(compiled, attempt.result, envelope))
        # How a kept check was decided stays with it; a re-scored one was decided by gold.
        judged = attempt.judged
        if judged:
            judged = tuple(
                judged[position] if position is not None else None for position, *_ in plan
            )
        rescored.append(
            AttemptSide(
                attempt.attempt,
                attempt.status,
                attempt.latency_ms,
                attempt.usage,
                "".join(codes),
                None,
                judged,
            )
        )
    return tuple(rescored)
