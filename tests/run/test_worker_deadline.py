"""Each worker keeps one cancel scope whose deadline moves with each attempt: an attempt is
never cut short by the deadline of an attempt before it, and one that runs too long is
stopped at its own deadline (give or take the event loop's millisecond)."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from tests.run.test_run_ahead import _suite

from goldgate.run import runner
from goldgate.run.limits import RunOptions
from goldgate.run.runner import InOrder, run_suite
from goldgate.scoring import ScorerRegistry
from goldgate.scoring.attempt import AttemptOutcome


def _run(count: int, run: Any, timeout: float) -> list[AttemptOutcome]:
    delivered: list[AttemptOutcome] = []
    ordered = InOrder(delivered.append, count)

    async def main() -> None:
        options = RunOptions(max_concurrency=1, timeout=timeout)
        await run_suite(_suite(count), run, ScorerRegistry(), options, ordered)

    anyio.run(main)
    return delivered


def test_an_attempt_is_not_cut_short_by_the_deadline_of_the_one_before() -> None:
    async def run(envelope: Any) -> dict[str, Any]:
        await anyio.sleep(0.3)  # each attempt alone is well within its 0.5 s
        return {"payload": {"index": envelope["payload"]["index"]}}

    delivered = _run(3, run, timeout=0.5)
    assert [outcome.status for outcome in delivered] == ["completed"] * 3


def _quick_then_slow(count: int, timeout: float) -> tuple[list[AttemptOutcome], float, float]:
    """``count`` attempts, all instant but the last, which asks for 30 s: what was delivered,
    how long the last one ran and how long the whole run took."""
    started: dict[int, float] = {}

    async def run(envelope: Any) -> dict[str, Any]:
        index = envelope["payload"]["index"]
        started[index] = time.monotonic()
        if index == count - 1:
            await anyio.sleep(30)
        return {"payload": {"index": index}}

    before = time.monotonic()
    delivered = _run(count, run, timeout=timeout)
    done = time.monotonic()
    return delivered, done - started[count - 1], done - before


def test_many_quick_attempts_then_a_slow_one_is_stopped_at_its_own_deadline() -> None:
    delivered, elapsed, whole = _quick_then_slow(500, timeout=0.4)

    assert [outcome.status for outcome in delivered[:-1]] == ["completed"] * 499
    assert delivered[-1].status == "timed_out"
    assert delivered[-1].reason == "no result within the 0.4 s deadline"
    # Never before its own deadline, whatever deadline the quick ones left behind.
    assert elapsed >= 0.4 - 0.002
    assert whole < 20  # and not the 30 s it asked for


@pytest.mark.parametrize(
    ("slack", "share"), [(0.0, 0.0), (runner.DEADLINE_SLACK, 0.0), (0.0, runner.DEADLINE_SHARE)]
)
def test_the_deadline_moves_only_when_it_is_not_already_close_enough(
    slack: float, share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anyio._backends._asyncio import CancelScope  # the scope anyio.run's workers get

    moves = 0
    original = CancelScope.deadline

    def move(scope: Any, value: float) -> None:
        nonlocal moves
        moves += 1
        original.fset(scope, value)  # type: ignore[attr-defined]

    monkeypatch.setattr(CancelScope, "deadline", property(original.fget, move))  # type: ignore[attr-defined]
    monkeypatch.setattr(runner, "DEADLINE_SLACK", slack)
    monkeypatch.setattr(runner, "DEADLINE_SHARE", share)

    async def run(envelope: Any) -> dict[str, Any]:
        return {"payload": {"index": envelope["payload"]["index"]}}

    delivered = _run(2000, run, timeout=30)
    assert all(outcome.status == "completed" for outcome in delivered)
    if share:  # 30 ms of the 30 s timeout: a few moves at most
        assert moves < 50
    elif slack:
        assert moves < 1000  # quick attempts share a deadline within the slack
    else:
        assert moves >= 2000  # moved for every attempt


def test_a_slow_attempt_is_stopped_within_the_share_of_its_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The slack grows with the timeout (``DEADLINE_SHARE``): the deadline the worker set
    for its first attempt, 0.2 s past that attempt's own, still holds when the slow attempt
    starts just after, so that attempt runs for its 0.4 s and up to the slack beyond."""
    monkeypatch.setattr(runner, "DEADLINE_SHARE", 0.5)  # 0.2 s of a 0.4 s timeout
    delivered, elapsed, _ = _quick_then_slow(100, timeout=0.4)

    assert delivered[-1].status == "timed_out"
    assert elapsed >= 0.5  # the first attempt's deadline, kept: 0.6 s after it started
    assert elapsed < 0.6 + 5  # and not the 30 s it asked for
