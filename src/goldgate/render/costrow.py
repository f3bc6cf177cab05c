"""The cost delta of a comparison as the renderers show it: one row per figure (total, per
attempt) with each side's cost and the change, in the sides' currency. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from goldgate.comparison.cost import change, currency_of, money
from goldgate.comparison.models import Cost

__all__ = ["CostRow", "cost_rows"]


@dataclass(frozen=True)
class CostRow:
    """One figure of the cost delta, written out (``-`` where a side was not priced)."""

    figure: str
    candidate: str
    baseline: str
    change: str
    currency: str


def cost_rows(cost: Cost | None) -> tuple[CostRow, ...]:
    """The rows of ``cost``; none without pricing on either side."""
    if cost is None:
        return ()
    currency = currency_of(cost)
    return tuple(
        CostRow(figure, money(delta.candidate), money(delta.baseline), change(delta), currency)
        for figure, delta in (("total", cost.total), ("per attempt", cost.per_attempt))
    )
