"""The one classification, unit by unit (``classify_unit``, which every consumer reads through
the comparison): a table of the cases that decide it, and properties checked against scipy
(a test dependency only) over random pass counts."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.comparison.classification import classify, classify_unit
from goldgate.comparison.rescore import NOT_RESCORED
from goldgate.comparison.sides import QUEUED, VERDICT, WAITING, AttemptSide, Judged
from goldgate.comparison.stats import drop_is_significant, fisher_drop_p_value
from helpers.lazy import LazyModule

scipy_stats = LazyModule("scipy.stats")

A, B = "sha256:" + "a" * 64, "sha256:" + "b" * 64


def runs(
    *codes: str, status: str = "completed", judged: Sequence[Judged | None] = ()
) -> tuple[AttemptSide, ...]:
    """One attempt per code string (``judged``: how each check a person may judge was
    decided, the same for every attempt)."""
    return tuple(
        AttemptSide(number, status, None, None, code, None, tuple(judged))
        for number, code in enumerate(codes, start=1)
    )


def unit(
    now: Sequence[AttemptSide],
    before: Sequence[AttemptSide],
    names: Sequence[str] = ("queue", "tone"),
    rescored: bool = False,
) -> tuple[str, str]:
    repeated = len(now) > 1 or len(before) > 1
    found = classify_unit(names, now=now, before=before, repeated=repeated, rescored=rescored)
    return found.change, found.detail


@pytest.mark.parametrize(
    ("now", "before", "change"),
    [
        (runs("PP"), runs("PP"), "unchanged"),
        (runs("FP"), runs("PP"), "regressed"),
        (runs("EP"), runs("PP"), "regressed"),  # passed to error
        (runs("PP"), runs("FP"), "improved"),
        (runs("PF"), runs("FP"), "mixed"),
        (runs("NN", status="failed"), runs("PP"), "regressed"),  # the target broke
        (runs("PP", status="skipped"), runs("FF"), "not compared"),
        (runs("FF"), runs("EN"), "unchanged"),  # neither passes
    ],
    ids=["same", "pass-to-fail", "pass-to-error", "fail-to-pass", "mixed", "runtime",
         "skipped", "never-passing"],
)  # fmt: skip
def test_without_repeats_a_check_going_from_passed_decides(
    now: tuple[AttemptSide, ...], before: tuple[AttemptSide, ...], change: str
) -> None:
    assert unit(now, before)[0] == change
    # the per-attempt class (McNemar's pairs) says the same
    if change != "not compared":
        assert classify(now[0].codes, before[0].codes) == change


def test_repeats_all_to_none_is_a_regression_that_says_so() -> None:
    change, detail = unit(runs("FP", "FP", "FP", "FP", "FP"), runs("PP", "PP", "PP", "PP", "PP"))
    assert change == "regressed"
    assert detail == "pass to fail: queue (passed 5/5 before, 0/5 now: all-to-none)"
    # with three repeats too, where Fisher's exact test alone gives p = 0.05 exactly
    assert fisher_drop_p_value(3, 3, 0, 3) == 0.05
    assert not drop_is_significant(3, 3, 0, 3)
    assert unit(runs("FP", "FP", "FP"), runs("PP", "PP", "PP"))[0] == "regressed"


def test_flaky_in_the_baseline_only_is_flaky_not_a_regression() -> None:
    change, detail = unit(runs("FP", "FP", "FP"), runs("PP", "FP", "PP"))
    assert change == "flaky"
    assert detail == (
        "varies within a run: queue (passed 2/3 before, 0/3 now; Fisher's exact test, "
        "one-sided p=0.2, not < 0.05)"
    )


def test_flaky_in_the_candidate_only_is_flaky_not_a_regression() -> None:
    change, detail = unit(runs("PP", "FP", "PP"), runs("PP", "PP", "PP"))
    assert change == "flaky"
    assert "queue (passed 3/3 before, 2/3 now; Fisher's exact test, one-sided p=0.5" in detail


def test_a_significant_drop_of_a_flaky_case_is_a_regression() -> None:
    now = runs(*["PP"] * 3, *["FP"] * 7)
    change, detail = unit(now, runs(*["PP"] * 10))
    assert change == "regressed"
    p_value = scipy_stats.fisher_exact([[10, 0], [3, 7]], alternative="greater").pvalue
    assert p_value < 0.05
    assert detail == (
        f"pass to fail: queue (passed 10/10 before, 3/10 now: Fisher's exact test, one-sided "
        f"p={p_value:.3g} < 0.05)"
    )


def test_a_drop_that_cannot_be_told_from_noise_is_flaky() -> None:
    now = runs("PP", "PP", "PP", "FP", "FP")
    change, detail = unit(now, runs(*["PP"] * 5))
    assert change == "flaky"
    assert "passed 5/5 before, 3/5 now; Fisher's exact test, one-sided p=0.222, not < 0.05" in (
        detail
    )


def test_repeats_mixed_and_improved() -> None:
    assert unit(runs("FP", "FP", "FP"), runs("PF", "PF", "PF"))[0] == "mixed"
    change, detail = unit(runs("PP", "PP", "PP"), runs("FP", "FP", "FP"))
    assert (change, detail) == (
        "improved",
        "fail to pass: queue (passed 0/3 before, 3/3 now: none-to-all)",
    )


def test_unequal_repeats_compare_every_attempt_of_each_side() -> None:
    assert unit(runs("FP", "FP", "FP"), runs("PP"))[0] == "regressed"  # 1/1 to 0/3
    assert unit(runs("PP", "FP", "FP"), runs("PP"))[0] == "flaky"


@pytest.mark.parametrize(
    ("now", "before", "change"),
    [
        # a verdict recorded between the runs for the same answer: waiting, then decided
        ((WAITING, A, "N"), (VERDICT, A, "P"), "gold changed"),
        ((VERDICT, A, "P"), (WAITING, A, "N"), "gold changed"),
        # a verdict changed between the runs, same answer
        ((VERDICT, A, "F"), (VERDICT, A, "P"), "gold changed"),
        # assertions passed it before; a person's verdict fails the same answer now
        ((VERDICT, A, "F"), (QUEUED, A, "P"), "gold changed"),
        # a verdict removed from the store: the same answer back to its assertions
        ((QUEUED, A, "F"), (VERDICT, A, "P"), "gold changed"),
        # a new answer that people judged worse: the application's change
        ((VERDICT, B, "F"), (VERDICT, A, "P"), "regressed"),
        ((QUEUED, B, "F"), (QUEUED, A, "P"), "regressed"),  # its assertions failed
        ((VERDICT, B, "P"), (VERDICT, A, "F"), "improved"),
        # a new answer that waits for a verdict: nothing to compare it with yet
        ((WAITING, B, "N"), (VERDICT, A, "P"), "gold changed"),
    ],
)
def test_a_human_verdict_is_a_gold_change_not_an_application_change(
    now: tuple[str, str, str], before: tuple[str, str, str], change: str
) -> None:
    (now_state, now_answer, now_code), (state, answer, code) = now, before
    found, detail = unit(
        runs("P" + now_code, judged=[None, (now_state, now_answer)]),
        runs("P" + code, judged=[None, (state, answer)]),
    )
    assert found == change
    if change == "gold changed":
        why = {
            (WAITING, VERDICT): "it waits for a person's verdict now",
            (VERDICT, WAITING): "a person's verdict recorded between the runs",
            (VERDICT, QUEUED): "a person's verdict recorded between the runs",
            (QUEUED, VERDICT): "a person's verdict removed between the runs",
        }.get((now_state, state), "a person's verdict changed between the runs, same answer")
        assert detail == f"gold changed: tone ({why})"


def test_a_gold_change_beside_a_regression_is_said_and_does_not_hide_it() -> None:
    change, detail = unit(
        runs("FP", judged=[None, (VERDICT, A)]), runs("PN", judged=[None, (WAITING, A)])
    )
    assert change == "regressed"
    assert detail == (
        "pass to fail: queue; gold changed: tone (a person's verdict recorded between the runs)"
    )


def test_a_verdict_with_repeats_is_a_gold_change() -> None:
    now = runs("PP", "PP", "PP", judged=[None, (VERDICT, A)])
    before = runs("PN", "PN", "PN", judged=[None, (WAITING, A)])
    assert unit(now, before)[0] == "gold changed"


def test_a_custom_check_compare_could_not_re_score_is_a_gold_change() -> None:
    change, detail = unit(runs("PP"), runs("P" + NOT_RESCORED), rescored=True)
    assert change == "gold changed"
    assert "tone (a changed custom expectation compare does not re-score)" in detail
    assert classify("PP", "P" + NOT_RESCORED) == "gold changed"


def test_a_case_whose_gold_changed_is_gold_changed_unless_its_application_changed() -> None:
    assert unit(runs("PF"), runs("PF"), rescored=True) == (
        "gold changed",
        "gold changed: baseline re-scored under the candidate's gold",
    )
    assert unit(runs("FF"), runs("PF"), rescored=True)[0] == "regressed"


# --- properties over random pass counts -----------------------------------------------------


def test_fisher_agrees_with_scipy() -> None:
    for before_runs in range(1, 9):
        for now_runs in range(1, 9):
            for before in range(before_runs + 1):
                for now in range(now_runs + 1):
                    table = [[before, before_runs - before], [now, now_runs - now]]
                    expected = scipy_stats.fisher_exact(table, alternative="greater").pvalue
                    ours = fisher_drop_p_value(before, before_runs, now, now_runs)
                    assert math.isclose(ours, expected, rel_tol=1e-9), table
                    if not math.isclose(expected, 0.05, rel_tol=1e-9):
                        assert drop_is_significant(before, before_runs, now, now_runs) == (
                            expected < 0.05
                        ), table


counts = st.integers(1, 12).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@settings(max_examples=300, deadline=None)
@given(counts, counts)
def test_a_regression_is_a_drop_told_from_noise_and_flaky_never_regresses(
    now: tuple[int, int], before: tuple[int, int]
) -> None:
    (passes, now_runs), (passed, before_runs) = now, before
    now_attempts = runs(*["P"] * passes, *["F"] * (now_runs - passes))
    before_attempts = runs(*["P"] * passed, *["F"] * (before_runs - passed))
    change = classify_unit(
        ("queue",), now=now_attempts, before=before_attempts, repeated=True
    ).change
    p_drop = scipy_stats.fisher_exact(
        [[passed, before_runs - passed], [passes, now_runs - passes]], alternative="greater"
    ).pvalue
    all_to_none = passed == before_runs and passes == 0
    told = all_to_none or drop_is_significant(passed, before_runs, passes, now_runs)
    assert (change == "regressed") == told
    if not math.isclose(p_drop, 0.05, rel_tol=1e-9) and not all_to_none:
        assert (change == "regressed") == (p_drop < 0.05)
    noisy = 0 < passes < now_runs or 0 < passed < before_runs
    if change == "flaky":
        assert noisy
    if noisy and change not in ("regressed", "improved"):
        assert change == "flaky"
    if not noisy and change == "unchanged":
        assert passes * before_runs == passed * now_runs
