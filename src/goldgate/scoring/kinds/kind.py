"""What a comparison kind is to scoring: gold's contract (``gold.kinds.ComparisonKind``: a
name, offline rules, a compiler) plus how to score one check in place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from goldgate.gold.kinds import ComparisonKind
from goldgate.scoring.comparisons import Verdict, with_actual

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.compiled import CompiledExpectation
    from goldgate.gold.models import TextOptions
    from goldgate.scoring.outcomes import CheckOutcome

__all__ = ["Score", "ScoringKind", "value_score"]

Score = Callable[[Any, "CompiledExpectation", Any, "TextOptions | None"], "CheckOutcome"]
"""(actual, the compiled expectation, the case's input, the suite's text options) -> the
check's outcome. The input is a JSON object or an ``Envelope`` (``envelope_document``).
``actual`` is the value at the expectation's path, ``MISSING`` when absent (never compared
as null). Pure and synchronous: called once per check of every attempt."""


@dataclass(frozen=True, kw_only=True)
class ScoringKind(ComparisonKind):
    """A comparison kind, registered in ``goldgate.scoring.kinds.KINDS``."""

    score: Score
    rescored: bool = True
    """Pure (no user code): a report's stored outcome is scored again when it is read
    (``report.verify``)."""


def value_score(compare: Callable[[Any, Any], Verdict]) -> Score:
    """The ``Score`` of a kind that compares the value at the path with the expected value
    alone (``exact``, ``set``): ``compare(actual, expected)``, the actual value recorded."""

    def score(actual: Any, expectation: CompiledExpectation, *_: Any) -> CheckOutcome:
        return with_actual(compare(actual, expectation.expected), actual)

    return score
