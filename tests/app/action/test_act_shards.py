"""``examples/workflows/shards.yml`` under a real Actions runner (nektos/act,
tests/helpers/act.py): four matrix jobs each run one shard of the bundled example and upload
its report (the artifact stand-in stores it in the fake GitHub), a last job downloads them,
merges them with ``goldgate report merge`` and hands the merged report to goldgate's own
composite action (``mode: report``), which publishes it. The merged report decides: a
failing application is red with exit code 1 (each shard alone still passes), a passing one
green.

The jobs' Python is the test venv's (the setup-python stand-in's default): goldgate 0.1.0 is
there, so the workflow's ``pip install goldgate==0.1.0`` and the action's version check find
it and install nothing. That the action installs goldgate and imports a team's own
dependency is test_act_action.py's part.
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
from helpers.act import GOLDGATE_USES, Act, ActResult, act_binary, action_source, with_action
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN, FakeGitHub

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
SHARDS = ("1", "2", "3", "4")


def run_shards(tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], edits: Any) -> ActResult:
    act = Act(
        tmp_path / "runs",
        fake,
        example_copy(tmp_path / "source", edits),
        actions={GOLDGATE_USES: action_source(tmp_path / "goldgate")},
    )
    workflow = with_action(EXAMPLES / "shards.yml", tmp_path / "workflows" / "shards.yml")
    return act.run(workflow, "pull_request", payload, secrets={"GITHUB_TOKEN": TOKEN})


@pytest.mark.parametrize(
    ("edits", "exit_code"), [(CANDIDATE_EDITS, 1), ({}, 0)], ids=["failing", "passing"]
)
def test_the_merged_report_of_the_shards_decides(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    edits: dict[str, list[tuple[str, str]]],
    exit_code: int,
) -> None:
    result = run_shards(tmp_path, fake, payload, edits)

    # Each shard passes alone (a shard decides nothing) and uploads its report.
    shards = [job for job in result.jobs if job.id == "shard"]
    assert sorted(str(job.matrix["shard"]) for job in shards) == list(SHARDS), result.text
    for job in shards:
        assert job.result == "success", result.text
        assert set(job.steps.values()) == {"success"}, (job.matrix, job.steps)
    uploads = [json.loads(r.body) for r in fake.requests_to("POST", r"^/_runtime/artifacts$")]
    shard_uploads = [u for u in uploads if u["name"].startswith("goldgate-shard-")]
    assert sorted(u["name"] for u in shard_uploads) == [f"goldgate-shard-{n}" for n in SHARDS]
    assert {u["run_id"] for u in uploads} == {result.run_id}
    # The merge job keeps the merged report and its HTML page as one artifact of the run.
    (kept,) = [u for u in uploads if u not in shard_uploads]
    assert kept["name"] == f"goldgate-merged-{result.run_id}-1"
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(kept["zip_base64"]))) as archive:
        names = archive.namelist()
    assert "goldgate-report.json" in names, names
    assert any(name.endswith(".html") for name in names), names

    # The merge job fetches this run's four reports, merges them, and the merged report
    # decides: its exit code is the step's, the job's and the action's.
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
