"""The ``score`` comparison: one check per score key of a Python eval's attempt
(``goldgate.scoring.evalscores``, which says how a key's scores decide it).

Only the evals engine builds it (``goldgate.evals``); gold files cannot name it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.scoring.evalscores import SCORE_COMPARISON, score_check
from goldgate.scoring.kinds.kind import ScoringKind

if TYPE_CHECKING:
    from goldgate.gold.compiled import CompiledExpectation
    from goldgate.gold.models import TextOptions
    from goldgate.scoring.outcomes import CheckOutcome

__all__ = ["KIND"]


def _score(
    actual: Any, expectation: CompiledExpectation, envelope: Any, options: TextOptions | None
) -> CheckOutcome:
    return score_check(actual, expectation.expected)


KIND = ScoringKind(name=SCORE_COMPARISON, in_gold_files=False, score=_score)
