"""The action's response cache lives outside the checkout: a relative ``cache`` name is
under RUNNER_TEMP, so answers a pull request commits in the workspace are never read; an
absolute path inside the checkout whose files git tracks is refused (exit 2, naming it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from goldgate.app.action.inputs import read_inputs
from run.support import run_cli

from .conftest import Runner

PLANTED = '{"format": "goldgate.cache/2", "key": "x", "document": {}}'


def test_a_relative_cache_name_is_under_runner_temp() -> None:
    temp = "/home/runner/work/_temp"
    assert read_inputs({"INPUT_CACHE": "goldgate-cache", "RUNNER_TEMP": temp}).cache == Path(
        temp, "goldgate-cache"
    )
    assert read_inputs({"INPUT_CACHE": "/srv/cache", "RUNNER_TEMP": temp}).cache == Path(
        "/srv/cache"
    )
    assert read_inputs({"INPUT_CACHE": "", "RUNNER_TEMP": temp}).cache is None
    outside = read_inputs({"INPUT_CACHE": "c"}).cache
    assert outside is not None
    assert outside.is_absolute()  # the system's temporary folder outside a runner


def _plant(workspace: Path) -> Path:
    """A pull request's commit: answers in a cache folder of the checkout."""
    planted = workspace / ".goldgate-cache" / "ab"
    planted.mkdir(parents=True)
    (planted / f"ab{'0' * 62}.json").write_text(PLANTED, "utf-8")
    for args in (("init", "-q"), ("add", "-f", ".goldgate-cache")):
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, timeout=30)
    return planted.parent


@pytest.mark.slow
def test_a_tracked_cache_folder_in_the_checkout_is_refused(runner: Runner, tmp_path: Path) -> None:
    folder = _plant(runner.workspace)
    runner.output.write_text("", "utf-8")
    env = {**runner.env(cache=str(folder), comment="off"), "RUNNER_TEMP": str(tmp_path / "t")}

    result = run_cli("action", cwd=runner.workspace, env=env, timeout=180)

    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    assert ".goldgate-cache: git tracks files in this folder" in result.output
    assert runner.outputs()["exit_code"] == "2"


@pytest.mark.slow
def test_a_relative_cache_name_never_reads_the_checkout(runner: Runner, tmp_path: Path) -> None:
    _plant(runner.workspace)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    runner.output.write_text("", "utf-8")
    env = {**runner.env(cache=".goldgate-cache", comment="off"), "RUNNER_TEMP": str(temp)}

    result = run_cli("action", cwd=runner.workspace, env=env, timeout=180)

    assert result.code in (0, 1), result.output  # the gate's own verdict, not a refusal
    assert "git tracks files" not in result.output
