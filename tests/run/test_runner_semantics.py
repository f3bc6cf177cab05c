"""Runner semantics through the real CLI: repeat order, concurrency and timeout bounds,
suite selection, and live suites with and without authorization."""

from __future__ import annotations

import pytest

from .support import Project, assert_scored_ok, attempt_of, case, suite_of

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)


def test_repeat_records_attempts_in_case_major_order_whatever_finishes_first(
    project: Project,
) -> None:
    # Six attempts start at once, in order; each sleeps less than the one before, so they
    # finish in reverse. The report still lists them case-major: a#1..a#3, then b#1..b#3.
    cases = [case(name, "inverse", total=6, step=0.15) for name in ("a", "b")]
    project.suite("main", "py", cases).write()
    result, report = project.evaluate("--repeat", "3", "--max-concurrency", "6")
    assert result.code == 0, result.stderr
    assert report is not None
    main = suite_of(report, "main")
    assert (main["case_count"], main["attempt_count"]) == (2, 6)
    attempts = main["attempts"]
    assert [(a["case_id"], a["attempt"]) for a in attempts] == [
        ("a", 1),
        ("a", 2),
        ("a", 3),
        ("b", 1),
        ("b", 2),
        ("b", 3),
    ]
    assert [a["result"]["payload"]["call"] for a in attempts] == [1, 2, 3, 4, 5, 6]
    assert [a["result"]["payload"]["finished"] for a in attempts] == [6, 5, 4, 3, 2, 1]
    for attempt in attempts:
        assert_scored_ok(attempt)
    assert report["options"]["repeat"] == 3
    assert report["options"]["max_concurrency"] == 6
    assert "2 cases; 6 attempts" in result.stdout


def test_repeat_one_worker_runs_attempts_one_after_another(project: Project) -> None:
    project.suite("main", "py", [case("a"), case("b")]).write()
    result, report = project.evaluate("--repeat", "2")
    assert result.code == 0, result.stderr
    assert report is not None
    attempts = suite_of(report, "main")["attempts"]
    assert [(a["case_id"], a["attempt"], a["result"]["payload"]["call"]) for a in attempts] == [
        ("a", 1, 1),
        ("a", 2, 2),
        ("b", 1, 3),
        ("b", 2, 4),
    ]
    assert [c["tag"] for c in project.calls()] == ["a", "a", "b", "b"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--max-concurrency", "0"),
        ("--max-concurrency", "65"),
        ("--timeout", "0"),
        ("--timeout", "-1"),
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--repeat", "0"),
    ],
)
def test_out_of_range_options_are_refused_with_exit_2(
    project: Project, option: str, value: str
) -> None:
    project.suite("main", "py", [case("a")]).write()
    result, report = project.evaluate(option, value)
    assert result.code == 2, result.output
    assert option in result.stderr
    assert report is None
    assert project.calls() == []
    assert result.stdout == ""


def test_bounds_of_max_concurrency_are_accepted(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    for value in ("1", "64"):
        result, report = project.evaluate("--max-concurrency", value, name=f"c{value}.json")
        assert result.code == 0, result.stderr
        assert report is not None
        assert report["options"]["max_concurrency"] == int(value)


def test_suite_option_runs_a_subset_in_dataset_order(project: Project) -> None:
    project.suite("s1", "py", [case("one")])
    project.suite("s2", "py", [case("two")])
    project.suite("s3", "py", [case("three")]).write()
    result, report = project.evaluate("--suite", "s3", "--suite", "s1")
    assert result.code == 0, result.stderr
    assert report is not None
    assert [s["name"] for s in report["suites"]] == ["s1", "s3"]
    assert report["options"]["suites"] == ["s3", "s1"]
    assert sorted(c["tag"] for c in project.calls()) == ["one", "three"]
    assert "s2" not in result.stdout
    assert report["verdict"]["suites"] == {"passed": 2}


def test_live_suite_without_live_is_skipped_and_the_run_passes(project: Project) -> None:
    project.suite("offline", "py", [case("a")])
    project.suite("online", "live", [case("b"), case("c")]).write()
    # The credential is even set: without --live the suite is still not run.
    result, report = project.evaluate(env={"GG_LIVE_TOKEN": "token-value"})
    assert result.code == 0, result.stderr
    assert report is not None
    reason = "live workflow 'live' runs only with --live"
    online = suite_of(report, "online")
    assert (online["status"], online["verdict"], online["skip_reason"]) == (
        "skipped",
        "skipped",
        reason,
    )
    assert online["target"]["live"] is True
    assert [(a["case_id"], a["status"], a["reason"]) for a in online["attempts"]] == [
        ("b", "skipped", reason),
        ("c", "skipped", reason),
    ]
    for attempt in online["attempts"]:
        assert [c["outcome"] for c in attempt["checks"]] == ["not_run", "not_run"]
        assert attempt["result"] is None
    assert online["counts"]["attempts"]["skipped"] == 2
    assert_scored_ok(attempt_of(report, "offline", "a"))
    assert [c["tag"] for c in project.calls()] == ["a"]
    assert f"online   skipped: {reason}" in result.stdout
    assert report["verdict"] == {
        "passed": True,
        "exit_code": 0,
        "meaning": "passed",
        "suites": {"passed": 1, "skipped": 1},
        "evaluated": True,
        "adjudication": 0,
    }
    assert report["options"]["live"] is False


def test_live_suite_runs_with_live_and_its_credential(project: Project) -> None:
    project.suite("offline", "py", [case("a")])
    project.suite("online", "live", [case("b")]).write()
    result, report = project.evaluate("--live", env={"GG_LIVE_TOKEN": "token-value"})
    assert result.code == 0, result.stderr
    assert report is not None
    online = suite_of(report, "online")
    assert (online["status"], online["verdict"], online["skip_reason"]) == ("ran", "passed", None)
    assert_scored_ok(attempt_of(report, "online", "b"))
    assert [c["tag"] for c in project.calls()] == ["a", "b"]
    assert report["options"]["live"] is True
    assert "token-value" not in result.output
