"""Faults through the real CLI: each is data for its own attempt (status and safe reason in
the report) while every other attempt of the run still completes and is scored."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.processes import assert_gone

from .support import (
    STATUS_OK,
    HttpApp,
    Project,
    assert_not_scored,
    assert_scored_ok,
    attempt_of,
    case,
    expect,
    suite_of,
)

SECRET = "SECRET-f4u1t"


def _others_ok(report: dict[str, Any], suite: str, *case_ids: str) -> None:
    for case_id in case_ids:
        assert_scored_ok(attempt_of(report, suite, case_id))


def _failed(report: dict[str, Any], suite: str, case_id: str, status: str, reason: str) -> dict:
    attempt = attempt_of(report, suite, case_id)
    assert (attempt["status"], attempt["reason"]) == (status, reason)
    assert attempt["result"] is None
    assert_not_scored(attempt, reason)
    counts = suite_of(report, suite)["counts"]["attempts"]
    assert counts[status] == 1
    return attempt


# --- python targets -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("raise", "python target raised ValueError"),
        ("nonobject", "python target returned a JSON array, not a JSON object"),
    ],
)
def test_python_target_failure(project: Project, mode: str, reason: str) -> None:
    cases = [case("before"), case("fault", mode, echo=SECRET), case("after")]
    project.suite("main", "py", cases).write()
    result, report = project.evaluate("--max-concurrency", "2")
    assert result.code == 4, result.stderr
    assert report is not None
    _failed(report, "main", "fault", "failed", reason)
    _others_ok(report, "main", "before", "after")
    assert SECRET not in result.output


@pytest.mark.slow
@pytest.mark.parametrize("workflow", ["py", "py_sync"])
def test_python_target_that_hangs_past_the_deadline(project: Project, workflow: str) -> None:
    # An async target is cancelled; a sync one's thread is abandoned. Either way the attempt
    # is timed out after --timeout and the process does not wait for the 30 s sleep.
    cases = [case("before"), case("hang", "sleep", seconds=30), case("after")]
    project.suite("main", workflow, cases).write()
    started = time.monotonic()
    result, report = project.evaluate("--timeout", "1")
    assert time.monotonic() - started < 15
    assert result.code == 4, result.stderr
    assert report is not None
    reason = "no result within the 1 s deadline"
    hang = _failed(report, "main", "hang", "timed_out", reason)
    assert hang["latency_ms"] is None
    _others_ok(report, "main", "before", "after")
    assert [c["tag"] for c in project.calls()] == ["before", "hang", "after"]


# --- command targets ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("exit", "command exited with status 3"),
        ("nonjson", "command stdout is not strict JSON (line 1, column 1)"),
        ("huge", "command result exceeded 4096 bytes"),
        ("array", "command stdout is a JSON array, not a JSON object"),
    ],
)
def test_command_target_failure(project: Project, mode: str, reason: str) -> None:
    cases = [case("before"), case("fault", mode, echo=SECRET), case("after")]
    project.suite("main", "cmd", cases).write()
    result, report = project.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    fault = _failed(report, "main", "fault", "failed", reason)
    _others_ok(report, "main", "before", "after")
    assert attempt_of(report, "main", "before")["stderr"] == "cmd: working\n"
    assert suite_of(report, "main")["target"]["kind"] == "command"
    if mode == "exit":
        # The tail of stderr is kept, bounded (64 KiB), as private detail in the report only.
        tail = fault["stderr"]
        assert tail.endswith("x\nTAIL-OF-STDERR\n")
        assert "HEAD-OF-STDERR" not in tail
        assert 60_000 < len(tail.encode("utf-8")) <= 64 * 1024
        assert "TAIL-OF-STDERR" not in result.output
    assert SECRET not in result.output


def test_command_that_hangs_is_killed_with_its_children(project: Project, reaper: bool) -> None:
    cases = [case("before"), case("hang", "hang", pids="hang.pids"), case("after")]
    project.suite("main", "cmd", cases).write()
    started = time.monotonic()
    result, report = project.evaluate("--timeout", "1")
    assert time.monotonic() - started < 15
    assert result.code == 4, result.stderr
    assert report is not None
    _failed(report, "main", "hang", "timed_out", "no result within the 1 s deadline")
    _others_ok(report, "main", "before", "after")
    pids = [int(word) for word in (project.root / "hang.pids").read_text().split()]
    assert len(pids) == 2  # the command and the child it started
    assert_gone(pids, strict=reaper)
    for pid in pids:
        if reaper:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)


# --- http targets -------------------------------------------------------------------------------


def _http_workflow(url: str) -> dict[str, Any]:
    return {"revision": "http-1", "target": {"http": {"url": url}}}


@pytest.mark.parametrize(
    ("mode", "outcomes"),
    [
        ("500", {("failed", "http target answered 500")}),
        # Answers at once, then a byte every 0.2 s: no socket read waits 1 s, so only the
        # attempt's deadline can end it.
        ("trickle", {("timed_out", "no result within the 1 s deadline")}),
        # Silent: the socket timeout (--timeout too) and the deadline expire together, and
        # either may be seen first. Both are runtime failures.
        (
            "slow",
            {
                ("timed_out", "no result within the 1 s deadline"),
                ("failed", "http target timed out"),
            },
        ),
    ],
)
def test_http_target_failure(
    project: Project, http_app: HttpApp, mode: str, outcomes: set[tuple[str, str]]
) -> None:
    project.workflows["web"] = _http_workflow(http_app.url)
    cases = [case("before"), case("fault", mode, echo=SECRET), case("after")]
    project.suite("main", "web", cases).write()
    result, report = project.evaluate("--timeout", "1")
    assert result.code == 4, result.stderr
    assert report is not None
    fault = attempt_of(report, "main", "fault")
    assert (fault["status"], fault["reason"]) in outcomes
    _failed(report, "main", "fault", fault["status"], fault["reason"])
    _others_ok(report, "main", "before", "after")
    assert [c["tag"] for c in http_app.calls] == ["before", "fault", "after"]
    assert suite_of(report, "main")["target"]["identity"] == {
        "kind": "http",
        "url": http_app.url,
        "headers": [],
    }
    assert SECRET not in result.output


@pytest.mark.slow
def test_http_target_that_refuses_connections(project: Project, closed_port: int) -> None:
    project.workflows["web"] = _http_workflow(f"http://127.0.0.1:{closed_port}/triage")
    project.suite("down", "web", [case("a"), case("b")])
    project.suite("local", "py", [case("c")]).write()
    result, report = project.evaluate()
    assert result.code == 4, result.stderr
    assert report is not None
    for case_id in ("a", "b"):
        attempt = attempt_of(report, "down", case_id)
        assert (attempt["status"], attempt["reason"]) == (
            "failed",
            "http target refused the connection",
        )
    assert suite_of(report, "down")["verdict"] == "error"
    assert suite_of(report, "local")["verdict"] == "passed"
    _others_ok(report, "local", "c")


# --- scoring ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_custom_scorer_that_raises_is_an_error_check_not_a_failed_attempt(
    project: Project,
) -> None:
    boom = expect("custom", "/payload/category", "billing", "custom", "boom")
    folded = expect("folded", "/payload/category", "BILLING", "custom", "casefold")
    project.suite("main", "py", [case("a", "ok", STATUS_OK, boom, folded), case("b")]).write()
    result, report = project.evaluate()
    assert result.code == 1, result.stderr  # an errored check is gold disagreement, not 4
    assert report is not None
    attempt = attempt_of(report, "main", "a")
    assert attempt["status"] == "completed"
    assert attempt["reason"] is None
    outcomes = [(c["name"], c["outcome"], c["reason"]) for c in attempt["checks"]]
    assert outcomes == [
        ("status", "passed", None),
        ("custom", "error", "scorer 'boom' raised KeyError"),
        ("folded", "passed", None),
    ]
    assert attempt["checks"][1]["actual"] == "billing"
    _others_ok(report, "main", "b")
    main = suite_of(report, "main")
    assert main["counts"]["checks"] == {"passed": 4, "failed": 0, "error": 1, "not_run": 0}
    assert main["counts"]["attempts"]["completed"] == 2
    assert main["verdict"] == "failed"
    assert report["scorers"] == [
        {"name": "boom", "revision": "1"},
        {"name": "casefold", "revision": "2"},
    ]


@pytest.mark.slow
@pytest.mark.parametrize("minimum", [0.0, 0.5])
def test_a_check_error_fails_its_suite_even_when_every_threshold_holds(
    project: Project, minimum: float
) -> None:
    """Thresholds absorb disagreement, never breakage: a raising scorer fails the suite
    (exit 1) however low the thresholds, and the summary says the errors decided it."""
    boom = expect("custom", "/payload/category", "billing", "custom", "boom")
    cases = [case("a", "ok", STATUS_OK, boom), *(case(f"c{n}") for n in range(9))]
    project.suite("main", "py", cases, thresholds={"pass_rate": minimum}).write()
    result, report = project.evaluate()
    assert result.code == 1, result.output
    assert report is not None
    main = suite_of(report, "main")
    assert all(threshold["held"] for threshold in main["thresholds"])
    assert main["counts"]["checks"]["error"] == 1
    assert main["verdict"] == "failed"
    assert report["verdict"]["exit_code"] == 1
    assert "thresholds 1/1 held; failed on 1 check error" in result.stdout


# --- the report folder --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("how", ["parent-is-a-file", "read-only-folder"])
def test_unwritable_report_folder_is_refused_before_anything_runs(
    project: Project, how: str
) -> None:
    project.suite("main", "py", [case("a")]).write()
    if how == "parent-is-a-file":
        # Works as root too: nobody can create a folder where a file is.
        blocker = project.root / "blocker"
        blocker.write_text("not a folder\n", "utf-8")
        output = blocker / "reports" / "report.json"
    else:
        if os.geteuid() == 0:
            pytest.skip("running as root: chmod 0500 does not stop root from writing")
        folder = project.root / "readonly"
        folder.mkdir()
        folder.chmod(0o500)
        output = folder / "report.json"
    try:
        result = project.run("--output", str(output))
    finally:
        if how == "read-only-folder":
            (project.root / "readonly").chmod(0o700)
    assert result.code == 2, result.stderr
    assert "cannot write a report there" in result.stderr
    assert project.calls() == []
    assert not output.exists()
    if how == "parent-is-a-file":
        assert (project.root / "blocker").read_text("utf-8") == "not a folder\n"
    assert result.stdout == ""


@pytest.mark.slow
def test_no_fault_leaves_a_stray_file(project: Project, tmp_path: Path) -> None:
    cases = [case("a"), case("boom", "raise"), case("odd", "nonobject")]
    project.suite("main", "py", cases).write()
    result, _ = project.evaluate()
    assert result.code == 4
    assert sorted(p.name for p in project.output().parent.iterdir()) == ["report.json"]
