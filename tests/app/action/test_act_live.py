"""``examples/workflows/live.yml`` under a real Actions runner (nektos/act, tests/helpers/act.py):
a maintainer's label ``goldgate:live`` on a pull request from this repository runs the job
``Live suites``, whose goldgate step (``live: "true"``, ``comment_id: goldgate-live``) runs
every suite, the live one too: the example's ``live_answer``, on its http target
``answer_live``. That target, ``https://answers.example.invalid/v1/triage`` in the example,
points in the test's copy of the settings at an answers service on loopback (fake_openai's
``POST /app``, answering the draft step's result document), which refuses a request without
``Authorization: Bearer <OPENAI_API_KEY>``, the header the settings build from the workflow's
credential. The key reaches the step as live.yml passes it: from the secrets (act's secret
file) through the step's ``env:``.

- A service whose draft keeps the ticket's account: green (exit code 0), the sticky comment
  ``goldgate-live`` created, the run compared with the merge-base commit's model-free
  ``goldgate-report`` (the same settings, its live suite skipped).
- One whose draft drops it: the live gold fails; the step and the job are red with goldgate's
  exit code 1 (``fail_on`` default, disagreement), and the comment says failing.
- Another label, or the right label on a pull request from a fork: the job is skipped (act's
  ``jobResult: skipped``, a debug record: those runs are ``--verbose``); nothing runs and
  nothing is called.

In neither green nor red does the key appear in act's output (its JSON records keep only
goldgate's own ``::add-mask::`` commands of it, which GitHub's runner never shows), the
comment, the job summary, the fake GitHub's requests or the bodies the service got. The files
the job wrote (report, HTML page) are out of reach: on the host executor act deletes the job's
workspace when the job ends; that a live run's files hold no credential is test_action.py's
part (``assert_no_secret`` after ``live: "true"``).

What act does not do: ``environment: goldgate-live`` and ``concurrency:`` are parsed and
ignored (act's job model, 0.2.89, has neither field). Its secrets are one set, from the
secret file, standing in for the environment's; the environment's required reviewers and the
cancelling of an older run of the concurrency group are GitHub's part, which no run under act
can show. Neither key needs a workaround: live.yml runs as it is.

act revealed that live.yml, unlike pull-request.yml, set up no Python: its goldgate step ran
on the runner's system Python, where the action's ``pip install`` of goldgate is refused
(PEP 668, externally managed), and a team's application, whose model-free suites a live run
runs too, would have had no dependencies installed. live.yml now sets up Python and installs
``requirements.txt`` as pull-request.yml does.

The job's Python is the setup-python stand-in's default (helpers/job_python.py's
``runner_python``, which sees goldgate's dependencies), which holds goldgate 0.1.0: the action
installs nothing (test_act_action.py is where it installs goldgate).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import evaluate, example_copy
from goldgate.github.comments import marker
from helpers.act import GOLDGATE_USES, Act, ActResult, act_binary, action_source, with_action
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN, FakeGitHub
from helpers.fake_openai import FakeOpenAI, serving

from .conftest import MERGE_BASE, from_fork, labeled, report_zip

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
LABEL = "goldgate:live"
KEY = "sk-live-" + "Plant3dAnswersKey" + "0123456789abcdef"
ENDPOINT = "https://answers.example.invalid/v1/triage"
JUDGE_ENDPOINT = "https://api.openai.com/v1"  # the example's judge tone (tone_judge)
COMMENT_ID = "goldgate-live"
TICKET = "Cancel renewal for account C-1049."
"""The message of the live gold's one case, whose reply must hold ``C-1049``."""
Draft = Callable[[str], str]


@pytest.fixture(scope="module")
def goldgate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return action_source(tmp_path_factory.mktemp("action") / "goldgate")


@pytest.fixture(scope="module")
def workflow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return with_action(EXAMPLES / "live.yml", tmp_path_factory.mktemp("workflows") / "live.yml")


def answers(draft: Draft) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The answers service: the draft step's result, ``draft`` of the ticket's message."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        text = draft(str(request["envelope"]["payload"]["message"]))
        return {
            "execution": {"status": "completed"},
            "flows": {"answer": {"steps": {"draft": {"result": {"text": text}}}}},
        }

    return answer


def keeps_the_account(message: str) -> str:
    return f'Done as you asked ("{message}"): the renewal ends with this term.'


def drops_the_account(message: str) -> str:
    return "Done as you asked: the renewal ends with this term."


def team(root: Path, fake: FakeGitHub, goldgate: Path, service: FakeOpenAI) -> Act:
    """The example as a team's repository whose live target is ``service``."""
    source = example_copy(root / "source", {})
    (source / "requirements.txt").write_text("# nothing beyond goldgate's own\n", "utf-8")
    settings = source / "config" / "settings.yaml"
    text = settings.read_text("utf-8")
    assert text.count(ENDPOINT) == 1, text
    assert text.count(JUDGE_ENDPOINT) == 1, text
    text = text.replace(ENDPOINT, f"{service.url}/app")
    settings.write_text(text.replace(JUDGE_ENDPOINT, f"{service.url}/v1"), "utf-8")
    return Act(root / "runs", fake, source, actions={GOLDGATE_USES: goldgate})


def upload_baseline(act: Act, payload: dict[str, Any]) -> None:
    """What baseline.yml uploaded for the pull request's merge-base commit: the model-free
    report of the same application and settings (its live suite skipped)."""
    pull = payload["pull_request"]
    act.fake.set_merge_base(pull["base"]["sha"], pull["head"]["sha"], MERGE_BASE)
    report = evaluate(act.source, act.root / "baseline.json", "--variant-revision", "base")
    act.fake.add_artifact(
        f"goldgate-report-{MERGE_BASE}",
        head_sha=MERGE_BASE,
        head_branch="master",
        zip_bytes=report_zip(report),
    )


