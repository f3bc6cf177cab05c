"""Small exact statistics: the McNemar test and nearest-rank percentiles. Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["mcnemar_p_value", "nearest_rank"]


def mcnemar_p_value(improved: int, regressed: int) -> float:
    """Exact two-sided McNemar p-value: a binomial(n, 1/2) test over the ``n`` discordant
    pairs, ``min(1, 2 * P(X <= min(b, c)))``, summed with integers so that it is exact before
    the one rounding to float; 1.0 when there are no discordant pairs."""
    if improved < 0 or regressed < 0:
        raise ValueError("counts are never negative")
    total = improved + regressed
    if total == 0:
        return 1.0
    # C(n, i + 1) = C(n, i) * (n - i) / (i + 1): one multiplication and one exact division a
    # term, where math.comb would start every term afresh (seconds for n = 10,000).
    term = tail = 1
    for i in range(min(improved, regressed)):
        term = term * (total - i) // (i + 1)
        tail += term
    doubled = 2 * tail
    denominator = 1 << total
    return 1.0 if doubled >= denominator else doubled / denominator  # correctly rounded


def nearest_rank(sorted_values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile of ascending values (the smallest value with at least
    ``percent`` % of values at or below it); ``None`` for no values."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(percent / 100 * len(sorted_values)))
    return float(sorted_values[rank - 1])
