"""The action's image, built from the Dockerfile and run as a GitHub runner runs a Docker
action: the workspace mounted at /github/workspace as the working directory, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY and GITHUB_EVENT_PATH pointing at mounted files, the inputs as INPUT_*
variables, the host's network, and every mounted folder owned by the runner's uid 1001.

`goldgate action` does not exist yet, so these run what does: `goldgate evaluate`. They show
that the image evaluates a project in the workspace and leaves the report there, readable by
the runner's user; that cancelling the step (SIGINT, or SIGTERM, to the `docker run` client)
reaches goldgate through tini, which exits 130 with an incomplete report; and that a command
target killed at its deadline leaves no zombie behind (tini reaps it; goldgate as PID 1
would not, which the control run shows).

They start a private dockerd (root, Debian's docker.io) and build on a local mmdebstrap base;
where that cannot happen they skip with the reason (see engine.py).
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from run.support import attempt_of, read_report_json

from .engine import RUNNER_UID, Engine, Runner, build_image, private_engine
from .support import REPO_ROOT

pytestmark = pytest.mark.slow

EXAMPLE = REPO_ROOT / "examples" / "support_triage"
PROJECT_FILES = Path(__file__).parent / "project_files"
PR_EVENT = {
    "action": "opened",
    "number": 7,
    "pull_request": {
        "number": 7,
        "base": {"sha": "b" * 40, "ref": "main", "repo": {"full_name": "octo-org/triage"}},
        "head": {"sha": "a" * 40, "ref": "change", "repo": {"full_name": "octo-org/triage"}},
    },
    "repository": {"full_name": "octo-org/triage", "default_branch": "main"},
}


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with private_engine() as running:
        yield running


@pytest.fixture(scope="module")
def image(engine: Engine) -> str:
    return build_image(engine, "goldgate-action:test")


@pytest.fixture(scope="module")
def inputs() -> dict[str, str]:
    """Every input with its default, as the runner passes them (the token is a dummy)."""
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    values = {name: str(spec["default"]) for name, spec in action["inputs"].items()}
    values["github_token"] = "ghs_dummy_token_for_the_container_test"
    return values


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    return Runner.create(tmp_path / "runner", PR_EVENT)


def _write_project(root: Path, workflow: dict[str, Any], cases: list[dict[str, Any]]) -> None:
    (root / "config").mkdir(parents=True)
    (root / "evaluation").mkdir()
    settings = {"workflows": {"app": {"revision": "r1", **workflow}}}
    (root / "config" / "settings.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    manifest = {
        "name": "container_gold",
        "revision": "g1",
        "suites": [{"name": "main", "workflow": "app", "cases": cases}],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest), encoding="utf-8")
    for source in PROJECT_FILES.glob("*.py"):
        shutil.copyfile(source, root / source.name)


def _case(case_id: str, payload: dict[str, Any], **expected: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "input": {"payload": payload, "metadata": {}},
        "expectations": [
            {"name": name, "path": f"/payload/{name}", "expected": value}
            for name, value in expected.items()
        ],
    }


def _report_in(runner: Runner, stdout: str) -> Path:
    """The report the summary names (relative to /github/workspace), on the host."""
    lines = [line for line in stdout.splitlines() if line.startswith("report: ")]
    assert lines, f"no report line in:\n{stdout}"
    path = runner.workspace / lines[-1].removeprefix("report: ")
    assert path.is_file(), path
    return path


def _readable_by_the_runner(path: Path) -> None:
    """Written by the container's uid 1001, the runner's user: later steps can read it."""
    assert path.stat().st_uid == RUNNER_UID
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_image_is_lean_and_runs_goldgate_under_tini_as_the_runner_uid(
    engine: Engine, image: str
) -> None:
    config = json.loads(engine.run("image", "inspect", image).stdout)[0]["Config"]
    probe = engine.run(
        "run", "--rm", "--entrypoint", "sh", image, "-c",
        "command -v pip pip3 gcc cc make || true; ls /opt/goldgate/bin; id -u;"
        "ls -d /opt/tools /build /run/secrets/* 2>/dev/null || true;"
        "python3 -c 'import goldgate, sys; print(sys.prefix)'",
    ).stdout.split()  # fmt: skip

    assert config["Entrypoint"] == ["tini", "--", "goldgate"]
    assert config["Cmd"] == ["--help"]
    assert config["User"] == "1001:1001"
    assert config["WorkingDir"] == "/github/workspace"
    # The build's tools and pip's secrets stayed in the build stage.
    assert not [item for item in config["Env"] if item.startswith("PIP_")]
    assert probe[-2:] == [str(RUNNER_UID), "/opt/goldgate"]
    assert not [word for word in probe if word.startswith("/") and word != "/opt/goldgate"], probe
    assert "pip" not in probe  # no pip in the venv, no compiler on the path
    assert "goldgate" in probe
    usage = engine.run("run", "--rm", image)
    assert "evaluate" in usage.stdout


def test_the_runner_files_and_inputs_reach_the_container_user(
    engine: Engine, image: str, runner: Runner, inputs: dict[str, str]
) -> None:
    """What `goldgate action` will rely on: INPUT_* arrive, the event file is readable, and
    uid 1001 can append outputs and the job summary to the runner's files."""
    script = (
        "import json, os\n"
        "from goldgate.github.workflow import append_summary, write_outputs\n"
        "event = json.load(open(os.environ['GITHUB_EVENT_PATH']))\n"
        "write_outputs(os.environ['GITHUB_OUTPUT'], {\n"
        "    'mode': os.environ['INPUT_MODE'],\n"
        "    'max_concurrency': os.environ['INPUT_MAX_CONCURRENCY'],\n"
        "    'pull_request': str(event['number']),\n"
        "})\n"
        "append_summary(os.environ['GITHUB_STEP_SUMMARY'], '## goldgate')\n"
    )
    runner.hand_over()
    result = engine.run(*runner.docker_run(image, ["-c", script], inputs, entrypoint="python3"))

    assert result.returncode == 0
    entries = re.findall(r"^(\w+)<<(\S+)\n(.*?)\n\2$", runner.output.read_text(), re.M | re.S)
    values = {name: value for name, _delimiter, value in entries}
    assert values == {"mode": "evaluate", "max_concurrency": "1", "pull_request": "7"}
    assert runner.summary.read_text() == "## goldgate\n"


