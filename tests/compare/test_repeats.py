"""Repeats and noise: with ``--repeat`` on either side, a per-case view (passes out of N on
each side) beside the per-attempt classes; a case whose attempts disagree within one report
is flaky, not a regression; attempts beyond the other side's repeats are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldgate.comparison import compare
from goldgate.comparison.classification import classify
from run.support import STATUS_OK, Project, case, expect, new_project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    # The python target counts its calls: "/payload/call" is 1, 2, 3... in attempt order.
    # "noisy" is first, so with --repeat 3 only its second attempt sees call 2.
    return (
        new_project(tmp_path / "project")
        .suite(
            "main",
            "py",
            [
                case("noisy", "ok", expect("call", "/payload/call", 2)),
                case("steady", "ok", STATUS_OK, expect("category", "/payload/category", "billing")),
            ],
        )
        .write()
    )


@pytest.mark.slow
def test_noise_within_a_report_is_flaky_not_a_regression(project: Project) -> None:
    base, _ = project.evaluate(name="base.json")
    cand, _ = project.evaluate("--repeat", "3", name="cand.json")
    assert (base.code, cand.code) == (1, 1)

    comparison = compare(project.output("cand.json"), project.output("base.json"))

    [suite] = comparison.suites
    assert (suite.repeat.candidate, suite.repeat.baseline) == (3, 1)
    views = {view.case_id: view for view in suite.cases}
    noisy, steady = views["noisy"], views["steady"]
    assert (noisy.candidate_passes, noisy.candidate_attempts) == (1, 3)
    assert (noisy.baseline_passes, noisy.baseline_attempts) == (0, 1)
    assert noisy.candidate_flaky is True
    assert noisy.baseline_flaky is False
    assert noisy.change == "flaky"
    assert (steady.candidate_passes, steady.baseline_passes, steady.change) == (3, 1, "unchanged")
    assert suite.case_changes == {"flaky": 1, "unchanged": 1}
    counts = suite.figures.attempts
    assert (counts.unchanged, counts.candidate_only, counts.baseline_only) == (2, 4, 0)
    assert comparison.regressions is False
    # The case is the unit: each of its attempts has the case's class (attempt 0).
    from goldgate.render.compared import comparison_view

    view = comparison_view(comparison)
    for attempt in (1, 2, 3):
        found = view.change_of("main", "noisy", attempt)
        assert found is not None
        assert (found.case_id, found.attempt, found.change) == ("noisy", 0, "flaky")
        assert view.change_of("main", "steady", attempt) is None


@pytest.mark.slow
def test_repeats_on_both_sides_pair_attempt_by_attempt(project: Project) -> None:
    project.evaluate("--repeat", "3", name="base.json")
    project.evaluate("--repeat", "3", name="cand.json")

    comparison = compare(project.output("cand.json"), project.output("base.json"))

    [suite] = comparison.suites
    counts = suite.figures.attempts
    assert counts.unchanged == 6
    assert counts.candidate_only == counts.baseline_only == 0
    assert {view.case_id: view.change for view in suite.cases} == {
        "noisy": "flaky",
        "steady": "unchanged",
    }
    assert suite.figures.mcnemar.p_value == 1.0


@pytest.mark.slow
def test_without_repeats_there_is_no_case_view(project: Project) -> None:
    project.evaluate(name="base.json")
    comparison = compare(project.output("base.json"), project.output("base.json"))
    assert comparison.suites[0].cases == ()
    assert comparison.suites[0].case_changes == {}


@pytest.mark.parametrize(
    ("candidate", "baseline", "expected"),
    [
        ("PP", "PP", "unchanged"),
        ("FF", "FF", "unchanged"),
        ("PF", "FF", "improved"),
        ("FF", "PF", "regressed"),
        ("PF", "FP", "mixed"),
        ("EN", "FF", "unchanged"),  # error and not_run are not passing
        ("P-", "PP", "regressed"),  # a check present on one side only is not a pass
        ("PP", "P", "improved"),
    ],
)
def test_classify(candidate: str, baseline: str, expected: str) -> None:
    assert classify(candidate, baseline) == expected
