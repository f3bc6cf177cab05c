"""The ``maximum`` comparison: the number at the path is at most ``expected``. Its path is one
of the attempt's own figures (``/attempt/latency_ms``, ``/attempt/cost``: ``gold.maxima``), so
each case keeps its own verdict on how long it took or what it cost, or any number of the
result. A figure the attempt did not record (a cost without pricing or usage) fails: a bound
nothing measured is never met."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from goldgate.base.jsonvalue import MISSING, json_type_name
from goldgate.gold.shapes import Problem
from goldgate.scoring.comparisons import article, failed, with_actual
from goldgate.scoring.kinds.kind import ScoringKind
from goldgate.scoring.outcomes import CheckOutcome, Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from goldgate.gold.compiled import CompiledExpectation
    from goldgate.gold.models import TextOptions

__all__ = ["KIND"]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _rules(expected: Any, form: Any, envelope: Mapping[str, Any]) -> Sequence[Problem]:
    if not _number(expected) or expected < 0:
        return [(("expected",), "a maximum is a number at least 0")]
    return ()


def _score(
    actual: Any, expectation: CompiledExpectation, envelope: Any, options: TextOptions | None
) -> CheckOutcome:
    bound = expectation.expected
    if not _number(bound):
        return CheckOutcome(Outcome.ERROR, "a maximum is a number at least 0")
    if actual is MISSING:
        return CheckOutcome(
            Outcome.FAILED,
            "the attempt recorded no such figure (a cost needs "
            "the workflow's pricing and the answer's usage)",
        )
    if not _number(actual):
        found = article(json_type_name(actual))
        return with_actual(failed(f"expected a number at most {bound}, got {found}"), actual)
    if actual <= bound:
        return CheckOutcome(Outcome.PASSED, None, actual_present=True, actual=actual)
    return with_actual(failed(f"{actual:g} is over the maximum {bound:g}"), actual)


KIND = ScoringKind(name="maximum", rules=_rules, score=_score)
