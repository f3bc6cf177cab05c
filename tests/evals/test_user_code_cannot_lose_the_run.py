"""Issue 39, item 4 for Python evals, through the real ``goldgate evals run``: a value no
report can hold is its attempt's error and every other attempt is kept (with and without the
accelerators); an eval that changes the working folder moves neither ``--output`` nor the
default report folder; a daemon an eval starts does not hold goldgate's stdout open after it
exits (``goldgate evals run ... | cat`` ends); an async eval that ignores SIGTERM is stopped,
and the run ends with its report and 130."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from evals import test_supervised_evals as supervised
from evals.test_supervised_evals import project
from helpers.processes import assert_gone, piped_to_cat, signalled_inside
from run.support import GOLDGATE, cli_env, run_cli, start_cli

pytestmark = pytest.mark.slow  # every test here starts goldgate

HEADER = (
    "import asyncio, math, os, signal, subprocess, sys, time\nfrom goldgate.evals import eval\n"
)


def put(project: Path, name: str, source: str) -> Path:
    return supervised.put(project, name, source, HEADER)


def _attempts(path: Path) -> dict[str, dict[str, Any]]:
    report = json.loads(path.read_text("utf-8"))
    return {case["id"]: case["attempts"][0] for case in report["suites"][0]["cases"]}


ODD = """
@eval(dataset="d")
def before(ctx):
    ctx.output = "fine"

@eval(dataset="d")
def truncated(ctx):
    ctx.output = "a truncated answer \\ud83d"

@eval(dataset="d")
def digits(ctx):
    ctx.output = {"n": 10 ** 5000}

@eval(dataset="d")
def infinite(ctx):
    ctx.output = "ok"
    ctx.metadata = {"m": [1, math.inf]}

@eval(dataset="d")
def stored(ctx):
    ctx.store(output="ok", trace_data={"\\udc80": 1})

@eval(dataset="d")
def message(ctx):
    raise RuntimeError("a message \\ud800")

@eval(dataset="d")
def after(ctx):
    ctx.output = "fine"
"""

CANNOT = "which a report cannot hold"
REASONS = {
    "before": None,
    "truncated": f"the result holds a string that is not UTF-8 at /output, {CANNOT}",
    "digits": f"the result holds an integer with too many digits at /output/n, {CANNOT}",
    "infinite": f"the result holds a number that is NaN or infinite at /metadata/m/1, {CANNOT}",
    "stored": f"the result holds an object key that is not UTF-8 at /trace_data, {CANNOT}",
    "message": f"the result holds a string that is not UTF-8 at /error, {CANNOT}",
    "after": None,
}


@pytest.mark.parametrize("accelerators", ["1", "0"])
def test_values_no_report_can_hold_are_each_their_attempts_error(
    project: Path, accelerators: str
) -> None:
    put(project, "eval_odd.py", ODD)

    result = run_cli(
        "evals", "run", "evals", "--output", "out.json", cwd=project,
        env={"GOLDGATE_ACCELERATORS": accelerators},
    )  # fmt: skip

    assert result.code == 4, result.output  # runtime failures, the report written
    assert "Traceback" not in result.stderr
    attempts = _attempts(project / "out.json")
    assert {name: attempt.get("reason") for name, attempt in attempts.items()} == REASONS
    for name, reason in REASONS.items():
        assert attempts[name]["status"] == ("completed" if reason is None else "failed")


CHDIR = """
@eval(dataset="d")
def moves(ctx):
    os.makedirs("elsewhere", exist_ok=True)
    os.chdir("elsewhere")
    ctx.output = "ok"

@eval(dataset="d")
async def moves_too(ctx):
    os.makedirs("further", exist_ok=True)
    os.chdir("further")
    ctx.output = "ok"
"""


@pytest.mark.parametrize("output", [["--output", "out.json"], []], ids=["--output", "default"])
def test_an_eval_that_changes_the_working_folder_moves_no_report(
    project: Path, output: list[str]
) -> None:
    put(project, "eval_moves.py", CHDIR)

    result = run_cli("evals", "run", "evals", *output, cwd=project)

    assert result.code == 0, result.output
    if output:
        assert (project / "out.json").is_file()
        assert "report: out.json" in result.stdout  # shown from where the command started
    else:
        [written] = (project / ".goldgate" / "evaluations").glob("*.json")
        assert f"report: {written.relative_to(project)}" in result.stdout
    assert (project / "elsewhere" / "further").is_dir()  # the evals did move
    assert not list((project / "elsewhere").rglob("*.json"))


DAEMON = """
@eval(dataset="d")
def forks(ctx):
    code = (
        "import os, sys, time; os.setsid(); "
        "open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)"
    )
    subprocess.Popen([sys.executable, "-c", code, os.environ["GG_DAEMON_PID"]])
    while not os.path.exists(os.environ["GG_DAEMON_PID"]):
        time.sleep(0.01)
    ctx.output = "ok"
