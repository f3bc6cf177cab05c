"""The action's image, built from the Dockerfile and run as a GitHub runner runs a Docker
action's step (engine.ContainerRunner): ``docker run`` of the image with action.yml's args
(``action``), the workspace mounted at /github/workspace as the working directory, the event,
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as mounted files, every input as INPUT_*, the host's
network (the fake GitHub listens on loopback), and every mounted folder owned by the
runner's uid 1001.

The pull-request check asserts what the end-to-end test asserts of ``goldgate action`` on the
host (scenarios.py: outputs, job summary, annotations, exit codes, one sticky comment created
then updated, no secret anywhere), here through tini, the image's venv and the container user.
Cancelling the step as the runner does (SIGINT to the ``docker run`` client, SIGTERM 7.5 s
later, then a kill) reaches goldgate through tini: exit 130 and an incomplete report in the
workspace. A command target killed at its deadline leaves no zombie behind (tini reaps it;
goldgate as PID 1 would not, which the control run shows).

They start a private dockerd (root, Debian's docker.io) and build on a local mmdebstrap base;
where that cannot happen they skip with the reason (see engine.py).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.fake_github import TOKEN, FakeGitHub
from run.support import attempt_of, read_report_json

from .conftest import SECRET, make_runner
from .engine import (
    RUNNER_UID,
    ContainerRunner,
    Engine,
    input_defaults,
)
from .scenarios import gated_commented_once_and_summarized
from .support import why

# The session's private dockerd and image (conftest.py), on one worker under pytest-xdist.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docker")]

PROJECT_FILES = Path(__file__).parent / "project_files"
# The runner's cancellation: SIGINT to the step's process, SIGTERM 7.5 s later, a kill 2.5 s
# after that (GitHub's documentation of job cancellation).
CANCEL_ESCALATION = ((signal.SIGTERM, 7.5), (signal.SIGKILL, 2.5))


@pytest.fixture
def runner(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    engine: Engine,
    image: str,
) -> ContainerRunner:
    return make_runner(
        tmp_path, fake, payload, baseline_zip, ContainerRunner, engine=engine, image=image
    )


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


def _written_by_the_runner_user(path: Path) -> None:
    """Written by the container's uid 1001, the runner's user: later steps can read it."""
    assert path.is_file(), path
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
    assert "action" in usage.stdout


def test_a_pull_request_is_gated_commented_once_and_summarized_in_the_image(
    runner: ContainerRunner,
) -> None:
    """The end-to-end test's assertions, in the image. The comment's marker is action.yml's
    default comment_id (``goldgate``): the runner's defaults arrived as INPUT_*. The planted
    secret and the token reach the container by name, never on docker's command line."""
    gated_commented_once_and_summarized(runner, input_defaults()["INPUT_COMMENT_ID"])

    command, env = runner.docker_run({})
    assert {env["OPENAI_API_KEY"], env["INPUT_GITHUB_TOKEN"]} == {SECRET, TOKEN}
    assert [word for word in command if SECRET in word or TOKEN in word] == []  # -e NAME only

    outputs = runner.outputs()
    for name in ("report", "comparison"):
        _written_by_the_runner_user(runner.workspace / outputs[name])


def _cancel_as_the_runner_does(
    process: subprocess.Popen[str], signum: signal.Signals
) -> tuple[str, str, list[str]]:
    """Signal the ``docker run`` client, escalating as the runner does while it runs on; its
    output and the signals sent."""
    sent = [signum.name]
    process.send_signal(signum)
    for then, after in CANCEL_ESCALATION:
        try:
            stdout, stderr = process.communicate(timeout=after)
        except subprocess.TimeoutExpired:
            sent.append(then.name)
            process.send_signal(then)
        else:
            return stdout, stderr, sent
    stdout, stderr = process.communicate(timeout=30)
    return stdout, stderr, sent


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cancelling_the_step_leaves_an_incomplete_report_and_exit_130(
    runner: ContainerRunner, signum: signal.Signals
) -> None:
    """The runner cancels a job by signalling the `docker run` client (SIGINT; SIGTERM when a
    runner shuts down), which forwards the signal to PID 1: tini, which passes it on to
    goldgate. The second case sleeps 120 s: the 10 s the runner allows pass long before."""
    project = runner.workspace / "slow"
    _write_project(
        project,
        {"target": {"python": "slow_app:handle"}},
        [_case("quick", {"sleep": 0}, done=True), _case("sleepy", {"sleep": 120}, done=True)],
    )
    process, name = runner.start(config="slow/config/settings.yaml", comment="off", baseline="")
    try:
        deadline = time.monotonic() + 180  # a guard against a hang, not a measurement
        while not (project / "sleeping").exists():
            assert time.monotonic() < deadline, "the sleeping case never started"
            with contextlib.suppress(subprocess.TimeoutExpired):
                stdout, stderr = process.communicate(timeout=0.05)
                pytest.fail(f"the step ended before the sleeping case started:\n{stdout}{stderr}")
        stdout, stderr, sent = _cancel_as_the_runner_does(process, signum)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        runner.engine.run("kill", name, check=False)

    assert process.returncode == 130, (sent, stdout + stderr)
    assert "Traceback" not in stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "130"
    assert why(runner.summary.read_text("utf-8")).startswith(
        "Failed, as fail_on is disagreement: exit code 130, interrupted."
    )
    report = runner.workspace / outputs["report"]
    _written_by_the_runner_user(report)
    data = read_report_json(report)
    assert data["complete"] is False
    assert data["interruption"] == signum.name
    assert data["verdict"]["exit_code"] == 130
    assert attempt_of(data, "main", "quick")["status"] == "completed"
    assert attempt_of(data, "main", "sleepy")["status"] == "cancelled"


@pytest.mark.parametrize("under_tini", [True, False], ids=["tini", "goldgate-as-pid-1"])
def test_a_killed_command_target_leaves_no_zombie(
    runner: ContainerRunner, under_tini: bool
) -> None:
    """The first case's command hangs with a child; goldgate kills the group at the 3 s
    deadline, and the child dies an orphan. The second case counts zombies: there are none,
    under tini and with goldgate itself as PID 1 (the entrypoint without tini) alike, since
    the run's supervisor is the subreaper of what user code starts and collects each orphan
    as it ends (goldgate.base.reaping), whoever PID 1 is."""
    project = runner.workspace / "procs"
    _write_project(
        project,
        {"target": {"command": ["python3", "procs_app.py"]}},
        [
            _case("spawn", {"action": "spawn"}, pid1="tini"),
            _case("census", {"action": "census"}, zombies=[], pid1="tini"),
        ],
    )
    result = runner.run(
        entrypoint=None if under_tini else "goldgate",
        config="procs/config/settings.yaml",
        timeout="3",
        comment="off",
        baseline="",
    )

    assert result.code == 4, result.stdout + result.stderr  # the killed attempt
    data = read_report_json(runner.workspace / runner.outputs()["report"])
    assert attempt_of(data, "main", "spawn")["status"] != "completed"
    census = attempt_of(data, "main", "census")
    assert census["status"] == "completed", census["reason"]
    actual = {check["name"]: check["actual"] for check in census["checks"]}
    if under_tini:
        assert actual == {"zombies": [], "pid1": "tini"}
    else:
        # PID 1 is goldgate, re-executed as `python -m goldgate` (the tokens moved out of
        # its environment).
        assert actual == {"zombies": [], "pid1": "python"}
