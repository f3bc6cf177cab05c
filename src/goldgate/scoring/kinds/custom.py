"""The ``custom`` comparison: the async ``(actual, expected) -> bool`` scorer registered under
the name the expectation's ``scorer`` gives (``goldgate.scoring.scorers``).

User code, so it is awaited (``score.score_custom``), never scored in place, and its stored
outcomes are never scored again. Any JSON value is a valid ``expected``; the offline check
asks only that the scorer be named and registered (``gold.rules``, by ``uses_scorer``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.scoring.kinds.kind import ScoringKind
from goldgate.scoring.outcomes import CheckOutcome, Outcome

if TYPE_CHECKING:
    from goldgate.gold.compiled import CompiledExpectation
    from goldgate.gold.models import TextOptions

__all__ = ["KIND"]


def _not_in_place(
    actual: Any, expectation: CompiledExpectation, envelope: Any, options: TextOptions | None
) -> CheckOutcome:
    return CheckOutcome(Outcome.ERROR, "a custom comparison is awaited with its scorer")


KIND = ScoringKind(name="custom", uses_scorer=True, score=_not_in_place, rescored=False)
