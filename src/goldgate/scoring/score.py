"""One expectation applied to one result document: resolve the path, then compare by the
expectation's comparison kind (``goldgate.scoring.kinds``).

Only ``custom`` awaits anything (the user's scorer); every other kind is computed in place
(``ScoringKind.score``), so scoring a document without custom expectations never yields to
the event loop for long.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from goldgate.base.errors import InvalidInputError, LoopBlocked
from goldgate.base.jsonvalue import MISSING, freeze, thaw
from goldgate.base.pointers import resolve
from goldgate.gold.compiled import CompiledExpectation, compile_expectation
from goldgate.gold.maxima import ATTEMPT_FIGURES, ATTEMPT_ROOT
from goldgate.scoring.comparisons import envelope_document
from goldgate.scoring.kinds import KINDS
from goldgate.scoring.outcomes import ABSENT_REASON, CheckOutcome, Outcome
from goldgate.scoring.scorers import RegisteredScorer

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import Envelope, Expectation, TextOptions

__all__ = [
    "attempt_document",
    "envelope_document",
    "score_compiled",
    "score_custom",
    "score_expectation",
]


def attempt_document(
    document: Mapping[str, Any],
    compiled: Sequence[CompiledExpectation],
    *,
    latency_ms: float | None,
    cost: float | None,
) -> Mapping[str, Any]:
    """The document ``compiled`` is scored against: the result document, with the attempt's
    own figures at ``/attempt`` (``gold.maxima.ATTEMPT_FIGURES``; a figure not recorded is
    absent) when an expectation points there, else the result document itself."""
    if not any(e.tokens and e.tokens[0] == ATTEMPT_ROOT for e in compiled):
        return document
    figures = {
        name: value
        for name, value in zip(ATTEMPT_FIGURES, (latency_ms, cost), strict=True)
        if value is not None
    }
    return {**document, ATTEMPT_ROOT: figures}


_kind_of = KINDS.get
"""The registry's lookup, bound once: the registry is one dict, and a kind added to it (a
test's toy) is found all the same."""


async def score_expectation(
    expectation: Expectation | CompiledExpectation,
    document: Any,
    envelope: Envelope | Mapping[str, Any],
    registry: Mapping[str, RegisteredScorer],
    text_options: TextOptions | None = None,
) -> CheckOutcome:
    """The outcome of ``expectation`` against one result ``document``.

    ``envelope`` is the case input (for ``source_span``), ``registry`` the registered custom
    scorers and ``text_options`` the suite's options for ``text``. A malformed pointer, a
    malformed expected value or a scorer that raises or returns something other than a bool
    is an ``error`` outcome; a custom expectation whose scorer is not registered raises
    ``InvalidInputError`` (the runner checks registrations before anything runs). Gold loaded
    from files arrives compiled; an ``Expectation`` is compiled here first.
    """
    if not isinstance(expectation, CompiledExpectation):
        expectation = compile_expectation(expectation)
    kind = _kind_of(expectation.comparison)
    if kind is not None and kind.uses_scorer:
        return await score_custom(expectation, document, registry)
    return score_compiled(expectation, document, envelope, text_options)


def score_compiled(
    expectation: CompiledExpectation,
    document: Any,
    envelope: Envelope | Mapping[str, Any],
    text_options: TextOptions | None = None,
) -> CheckOutcome:
    """Every comparison but ``custom``, computed in place (no await, nothing re-validated)."""
    if expectation.tokens is None:
        return CheckOutcome(Outcome.ERROR, "the expectation's path is not a valid JSON pointer")
    kind = _kind_of(expectation.comparison)
    if kind is None:
        return CheckOutcome(Outcome.ERROR, f"unknown comparison {expectation.comparison!r}")
    return kind.score(resolve(document, expectation.tokens), expectation, envelope, text_options)


async def score_custom(
    expectation: CompiledExpectation, document: Any, registry: Mapping[str, RegisteredScorer]
) -> CheckOutcome:
    if expectation.tokens is None:
        return CheckOutcome(Outcome.ERROR, "the expectation's path is not a valid JSON pointer")
    actual = resolve(document, expectation.tokens)
    name = expectation.scorer
    if name is None:
        return CheckOutcome(Outcome.ERROR, "a custom comparison needs a scorer name")
    scorer = registry.get(name)
    if scorer is None:
        raise InvalidInputError(
            f"expectation '{expectation.name}' uses scorer '{name}', which is not registered."
        )
    if actual is MISSING:
        return CheckOutcome(Outcome.FAILED, ABSENT_REASON)
    recorded = thaw(actual)
    try:
        result = await scorer.function(freeze(actual), freeze(expectation.expected))
    except (anyio.get_cancelled_exc_class(), LoopBlocked):
        raise  # the attempt's deadline or an interruption: not the scorer's outcome
    except BaseException as error:  # SystemExit, KeyboardInterrupt ... are the scorer's too
        return CheckOutcome(
            Outcome.ERROR,
            f"scorer '{name}' raised {type(error).__name__}",
            actual_present=True,
            actual=recorded,
        )
    if not isinstance(result, bool):
        return CheckOutcome(
            Outcome.ERROR,
            f"scorer '{name}' returned {type(result).__name__}, not a bool",
            actual_present=True,
            actual=recorded,
        )
    return CheckOutcome(
        Outcome.PASSED if result else Outcome.FAILED,
        None if result else f"scorer '{name}' returned false",
        actual_present=True,
        actual=recorded,
    )
