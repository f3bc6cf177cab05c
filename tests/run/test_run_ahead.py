"""The runner does not run far ahead of the earliest unfinished attempt: finished outcomes
wait in order until every earlier one is in, so one slow early attempt must not let the
rest of a large run pile up in memory."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from goldgate.gold.models import Case, Suite
from goldgate.gold.suites import GoldSuite
from goldgate.run.limits import RunOptions
from goldgate.run.runner import InOrder, SuiteControls, run_suite
from goldgate.scoring import ScorerRegistry
from goldgate.scoring.attempt import AttemptOutcome


def _suite(count: int) -> GoldSuite:
    suite = Suite(name="s", workflow="w", cases=[{}])
    cases = tuple(
        Case.model_validate(
            {
                "id": f"c{index}",
                "input": {"payload": {"index": index}, "metadata": {}},
                "expectations": [{"name": "i", "path": "/payload/index", "expected": index}],
            }
        )
        for index in range(count)
    )
    return GoldSuite.build(suite, cases, "<python>")


@pytest.mark.parametrize("run_ahead", [1, 7, 50])
def test_one_slow_early_attempt_holds_back_at_most_run_ahead_others(run_ahead: int) -> None:
    count = 400
    delivered: list[AttemptOutcome] = []
    ordered = InOrder(delivered.append, count)
    most_held = 0

    async def run(envelope: Any) -> dict[str, Any]:
        nonlocal most_held
        index = envelope["payload"]["index"]
        if index == 0:
            await anyio.sleep(0.5)  # every other attempt is instant: they would all pile up
        most_held = max(most_held, len(ordered.held))
        return {"payload": {"index": index}}

    async def main() -> None:
        options = RunOptions(max_concurrency=8, timeout=30)
        controls = SuiteControls(run_ahead=run_ahead)
        await run_suite(_suite(count), run, ScorerRegistry(), options, ordered, controls)

    anyio.run(main)

    assert [outcome.index for outcome in delivered] == list(range(count))
    assert all(outcome.status == "completed" for outcome in delivered)
    assert all(outcome.checks[0].outcome == "passed" for outcome in delivered)
    assert most_held < run_ahead
    assert most_held > 0 or run_ahead <= 2  # the others did run ahead, up to the bound


def test_without_the_bound_the_others_pile_up() -> None:
    """The control: the same run with room for every attempt holds nearly all of them."""
    count = 400
    ordered = InOrder(lambda outcome: None, count)
    most_held = 0

    async def run(envelope: Any) -> dict[str, Any]:
        nonlocal most_held
        if envelope["payload"]["index"] == 0:
            await anyio.sleep(0.5)
        most_held = max(most_held, len(ordered.held))
        return {}

    async def main() -> None:
        options = RunOptions(max_concurrency=8, timeout=30)
        controls = SuiteControls(run_ahead=count)
        await run_suite(_suite(count), run, ScorerRegistry(), options, ordered, controls)

    anyio.run(main)
    assert most_held > 300


def test_waiting_for_room_is_not_counted_against_the_deadline() -> None:
    count = 30
    delivered: list[AttemptOutcome] = []
    ordered = InOrder(delivered.append, count)

    async def run(envelope: Any) -> dict[str, Any]:
        index = envelope["payload"]["index"]
        if index == 0:
            await anyio.sleep(0.8)  # longer than the others' deadline, within its own
        return {"payload": {"index": index}}

    async def main() -> None:
        options = RunOptions(max_concurrency=4, timeout=1.0)
        controls = SuiteControls(run_ahead=2)
        await run_suite(_suite(count), run, ScorerRegistry(), options, ordered, controls)

    anyio.run(main)

    assert [outcome.status for outcome in delivered] == ["completed"] * count
