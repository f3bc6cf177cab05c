"""Issue 29, items 2 and 10 for Python evals, through the real ``goldgate evals run`` and
``goldgate evals regrade``: an eval or eval file that ends the process, raises
KeyboardInterrupt at import, hangs its import or ignores being cancelled (or SIGTERM) never
gives a false outcome."""

from __future__ import annotations

import json
import signal
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from run.support import run_cli, start_cli

ENDED = "goldgate: the run ended without writing its report"
HEADER = "import asyncio, os, time\nfrom goldgate.evals import eval\n"
FINE = """
@eval(dataset="d")
def fine(ctx):
    ctx.output = "ok"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evaluation").mkdir()  # what makes it a project folder
    return tmp_path


def put(project: Path, name: str, source: str, header: str = HEADER) -> Path:
    path = project / "evals" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + textwrap.dedent(source), "utf-8")
    return path


def _report(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


@pytest.mark.parametrize(
    "source",
    [
        "os._exit(0)\n",  # the eval file, at import
        FINE + '\n@eval(dataset="d")\nasync def ends(ctx):\n    os._exit(0)\n',  # an eval
        FINE + '\n@eval(dataset="d")\ndef ends_too(ctx):\n    os._exit(0)\n',
    ],
    ids=["at-import", "async-eval", "sync-eval"],
)
def test_an_eval_that_ends_the_process_is_exit_4(project: Path, source: str) -> None:
    put(project, "eval_hostile.py", source)

    result = run_cli("evals", "run", "evals", "--output", "out.json", cwd=project)

    assert result.code == 4, result.output
    assert f"{ENDED} (its process exited with status 0)" in result.stderr
    assert "verdict: passed" not in result.stdout
    assert not (project / "out.json").exists()


def test_keyboard_interrupt_raised_by_an_eval_file_at_import_is_exit_2(project: Path) -> None:
    put(project, "eval_hostile.py", "raise KeyboardInterrupt\n")

    result = run_cli("evals", "run", "evals", cwd=project)

    assert result.code == 2, result.output
    assert "eval_hostile.py:3: the eval file does not import: importing it raised " in (
        result.stderr
    )
    assert "interrupted" not in result.stderr


def test_keyboard_interrupt_raised_by_an_eval_is_a_runtime_failure(project: Path) -> None:
    put(
        project,
        "eval_hostile.py",
        FINE + '\n@eval(dataset="d")\ndef k(ctx):\n    raise KeyboardInterrupt\n',
    )

    result = run_cli("evals", "run", "evals", "--output", "out.json", cwd=project)

    assert result.code == 4, result.output
    report = _report(project / "out.json")
    assert report["complete"] is True
    statuses = [c["attempts"][0]["status"] for c in report["suites"][0]["cases"]]
    assert statuses == ["completed", "failed"]


def test_an_eval_file_whose_import_hangs_is_ended_by_the_timeout(project: Path) -> None:
    put(project, "eval_hostile.py", "time.sleep(10**6)\n")
    started = time.monotonic()

    result = run_cli("evals", "run", "evals", "--timeout", "1", cwd=project)

    assert time.monotonic() - started < 20
    assert result.code == 4, result.output
    assert (
        "goldgate: importing eval file evals/eval_hostile.py did not finish within 1 s "
        "(--timeout); nothing was run." in result.stderr
    )


IGNORES = (
    FINE
    + """
@eval(dataset="d")
async def stubborn(ctx):
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass


@eval(dataset="d")
async def after(ctx):  # never awaits: a cancellation cannot reach it
    ctx.output = "after"
"""
)


def test_an_async_eval_that_ignores_cancellation_times_out_and_the_run_goes_on(
    project: Path,
) -> None:
    put(project, "eval_stubborn.py", IGNORES)
    started = time.monotonic()

    result = run_cli("evals", "run", "evals", "--timeout", "1", "--output", "out.json", cwd=project)

    assert time.monotonic() - started < 20
    assert result.code == 4, result.output
    report = _report(project / "out.json")
    assert report["complete"] is True
    attempts = {c["id"]: c["attempts"][0] for c in report["suites"][0]["cases"]}
    assert attempts["fine"]["status"] == "completed"
    assert (attempts["stubborn"]["status"], attempts["stubborn"]["reason"]) == (
        "timed_out",
        "the target ignored being cancelled at the attempt's deadline",
    )
    assert attempts["after"]["status"] == "completed"


def test_sigterm_stops_an_async_eval_that_ignores_it_with_an_incomplete_report(
    project: Path,
) -> None:
    put(project, "eval_stubborn.py", IGNORES)
    process = start_cli(
        "evals", "run", "evals", "--timeout", "300", "--output", "out.json", cwd=project
    )
    try:
        time.sleep(2.0)  # inside the stubborn eval by now
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=30)
    except BaseException:
        process.kill()
        process.communicate()
        raise

    assert process.returncode == 130, stderr
    assert "(incomplete: SIGTERM)" in stdout
    report = _report(project / "out.json")
    assert (report["complete"], report["interruption"]) == (False, "SIGTERM")
    attempts = {c["id"]: c["attempts"][0] for c in report["suites"][0]["cases"]}
    assert attempts["fine"]["status"] == "completed"
    assert attempts["stubborn"]["status"] == "cancelled"
    assert attempts["after"]["status"] == "cancelled"  # nothing starts after the stop


REGRADED = """
def judge(result):
    if os.environ.get("GG_REGRADE_EXIT"):
        os._exit(0)
    return True


@eval(dataset="d", evaluators=[judge])
def judged(ctx):
    ctx.output = "ok"
"""


def test_regrade_whose_evaluator_ends_the_process_is_exit_4(project: Path) -> None:
    put(project, "eval_judged.py", REGRADED)
    first = run_cli("evals", "run", "evals", "--output", "run.json", cwd=project)
    assert first.code == 0, first.output

    result = run_cli(
        "evals", "regrade", "run.json", "--output", "again.json", cwd=project,
        env={"GG_REGRADE_EXIT": "1"},
    )  # fmt: skip

    assert result.code == 4, result.output
    assert f"{ENDED} (its process exited with status 0)" in result.stderr
    assert not (project / "again.json").exists()


IGNORING_EVALUATOR = """
async def judge(result):
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass


@eval(dataset="d", evaluators=[judge])
async def judged(ctx):
    ctx.output = "ok"
"""


def test_an_async_evaluator_that_ignores_cancellation_times_out_its_attempt(
    project: Path,
) -> None:
    put(project, "eval_judged.py", IGNORING_EVALUATOR + FINE)

    result = run_cli("evals", "run", "evals", "--timeout", "1", "--output", "out.json", cwd=project)

    assert result.code == 4, result.output
    attempts = {
        c["id"]: c["attempts"][0] for c in _report(project / "out.json")["suites"][0]["cases"]
    }
    assert attempts["judged"]["status"] == "timed_out"
    assert attempts["fine"]["status"] == "completed"
