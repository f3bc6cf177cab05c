"""Judges as pure functions: the verdict a judge's answer states, the calibration figures
(equal to scikit-learn's cohen_kappa_score and confusion_matrix), and the gate's rule."""

from __future__ import annotations

import math
import random
import warnings
from dataclasses import replace

import pytest

from goldgate.gold.judges import CalibrationRecord, CalibrationTable
from goldgate.gold.settings.models import JudgeSettings
from goldgate.scoring.judges import calibration, judged, parse_verdict, standing
from goldgate.scoring.outcomes import CheckOutcome, JudgeOutcome, JudgeVerdict, Outcome
from goldgate.scoring.text import ADJUDICATION_REASON
from helpers.lazy import LazyModule

sklearn_metrics = LazyModule(
    "sklearn.metrics", reason="scikit-learn is the oracle of the calibration figures"
)


@pytest.mark.parametrize(
    ("text", "verdict", "reason"),
    [
        ("PASS", "pass", ""),
        ("FAIL", "fail", ""),
        ("pass: the reply apologises", "pass", "the reply apologises"),
        ("Fail. It promises a refund.", "fail", "It promises a refund."),
        ("  \n**PASS** because it is polite", "pass", "because it is polite"),
        ("# FAIL\nrude", "fail", "rude"),
        ("`PASS`", "pass", ""),
        ('"FAIL" - wrong team', "fail", "wrong team"),
        ("'pass'", "pass", ""),
        ("PaSs", "pass", ""),
        ("PASSABLE", None, "PASSABLE"),
        ("FAILED", None, "FAILED"),
        ("Verdict: PASS", None, "Verdict: PASS"),
        ("", None, ""),
        ("   ", None, ""),
        ("I think PASS", None, "I think PASS"),
        ("PASS_2", None, "PASS_2"),
        ("PASSé", None, "PASSé"),
        ("paſs", None, "paſs"),
        ("- PASS", None, "- PASS"),
    ],
)
def test_the_verdict_is_the_first_word_pass_or_fail(
    text: str, verdict: str | None, reason: str
) -> None:
    answer = parse_verdict(text)

    assert answer.verdict == verdict
    assert answer.reason == reason


def _labels(pairs: list[tuple[bool, bool]]) -> tuple[list[str], list[str]]:
    human = ["pass" if h else "fail" for h, _ in pairs]
    judge = ["pass" if j else "fail" for _, j in pairs]
    return human, judge


