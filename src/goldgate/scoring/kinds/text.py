"""The ``text`` comparison: an answer string against the assertions its case declares
(``contains``, ``matches``, ``maxChars``... or prose for a person: ``goldgate.scoring.text``).

Its offline rules are the shape of ``expected`` and the patterns that do not compile, both
found when it is compiled (``gold.compiled.compile_text``, with the shape rules of
``gold.shapes``): those live in ``gold``, as loading keeps and hands on the compiled patterns
(``gold._stream``). Its compiled form is the ``TextGold``; scoring counts the assertions
that held (``scoring.text.score_text``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from goldgate.gold.compiled import TextGold, compile_text
from goldgate.gold.shapes import Problem
from goldgate.scoring.kinds.kind import ScoringKind
from goldgate.scoring.text import score_text

if TYPE_CHECKING:
    from goldgate.gold.compiled import CompiledExpectation
    from goldgate.gold.models import TextOptions
    from goldgate.scoring.outcomes import CheckOutcome

__all__ = ["KIND"]


def _rules(expected: Any, form: TextGold, envelope: Mapping[str, Any]) -> Sequence[Problem]:
    return [*form.problems, *form.pattern_problems()]


def _score(
    actual: Any, expectation: CompiledExpectation, envelope: Any, options: TextOptions | None
) -> CheckOutcome:
    form = expectation.form
    if form is None:  # built by hand, not compiled (compile_expectation makes a TextGold)
        form = compile_text(expectation.expected)
    scored = score_text(actual, form, options)
    if expectation.judge is not None and scored.adjudication and scored.reason is not None:
        # Until a --live run asks its judge (run.judges), the check waits and says why.
        reason = f"{scored.reason}; its judge {expectation.judge} is asked only with --live"
        return replace(scored, reason=reason)
    return scored


KIND = ScoringKind(name="text", rules=_rules, compile=compile_text, score=_score)
