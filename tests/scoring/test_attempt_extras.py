"""What an attempt adds beyond its answer (``AttemptExtras``: a failed attempt's exception, a
live attempt's retries, cache hit and cost) crosses to the report process and back whole,
and an attempt without any crosses as nothing."""

from __future__ import annotations

import pickle

import pytest

from goldgate.gold.recorded import RecordedCase, RecordedEnvelope
from goldgate.scoring.attempt import (
    NO_EXTRAS,
    AttemptExtras,
    AttemptOutcome,
    Which,
    attempt_outcome,
    completed,
    ended,
    extras_of,
    live_extras,
)

CASE = RecordedCase("c", None, "dev", RecordedEnvelope({}, {}), ())
RAISED = {"type": "ValueError", "where": {"file": "app.py", "line": 3, "function": "f"}}


@pytest.mark.parametrize(
    "extras",
    [
        AttemptExtras(exception=RAISED),
        AttemptExtras(retries=2),
        AttemptExtras(cached=True),
        AttemptExtras(cost=0.0),
        AttemptExtras(exception=RAISED, retries=1, cached=False, cost=None),
    ],
    ids=["exception", "retries", "cached", "zero cost", "exception after a retry"],
)
def test_extras_cross_whole(extras: AttemptExtras) -> None:
    outcome = attempt_outcome(
        Which(4, CASE, 2),
        status="failed",
        reason="it broke",
        latency_ms=1.5,
        document=None,
        stderr=None,
        checks=(),
        extras=extras,
    )
    crossed = pickle.loads(pickle.dumps(extras_of(outcome)))
    assert crossed == extras
    rebuilt = ended(
        Which(4, CASE, 2), status="failed", reason="it broke", latency_ms=1.5, extras=crossed
    )
    assert vars(rebuilt) == vars(outcome)


def test_an_attempt_without_extras_carries_none() -> None:
    outcome = completed(Which(0, CASE, 1), latency_ms=2.0, document={}, stderr=None, checks=())
    assert extras_of(outcome) is None
    assert live_extras(0, False, None) is NO_EXTRAS
    assert (outcome.exception, outcome.retries, outcome.cached, outcome.cost) == (
        None,
        0,
        False,
        None,
    )
    assert vars(outcome) == vars(AttemptOutcome(0, CASE, 1, "completed", None, 2.0, {}, None, ()))


def test_a_live_attempt_s_extras() -> None:
    assert live_extras(1, True, 0.25) == AttemptExtras(retries=1, cached=True, cost=0.25)
