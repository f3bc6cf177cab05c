"""The fork hand-off under a real Actions runner (nektos/act, tests/helpers/act.py):
``examples/workflows/pull-request.yml`` on a pull request from a fork (a read-only token: the
fake refuses comments with 403) leaves no comment, writes the job summary and uploads the
``goldgate-comment`` artifact; then ``examples/workflows/fork-comment.yml``, on the
``workflow_run`` event of that run, downloads it, renders the comment again with goldgate and
posts it with its github-script step (the stand-in runs the workflow's own script on Node
against the fake) to the pull request whose head is the run's commit, once. A hand-off whose
pull request number was changed to another pull request's is refused, and nothing is posted.

The jobs' Python (the setup-python stand-in's default: helpers/job_python.py's
``runner_python``, which sees goldgate's dependencies) holds goldgate 0.1.0: the workflows'
``pip install`` lines find it there (test_act_action.py is where the action installs goldgate
itself).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import example_copy
from goldgate.github.comments import marker
from helpers.act import GOLDGATE_USES, Act, ActResult, act_binary, action_source, with_action
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import BOT, TOKEN, FakeGitHub

from .conftest import FORK, from_fork

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
EVENTS = Path(__file__).resolve().parents[2] / "oracles" / "github_events"
HANDOFF = "goldgate-comment-goldgate.json"


def workflow_run(payload: dict[str, Any], run_id: int) -> dict[str, Any]:
    """The ``workflow_run`` event of run ``run_id`` of pull-request.yml (named ``goldgate``)
    for the fork's pull request: as for every fork, it lists no pull requests."""
    event: dict[str, Any] = json.loads(
        (EVENTS / "workflow_run_completed.payload.json").read_text("utf-8")
    )
    pull = payload["pull_request"]
    event["repository"] = payload["repository"]
    run = event["workflow_run"]
    run.update(
        id=run_id,
        name="goldgate",
        event="pull_request",
        head_sha=pull["head"]["sha"],
        head_branch=pull["head"]["ref"],
        pull_requests=[],
        repository=payload["repository"],
        head_repository={**run["head_repository"], "full_name": FORK},
    )
    return event


def forged(archive: bytes, pull_request: int) -> bytes:
    """The hand-off artifact with its pull request number changed."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == HANDOFF:
                document = json.loads(data)
                document["pull_request"] = pull_request
                data = json.dumps(document).encode("utf-8")
            target.writestr(name, data)
    return out.getvalue()


def test_a_fork_s_comment_is_handed_off_then_posted_once_to_its_pull_request(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    source = example_copy(tmp_path / "source", {})
    (source / "requirements.txt").write_text("# nothing beyond goldgate's own\n", "utf-8")
    act = Act(
        tmp_path / "runs",
        fake,
        source,
        actions={GOLDGATE_USES: action_source(tmp_path / "goldgate")},
    )
    pull = payload["pull_request"]
    number = int(payload["number"])
    secrets = {"GITHUB_TOKEN": TOKEN}

    # The fork's run: its token cannot comment.
    fake.read_only_token()
    pull_request = with_action(EXAMPLES / "pull-request.yml", tmp_path / "pull-request.yml")
    fork_run = act.run(pull_request, "pull_request", from_fork(payload), secrets=secrets)
    job = fork_run.job("Gold")
    assert fork_run.exit_code == 0, fork_run.text
    assert job.outputs["goldgate"]["comment_file"] == HANDOFF, fork_run.text
    assert fake.requests_to("POST", rf"/issues/{number}/comments$")  # tried, refused
    assert fake.comments(number) == []
    # Its check runs too: each create refused (a warning), none left in progress.
    assert len(fake.requests_to("POST", r"/check-runs$")) == 2
    assert fake.check_runs() == []
    refusals = [a.message for a in job.annotations if a.level == "warning"]
    assert any("no check run" in message for message in refusals), refusals
    assert "goldgate: passed" in job.summary, job.summary[:1000]
    assert job.step("Hand the comment to the workflow_run poster") == "success"
    handed = fake.archive("goldgate-comment", run_id=fork_run.run_id)
    assert HANDOFF in zipfile.ZipFile(io.BytesIO(handed)).namelist()

    # The workflow_run job, with this repository's token, posts it once.
    fake.clear_faults()
    fake.add_pull(number, head_sha=pull["head"]["sha"], head_repository=FORK)
    poster = EXAMPLES / "fork-comment.yml"
    posted = post(act, poster, workflow_run(payload, fork_run.run_id), secrets)
    assert posted.exit_code == 0, posted.text
    assert set(posted.job().steps.values()) == {"success"}, posted.text
    ((ident, author, body),) = fake.comments(number)
    assert author == BOT
    assert body.startswith(marker("goldgate") + "\n"), body[:200]
    assert "goldgate: passed" in body
    assert fake.requests_to("GET", rf"/pulls/{number}$")
    # The hand-off carried the check run: created on the fork's head commit, completed.
    (check_run,) = fake.check_runs()
    assert (check_run.name, check_run.head_sha) == ("goldgate", pull["head"]["sha"])
    assert (check_run.status, check_run.conclusion) == ("completed", "success")
    assert check_run.summary is not None
    assert check_run.summary in body

    # A hand-off that names another pull request than the run's is refused: nothing posted.
    other = number + 1
    fake.add_pull(other, head_sha="b" * 40, head_repository=fake.repository)
    forged_run = 4_900_001
    fake.add_artifact(
        "goldgate-comment",
        head_sha=pull["head"]["sha"],
        zip_bytes=forged(handed, other),
        from_fork=True,
        run_id=forged_run,
    )
    refused = post(act, poster, workflow_run(payload, forged_run), secrets)
    assert refused.exit_code != 0, refused.text
    assert refused.job().step("Post it") == "failure"
    errors = [a.message for a in refused.job().annotations if a.level == "error"]
    assert f"pull request #{other} is not the one the run was for" in errors, refused.text
    assert fake.comments(other) == []
    assert fake.comments(number) == [(ident, author, body)]
    assert not fake.requests_to("PATCH", r"/issues/comments/")


def post(act: Act, workflow: Path, event: dict[str, Any], secrets: dict[str, str]) -> ActResult:
    return act.run(workflow, "workflow_run", event, secrets=secrets)
