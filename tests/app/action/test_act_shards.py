"""``examples/workflows/shards.yml`` under a real Actions runner (nektos/act,
tests/helpers/act.py): four matrix jobs each run one shard of the bundled example and upload
its report (the artifact stand-in stores it in the fake GitHub), a last job downloads them,
merges them with ``goldgate report merge`` and hands the merged report to goldgate's own
composite action (``mode: report``), which publishes it. The merged report decides: a
failing application is red with exit code 1 (each shard alone still passes), a passing one
green.

The failing application runs the whole workflow. The passing one runs its merge job alone
(the workflow less its shard jobs, which a failing application's run shows pass alone and
upload): its four shard reports are made as the shard jobs make them (``goldgate evaluate
--shard K/4``, each exit 0) and stored in the fake as that run's artifacts, which the job
downloads. A shard job's run is most of the workflow's CPU, and what it shows does not
depend on the application's verdict.

The jobs' Python is the setup-python stand-in's default (helpers/job_python.py's
``runner_python``, which sees goldgate's dependencies): goldgate 0.1.0 is there, so the
workflow's ``pip install goldgate==0.1.0`` and the action's version check find it and install
nothing. That the action installs goldgate and imports a team's own dependency is
test_act_action.py's part.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import CANDIDATE_EDITS, example_copy
from helpers.act import (
    GOLDGATE_USES,
    Act,
    ActResult,
    act_binary,
    action_source,
    new_run_id,
    with_action,
)
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN, FakeGitHub
from run.support import run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
SHARDS = ("1", "2", "3", "4")


def run_shards(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    source: Path,
    workflow: Path,
    run_id: int | None = None,
) -> ActResult:
    act = Act(
        tmp_path / "runs",
        fake,
        source,
        actions={GOLDGATE_USES: action_source(tmp_path / "goldgate")},
    )
    return act.run(
        workflow, "pull_request", payload, secrets={"GITHUB_TOKEN": TOKEN}, run_id=run_id
    )


def shards_workflow(tmp_path: Path) -> Path:
    return with_action(EXAMPLES / "shards.yml", tmp_path / "workflows" / "shards.yml")


def merge_job_only(workflow: Path) -> Path:
    """``workflow`` (shards.yml) less its shard jobs: the merge job, needing none."""
    text = workflow.read_text("utf-8")
    head, shard = text.split("\n  shard:\n", 1)
    _, merge = shard.split("\n  merge:\n", 1)
    assert merge.count("    needs: shard\n") == 1, merge
    workflow.write_text(head + "\n  merge:\n" + merge.replace("    needs: shard\n", ""), "utf-8")
    return workflow


def assert_the_merged_report_decides(
    result: ActResult, fake: FakeGitHub, payload: dict[str, Any], exit_code: int
) -> None:
    """The merge job fetched this run's four shard reports, merged them, and the merged
    report decided: its exit code is the merge step's, the action's, the job's and the
    run's; it is kept with its HTML page as one artifact of the run, and commented."""
    uploads = [json.loads(r.body) for r in fake.requests_to("POST", r"^/_runtime/artifacts$")]
    assert {u["run_id"] for u in uploads} == {result.run_id}
    # The merge job keeps the merged report and its HTML page as one artifact of the run.
    (kept,) = [u for u in uploads if not u["name"].startswith("goldgate-shard-")]
    assert kept["name"] == f"goldgate-merged-{result.run_id}-1"
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(kept["zip_base64"]))) as archive:
        names = archive.namelist()
    assert "goldgate-report.json" in names, names
    assert any(name.endswith(".html") for name in names), names

    merge = result.job("merge")
    assert fake.requests_to("GET", rf"/actions/runs/{result.run_id}/artifacts$")
    assert len(fake.requests_to("GET", r"^/_blob/")) == len(SHARDS)
    merged = "success" if exit_code == 0 else "failure"
    assert merge.step("Merge the shard reports") == merged, result.text
    (action,) = [key for key, outputs in merge.outputs.items() if "exit_code" in outputs]
    outputs = merge.outputs[action]
    assert outputs["exit_code"] == str(exit_code), result.text
    assert merge.steps[action] == merged
    assert merge.result == merged
    assert (result.exit_code == 0) == (exit_code == 0), result.text
    failed = int(outputs["failed"])
    assert (failed > 0) == (exit_code == 1), outputs
    assert outputs["report"] == "goldgate-report.json"
    # One comment for the pull request, from the merged report.
    ((_, _, body),) = fake.comments(int(payload["number"]))
    assert ("goldgate: failed" in body) == (exit_code == 1), body[:500]
    assert f"{outputs['passed']} passed" in body, body[:1000]


def test_a_failing_application_s_shards_pass_alone_and_their_merged_report_fails(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    source = example_copy(tmp_path / "source", CANDIDATE_EDITS)
    result = run_shards(tmp_path, fake, payload, source, shards_workflow(tmp_path))

    # Each shard passes alone (a shard decides nothing) and uploads its report.
    shards = [job for job in result.jobs if job.id == "shard"]
    assert sorted(str(job.matrix["shard"]) for job in shards) == list(SHARDS), result.text
    for job in shards:
        assert job.result == "success", result.text
        assert set(job.steps.values()) == {"success"}, (job.matrix, job.steps)
    uploads = [json.loads(r.body) for r in fake.requests_to("POST", r"^/_runtime/artifacts$")]
    shard_uploads = [u for u in uploads if u["name"].startswith("goldgate-shard-")]
    assert sorted(u["name"] for u in shard_uploads) == [f"goldgate-shard-{n}" for n in SHARDS]
    assert_the_merged_report_decides(result, fake, payload, 1)


def test_a_passing_application_s_merged_report_passes(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    source = example_copy(tmp_path / "source", {})
    run_id = new_run_id()
    for shard in SHARDS:
        # What the workflow's shard job runs in its workspace, then uploads.
        report = tmp_path / "shards" / f"goldgate-shard-{shard}.json"
        done = run_cli(
            "evaluate", "--config", "config/settings.yaml", "--shard", f"{shard}/{len(SHARDS)}",
            "--output", str(report), cwd=source,
        )  # fmt: skip
        assert done.code == 0, done.stderr  # a shard decides nothing alone
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as writing:
            writing.writestr(report.name, report.read_bytes())
        fake.add_artifact(
            f"goldgate-shard-{shard}",
            head_sha=payload["pull_request"]["head"]["sha"],
            head_branch=payload["pull_request"]["head"]["ref"],
            zip_bytes=archive.getvalue(),
            run_id=run_id,
        )
    workflow = merge_job_only(shards_workflow(tmp_path))
    result = run_shards(tmp_path, fake, payload, source, workflow, run_id)

    assert [job.id for job in result.jobs] == ["merge"], result.text
    assert_the_merged_report_decides(result, fake, payload, 0)
