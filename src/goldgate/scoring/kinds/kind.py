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

__all__ = ["Score", "ScoringKind", "VerdictOf", "value_verdict", "verdict_kind"]

Score = Callable[[Any, "CompiledExpectation", Any, "TextOptions | None"], "CheckOutcome"]
"""(actual, the compiled expectation, the case's input, the suite's text options) -> the
check's outcome. The input is a JSON object or an ``Envelope`` (``envelope_document``).
``actual`` is the value at the expectation's path, ``MISSING`` when absent (never compared
as null). Pure and synchronous: called once per check of every attempt."""

VerdictOf = Callable[[Any, "CompiledExpectation", Any], Verdict]
"""(actual, the compiled expectation, the case's input) -> the comparison's verdict: what a
kind whose check outcome is a verdict alone compares (``verdict_kind``)."""


@dataclass(frozen=True, kw_only=True)
class ScoringKind(ComparisonKind):
    """A comparison kind, registered in ``goldgate.scoring.kinds.KINDS``."""

    score: Score
    rescored: bool = True
    """Pure (no user code): a report's stored outcome is scored again when it is read
    (``report.verify``)."""
    verdict: VerdictOf | None = None
    """Set by ``verdict_kind`` alone, where ``score`` is this verdict on the actual value and
    nothing more: a report's reader compares a stored outcome with the verdict, and builds
    the check's outcome only where they differ (``report.casetally``)."""


def verdict_kind(*, name: str, verdict: VerdictOf, **fields: Any) -> ScoringKind:
    """A kind whose check outcome is ``verdict``'s on the actual value, recorded: its
    ``score`` is made of ``verdict``, so that the two never say different things."""

    def score(
        actual: Any, expectation: CompiledExpectation, envelope: Any, *_: Any
    ) -> CheckOutcome:
        return with_actual(verdict(actual, expectation, envelope), actual)

    return ScoringKind(name=name, score=score, verdict=verdict, **fields)


def value_verdict(compare: Callable[[Any, Any], Verdict]) -> VerdictOf:
    """The verdict of a kind that compares the value at the path with the expected value
    alone (``set``): ``compare(actual, expected)``."""

    def verdict(actual: Any, expectation: CompiledExpectation, *_: Any) -> Verdict:
        return compare(actual, expectation.expected)

    return verdict
