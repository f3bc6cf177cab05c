"""The quick start is a test (issue 45): a newcomer who follows only docs/quickstart.md, on a
fresh machine, gets from nothing to a red check for a planted regression and a green one after
the fix, under a real Actions runner (nektos/act, tests/helpers/act.py) against the fake
GitHub.

The page's runnable blocks (``<!-- run: exit N -->``, read by tests/test_docs_runnable.py)
run in order in an empty folder: ``goldgate init my-app --github``, the local runs, the
planted regression and its fix, and naming the action in the workflows (``GOLDGATE_ACTION``,
here the tests' name for goldgate's action, mapped to a copy of its source). Then the
workflow ``init`` wrote runs on a pull request twice: once on a copy of the project with the
page's planted regression (its step-4 block run again), once on the fixed project. Two act
runs, in one module fixture; the job's Python is a fresh venv where the action installs
goldgate from its source, offline."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.act import GOLDGATE_USES, Act, ActResult, act_binary, action_source
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN
from helpers.job_python import job_python, offline_pip, runner_base, shared_wheelhouse
from test_docs_runnable import Runnable, runnable_blocks

from .conftest import OPENED, event_github

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
    pytest.mark.xdist_group("quickstart"),  # the two act runs once, on one worker
]

QUICKSTART = Path(__file__).resolve().parents[3] / "docs" / "quickstart.md"
WORKFLOW = Path("my-app") / ".github" / "workflows" / "goldgate.yml"


@dataclasses.dataclass(frozen=True)
class Followed:
    blocks: list[Runnable]
    exit_codes: list[int]
    red: ActResult
    green: ActResult
    comments: list[tuple[int, str, str]]
    after_red: list[tuple[int, str, str]]


def _follow(block: Runnable, folder: Path) -> int:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GOLDGATE_ACTION": GOLDGATE_USES,
    }
    done = subprocess.run(
        ["bash", "-c", block.script], cwd=folder, env=env, capture_output=True, timeout=300,
        check=False,
    )  # fmt: skip
    return done.returncode


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Followed:
    import json

    tmp = tmp_path_factory.mktemp("quickstart")
    wheelhouse = shared_wheelhouse(tmp_path_factory)
    blocks = runnable_blocks("docs/quickstart.md", QUICKSTART.read_text("utf-8"))
    machine = tmp / "machine"  # nothing but what the page makes
    machine.mkdir()
    exit_codes = [_follow(block, machine) for block in blocks]
    # The pull request that plants the regression: the page's own step (exit 1 locally).
    (plant,) = [block for block in blocks if block.exit_code == 1]
    broken = tmp / "broken"
    shutil.copytree(machine / "my-app", broken / "my-app")
    assert _follow(plant, broken) == 1

    payload: dict[str, Any] = json.loads(OPENED.read_text("utf-8"))
    with event_github(payload) as fake:
        goldgate = action_source(tmp / "goldgate")
        python_bin = job_python(tmp / "job-python", base=runner_base(), lean=True)
        results = []
        comments = []
        for project in (broken / "my-app", machine / "my-app"):
            actions = {GOLDGATE_USES: goldgate}
            act = Act(tmp / "runs", fake, project, python_bin=python_bin, actions=actions)
            results.append(
                act.run(
                    project.parent / WORKFLOW,
                    "pull_request",
                    payload,
                    secrets={"GITHUB_TOKEN": TOKEN},
                    env=offline_pip(wheelhouse),
                )
            )
            comments.append(fake.comments(payload["pull_request"]["number"]))
    return Followed(blocks, exit_codes, results[0], results[1], comments[1], comments[0])


def test_every_step_of_the_page_runs_as_it_says(followed: Followed) -> None:
    assert len(followed.blocks) >= 4
    assert followed.exit_codes == [block.exit_code for block in followed.blocks]


def test_the_planted_regression_gives_a_red_check(followed: Followed) -> None:
    job = followed.red.job("Gold")

    assert followed.red.exit_code != 0, followed.red.text
    assert job.result == "failure", followed.red.text
    assert job.outputs["goldgate"]["exit_code"] == "1", followed.red.text
    assert int(job.outputs["goldgate"]["failed"]) >= 1
    ((_, _, body),) = followed.after_red
    assert "goldgate: failed" in body
    assert "refund" in body


def test_the_fix_gives_a_green_check_and_edits_the_comment(followed: Followed) -> None:
    job = followed.green.job("Gold")

    assert followed.green.exit_code == 0, followed.green.text
    assert job.result == "success", followed.green.text
    assert job.outputs["goldgate"]["exit_code"] == "0", followed.green.text
    ((first_id, _, _),) = followed.after_red
    ((comment_id, _, body),) = followed.comments
    assert comment_id == first_id
    assert "goldgate: passed" in body
