"""Shards' tallies joined (``report.shardtally``: what ``report merge`` does with the tallies
its helpers hand over) state the figures ``SuiteRebuild`` states adding the merged cases one
by one: counts, summary, the adjudication queue in the cases' order, metrics (each distinct
observation first made where the merged order first makes it), latencies, and costs summed
in the merged order, bit for bit, even where another order gives another float."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Sequence
from typing import Any

import pytest
from tests.report.test_rebuild import _report

from goldgate.base.errors import InvalidInputError
from goldgate.report.caserecords import CaseRecord
from goldgate.report.plain import record_json
from goldgate.report.rebuild import SuiteRebuild
from goldgate.report.records import SuiteRecord
from goldgate.report.shardtally import ShardRebuild, joined


@pytest.fixture(scope="module")
def suite() -> SuiteRecord:
    [found] = _report({"kind.accuracy": 0.2, "tagging.micro_f1": 0.1, "latency.p95_ms": 1}).suites
    cases = tuple(dataclasses.replace(case, position=n) for n, case in enumerate(found.cases))
    return dataclasses.replace(found, cases=cases)


def _shard_tallies(suite: SuiteRecord, cases: Sequence[CaseRecord], shards: int) -> Any:
    """Each of ``shards`` shards' tally (case n in shard n % shards, but runs of three
    together), handed over as a helper hands it (pickled)."""
    tallies = []
    for shard in range(shards):
        tally = ShardRebuild(suite)
        for case in cases:
            if (case.position or 0) // 3 % shards == shard:
                tally.add(case)
        tallies.append(pickle.loads(pickle.dumps(tally.tally())))
    return tallies


def _one_by_one(suite: SuiteRecord, cases: Sequence[CaseRecord]) -> SuiteRebuild:
    rebuilt = SuiteRebuild(suite)
    for case in cases:
        rebuilt.add(case)
    return rebuilt


@pytest.mark.parametrize("shards", [1, 2, 3])
def test_joined_tallies_state_what_one_rebuild_states(suite: SuiteRecord, shards: int) -> None:
    assert suite.adjudication_queue
    assert suite.metrics
    expected = _one_by_one(suite, suite.cases)
    got = joined(suite, _shard_tallies(suite, suite.cases, shards))
    assert record_json(got.record()) == record_json(expected.record())
    for mine, theirs in zip(got.observations, expected.observations, strict=True):
        assert list(mine.seen.items()) == list(theirs.seen.items())  # first made, in order
    assert got.latencies is not None
    assert sorted(got.latencies) == sorted(expected.latencies or ())  # for percentiles only


def test_costs_are_summed_in_the_merged_order(suite: SuiteRecord) -> None:
    """1e16 + 1 is 1e16 in floats: summed shard by shard, these costs give another sum."""
    costs = [1e16, 1.0, 1e-7, -1e16, 0.1, 0.2]
    cases = [
        dataclasses.replace(
            case,
            attempts=tuple(
                dataclasses.replace(
                    attempt, cost=costs[n % 6], judge_cost=costs[(n + 3) % 6], cached=n % 4 == 1,
                    retries=n % 3,
                )
                for attempt in case.attempts
            ),
        )
        for n, case in enumerate(suite.cases[:12])
    ]  # fmt: skip
    expected = _one_by_one(suite, cases)
    tallies = _shard_tallies(suite, cases, 2)
    got = joined(suite, tallies)
    by_shard = [0.0, 0.0]
    for n, case in enumerate(cases):
        by_shard[n // 3 % 2] += costs[n % 6] * len(case.attempts)
    assert expected.live.cost != by_shard[0] + by_shard[1]
    assert (got.live.cost, got.live.spent) == (expected.live.cost, expected.live.spent)
    assert (got.live.retries, got.live.cached, got.live.priced) == (
        expected.live.retries,
        expected.live.cached,
        expected.live.priced,
    )
    assert got.judges.cost == expected.judges.cost
    assert record_json(got.record()) == record_json(expected.record())


def test_gold_outside_the_catalog_is_refused_at_the_first_merged_case(suite: SuiteRecord) -> None:
    """As ``SuiteRebuild`` refuses it: the case named is the first in the merged order, here
    in the second shard while the first shard's is met first in its own."""

    def outside(case: CaseRecord, gold: str) -> CaseRecord:
        first = dataclasses.replace(case.expectations[0], expected=gold)
        return dataclasses.replace(case, expectations=(first, *case.expectations[1:]))

    cases = list(suite.cases)
    cases[4], cases[7] = outside(cases[4], "zzz"), outside(cases[7], "aaa")  # shards 1, 0
    with pytest.raises(InvalidInputError, match="the gold of case 'c4' is not"):
        _one_by_one(suite, cases).record()
    with pytest.raises(InvalidInputError, match="the gold of case 'c4' is not"):
        joined(suite, _shard_tallies(suite, cases, 2)).record()