@pytest.mark.parametrize("seed", range(40))
def test_the_figures_equal_scikit_learns(seed: int) -> None:
    draw = random.Random(seed)
    n = draw.randint(2, 200)
    bias = draw.random()
    pairs = []
    for _ in range(n):
        human = draw.random() < bias
        judge = human if draw.random() < draw.random() else draw.random() < 0.5
        pairs.append((human, judge))
    human, judge = _labels(pairs)

    figures = calibration(pairs)

    matrix = sklearn_metrics.confusion_matrix(human, judge, labels=["pass", "fail"])
    table = figures.table
    assert [[table.pass_pass, table.pass_fail], [table.fail_pass, table.fail_fail]] == (
        matrix.tolist()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = float(sklearn_metrics.cohen_kappa_score(human, judge))
    if math.isnan(expected):
        assert figures.kappa is None
        return
    assert figures.kappa == pytest.approx(expected, abs=1e-12)
    observed = sum(h == j for h, j in pairs) / n
    assert figures.agreement == pytest.approx(observed)
    human_pass = sum(h for h, _ in pairs) / n
    judge_pass = sum(j for _, j in pairs) / n
    chance = human_pass * judge_pass + (1 - human_pass) * (1 - judge_pass)
    spread = 1.96 * math.sqrt(observed * (1 - observed) / (n * (1 - chance) ** 2))
    assert figures.kappa_ci95 == pytest.approx((expected - spread, expected + spread))


def test_no_verdicts_and_one_shared_verdict_leave_kappa_undefined() -> None:
    assert calibration([]).kappa is None
    assert calibration([]).agreement is None
    same = calibration([(True, True)] * 10)
    assert same.agreement == 1.0
    assert same.kappa is None
    assert same.kappa_ci95 is None


def test_always_pass_agrees_often_and_has_kappa_zero() -> None:
    pairs = [(True, True)] * 9 + [(False, True)]

    figures = calibration(pairs)

    assert figures.agreement == pytest.approx(0.9)
    assert figures.kappa == pytest.approx(0.0)


JUDGE = JudgeSettings.model_validate(
    {"revision": "r2", "workflow": "j", "rubric": "polite", "calibration": {"min_verdicts": 10}}
)


def _record(
    revision: str = "r2", verdicts: int = 40, interval: tuple[float, float] | None = (0.7, 0.9)
) -> CalibrationRecord:
    return CalibrationRecord(
        judge="helpful",
        revision=revision,
        verdicts=verdicts,
        agreement=0.9,
        kappa=0.8,
        kappa_ci95=interval,
        table=CalibrationTable(),
    )


@pytest.mark.parametrize(
    ("record", "name", "words"),
    [
        (None, "uncalibrated", "no calibration record"),
        (_record(revision="r1"), "stale", "stale"),
        (_record(verdicts=9), "uncalibrated", "fewer than min_verdicts 10"),
        (_record(interval=None), "uncalibrated", "undefined"),
        (_record(interval=(0.59, 0.95)), "uncalibrated", "under min_kappa 0.6"),
        (_record(interval=(0.6, 0.95)), "calibrated", "calibrated"),
        (_record(verdicts=10), "calibrated", "calibrated"),
    ],
    ids=["none", "stale", "few", "undefined", "low", "at-bar", "at-count"],
)
def test_a_judge_decides_only_when_its_record_clears_the_bar(
    record: CalibrationRecord | None, name: str, words: str
) -> None:
    found = standing("helpful", JUDGE, record)

    assert found.name == name
    assert found.decides is (name == "calibrated")
    assert words in found.why


def _waiting() -> CheckOutcome:
    return CheckOutcome(
        Outcome.NOT_RUN,
        ADJUDICATION_REASON,
        actual_present=True,
        actual="Danke!",
        assertions_declared=0,
        assertions_held=0,
        adjudication=True,
    )


@pytest.mark.parametrize(
    ("verdict", "decided", "outcome", "reason"),
    [
        ("pass", True, "passed", None),
        ("fail", True, "failed", "judge tone@t1 failed this answer"),
        (None, True, "error", "judge tone@t1 gave no verdict (neither PASS nor FAIL)"),
        ("fail", False, "not_run", "waits for a human verdict; judge tone@t1 only suggests"),
        (None, False, "not_run", "waits for a human verdict; judge tone@t1 only suggests"),
    ],
)
def test_a_judges_verdict_decides_only_when_calibrated(
    verdict: JudgeVerdict | None, decided: bool, outcome: str, reason: str | None
) -> None:
    said = JudgeOutcome("tone", "t1", verdict, decided, reason="PRIVATE reason")

    check = judged(_waiting(), said)

    assert check.outcome == outcome
    assert check.judge == said
    assert check.adjudication is (not decided)
    assert not check.adjudicated  # a person did not decide it
    if reason is None:
        assert check.reason is None
    else:
        assert check.reason is not None
        assert check.reason.startswith(reason)
        assert "PRIVATE" not in check.reason  # the judge's own reason is private


def test_a_passing_judge_leaves_failed_assertions_failed() -> None:
    failing = replace(_waiting(), outcome=Outcome.FAILED, reason="contains: 'C-1' is missing")

    check = judged(failing, JudgeOutcome("tone", "t1", "pass", True))

    assert (check.outcome, check.reason) == (Outcome.FAILED, "contains: 'C-1' is missing")
