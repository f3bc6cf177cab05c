"""Where the run's process takes over a row of attempts an interrupted run never started
(``report.unstarted.later_half``): the first case past the middle, for a long row that ends
the suite."""

from __future__ import annotations

import pytest

from goldgate.report import unstarted
from goldgate.report.unstarted import SHARE_FROM, later_half


@pytest.mark.parametrize(
    ("first", "count", "repeat", "split"),
    [
        (0, 2048, 1, 1024),  # the middle
        (1, 2049, 1, 1025),
        (3, 4097, 2, 2052),  # the middle, 2051, is a second attempt: the next case
        (5, 6145, 3, 3078),  # 3077, inside a case of three attempts: the next case
    ],
)
def test_the_later_half_starts_at_the_first_case_past_the_middle(
    first: int, count: int, repeat: int, split: int
) -> None:
    assert count >= SHARE_FROM
    assert later_half(first, count, repeat, first + count) == split


def test_a_short_row_or_one_that_stops_before_the_end_is_not_shared() -> None:
    assert later_half(0, SHARE_FROM - 1, 1, SHARE_FROM - 1) is None
    assert later_half(0, SHARE_FROM, 1, SHARE_FROM + 1) is None  # attempts after it
    assert later_half(10, SHARE_FROM, 1, 10 + SHARE_FROM) == 10 + SHARE_FROM // 2


def test_a_row_whose_middle_falls_in_its_last_case_is_not_shared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(unstarted, "SHARE_FROM", 2)
    assert later_half(0, 3, 3, 3) is None  # one case: no case past the middle
    assert later_half(0, 6, 3, 6) == 3
