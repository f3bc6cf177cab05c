"""A shard's share of a merged suite's figures (issue 43: ``report merge``): the helper that
verifies a shard tallies its cases as it makes them (``report.mergestream.make_cases``) and
hands the tally over (``ShardTally``, picklable); the merging process joins the shards'
tallies (``joined``) instead of reading every case again.

Almost every figure a suite's record states is a count (attempts, checks, the summary's
numerators and denominators, judges' checks, retries, cached answers) or does not depend on
the order of what it is made of (latencies, sorted for their percentiles): a shard's are
added. Three depend on the cases' order: the adjudication queue (in the cases' order), the
sums of costs (float addition: its order can change the last bits) and, for each distinct
observation of a metric, the attempt that first made it and where it stands among the
others (``ObservationTally``: the first case a refusal names). These are kept with the
position of the case that made them and put in the order of positions when joined. Where
each shard holds its cases in the order of their positions (``MergedStream._in_order``),
that is the merged order: the joined tally is the one ``SuiteRebuild`` makes adding the
merged cases one by one (tests/report/test_shardtally.py).
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from goldgate.report.rebuild import SuiteRebuild
from goldgate.report.verdicts import Figures

if TYPE_CHECKING:
    from goldgate.report.caserecords import AttemptRecord, CaseRecord
    from goldgate.report.records import AwaitingRecord, SuiteRecord
    from goldgate.scoring.observations import Observation

__all__ = ["ShardRebuild", "ShardTally", "joined"]


@dataclass(frozen=True)
class FirstSeen:
    """A distinct observation of a metric in a shard: where it was first made, the attempt
    that made it (``observation``) and how many did."""

    position: int
    key: tuple[object, ...]
    observation: Observation
    count: int


@dataclass(frozen=True)
class Costs:
    """Costs in the order they were added, each with its case's position (and, for an
    attempt's, whether the answer was cached: what was spent): 17 bytes each."""

    positions: array[int]
    costs: array[float]
    cached: array[int]


@dataclass(frozen=True)
class ShardTally:
    """One shard's cases of one suite, tallied (``ShardRebuild.tally``)."""

    cases: int
    attempts: Counter[str]
    checks: Counter[str]
    figures: Figures
    judged: dict[tuple[str, str], list[int]]
    """Per judge, the checks it decided and those it suggested (``JudgeTally``)."""
    retries: int
    cached: int
    latencies: array[float] | None
    costs: Costs
    """Each priced attempt's cost."""
    judge_costs: Costs
    """What asking judges cost, each attempt's where it did."""
    queue: tuple[tuple[int, AwaitingRecord], ...]
    """The checks waiting for a person, each with its case's position."""
    observations: tuple[tuple[FirstSeen, ...], ...]
    """Per metric, its distinct observations in the order first made."""


def _costs() -> Costs:
    return Costs(array("q"), array("d"), array("b"))


class ShardRebuild(SuiteRebuild):
    """``SuiteRebuild`` of one shard's cases, in the shard's order, keeping with each figure
    whose order counts the position of the case that made it (``tally``)."""

    def __init__(self, record: SuiteRecord) -> None:
        super().__init__(record)
        self._costs = _costs()
        self._judge_costs = _costs()
        self._queue: list[tuple[int, AwaitingRecord]] = []
        self._firsts = [array("q") for _ in record.metric_definitions]

    def _priced(self, case: CaseRecord, attempt: AttemptRecord) -> None:
        super()._priced(case, attempt)
        for costs, cost in ((self._costs, attempt.cost), (self._judge_costs, attempt.judge_cost)):
            if cost is not None:
                costs.positions.append(_position(case))
                costs.costs.append(cost)
                costs.cached.append(attempt.cached)

    def _queued(self, case: CaseRecord, entry: AwaitingRecord) -> None:
        self._queue.append((_position(case), entry))

    def _observe(self, case: CaseRecord, metric: int, attempt: AttemptRecord) -> None:
        tally = self.observations[metric]
        before = len(tally.seen)
        super()._observe(case, metric, attempt)
        if len(tally.seen) > before:  # a new distinct one: noted last in the tally's order
            self._firsts[metric].append(_position(case))

    def tally(self) -> ShardTally:
        observations = tuple(
            tuple(
                FirstSeen(position, key, observation, count)
                for position, (key, (observation, count)) in zip(
                    firsts, found.seen.items(), strict=True
                )
            )
            for firsts, found in zip(self._firsts, self.observations, strict=True)
        )
        return ShardTally(
            cases=self.cases,
            attempts=self.attempts,
            checks=self.checks,
            figures=self.figures,
            judged=self.judges.judged,
            retries=self.live.retries,
            cached=self.live.cached,
            latencies=self.latencies,
            costs=self._costs,
            judge_costs=self._judge_costs,
            queue=tuple(self._queue),
            observations=observations,
        )


def _position(case: CaseRecord) -> int:
    # A case without a position is in no order of positions: its shard's tally is not
    # joined (``MergedStream._in_order``), whatever it is noted as.
    return -1 if case.position is None else case.position


def joined(record: SuiteRecord, tallies: Sequence[ShardTally]) -> SuiteRebuild:
    """``SuiteRebuild(record)`` with every shard's cases added in the order of their
    positions, from the shards' tallies (each shard's cases in that order, no position in
    two). None of them is changed."""
    rebuilt = SuiteRebuild(record)
    judged = rebuilt.judges.judged
    for tally in tallies:
        rebuilt.cases += tally.cases
        rebuilt.attempts.update(tally.attempts)
        rebuilt.checks.update(tally.checks)
        rebuilt.figures.add_figures(tally.figures)
        for key, (decided, suggested) in tally.judged.items():
            counts = judged.setdefault(key, [0, 0])
            counts[0] += decided
            counts[1] += suggested
        if rebuilt.latencies is not None:
            if tally.latencies is None:  # pragma: no cover - shards of one suite keep the same
                raise ValueError("a shard's tally kept no latencies for a latency maximum")
            rebuilt.latencies.extend(tally.latencies)
    live = rebuilt.live
    for _, cost, cached in _in_order([tally.costs for tally in tallies]):
        live.add(0, bool(cached), cost)  # in the merged order: the very float sums
    # Every attempt's retries and cached answers, priced or not (a count: added).
    live.retries = sum(tally.retries for tally in tallies)
    live.cached = sum(tally.cached for tally in tallies)
    for _, cost, _ in _in_order([tally.judge_costs for tally in tallies]):
        rebuilt.judges.add_cost(cost)
    queues = [tally.queue for tally in tallies]
    rebuilt.queue = [entry for _, entry in heapq.merge(*queues, key=itemgetter(0))]
    for metric, found in enumerate(rebuilt.observations):
        firsts = [tally.observations[metric] for tally in tallies]
        for first in heapq.merge(*firsts, key=attrgetter("position")):
            seen = found.seen.get(first.key)
            if seen is None:
                found.seen[first.key] = [first.observation, first.count]
            else:
                seen[1] += first.count
    return rebuilt


def _in_order(costs: Sequence[Costs]) -> Any:
    """(position, cost, cached) of every shard's costs, in the order of positions (each
    shard's in order: ``heapq.merge`` keeps a shard's own order among its case's)."""
    return heapq.merge(
        *(zip(each.positions, each.costs, each.cached, strict=True) for each in costs),
        key=itemgetter(0),
    )
