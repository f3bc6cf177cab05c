"""The cost delta of a comparison (``comparison.cost``) as rows of the deltas table every
renderer shows (``render.deltas.Figure``): the total and the cost per priced attempt, in the
pricing's currency. Pure."""

from __future__ import annotations

from goldgate.comparison.cost import currency_of
from goldgate.comparison.models import Cost, Delta
from goldgate.render.deltas import Figure

__all__ = ["cost_figures", "judge_cost_figures"]


def cost_figures(cost: Cost | None) -> tuple[Figure, ...]:
    """The rows of ``cost``; none when neither side priced an attempt."""
    if cost is None:
        return ()
    note = None if cost.comparable else cost.reason or "not comparable"
    currency = currency_of(cost)
    return (
        Figure(
            f"cost ({currency})", cost.total.baseline, cost.total.candidate, "ratio", note, "usage"
        ),
        Figure(
            f"cost per attempt ({currency})",
            cost.per_attempt.baseline,
            cost.per_attempt.candidate,
            "ratio",
            note,
            "usage",
        ),
    )


def judge_cost_figures(cost: Delta | None) -> tuple[Figure, ...]:
    """The row of the judges' cost, apart from the application's; none when neither side
    priced a judge's call."""
    if cost is None:
        return ()
    return (Figure("judges' cost", cost.baseline, cost.candidate, "ratio", None),)
