"""Issue 29, items 2 and 7, through the real ``goldgate action``: user code (a python target,
an eval) runs in a program that never held the GitHub or Actions tokens, whatever it reads
(its environment, ``/proc/self/environ``, its parent's and grandparent's) and however long
the threads it leaves run; and user code that ends its process still gives the step its
outputs and summary, never a pass."""

from __future__ import annotations

import hashlib
import json
import signal
import time
from pathlib import Path
from typing import Any

from helpers.fake_github import TOKEN
from run.support import CliRun, run_cli, start_cli

from .conftest import SECRET, Runner
from .scenarios import everything_written
from .support import why

ID_TOKEN = "id-token-request-" + SECRET[::-1]
TOKENS = (TOKEN, "actions-runtime-" + SECRET, ID_TOKEN)
NAMES = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)

PROBE = """\
import hashlib
import os
import threading
import time

NAMES = {names!r}
HASHES = {hashes!r}
LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "thread.log")


def _ancestors():
    pids, pid = [os.getpid()], os.getpid()
    for _ in range(3):
        with open(f"/proc/{{pid}}/stat") as stat:
            pid = int(stat.read().rpartition(")")[2].split()[1])
        pids.append(pid)
    return pids


def _leaks():
    found = sorted(name for name in NAMES if name in os.environ)
    found += sorted(key for key, value in os.environ.items() if _hash(value) in HASHES)
    for pid in _ancestors():  # this process, its parent, grandparent and great-grandparent
        try:
            with open(f"/proc/{{pid}}/environ", "rb") as handle:
                entries = handle.read().split(b"\\0")
        except OSError:
            continue
        for entry in entries:
            key, _, value = entry.partition(b"=")
            if key.decode() in NAMES or _hash(value.decode()) in HASHES:
                found.append(f"{{pid}}:{{key.decode()}}")
    return found


def _hash(value):
    return hashlib.sha256(value.encode()).hexdigest()


def _keep_looking():
    until = time.monotonic() + 60
    while time.monotonic() < until:
        with open(LOG, "a") as log:
            log.write(repr(_leaks()) + "\\n")
        time.sleep(0.2)


def handle(request):
    threading.Thread(target=_keep_looking).start()  # not a daemon: left running
    return {{"execution": {{"status": "completed"}}, "payload": {{"found": _leaks()}}}}
"""

SETTINGS = """\
workflows:
  probe:
    revision: "1"
    target:
      python: probe_app:handle
"""


def _probe_project(root: Path) -> Path:
    (root / "config").mkdir(parents=True)
    (root / "evaluation").mkdir()
    hashes = [hashlib.sha256(token.encode()).hexdigest() for token in TOKENS]
    (root / "probe_app.py").write_text(PROBE.format(names=NAMES, hashes=hashes), "utf-8")
    (root / "config" / "settings.yaml").write_text(SETTINGS, "utf-8")
    case = {
        "id": "looks",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "nothing", "path": "/payload/found", "expected": []}],
    }
    dataset = {
        "name": "probe",
        "revision": "1",
        "suites": [{"name": "probe", "workflow": "probe", "cases": [case]}],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(dataset), "utf-8")
    return root / "config" / "settings.yaml"


def _run(runner: Runner, **inputs: str) -> CliRun:
    runner.output.write_text("", "utf-8")
    runner.summary.write_text("", "utf-8")
    env = runner.env(**inputs)
    env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = ID_TOKEN
    return run_cli("action", cwd=runner.workspace, env=env, timeout=180)


def test_a_target_finds_no_token_anywhere_nor_does_a_thread_it_leaves(runner: Runner) -> None:
    config = _probe_project(runner.workspace / "probe")
    started = time.monotonic()

    result = _run(runner, config=str(config.relative_to(runner.workspace)), baseline="")

    assert time.monotonic() - started < 60, "the target's thread kept the run alive"
    assert result.code == 0, result.output
    outputs = runner.outputs()
    assert outputs["exit_code"] == "0"
    report: dict[str, Any] = json.loads((runner.workspace / outputs["report"]).read_text("utf-8"))
    [case] = report["suites"][0]["cases"]
    assert case["attempts"][0]["result"]["payload"]["found"] == []
    log = (runner.workspace / "probe" / "thread.log").read_text("utf-8").splitlines()
    assert log
    assert set(log) == {"[]"}
    for where, text in everything_written(runner, result).items():
        for token in TOKENS:
            lines = [line for line in text.splitlines() if token in line]
            masked = [f"::add-mask::{token}"] if where == "stdout" and token == TOKEN else []
            assert lines == masked, (where, lines)


