"""Issue 39, item 4 through the real ``goldgate evaluate``: what a target gives that no report
can hold is that attempt's error (one sentence naming what and where) and every other attempt
is kept; a target that changes the working folder moves neither ``--output`` nor the default
report folder; a daemon a target starts does not hold goldgate's stdout open after it exits
(``goldgate evaluate ... | cat`` ends)."""

from __future__ import annotations

import signal
import sys

import pytest

from helpers.processes import assert_gone, piped_to_cat, signalled_inside

from .support import (
    GOLDGATE,
    STATUS_OK,
    Project,
    attempt_of,
    case,
    cli_env,
    expect,
    read_report_json,
    start_cli,
)

pytestmark = pytest.mark.slow  # every test here starts goldgate

ODD_APP = """\
import os, subprocess, sys, time

def _ok():
    return {"execution": {"status": "completed"}, "payload": {"category": "billing"}}

async def handle(request):
    mode = request["envelope"]["payload"]["mode"]
    if mode == "chdir":
        os.makedirs("elsewhere", exist_ok=True)
        os.chdir("elsewhere")
    if mode == "daemon":
        code = ("import os, sys, time; os.setsid(); "
                "open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)")
        marker = os.environ["GG_DAEMON_PID"]
        subprocess.Popen([sys.executable, "-c", code, marker])
        while not os.path.exists(marker):
            time.sleep(0.01)
    if mode == "raise":
        raise ValueError("a message \\ud800")
    if mode == "deaf":
        import asyncio, signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        open(os.environ["GG_MARKER"], "w").close()
        while True:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                pass
    return _ok()

async def moving_scorer(actual, expected):
    os.makedirs("elsewhere", exist_ok=True)
    os.chdir("elsewhere")
    return actual == expected
"""

ODD_COMMAND = """\
import sys
sys.stdin.read()
mode = sys.argv[1]
if mode == "surrogate":
    print('{"execution": {"status": "completed"}, "payload": {"answer": "cut \\\\ud83d"}}')
else:
    print('{"execution": {"status": "completed"}, "payload": {"category": "billing"}}')
"""


def _odd(project: Project) -> Project:
    (project.root / "odd_app.py").write_text(ODD_APP, "utf-8")
    (project.root / "odd_cmd.py").write_text(ODD_COMMAND, "utf-8")
    project.workflows["odd"] = {"revision": "o", "target": {"python": "odd_app:handle"}}
    project.workflows["odd_cmd"] = {
        "revision": "c",
        "target": {"command": [sys.executable, str(project.root / "odd_cmd.py"), "surrogate"]},
    }
    return project


def test_a_target_result_no_report_can_hold_is_its_attempts_error(project: Project) -> None:
    _odd(project)
    project.suite("main", "odd", [case("first"), case("raises", "raise", STATUS_OK)])
    project.suite("cmd", "odd_cmd", [case("cut", "ok", STATUS_OK)])
    project.suite("later", "py", [case("kept")]).write()

    result, report = project.evaluate()

    assert result.code == 4, result.output
    assert report is not None
    assert "Traceback" not in result.stderr
    assert attempt_of(report, "main", "first")["status"] == "completed"
    raised = attempt_of(report, "main", "raises")
    assert (raised["status"], raised["reason"]) == (
        "failed",
        "python target raised ValueError; the exception record holds a string that is not "
        "UTF-8 at /message, which a report cannot hold",
    )
    cut = attempt_of(report, "cmd", "cut")
    # A lone surrogate escaped in JSON text is not strict JSON: its place, never the value.
    assert (cut["status"], cut["reason"]) == (
        "failed",
        "command stdout is not strict JSON (line 1, column 62)",
    )
    assert attempt_of(report, "later", "kept")["status"] == "completed"


@pytest.mark.parametrize("named", [True, False], ids=["--output", "default"])
def test_a_target_that_changes_the_working_folder_moves_no_report(
    project: Project, named: bool
) -> None:
    _odd(project)
    project.suite("main", "odd", [case("moves", "chdir", STATUS_OK), case("after")]).write()

    args = ["--output", "out.json"] if named else []
    result = project.run(*args)

    assert result.code == 0, result.output
    assert (project.root / "elsewhere").is_dir()  # the target did move
    assert not list((project.root / "elsewhere").rglob("*.json"))
    if named:
        assert (project.root / "out.json").is_file()
        assert "report: out.json" in result.stdout
    else:
        [written] = (project.root / ".goldgate" / "evaluations").glob("*.json")
        assert f"report: {written.relative_to(project.root)}" in result.stdout


def test_a_daemon_a_target_starts_does_not_hold_the_pipeline_open(project: Project) -> None:
    _odd(project)
    project.suite("main", "odd", [case("forks", "daemon", STATUS_OK)]).write()
    marker = project.root / "daemon.pid"
    command = [*GOLDGATE, "evaluate", "--config", str(project.settings_path)]

    finished = piped_to_cat(
        [*command, "--output", "out.json"], project.root, cli_env({"GG_DAEMON_PID": str(marker)})
    )

    assert finished.returncode == 0, finished.stderr
    assert "verdict: passed (exit 0)" in finished.stdout
    assert_gone([int(marker.read_text())], strict=False)


def test_a_custom_scorer_that_changes_the_working_folder_moves_no_replayed_report(
    project: Project,
) -> None:
    _odd(project)
    project.scorers["mover"] = {"import": "odd_app:moving_scorer", "revision": "1"}
    moved = expect("moved", "/payload/category", "billing", "custom", "mover")
    project.suite("main", "odd", [case("a", "ok", STATUS_OK, moved), case("b")]).write()
    first = project.run("--output", "run.json")
    assert first.code == 0, first.output
    assert (project.root / "run.json").is_file()  # the run's scorer moved no report either

    result = project.run("--replay", "run.json", "--output", "replayed.json")

    assert result.code == 0, result.output
    assert (project.root / "replayed.json").is_file()
    assert "replayed.json" in result.stdout
    assert not list((project.root / "elsewhere").rglob("*.json"))


def test_a_target_that_ignores_sigterm_is_stopped_with_its_report_and_130(
    project: Project,
) -> None:
    _odd(project)
    cases = [case("first"), case("deaf", "deaf", STATUS_OK), case("never")]
    project.suite("main", "odd", cases).write()
    marker, output = project.root / "inside", project.output()
    process = start_cli(
        "evaluate", "--config", str(project.settings_path), "--output", str(output),
        cwd=project.root, env={"GG_MARKER": str(marker)},
    )  # fmt: skip
    stdout, stderr = signalled_inside(process, marker, signal.SIGTERM)

    assert process.returncode == 130, stderr
    assert "(incomplete: SIGTERM)" in stdout
    report = read_report_json(output)
    assert (report["complete"], report["interruption"]) == (False, "SIGTERM")
    assert attempt_of(report, "main", "first")["status"] == "completed"
    assert attempt_of(report, "main", "deaf")["status"] == "cancelled"
    assert attempt_of(report, "main", "never")["status"] == "cancelled"
