"""Small exact statistics: the McNemar test, Fisher's exact test for a drop in a pass count
and nearest-rank percentiles. Pure."""

from __future__ import annotations

import math
from fractions import Fraction

from goldgate.report.livefigures import nearest_rank

__all__ = [
    "DROP_ALPHA",
    "drop_is_significant",
    "fisher_drop_p_value",
    "mcnemar_p_value",
    "nearest_rank",
]

DROP_ALPHA = Fraction(1, 20)
"""A drop is told from noise when Fisher's one-sided p-value is below this (0.05)."""


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


def _fisher_drop_tail(
    before_passes: int, before_runs: int, now_passes: int, now_runs: int
) -> tuple[int, int]:
    """Fisher's exact one-sided test that the pass rate dropped, as the exact fraction
    ``(numerator, denominator)``: with both sides' passes pooled (``K`` of ``N`` runs) and
    the margins fixed, the chance that the baseline's ``before_runs`` hold at least
    ``before_passes`` of them, ``sum over x >= a of C(n_b, x) C(n_c, K - x) / C(N, K)``."""
    if not (0 <= before_passes <= before_runs and 0 <= now_passes <= now_runs):
        raise ValueError("passes are between 0 and the number of runs")
    passes = before_passes + now_passes
    runs = before_runs + now_runs
    numerator = sum(
        math.comb(before_runs, x) * math.comb(now_runs, passes - x)
        for x in range(before_passes, min(passes, before_runs) + 1)
    )
    return numerator, math.comb(runs, passes)


def fisher_drop_p_value(
    before_passes: int, before_runs: int, now_passes: int, now_runs: int
) -> float:
    """The one-sided p-value of Fisher's exact test for a lower pass rate now than before
    (scipy's ``fisher_exact([[a, b - a], [c, d - c]], alternative="greater")``); 1.0 when
    either side has no runs."""
    if before_runs == 0 or now_runs == 0:
        return 1.0
    numerator, denominator = _fisher_drop_tail(before_passes, before_runs, now_passes, now_runs)
    return min(1.0, numerator / denominator)  # one correctly rounded division of integers


def drop_is_significant(
    before_passes: int, before_runs: int, now_passes: int, now_runs: int
) -> bool:
    """Whether the drop from ``before_passes/before_runs`` to ``now_passes/now_runs`` is told
    from noise: Fisher's exact one-sided p-value below ``DROP_ALPHA``, decided on the exact
    fraction (never on a rounded float)."""
    if before_runs == 0 or now_runs == 0:
        return False
    if before_passes * now_runs <= now_passes * before_runs:
        return False  # no drop at all: the tail is at least one half
    numerator, denominator = _fisher_drop_tail(before_passes, before_runs, now_passes, now_runs)
    return numerator * DROP_ALPHA.denominator < DROP_ALPHA.numerator * denominator
