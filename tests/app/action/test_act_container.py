"""goldgate's container action (``docker/action.yml``) under a real Actions runner (nektos/act,
tests/helpers/act.py), in a job container on the session's private dockerd (conftest.py,
engine.py: the base made by mmdebstrap is the job's image, ``--pull=false``): the modes that
run no user code, as ``act_fixture/workflows/container.yml`` runs them — ``check``,
``compare`` of two reports of the workspace (JUnit, the sticky comment, annotations,
``fail_on: regression`` red) and ``replay`` of one with the current gold.

act builds a Dockerfile action through the Engine API's classic builder: no BuildKit (the
Dockerfile's ``RUN --mount`` secrets need it) and no build arguments (``BASE``, so it would
pull python:3.11-slim from a registry). GitHub's runner runs ``docker build -f
docker/../Dockerfile <the repository root>`` with BuildKit. So the image is the one the
session builds that way (test_container.py's), tagged as act names it, and act runs it as
it is (``--rebuild=false``); what act adds is the rest: ``docker/action.yml`` read through
``uses: OWNER/goldgate/docker@REF``, every input as ``INPUT_*``, ``runs.args``, the
workspace, event and file-command mounts, outputs, summary and annotations.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import CANDIDATE_EDITS, evaluate, example_copy
from goldgate.github.comments import marker
from helpers.act import (
    GOLDGATE_USES,
    Act,
    JobContainer,
    act_binary,
    action_source,
    docker_action_image,
)
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import BOT, TOKEN, FakeGitHub

from .engine import Engine, import_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("docker"),
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

WORKFLOW = Path(__file__).resolve().parent / "act_fixture" / "workflows" / "container.yml"
USES = "goldgate-tests/goldgate/docker@v0"


@pytest.fixture
def act(tmp_path: Path, fake: FakeGitHub, engine: Engine, image: str) -> Act:
    """act with its jobs in a container of the base image, goldgate's action mapped to a
    copy of its files, and the session's image under the name act runs."""
    engine.run("tag", image, docker_action_image(USES))
    return Act(
        tmp_path / "runs",
        fake,
        tmp_path / "source",
        actions={GOLDGATE_USES: action_source(tmp_path / "goldgate")},
        container=JobContainer(import_base(engine), engine.host),
    )


def test_check_compare_and_replay_run_in_the_container_action(
    act: Act, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    source = example_copy(act.source, CANDIDATE_EDITS)
    reports = source / "reports"
    reports.mkdir()
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        (reports / "baseline.json").write_bytes(archive.read("goldgate-report.json"))
    evaluate(source, reports / "candidate.json", "--variant-revision", "cand")

    result = act.run(WORKFLOW, "pull_request", payload, secrets={"GITHUB_TOKEN": TOKEN})

    job = result.job("Gold")
    assert f"docker run image={docker_action_image(USES)}" in result.text
    # check: the gold is sound; nothing is imported or run.
    assert job.steps["check"] == "success", result.text
    assert job.outputs["check"]["exit_code"] == "0"
    assert "gold OK" in job.log("check")
    # compare: the candidate regresses 3 attempts; fail_on regression fails the step.
    assert job.steps["compare"] == "failure", result.text
    compared = job.outputs["compare"]
    assert compared["exit_code"] == "1", result.text
    assert (compared["improved"], compared["regressed"], compared["flaky"]) == ("4", "3", "0")
    assert compared["report"] == "reports/candidate.json"
    assert compared["junit"] == "goldgate-junit.xml"
    assert compared["comparison"]
    ((_, author, body),) = fake.comments(int(payload["number"]))
    assert author == BOT
    assert body.startswith(marker("goldgate") + "\n")
    assert "goldgate: failed" in job.summary
    at_gold = [a for a in job.annotations if a.step == "compare"]
    assert at_gold, job.annotations
    assert all(a.properties["file"].startswith("evaluation/") for a in at_gold)
    # replay: the candidate's saved results under the current gold, compared alike.
    assert job.steps["replay"] == "success", result.text
    replayed = job.outputs["replay"]
    assert (replayed["exit_code"], replayed["regressed"]) == ("1", "3"), result.text
    assert replayed["report"] != "reports/candidate.json"
    assert job.result == "failure"
    assert result.exit_code != 0
