"""Issue 7, items 1-3, 9 and 12 through the real CLI: whatever a target, a scorer, the gold or
the runner's signals do, goldgate ends with a report, the exit code that says what happened,
and a summary that hides nothing (targets in ``project_files/hostile_app.py``)."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from .support import (
    STATUS_OK,
    Project,
    assert_scored_ok,
    attempt_of,
    case,
    expect,
    read_report_json,
    run_cli,
    start_cli,
    suite_of,
)

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)


@pytest.fixture
def hostile(project: Project) -> Project:
    project.workflows["hostile"] = {
        "revision": "h-1",
        "target": {"python": "hostile_app:handle"},
    }
    project.workflows["hostile_sync"] = {
        "revision": "h-2",
        "target": {"python": "hostile_app:handle_sync"},
    }
    project.scorers["exiting"] = {"import": "hostile_app:exiting_scorer", "revision": "1"}
    project.scorers["blocking"] = {"import": "hostile_app:blocking_scorer", "revision": "1"}
    return project


def _statuses(report: dict[str, Any], suite: str) -> list[tuple[str, str, str | None]]:
    return [(a["case_id"], a["status"], a["reason"]) for a in suite_of(report, suite)["attempts"]]


# --- 1. nothing escapes as a pass ------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "extra", "name"),
    [
        ("exit", {"code": 0}, "SystemExit"),
        ("exit", {"code": 3}, "SystemExit"),
        ("keyboard", {}, "KeyboardInterrupt"),
        ("generator_exit", {}, "GeneratorExit"),
        ("base", {}, "Weird"),
    ],
)
def test_a_target_raising_a_base_exception_fails_its_attempt_only(
    hostile: Project, mode: str, extra: dict[str, Any], name: str
) -> None:
    hostile.suite(
        "main", "hostile", [case("before"), case("bad", mode, STATUS_OK, **extra), case("after")]
    ).write()

    result, report = hostile.evaluate()

    assert result.code == 4, result.stderr
    assert "verdict: runtime failure (exit 4)" in result.stdout
    assert "Traceback" not in result.stderr
    assert report is not None
    assert _statuses(report, "main") == [
        ("before", "completed", None),
        ("bad", "failed", f"python target raised {name}"),
        ("after", "completed", None),
    ]


def test_a_sync_target_raising_system_exit_fails_its_attempt(hostile: Project) -> None:
    hostile.suite("main", "hostile_sync", [case("bad", "exit", STATUS_OK), case("ok")]).write()
    result, report = hostile.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    assert _statuses(report, "main")[0] == ("bad", "failed", "python target raised SystemExit")
    assert_scored_ok(attempt_of(report, "main", "ok"))


def test_a_scorer_raising_system_exit_is_a_check_error(hostile: Project) -> None:
    scored = expect("category", "/payload/category", "billing", "custom", "exiting")
    hostile.suite("main", "hostile", [case("a", "ok", scored), case("b")]).write()

    result, report = hostile.evaluate()

    # A check error is gold disagreement (exit 1): the target itself answered.
    assert result.code == 1, result.stderr
    assert report is not None
    [check] = attempt_of(report, "main", "a")["checks"]
    assert (check["outcome"], check["reason"]) == ("error", "scorer 'exiting' raised SystemExit")
    assert_scored_ok(attempt_of(report, "main", "b"))


# --- 2. deadlines and signals always win ---------------------------------------------------------


@pytest.mark.parametrize("mode", ["block", "spin"])
def test_a_target_that_blocks_the_event_loop_times_out(hostile: Project, mode: str) -> None:
    hostile.suite(
        "main", "hostile", [case("stuck", mode, STATUS_OK, seconds=30), case("after")]
    ).write()
    started = time.monotonic()

    result, report = hostile.evaluate("--timeout", "1")

    assert time.monotonic() - started < 15, "the 30 s block was not broken into"
    assert result.code == 4, result.stderr
    assert report is not None
    assert _statuses(report, "main") == [
        ("stuck", "timed_out", "the target blocked the event loop past the attempt's deadline"),
        ("after", "completed", None),
    ]


def test_a_scorer_that_blocks_the_event_loop_times_out_as_scoring(hostile: Project) -> None:
    scored = expect("category", "/payload/category", "billing", "custom", "blocking")
    hostile.suite("main", "hostile", [case("a", "ok", scored), case("b")]).write()
    started = time.monotonic()

    result, report = hostile.evaluate("--timeout", "1")

    assert time.monotonic() - started < 15
    assert result.code == 4, result.stderr
    assert report is not None
    attempt = attempt_of(report, "main", "a")
    assert attempt["status"] == "timed_out"
    assert attempt["reason"] == "a custom scorer blocked the event loop past the attempt's deadline"
    assert attempt["latency_ms"] is not None  # the target answered; scoring did not finish
    assert_scored_ok(attempt_of(report, "main", "b"))


def test_a_catastrophic_gold_pattern_fails_its_check_in_time(project: Project) -> None:
    evil = expect("echo", "/payload/echo", {"matches": "^(a+)+$"}, "text")
    project.suite("main", "py", [case("a", "ok", evil, echo="a" * 40 + "b")]).write()
    started = time.monotonic()

    result, report = project.evaluate("--timeout", "5")

    assert time.monotonic() - started < 15
    assert result.code == 1, result.stderr
    assert report is not None
    [check] = attempt_of(report, "main", "a")["checks"]
    assert check["outcome"] == "failed"
    assert check["reason"].startswith("the matches pattern ran out of time")


def _wait_for_calls(project: Project, process: Any, count: int) -> None:
    deadline = time.monotonic() + 30
    log = project.root / "calls.log"
    while not (log.exists() and len(log.read_text().splitlines()) >= count):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the target was never called"
        time.sleep(0.02)


def _run_and_signal(
    project: Project, signals: list[tuple[float, int]], *args: str
) -> tuple[int, str, str, float]:
    """Start a run, wait until a target is called, send ``signals`` (delay, number)."""
    output = project.output()
    process = start_cli(
        "evaluate", "--config", str(project.settings_path), "--output", str(output), *args,
        cwd=project.root,
    )  # fmt: skip
    try:
        _wait_for_calls(project, process, 1)
        time.sleep(0.3)  # inside the target now
        started = time.monotonic()
        for delay, number in signals:
            time.sleep(delay)
            process.send_signal(number)
        stdout, stderr = process.communicate(timeout=30)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    return process.returncode, stdout, stderr, time.monotonic() - started


@pytest.mark.parametrize(
    ("number", "name"), [(signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")]
)
def test_a_signal_stops_a_run_whose_target_blocks_the_loop(
    hostile: Project, number: int, name: str
) -> None:
    # fixture_app logs its calls; a blocking hostile target after a logged call
    hostile.suite("first", "py", [case("logged")])
    hostile.suite("main", "hostile", [case("stuck", "block", STATUS_OK, seconds=60)]).write()

    code, stdout, stderr, took = _run_and_signal(hostile, [(0.0, number)], "--timeout", "120")

    assert code == 130, stderr
    assert took < 10, "the stop did not break into the blocked loop"
    assert f"(incomplete: {name})" in stdout
    assert "Traceback" not in stderr
    report = read_report_json(hostile.output())
    assert report["complete"] is False
    assert report["interruption"] == name
    assert_scored_ok(attempt_of(report, "first", "logged"))
    assert _statuses(report, "main") == [
        ("stuck", "cancelled", "the run was interrupted before this attempt finished")
    ]


def test_sigint_then_sigterm_while_a_large_run_is_written_loses_nothing(project: Project) -> None:
    # Many cases behind one slow attempt: stopping writes every one of them as cancelled.
    cases = [case("slow", "sleep", STATUS_OK, seconds=60)]
    cases += [case(f"c{index:05d}") for index in range(20_000)]
    project.suite("main", "py", cases).write()

    code, _stdout, stderr, _ = _run_and_signal(
        project, [(0.0, signal.SIGINT), (1.0, signal.SIGTERM), (0.05, signal.SIGINT)],
        "--timeout", "120",
    )  # fmt: skip

    assert code == 130, stderr
    assert "Traceback" not in stderr
    report = read_report_json(project.output())
    assert report["complete"] is False
    assert report["interruption"] == "SIGINT"
    main = suite_of(report, "main")
    assert main["attempt_count"] == 20_001
    assert main["counts"]["attempts"]["cancelled"] == 20_001
    assert len(main["attempts"]) == 20_001


def test_a_target_that_cannot_be_broken_into_still_leaves_a_report(hostile: Project) -> None:
    hostile.suite("first", "py", [case("logged")])
    hostile.suite(
        "main", "hostile", [case("stuck", "stubborn", STATUS_OK, seconds=60), case("never")]
    ).write()
    output = hostile.output()
    process = start_cli(
        "evaluate", "--config", str(hostile.settings_path), "--output", str(output),
        "--timeout", "1", cwd=hostile.root,
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=30)
    except BaseException:
        process.kill()
        process.communicate()
        raise

    # Incomplete, but nobody interrupted it: a runtime failure (4), never 130.
    assert process.returncode == 4, stderr
    assert "could not be stopped" in stderr
    assert (
        "verdict: runtime failure: a target kept the event loop blocked and could not be "
        "stopped; what finished is in the report (exit 4) (incomplete: watchdog)"
    ) in stdout
    report = read_report_json(output)
    assert report["interruption"] == "watchdog"
    assert (report["verdict"]["exit_code"], report["complete"]) == (4, False)
    rendered = run_cli("report", "junit", str(output), "-o", str(output) + ".xml", cwd=hostile.root)
    assert rendered.code == 0, rendered.stderr  # its stored verdict is the one recomputed
    assert_scored_ok(attempt_of(report, "first", "logged"))
    assert [a["status"] for a in suite_of(report, "main")["attempts"]] == [
        "cancelled",
        "cancelled",
    ]


def test_ctrl_c_while_a_slow_target_imports_is_an_interruption(project: Project) -> None:
    (project.root / "slow_import.py").write_text(
        "import time\ntime.sleep(60)\n\nasync def handle(request):\n    return {}\n"
    )
    project.workflows["slow"] = {"revision": "s", "target": {"python": "slow_import:handle"}}
    project.suite("main", "slow", [case("a")]).write()
    for number in (signal.SIGINT, signal.SIGTERM):
        process = start_cli("evaluate", "--config", str(project.settings_path), cwd=project.root)
        time.sleep(1.5)
        process.send_signal(number)
        stdout, stderr = process.communicate(timeout=20)
        assert process.returncode == 130, stderr
        assert "goldgate: interrupted" in stderr
        assert "Traceback" not in stderr
        assert stdout == ""
    assert not (project.root / "config" / ".goldgate").exists() or not any(
        (project.root / "config" / ".goldgate" / "evaluations").iterdir()
    )


# --- 9. honest reasons -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "what"),
    [
        ("bigint", "an integer with too many digits at /payload/n"),
        ("set", "a value of type set at /payload/n"),
    ],
)
def test_a_result_that_is_not_json_says_so(hostile: Project, mode: str, what: str) -> None:
    hostile.suite("main", "hostile", [case("a", mode, STATUS_OK)]).write()
    result, report = hostile.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    assert _statuses(report, "main") == [
        ("a", "failed", f"python target returned a result that is not JSON: it holds {what}")
    ]


# --- 12. the summary never hides work for a person or a run that did nothing ----------------


def test_a_run_with_every_suite_skipped_says_nothing_was_evaluated(project: Project) -> None:
    metric = {"name": "queue", "path": "/payload/category", "kind": "classification",
              "labels": ["billing", "refund"]}  # fmt: skip
    project.suite("online", "live", [case("a"), case("b")], metrics=[metric]).write()

    result, report = project.evaluate()

    assert result.code == 0, result.stderr
    assert "verdict: nothing was evaluated (exit 0)" in result.stdout
    assert report is not None
    assert report["verdict"]["evaluated"] is False
    assert report["verdict"]["meaning"] == "nothing was evaluated"
    online = suite_of(report, "online")
    assert online["metrics"] == []  # not measured, which is not zero


def test_a_run_filtered_to_nothing_evaluated_says_so_in_json(project: Project) -> None:
    import json

    project.suite("online", "live", [case("a")]).write()
    result = project.run("--format", "json", "--output", str(project.output()))
    assert result.code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["verdict"]["meaning"] == "nothing was evaluated"
    assert summary["verdict"]["evaluated"] is False


def test_the_summary_counts_checks_awaiting_a_human_verdict(project: Project) -> None:
    prose = expect("tone", "/payload/echo", "Polite and short.", "text")
    noted = expect("note", "/payload/echo", {"contains": "hi", "note": "Is it kind?"}, "text")
    project.suite(
        "main", "py", [case("a", "ok", prose, echo="hi"), case("b", "ok", noted, echo="hi"),
                       case("c", "ok", prose, echo="hey")],
    ).write()  # fmt: skip

    result, report = project.evaluate()

    assert result.code == 0, result.stderr
    assert "3 checks await a human verdict" in result.stdout
    assert report is not None
    assert report["verdict"]["adjudication"] == 3
    assert suite_of(report, "main")["adjudication"] == 3


def test_the_json_summary_counts_the_adjudication_queue(project: Project, tmp_path: Path) -> None:
    import json

    prose = expect("tone", "/payload/echo", "Polite.", "text")
    project.suite("main", "py", [case("a", "ok", prose, echo="hi")]).write()
    result = project.run("--format", "json", "--output", str(tmp_path / "r.json"))
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["verdict"]["adjudication"] == 1


def test_a_sigterm_right_after_the_report_is_written_still_exits_130(project: Project) -> None:
    # GitHub Actions sends SIGTERM 7.5 s after SIGINT: it may land while goldgate exits.
    cases = [case("slow", "sleep", STATUS_OK, seconds=60), *[case(f"c{i}") for i in range(50)]]
    project.suite("main", "py", cases).write()
    output = project.output()
    process = start_cli(
        "evaluate", "--config", str(project.settings_path), "--output", str(output),
        "--timeout", "120", cwd=project.root,
    )  # fmt: skip
    try:
        _wait_for_calls(project, process, 1)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 20
        while not output.exists():
            assert time.monotonic() < deadline, "no report after SIGINT"
            time.sleep(0.001)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 130, stderr
    assert read_report_json(output)["interruption"] == "SIGINT"