def test_the_example_evaluates_in_the_mounted_workspace(
    engine: Engine, image: str, runner: Runner, inputs: dict[str, str]
) -> None:
    shutil.copytree(
        EXAMPLE,
        runner.workspace / "examples" / "support_triage",
        ignore=shutil.ignore_patterns(".goldgate", "__pycache__"),
    )
    runner.hand_over()
    config = "examples/support_triage/config/settings.yaml"
    result = engine.run(
        *runner.docker_run(image, ["evaluate", "--config", config], inputs), check=False
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict: passed (exit 0)" in result.stdout
    report = _report_in(runner, result.stdout)
    _readable_by_the_runner(report)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["complete"] is True
    assert data["verdict"]["exit_code"] == 0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cancelling_the_step_leaves_an_incomplete_report_and_exit_130(
    engine: Engine, image: str, runner: Runner, inputs: dict[str, str], signum: signal.Signals
) -> None:
    """The runner cancels a job by signalling the `docker run` client, which forwards the
    signal to PID 1: tini, which passes it on to goldgate."""
    project = runner.workspace / "slow"
    _write_project(
        project,
        {"target": {"python": "slow_app:handle"}},
        [_case("quick", {"sleep": 0}, done=True), _case("sleepy", {"sleep": 120}, done=True)],
    )
    runner.hand_over()
    process = engine.start(
        *runner.docker_run(image, ["evaluate", "--config", "slow/config/settings.yaml"], inputs)
    )
    try:
        deadline = time.monotonic() + 60
        while not (project / "sleeping").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the sleeping case never started"
            time.sleep(0.05)
        sent = time.monotonic()
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=30)
    except BaseException:
        process.kill()
        process.communicate()
        raise

    assert process.returncode == 130, stdout + stderr
    assert time.monotonic() - sent < 15  # the 120 s sleep was abandoned, not awaited
    assert f"(incomplete: {signum.name})" in stdout
    report = _report_in(runner, stdout)
    _readable_by_the_runner(report)
    data = read_report_json(report)
    assert data["complete"] is False
    assert data["interruption"] == signum.name
    assert data["verdict"]["exit_code"] == 130
    assert attempt_of(data, "main", "quick")["status"] == "completed"
    assert attempt_of(data, "main", "sleepy")["status"] == "cancelled"


@pytest.mark.parametrize("under_tini", [True, False], ids=["tini", "goldgate-as-pid-1"])
def test_a_killed_command_target_leaves_no_zombie(
    engine: Engine, image: str, runner: Runner, inputs: dict[str, str], under_tini: bool
) -> None:
    """The first case's command hangs with a child; goldgate kills the group at the 3 s
    deadline, and the child dies an orphan of PID 1. The second case counts zombies. Under
    tini there are none; the control run, with goldgate itself as PID 1 (the entrypoint
    without tini), keeps the zombie: the census can tell."""
    project = runner.workspace / "procs"
    _write_project(
        project,
        {"target": {"command": ["python3", "procs_app.py"]}},
        [
            _case("spawn", {"action": "spawn"}, pid1="tini"),
            _case("census", {"action": "census"}, zombies=[], pid1="tini"),
        ],
    )
    runner.hand_over()
    args = ["evaluate", "--config", "procs/config/settings.yaml", "--timeout", "3"]
    entrypoint = None if under_tini else "goldgate"
    result = engine.run(*runner.docker_run(image, args, inputs, entrypoint=entrypoint), check=False)

    assert result.returncode == 4, result.stdout + result.stderr  # the killed attempt
    data = read_report_json(_report_in(runner, result.stdout))
    assert attempt_of(data, "main", "spawn")["status"] != "completed"
    census = attempt_of(data, "main", "census")
    assert census["status"] == "completed", census["reason"]
    actual = {check["name"]: check["actual"] for check in census["checks"]}
    if under_tini:
        assert actual == {"zombies": [], "pid1": "tini"}
    else:
        assert actual == {"zombies": ["sleep"], "pid1": "goldgate"}
