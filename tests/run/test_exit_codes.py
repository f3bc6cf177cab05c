"""Exit codes of ``goldgate evaluate`` through the real console script, one cause per test:
0 passed, 1 gold disagreement, 2 invalid input, 3 missing dependency, 4 runtime failure,
130 interrupted; and 130 > 4 > 1 > 0 when several hold at once."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from goldgate.base.errors import ExitCode, most_severe
from goldgate.report.models import CountsRecord, SuiteRecord, TargetRecord
from goldgate.report.verdicts import run_verdict

from .support import (
    STATUS_OK,
    Project,
    assert_not_scored,
    assert_scored_ok,
    attempt_of,
    case,
    expect,
    read_report_json,
    start_cli,
    suite_of,
)


@pytest.mark.slow
def test_exit_0_when_every_check_passes(project: Project) -> None:
    project.suite("main", "py", [case("a"), case("b")]).write()
    result, report = project.evaluate()
    assert result.code == 0, result.stderr
    assert "verdict: passed (exit 0)" in result.stdout
    assert report is not None
    assert report["verdict"] == {
        "passed": True,
        "exit_code": 0,
        "meaning": "passed",
        "suites": {"passed": 1},
        "evaluated": True,
        "adjudication": 0,
    }
    main = suite_of(report, "main")
    assert main["counts"]["checks"] == {"passed": 4, "failed": 0, "error": 0, "not_run": 0}
    for case_id in ("a", "b"):
        assert_scored_ok(attempt_of(report, "main", case_id))


@pytest.mark.slow
def test_exit_1_on_a_failed_check(project: Project) -> None:
    wrong = expect("category", "/payload/category", "refund")
    project.suite("main", "py", [case("good"), case("bad", "ok", STATUS_OK, wrong)]).write()
    result, report = project.evaluate()
    assert result.code == 1, result.stderr
    assert "verdict: gold disagreement (exit 1)" in result.stdout
    assert report is not None
    assert suite_of(report, "main")["verdict"] == "failed"
    bad = attempt_of(report, "main", "bad")
    assert bad["status"] == "completed"
    assert [c["outcome"] for c in bad["checks"]] == ["passed", "failed"]
    assert bad["checks"][1]["actual"] == "billing"
    assert bad["checks"][1]["expected"] == "refund"
    assert bad["checks"][1]["reason"]
    assert_scored_ok(attempt_of(report, "main", "good"))


@pytest.mark.slow
def test_exit_1_on_a_missed_threshold_with_every_check_passing(project: Project) -> None:
    # Every prediction is right, but two catalog labels are never seen: their F1 is 0
    # (scikit-learn, zero_division=0), so macro F1 is 1/3 and the 0.9 threshold is missed.
    metric = {
        "name": "queue",
        "path": "/payload/category",
        "kind": "classification",
        "labels": ["billing", "other", "spam"],
    }
    project.suite(
        "gated",
        "py",
        [case("a"), case("b")],
        metrics=[metric],
        thresholds={"pass_rate": 1.0, "queue.macro_f1": 0.9},
    ).write()
    result, report = project.evaluate()
    assert result.code == 1, result.stderr
    assert "thresholds 1/2 held" in result.stdout
    assert report is not None
    gated = suite_of(report, "gated")
    assert gated["counts"]["checks"] == {"passed": 4, "failed": 0, "error": 0, "not_run": 0}
    assert gated["verdict"] == "failed"
    thresholds = {t["key"]: t for t in gated["thresholds"]}
    assert thresholds["pass_rate"] == {
        "key": "pass_rate",
        "minimum": 1.0,
        "actual": 1.0,
        "held": True,
    }
    assert thresholds["queue.macro_f1"]["held"] is False
    assert thresholds["queue.macro_f1"]["actual"] == pytest.approx(1 / 3)
    assert gated["metrics"][0]["accuracy"] == 1.0


@pytest.mark.slow
def test_thresholds_that_hold_pass_despite_a_failed_check(project: Project) -> None:
    # With thresholds the suite passes when every threshold holds: 3 of 4 checks is 0.75.
    wrong = expect("category", "/payload/category", "refund")
    project.suite(
        "gated",
        "py",
        [case("good"), case("bad", "ok", STATUS_OK, wrong)],
        thresholds={"pass_rate": 0.7},
    ).write()
    result, report = project.evaluate()
    assert result.code == 0, result.stderr
    assert report is not None
    gated = suite_of(report, "gated")
    assert gated["counts"]["checks"]["failed"] == 1
    assert gated["summary"]["pass_rate"] == pytest.approx(0.75)
    assert gated["thresholds"] == [
        {"key": "pass_rate", "minimum": 0.7, "actual": 0.75, "held": True}
    ]
    assert gated["verdict"] == "passed"


# --- exit 2: refused before anything runs -------------------------------------------------------


def _refused(project: Project, result_code: int, report_path: Path) -> None:
    assert result_code == 2
    assert project.calls() == []
    assert not report_path.exists()


@pytest.mark.slow
def test_exit_2_on_bad_gold(project: Project) -> None:
    typo = {"name": "status", "path": "/execution/status", "expectd": "completed"}
    project.suite("main", "py", [case("a", "ok", typo)]).write()
    result, _ = project.evaluate()
    _refused(project, result.code, project.output())
    assert "dataset.json" in result.stderr
    assert "expectd" in result.stderr
    assert "evaluate --check" in result.stderr


@pytest.mark.parametrize("argv", [[], ["--format"], ["--format", "json"]])
def test_exit_2_with_the_usage_for_no_command(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bare `goldgate` once raised a traceback while looking for --format json.
    from goldgate import cli

    monkeypatch.setattr("sys.argv", ["goldgate", *argv])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "Usage: " in err


@pytest.mark.slow
def test_exit_2_when_output_names_an_existing_file(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    existing = project.output()
    existing.parent.mkdir(parents=True)
    existing.write_text("an earlier report\n", "utf-8")
    before = existing.stat()
    result = project.run("--output", str(existing))
    assert result.code == 2
    assert "already exists" in result.stderr
    assert "never overwritten" in result.stderr
    assert project.calls() == []
    assert existing.read_text("utf-8") == "an earlier report\n"
    after = existing.stat()
    assert (after.st_mtime_ns, after.st_ino, after.st_size) == (
        before.st_mtime_ns,
        before.st_ino,
        before.st_size,
    )
    assert sorted(p.name for p in existing.parent.iterdir()) == ["report.json"]


@pytest.mark.slow
def test_exit_2_on_an_unknown_suite(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    result, _ = project.evaluate("--suite", "nope")
    _refused(project, result.code, project.output())
    assert "--suite 'nope' is not a suite of 'fixture_gold'" in result.stderr
    assert "main" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "source", "message"),
    [
        ("missing_app", None, "module 'missing_app' was not found"),
        ("broken_app", "raise RuntimeError('no')\n", "importing 'broken_app' raised RuntimeError"),
    ],
)
def test_exit_2_when_a_python_target_does_not_import(
    project: Project, module: str, source: str | None, message: str
) -> None:
    if source is not None:
        (project.root / f"{module}.py").write_text(source, "utf-8")
    project.workflows["py"]["target"]["python"] = f"{module}:handle"
    project.suite("first", "py_sync", [case("a")]).suite("main", "py", [case("b")]).write()
    result, _ = project.evaluate()
    _refused(project, result.code, project.output())
    assert f"python target '{module}:handle' could not be imported" in result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_exit_2_for_an_authorized_live_suite_without_its_credential(project: Project) -> None:
    project.suite("offline", "py", [case("a")]).suite("online", "live", [case("b")]).write()
    result, _ = project.evaluate("--live")
    _refused(project, result.code, project.output())
    assert "GG_LIVE_TOKEN" in result.stderr
    assert "nothing was run" in result.stderr
    # An empty value is no credential either.
    result, _ = project.evaluate("--live", env={"GG_LIVE_TOKEN": ""})
    _refused(project, result.code, project.output())
    assert "GG_LIVE_TOKEN" in result.stderr


# --- exit 4 -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_exit_4_when_a_target_raises(project: Project) -> None:
    project.suite("main", "py", [case("a"), case("boom", "raise"), case("c")]).write()
    result, report = project.evaluate()
    assert result.code == 4, result.stderr
    assert "verdict: runtime failure (exit 4)" in result.stdout
    assert report is not None
    assert suite_of(report, "main")["verdict"] == "error"
    boom = attempt_of(report, "main", "boom")
    assert (boom["status"], boom["reason"]) == ("failed", "python target raised ValueError")
    assert_not_scored(boom, "the attempt failed: python target raised ValueError")
    assert_scored_ok(attempt_of(report, "main", "a"))
    assert_scored_ok(attempt_of(report, "main", "c"))


@pytest.mark.slow
def test_exit_4_even_when_gold_expected_the_failure(project: Project) -> None:
    anticipated = expect("status", "/execution/status", "failed")
    project.suite("main", "py", [case("boom", "raise", anticipated)]).write()
    result, report = project.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    boom = attempt_of(report, "main", "boom")
    assert boom["status"] == "failed"
    assert_not_scored(boom, "python target raised ValueError")
    assert report["verdict"]["exit_code"] == 4


@pytest.mark.slow
def test_a_failed_check_and_a_runtime_failure_exit_4(project: Project) -> None:
    wrong = expect("category", "/payload/category", "refund")
    project.suite("checks", "py", [case("bad", "ok", wrong)])
    project.suite("runtime", "py", [case("boom", "raise")]).write()
    result, report = project.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    assert suite_of(report, "checks")["verdict"] == "failed"
    assert suite_of(report, "runtime")["verdict"] == "error"
    assert report["verdict"]["suites"] == {"failed": 1, "error": 1}
    assert report["verdict"]["exit_code"] == 4


def _suite_record(verdict: str) -> SuiteRecord:
    return SuiteRecord(
        name=verdict,
        fingerprint="sha256:0",
        workflow="w",
        flow=None,
        step=None,
        target=TargetRecord(kind="python", workflow_revision="r", live=False),
        status="skipped" if verdict == "skipped" else "ran",
        case_count=0,
        attempt_count=0,
        counts=CountsRecord(attempts={}, checks={}),
        summary={},
        verdict=verdict,  # type: ignore[arg-type]
        cases=(),
    )


def test_precedence_of_exit_codes_as_pure_functions() -> None:
    passed, gold, runtime, interrupted = (
        ExitCode.PASSED,
        ExitCode.GOLD_DISAGREEMENT,
        ExitCode.RUNTIME_FAILURE,
        ExitCode.INTERRUPTED,
    )
    assert most_severe() is passed
    assert most_severe(passed, gold) is gold
    assert most_severe(gold, runtime, passed) is runtime
    assert most_severe(runtime, interrupted, gold) is interrupted
    assert most_severe(interrupted, passed) is interrupted

    def code(*verdicts: str, interrupted: bool = False) -> int:
        return run_verdict([_suite_record(v) for v in verdicts], interrupted).exit_code

    assert code("passed", "skipped") == 0
    assert code("passed", "failed") == 1
    assert code("failed", "error", "passed") == 4
    assert code("error", "incomplete", "failed") == 130
    assert code("passed", interrupted=True) == 130
    verdict = run_verdict([_suite_record("failed"), _suite_record("error")], False)
    assert (verdict.passed, verdict.meaning, verdict.suites) == (
        False,
        "runtime failure",
        {"failed": 1, "error": 1},
    )


# --- exit 130 -----------------------------------------------------------------------------------


def test_ctrl_c_exits_130_and_keeps_what_finished(project: Project) -> None:
    marker = "second-started"
    cases = [
        case("first"),
        case("second", "marker", marker=marker, seconds=30),
        case("third"),
        case("fourth"),
    ]
    project.suite("slow", "py", cases).suite("after", "py", [case("later")]).write()
    output = project.output()
    process = start_cli(
        "evaluate", "--config", str(project.settings_path), "--output", str(output),
        "--max-concurrency", "1", "--timeout", "60",
        cwd=project.root,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        # One worker: the second attempt starts only after the first was run and scored.
        while not (project.root / marker).exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the second attempt never started"
            time.sleep(0.02)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 130, stderr
    assert time.monotonic() - started < 10  # the 30 s sleep was cancelled, not awaited
    assert "(incomplete: SIGINT)" in stdout
    assert "verdict: interrupted (exit 130)" in stdout
    report = read_report_json(output)
    assert report["complete"] is False
    assert report["verdict"]["exit_code"] == 130
    slow = suite_of(report, "slow")
    assert slow["verdict"] == "incomplete"
    assert [(a["case_id"], a["status"]) for a in slow["attempts"]] == [
        ("first", "completed"),
        ("second", "cancelled"),
        ("third", "cancelled"),
        ("fourth", "cancelled"),
    ]
    assert_scored_ok(slow["attempts"][0])
    assert slow["attempts"][0]["result"]["payload"]["category"] == "billing"
    for attempt in slow["attempts"][1:]:
        assert attempt["reason"] == "the run was interrupted before this attempt finished"
        assert attempt["latency_ms"] is None
        assert_not_scored(attempt, "interrupted")
    assert slow["counts"]["attempts"]["completed"] == 1
    assert slow["counts"]["attempts"]["cancelled"] == 3
    after = suite_of(report, "after")
    assert (after["status"], after["verdict"]) == ("not_started", "incomplete")
    assert [a["status"] for a in after["attempts"]] == ["cancelled"]
    assert [c["tag"] for c in project.calls()] == ["first", "second"]


@pytest.mark.slow
def test_a_refused_run_in_json_lists_its_violations_as_json(project: Project) -> None:
    typo = {"name": "status", "path": "/execution/status", "expectd": "completed"}
    project.suite("main", "py", [case("a", "ok", typo)]).write()

    result = project.run("--format", "json")

    assert result.code == 2
    payload = json.loads(result.stdout)
    assert payload["ok"] is False
    assert payload["error"].startswith("2 problems in the gold")
    assert {v["message"] for v in payload["violations"]} == {
        "missing required key 'expected'",
        'unknown key "expectd"; check its spelling against the schema',
    }
    assert project.calls() == []