HOSTILE = """\
import os


async def handle(request):
    os._exit(0)
"""


def test_a_target_that_ends_its_process_is_exit_4_with_outputs_and_summary(
    runner: Runner,
) -> None:
    config = _probe_project(runner.workspace / "probe")
    (runner.workspace / "probe" / "probe_app.py").write_text(HOSTILE, "utf-8")

    result = _run(
        runner, config=str(config.relative_to(runner.workspace)), baseline="", comment="off"
    )

    assert result.code == 4, result.output
    assert "goldgate: the run ended without writing its report" in result.stderr
    assert runner.outputs()["exit_code"] == "4"
    summary = runner.summary.read_text("utf-8")
    assert why(summary).startswith("Failed, as fail_on is disagreement: exit code 4")
    assert "The run wrote no report (exit 4)." in summary


def test_mode_evals_with_an_eval_file_that_ends_its_process_is_exit_4(runner: Runner) -> None:
    evals = runner.workspace / "hostile_evals"
    evals.mkdir()
    (evals / "eval_ends.py").write_text("import os\nos._exit(0)\n", "utf-8")

    result = _run(runner, mode="evals", evals="hostile_evals", baseline="", comment="off")

    assert result.code == 4, result.output
    assert "goldgate: the run ended without writing its report" in result.stderr
    assert runner.outputs()["exit_code"] == "4"
    summary = runner.summary.read_text("utf-8")
    assert "The run wrote no report (exit 4)." in summary


SLOW = """\
import asyncio
import pathlib


async def handle(request):
    if request["envelope"]["payload"].get("slow"):
        pathlib.Path(__file__).with_name("sleeping").touch()
        await asyncio.sleep(120)
    return {"execution": {"status": "completed"}, "payload": {"found": []}}
"""


def test_a_signal_to_the_action_reaches_the_run_which_keeps_what_finished(
    runner: Runner,
) -> None:
    config = _probe_project(runner.workspace / "probe")
    (runner.workspace / "probe" / "probe_app.py").write_text(SLOW, "utf-8")
    dataset_path = runner.workspace / "probe" / "evaluation" / "dataset.json"
    dataset = json.loads(dataset_path.read_text("utf-8"))
    [quick] = dataset["suites"][0]["cases"]
    slow = {**quick, "id": "slow", "input": {"payload": {"slow": True}, "metadata": {}}}
    dataset["suites"][0]["cases"] = [quick, slow]
    dataset_path.write_text(json.dumps(dataset), "utf-8")
    runner.output.write_text("", "utf-8")
    runner.summary.write_text("", "utf-8")
    env = runner.env(
        config=str(config.relative_to(runner.workspace)),
        baseline="",
        comment="off",
        check_run="true",
    )
    process = start_cli("action", cwd=runner.workspace, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (runner.workspace / "probe" / "sleeping").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the slow case never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    except BaseException:
        process.kill()
        process.communicate()
        raise

    assert process.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "130"
    report: dict[str, Any] = json.loads((runner.workspace / outputs["report"]).read_text("utf-8"))
    assert (report["complete"], report["interruption"]) == (False, "SIGINT")
    statuses = [case["attempts"][0]["status"] for case in report["suites"][0]["cases"]]
    assert statuses == ["completed", "cancelled"]
    # The check run created before the run is completed as cancelled, with what finished.
    (check_run,) = runner.fake.check_runs()
    assert (check_run.status, check_run.conclusion) == ("completed", "cancelled")
    assert check_run.title is not None
    assert check_run.title.startswith("⏹️ goldgate: interrupted")
