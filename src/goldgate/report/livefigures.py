"""A live suite's figures (``LiveRecord``): retries, cached answers and cost, added up as the
attempts come (a run) or are read back (``report.verify``), and a run's totals over its
suites. Absent, not zero, where a suite had nothing live: model-free reports do not change.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from goldgate.report.agreement import agree
from goldgate.report.plain import record_json
from goldgate.report.records import LiveRecord, PricingRecord, SuiteJudgeRecord, SuiteRecord

_DIGITS = 12
"""Decimals kept of a sum of costs: what float addition order could change is below."""


class JudgeTally:
    """One suite's judges, attempt by attempt: per judge (name, revision) the checks it
    decided and those it only suggested a verdict for, and what asking them cost (None:
    nothing priced). The run (``report.build``) and a merge (``report.rebuild``) count the
    same way, in attempt order, so that merged shards state what one run would."""

    __slots__ = ("cost", "judged")

    def __init__(self) -> None:
        self.judged: dict[tuple[str, str], list[int]] = {}
        self.cost: float | None = None

    def add_cost(self, cost: float | None) -> None:
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def add_check(self, name: str, revision: str, decided: bool) -> None:
        tally = self.judged.setdefault((name, revision), [0, 0])
        tally[0 if decided else 1] += 1

    def records(self) -> tuple[SuiteJudgeRecord, ...]:
        """Per judge, by name and revision, the checks it decided and those it suggested."""
        return tuple(
            SuiteJudgeRecord(name=name, revision=revision, decided=decided, suggested=suggested)
            for (name, revision), (decided, suggested) in sorted(self.judged.items())
        )


class LiveTally:
    """One suite's live figures, attempt by attempt."""

    __slots__ = ("cached", "cost", "priced", "retries", "spent")

    def __init__(self) -> None:
        self.retries = 0
        self.cached = 0
        self.priced = 0
        self.cost = 0.0
        self.spent = 0.0

    def add(self, retries: int, cached: bool, cost: float | None) -> None:
        self.retries += retries
        self.cached += cached
        if cost is not None:
            self.priced += 1
            self.cost += cost
            if not cached:
                self.spent += cost

    def add_stored(self, attempt: Mapping[str, Any]) -> None:
        """A stored attempt's figures (a report read back)."""
        cost = attempt.get("cost")
        self.add(attempt.get("retries", 0), attempt.get("cached", False) is True, cost)

    def record(self, pricing: PricingRecord | None) -> LiveRecord | None:
        """The suite's record; None when nothing was retried, cached or priced."""
        if not (self.retries or self.cached or self.priced):
            return None
        priced = self.priced > 0
        return LiveRecord(
            retries=self.retries,
            cached=self.cached,
            cost=round(self.cost, _DIGITS) if priced else None,
            spent=round(self.spent, _DIGITS) if priced else None,
            currency=None if pricing is None else pricing.currency,
        )

    def agree(self, path: str, where: tuple[str | int, ...], record: SuiteRecord) -> None:
        """Refuse a suite whose stored live figures are not its attempts' (report.verify)."""
        agree(path, where, _plain(record.live), _plain(self.record(record.target.pricing)))


def agree_run_live(path: str, stored: LiveRecord | None, suites: Iterable[SuiteRecord]) -> None:
    """Refuse a report whose stored run totals are not its suites' (report.verify)."""
    agree(path, ("live",), _plain(stored), _plain(run_live(suite.live for suite in suites)))


def _plain(record: LiveRecord | None) -> dict[str, Any] | None:
    return None if record is None else record_json(record)


def run_live(records: Iterable[LiveRecord | None]) -> LiveRecord | None:
    """The run's totals over its suites' records; None when no suite has one. The currency
    is the suites' own when they share one, else None (their costs are still added: a team
    that prices in two currencies reads the suites)."""
    found = [record for record in records if record is not None]
    if not found:
        return None
    costs = [record.cost for record in found if record.cost is not None]
    spent = [record.spent for record in found if record.spent is not None]
    currencies = {record.currency for record in found if record.cost is not None}
    return LiveRecord(
        retries=sum(record.retries for record in found),
        cached=sum(record.cached for record in found),
        cost=round(sum(costs), _DIGITS) if costs else None,
        spent=round(sum(spent), _DIGITS) if spent else None,
        currency=currencies.pop() if len(currencies) == 1 else None,
    )


def written(plain: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """``plain`` without those of ``names`` that are None: fields a report writes only when
    they say something (a reader takes the absent ones as None)."""
    for name in names:
        if plain.get(name, 0) is None:
            del plain[name]
    return plain


def nearest_rank(sorted_values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile of ascending values (the smallest value with at least
    ``percent`` % of values at or below it); ``None`` for no values."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(percent / 100 * len(sorted_values)))
    return float(sorted_values[rank - 1])


def latencies_kept(keys: Iterable[str]) -> bool:
    """Whether a suite whose thresholds have ``keys`` keeps its attempts' latencies: only a
    latency maximum is held to them (``maximum_figures``)."""
    return any(key.startswith("latency.") for key in keys)


def maximum_figures(latencies: Iterable[float], tally: LiveTally) -> dict[str, float | None]:
    """What the maxima thresholds (``gold.maxima``) are held to: the suite's cost in all and
    per priced attempt, and its attempts' latency percentiles (nearest rank, ms)."""
    ordered = sorted(latencies)
    priced = tally.priced
    return {
        "cost.total": round(tally.cost, _DIGITS) if priced else None,
        "cost.per_attempt": round(tally.cost / priced, _DIGITS) if priced else None,
        "latency.p50_ms": nearest_rank(ordered, 50),
        "latency.p95_ms": nearest_rank(ordered, 95),
    }


def plain_thresholds(thresholds: Any) -> Any:
    """Thresholds as plain JSON, a minimum's ``maximum: null`` left out: as a report writes
    them (``suite_tail``), so that reports from before maxima read and compare the same.
    Anything but a list (a malformed report) is handed back as it is, to be refused."""
    if not isinstance(thresholds, list | tuple):
        return thresholds
    plain = [t if isinstance(t, dict) else record_json(t) for t in thresholds]
    return [written(dict(t), ("maximum",)) if isinstance(t, dict) else t for t in plain]
