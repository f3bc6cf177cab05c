"""The cost delta of a comparison: what each side's compared attempts cost, in total and per
priced attempt, from the costs their reports recorded (``LiveRecord``, docs/live.md). A
replay's costs are its original run's, like its usage, so not compared."""

from __future__ import annotations

from typing import Protocol

from goldgate.comparison.models import Cost, Delta

_DIGITS = 12


class Spent(Protocol):
    """What one side's tally says of cost (``figures.SideTally``)."""

    cost: float
    priced: int
    currencies: set[str]


def cost_figures(now: Spent, before: Spent, replay_reason: str | None) -> Cost | None:
    """Each side's cost and the delta; None when neither side priced an attempt."""
    if not (now.priced or before.priced):
        return None
    comparable = replay_reason is None
    currencies = now.currencies | before.currencies
    return Cost(
        comparable=comparable,
        reason=replay_reason,
        currency=next(iter(currencies)) if len(currencies) == 1 else None,
        total=_delta(
            now.cost if now.priced else None, before.cost if before.priced else None, comparable
        ),
        per_attempt=_delta(
            now.cost / now.priced if now.priced else None,
            before.cost / before.priced if before.priced else None,
            comparable,
        ),
    )


class JudgesSpent(Protocol):
    """What one side's tally says of its judges' cost (``figures.SideTally``)."""

    judge_cost: float
    judged: int


def judge_cost_delta(
    now: JudgesSpent, before: JudgesSpent, replay_reason: str | None
) -> Delta | None:
    """What asking judges cost on each side, apart from the application's cost; None when
    neither side priced a judge's call."""
    if not (now.judged or before.judged):
        return None
    return _delta(
        now.judge_cost if now.judged else None,
        before.judge_cost if before.judged else None,
        replay_reason is None,
    )


def _delta(candidate: float | None, baseline: float | None, comparable: bool) -> Delta:
    both = comparable and candidate is not None and baseline is not None
    return Delta(
        candidate=None if candidate is None else round(candidate, _DIGITS),
        baseline=None if baseline is None else round(baseline, _DIGITS),
        delta=round(candidate - baseline, _DIGITS) if both else None,  # type: ignore[operator]
    )


def money(value: float | None) -> str:
    """A cost as shown: four decimals, ``-`` where a side was not priced."""
    return "-" if value is None else f"{value:.4f}"


def change(delta: Delta) -> str:
    """A cost's change as shown, signed; ``-`` where it is not measured."""
    return "-" if delta.delta is None else f"{delta.delta:+.4f}"


def currency_of(cost: Cost) -> str:
    return cost.currency or "mixed currencies"


def cost_line(cost: Cost | None) -> str | None:
    """One line for a text summary, e.g. ``cost 0.0150 USD (baseline 0.0123, change
    +0.0027)``; None without pricing or when not comparable (a replay)."""
    if cost is None or not cost.comparable:
        return None
    total = cost.total
    return (
        f"cost {money(total.candidate)} {currency_of(cost)} "
        f"(baseline {money(total.baseline)}, change {change(total)})"
    )