def run_live(act: Act, workflow: Path, event: dict[str, Any], **options: Any) -> ActResult:
    secrets = {"GITHUB_TOKEN": TOKEN, "OPENAI_API_KEY": KEY}
    return act.run(workflow, "pull_request", event, secrets=secrets, **options)


@pytest.mark.parametrize(
    ("draft", "exit_code"),
    [(keeps_the_account, 0), (drops_the_account, 1)],
    ids=["passing", "failing"],
)
def test_the_live_label_runs_the_live_suite_against_its_service(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    goldgate: Path,
    workflow: Path,
    draft: Draft,
    exit_code: int,
) -> None:
    number = int(payload["number"])
    # The example's judge (tone, calibrated by its committed record) is asked too, with
    # --live: it passes the German reply's tone.
    with serving(api_key=KEY, app=answers(draft), chat=lambda body: "PASS: formal") as service:
        act = team(tmp_path, fake, goldgate, service)
        upload_baseline(act, payload)
        result = run_live(act, workflow, labeled(payload, LABEL))

    job = result.job("Live suites")
    passed = exit_code == 0
    outcome = "success" if passed else "failure"
    assert (result.exit_code == 0) == passed, result.text
    assert job.result == outcome, result.text
    assert job.steps["goldgate"] == outcome, result.text
    outputs = job.outputs["goldgate"]
    assert outputs["exit_code"] == str(exit_code), result.text
    assert (outputs["failed"], outputs["errors"]) == ("0" if passed else "1", "0"), outputs
    assert outputs["comment_file"] == "", outputs  # posted, not handed off

    # The live suite called the service once, for its one case, and the judge once, for the
    # one answer its gold names it for, each with the key as the settings say (the service
    # answers nothing else).
    (body, judged) = sorted(service.state.bodies, key=lambda body: "messages" in body)
    assert (body["workflow"], body["flow"], body["step"]) == ("answer_live", "answer", "draft")
    assert body["envelope"]["payload"]["message"] == TICKET
    assert "Rubric:" in judged["messages"][0]["content"], judged
    authorizations = [
        [value for name, value in headers.items() if name.lower() == "authorization"]
        for headers in service.state.headers
    ]
    assert authorizations == [[f"Bearer {KEY}"]] * 2
    assert service.stats()["by_status"] == {"200": 2}

    # Compared with the model-free baseline of the merge-base commit.
    assert outputs["comparison"], result.text
    assert fake.requests_to("GET", r"/compare/")
    assert fake.requests_to("GET", r"/_blob/")

    # The live sticky comment, created once, its own marker first.
    ((_, _, comment),) = fake.comments(number)
    assert comment.startswith(marker(COMMENT_ID) + "\n"), comment[:200]
    assert len(fake.requests_to("POST", rf"/issues/{number}/comments$")) == 1
    (headline,) = [line for line in comment.splitlines() if line.startswith("## ")]
    assert ("goldgate: passed" if passed else "goldgate: failed") in headline, comment[:600]
    assert "Against the baseline:" in comment, comment[:2000]
    assert ("live\\_reply\\_en" in comment) == (not passed), comment
    assert "| live\\_answer |" in job.summary, job.summary[:2000]

    # The key is nowhere but in the request to the service. act's JSON records keep each
    # workflow command's argument: goldgate's own ``::add-mask::`` of the key, in the steps
    # that prepare (the check run), run and publish, are the only records that hold it.
    holding = [r for r in result.records if KEY in json.dumps(r)]
    assert sorted((r.get("command"), r.get("arg"), "/".join(r["stepID"])) for r in holding) == [
        ("add-mask", KEY, "goldgate/prepare"),
        ("add-mask", KEY, "goldgate/publish"),
        ("add-mask", KEY, "goldgate/run"),
    ], holding
    # Its check run, "goldgate (live)", completed with the step's conclusion.
    (check_run,) = fake.check_runs()
    assert check_run.name == "goldgate (live)"
    assert check_run.conclusion == ("success" if passed else "failure")
    assert KEY not in result.text
    assert KEY not in comment
    assert KEY not in job.summary
    assert [r.path for r in fake.requests if KEY in r.body or KEY in json.dumps(r.headers)] == []
    assert KEY not in json.dumps(service.state.bodies)

    # The run's files kept as an artifact of the run: the report (with the live suite's
    # attempt), the comparison and the HTML page, none holding the key.
    kept = fake.archive(f"goldgate-live-{number}-1", run_id=result.run_id)
    with zipfile.ZipFile(io.BytesIO(kept)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    assert sorted(files) == sorted(
        Path(outputs[name]).name for name in ("report", "comparison", "html")
    ), sorted(files)
    report = json.loads(files[Path(outputs["report"]).name])
    live = [suite for suite in report["suites"] if suite["name"] == "live_answer"]
    assert [len(suite["cases"]) for suite in live] == [1], sorted(files)
    assert [name for name, data in files.items() if KEY.encode() in data] == []


def test_another_label_or_a_fork_skips_the_job(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], goldgate: Path, workflow: Path
) -> None:
    with serving(api_key=KEY, app=answers(keeps_the_account)) as service:
        act = team(tmp_path, fake, goldgate, service)
        for event in (labeled(payload, "bug"), from_fork(labeled(payload, LABEL))):
            result = run_live(act, workflow, event, verbose=True)
            assert result.exit_code == 0, result.text[-3000:]
            job = result.job("Live suites")
            assert (job.result, job.steps, job.outputs) == ("skipped", {}, {}), result.text[-3000:]
        assert service.state.bodies == []
    assert fake.requests == []
