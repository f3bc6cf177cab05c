"""Issue 29, items 2 and 10 through the real CLI: user code that ends the process, raises
KeyboardInterrupt at import, hangs its import or ignores being cancelled never gives a false
outcome; the run's code is decided by a process user code cannot end
(``goldgate.app.supervisor``)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from .support import STATUS_OK, Project, case, expect, start_cli

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

HOSTILE = """\
import os
import signal
import time

MODE = {mode!r}
if MODE == "exit_at_import":
    os._exit(0)
if MODE == "keyboard_at_import":
    raise KeyboardInterrupt
if MODE == "hang_at_import":
    time.sleep(10**6)


def _ok():
    return {{"execution": {{"status": "completed"}}, "payload": {{"category": "billing"}}}}


async def handle(request):
    if request["envelope"]["payload"].get("mode") == "exit":
        os._exit(0)
    if request["envelope"]["payload"].get("mode") == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    return _ok()


async def scorer(actual, expected):
    if MODE == "exit_in_scorer":
        os._exit(0)
    return True
"""

ENDED = "goldgate: the run ended without writing its report"


def _hostile(project: Project, mode: str, *, scored: bool = False) -> Project:
    (project.root / "hostile_mod.py").write_text(HOSTILE.format(mode=mode), "utf-8")
    project.workflows["bad"] = {"revision": "b", "target": {"python": "hostile_mod:handle"}}
    if scored:
        project.scorers["bad"] = {"import": "hostile_mod:scorer", "revision": "1"}
    return project


def _no_pass(stdout: str) -> None:
    assert "verdict: passed" not in stdout


@pytest.mark.parametrize(
    ("case_mode", "how"),
    [
        ("exit", "its process exited with status 0"),
        ("segfault", "its process was killed by SIGSEGV"),
    ],
)
def test_a_target_that_ends_the_process_is_exit_4_naming_how(
    project: Project, case_mode: str, how: str
) -> None:
    _hostile(project, "none")
    project.suite("main", "py", [case("first")])
    project.suite("later", "bad", [case("ends", case_mode, STATUS_OK)]).write()

    result, report = project.evaluate()

    assert result.code == 4, result.output
    assert report is None
    _no_pass(result.stdout)
    assert f"{ENDED} ({how})." in result.stderr
    assert list((project.root / "out").iterdir()) == []  # the empty temporary file is gone


def test_a_run_that_ends_after_writing_part_of_its_report_names_what_it_kept(
    project: Project,
) -> None:
    _hostile(project, "none")
    big = "x" * 20_000  # the report is written in chunks of a megabyte: pass one
    project.suite("main", "py", [case(f"c{index}", "ok", echo=big) for index in range(80)])
    project.suite("later", "bad", [case("ends", "exit", STATUS_OK)]).write()

    result, report = project.evaluate()

    assert result.code == 4, result.output
    assert report is None
    [sentence] = [line for line in result.stderr.splitlines() if line.startswith(ENDED)]
    assert "(its process exited with status 0); what it wrote before it ended is in " in sentence
    kept = Path(sentence.rsplit(" is in ", 1)[1].removesuffix("."))
    kept = kept if kept.is_absolute() else project.root / kept
    assert kept.read_bytes().startswith(b'{"format":')


@pytest.mark.parametrize("mode", ["exit_at_import", "exit_in_scorer"])
def test_a_module_or_scorer_that_ends_the_process_is_exit_4(project: Project, mode: str) -> None:
    _hostile(project, mode, scored=True)
    scored = expect("category", "/payload/category", "billing", "custom", "bad")
    project.suite("main", "bad", [case("a", "ok", scored)]).write()

    result, report = project.evaluate()

    assert result.code == 4, result.output
    assert report is None
    _no_pass(result.stdout)
    assert f"{ENDED} (its process exited with status 0)" in result.stderr


def test_a_report_refused_in_json_is_still_one_json_document(project: Project) -> None:
    _hostile(project, "none")
    project.suite("main", "bad", [case("ends", "exit", STATUS_OK)]).write()

    result = project.run("--format", "json", "--output", str(project.output()))

    assert result.code == 4, result.output
    refusal = json.loads(result.stdout)
    assert refusal["ok"] is False
    assert refusal["error"].startswith("the run ended without writing its report")


@pytest.mark.parametrize("scored", [False, True])
def test_keyboard_interrupt_raised_at_import_is_a_bad_module_not_an_interruption(
    project: Project, scored: bool
) -> None:
    _hostile(project, "keyboard_at_import", scored=scored)
    if scored:  # the scorer's import comes first: the target is a good one
        scorer = expect("category", "/payload/category", "billing", "custom", "bad")
        project.suite("main", "py", [case("a", "ok", scorer)]).write()
    else:
        project.suite("main", "bad", [case("a")]).write()

    result, report = project.evaluate()

    assert result.code == 2, result.output
    assert report is None
    assert "raised KeyboardInterrupt" in result.stderr
    assert "interrupted" not in result.stderr


def test_an_import_that_hangs_is_ended_by_the_timeout(project: Project) -> None:
    _hostile(project, "hang_at_import")
    project.suite("main", "bad", [case("a")]).write()
    started = time.monotonic()

    result, report = project.evaluate("--timeout", "1")

    assert time.monotonic() - started < 20
    assert result.code == 4, result.output
    assert report is None
    assert (
        "goldgate: importing python target 'hostile_mod:handle' did not finish within 1 s "
        "(--timeout); nothing was run." in result.stderr
    )


def test_a_real_signal_while_importing_is_still_an_interruption(project: Project) -> None:
    _hostile(project, "hang_at_import")
    project.suite("main", "bad", [case("a")]).write()
    process = start_cli("evaluate", "--config", str(project.settings_path), cwd=project.root)
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stderr
    assert "goldgate: interrupted" in stderr
    assert "Traceback" not in stderr
    assert stdout == ""


IGNORES_CANCELLATION = """\
import asyncio


async def handle(request):
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass
"""


def test_an_async_target_that_ignores_cancellation_is_stopped_by_the_watchdog(
    project: Project,
) -> None:
    (project.root / "stubborn_mod.py").write_text(IGNORES_CANCELLATION, "utf-8")
    project.workflows["stubborn"] = {"revision": "s", "target": {"python": "stubborn_mod:handle"}}
    project.suite("main", "stubborn", [case("stuck")])
    project.suite("after", "py", [case("fine")]).write()
    started = time.monotonic()

    result, report = project.evaluate("--timeout", "1")

    assert time.monotonic() - started < 20
    assert result.code == 4, result.output
    assert report is not None
    assert report["complete"] is True
    [stuck] = report["suites"][0]["attempts"]
    assert (stuck["status"], stuck["reason"]) == (
        "timed_out",
        "the target ignored being cancelled at the attempt's deadline",
    )
    [fine] = report["suites"][1]["attempts"]
    assert fine["status"] == "completed"
