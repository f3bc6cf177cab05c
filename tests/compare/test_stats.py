"""The exact McNemar test agrees with scipy's binomtest (a test dependency only), and the
nearest-rank percentile is the textbook one."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldgate.comparison.stats import mcnemar_p_value, nearest_rank
from helpers.lazy import LazyModule

scipy_stats = LazyModule("scipy.stats")


def _scipy(improved: int, regressed: int) -> float:
    if improved + regressed == 0:
        return 1.0
    return float(scipy_stats.binomtest(improved, improved + regressed, 0.5).pvalue)


def test_mcnemar_agrees_with_scipy_on_random_tables() -> None:
    generator = random.Random(20261130)
    tables = [(generator.randint(0, 60), generator.randint(0, 60)) for _ in range(300)]
    tables += [(0, 0), (0, 1), (1, 0), (5, 5), (0, 25), (1000, 950), (3, 200)]
    for improved, regressed in tables:
        ours = mcnemar_p_value(improved, regressed)
        assert math.isclose(ours, _scipy(improved, regressed), rel_tol=1e-9, abs_tol=1e-300), (
            improved,
            regressed,
        )


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_is_symmetric_bounded_and_agrees_with_scipy(improved: int, regressed: int) -> None:
    ours = mcnemar_p_value(improved, regressed)
    assert ours == mcnemar_p_value(regressed, improved)
    assert 0.0 < ours <= 1.0
    assert math.isclose(ours, _scipy(improved, regressed), rel_tol=1e-9, abs_tol=1e-300)


def test_no_discordant_pairs_or_a_tie_gives_one() -> None:
    assert mcnemar_p_value(0, 0) == 1.0
    assert mcnemar_p_value(7, 7) == 1.0
    assert mcnemar_p_value(0, 5) == 2 / 32
    with pytest.raises(ValueError, match="never negative"):
        mcnemar_p_value(-1, 2)


def test_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]
    assert nearest_rank(values, 50) == 50.0
    assert nearest_rank(values, 95) == 95.0
    assert nearest_rank([3.0], 95) == 3.0
    assert nearest_rank([1.0, 2.0], 50) == 1.0
    assert nearest_rank([], 50) is None