"""


def test_a_daemon_an_eval_starts_does_not_hold_the_pipeline_open(project: Path) -> None:
    put(project, "eval_daemon.py", DAEMON)
    marker = project / "daemon.pid"
    command = [*GOLDGATE, "evals", "run", "evals", "--output", "out.json"]

    finished = piped_to_cat(command, project, cli_env({"GG_DAEMON_PID": str(marker)}))

    assert finished.returncode == 0, finished.stderr
    assert "verdict: passed (exit 0)" in finished.stdout
    assert_gone([int(marker.read_text())], strict=False)


IGNORES_SIGTERM = """
@eval(dataset="d")
def fine(ctx):
    ctx.output = "ok"

@eval(dataset="d")
async def deaf(ctx):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    open(os.environ["GG_MARKER"], "w").close()
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass

@eval(dataset="d")
async def after(ctx):
    ctx.output = "after"
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_async_eval_that_ignores_the_signal_is_stopped_with_a_report_and_130(
    project: Path, signum: signal.Signals
) -> None:
    put(project, "eval_deaf.py", IGNORES_SIGTERM)
    marker = project / "inside"
    process = start_cli(
        "evals", "run", "evals", "--timeout", "300", "--output", "out.json", cwd=project,
        env={"GG_MARKER": str(marker)},
    )  # fmt: skip
    stdout, stderr = signalled_inside(process, marker, signum)

    assert process.returncode == 130, stderr
    assert f"(incomplete: {signum.name})" in stdout
    report = json.loads((project / "out.json").read_text("utf-8"))
    assert (report["complete"], report["interruption"]) == (False, signum.name)
    attempts = _attempts(project / "out.json")
    assert attempts["fine"]["status"] == "completed"
    assert attempts["deaf"]["status"] == "cancelled"
    assert attempts["after"]["status"] == "cancelled"


JUDGED = """
def judge(result):
    if os.environ.get("GG_ODD"):
        return {"key": "judge", "passed": True, "notes": "a truncated note \\ud83d"}
    return True

@eval(dataset="d", evaluators=[judge])
def judged(ctx):
    ctx.output = "ok"

@eval(dataset="d")
def plain(ctx):
    ctx.output = "ok"
"""


def test_regrade_whose_evaluator_gives_what_no_report_can_hold_keeps_the_rest(
    project: Path,
) -> None:
    put(project, "eval_judged.py", JUDGED)
    first = run_cli("evals", "run", "evals", "--output", "run.json", cwd=project)
    assert first.code == 0, first.output

    result = run_cli(
        "evals", "regrade", "run.json", "--output", "again.json", cwd=project,
        env={"GG_ODD": "1"},
    )  # fmt: skip

    assert result.code == 4, result.output
    attempts = _attempts(project / "again.json")
    assert (attempts["judged"]["status"], attempts["judged"]["reason"]) == (
        "failed",
        f"the result holds a string that is not UTF-8 at /scores/1/notes, {CANNOT}",
    )
    assert attempts["plain"]["status"] == "completed"


def test_an_eval_file_that_changes_the_working_folder_at_import_moves_no_other_file(
    project: Path,
) -> None:
    put(project, "eval_a.py", 'os.chdir("/")\n\n@eval(dataset="d")\ndef a(ctx):\n    pass\n')
    put(project, "eval_b.py", '@eval(dataset="d")\ndef b(ctx):\n    ctx.output = "b"\n')

    result = run_cli(
        "evals", "run", "evals/eval_a.py", "evals/eval_b.py::b", "--output", "out.json",
        cwd=project,
    )  # fmt: skip

    assert result.code == 0, result.output
    assert set(_attempts(project / "out.json")) == {"a", "b"}
    assert "report: out.json" in result.stdout


__all__ = ["project"]  # the fixture, shared with test_supervised_evals
