"""The step's check run (input ``check_run``, issue 44) against the fake GitHub: the prepare
step creates it ``in_progress`` on the pull request's head commit, the publishing step
completes it with every annotation, 50 to a request, and a conclusion that agrees with the
step's exit code and ``fail_on``; a refused create changes nothing else; a run step that
left nothing completes it as cancelled.

The steps run in this process (``split.prepare_only`` then ``split.publish_only``, the
functions behind ``goldgate publish --prepare`` and ``goldgate publish``) in mode report,
which runs no user code, over reports built once per module: 120 cases of one suite, every
one passing in the baseline and failing in the candidate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.app.action.split import prepare_only, publish_only
from goldgate.report.plain import record_json
from helpers.fake_github import TOKEN, CheckRun, FakeGitHub
from helpers.reports import coherent
from render.builders import attempt, case, expectation, report, suite

from .conftest import parse_outputs

CASES = 120
GOLD = "evaluation/cases/gold.json"


def _line(index: int) -> int:
    return 2 + 12 * index


def _report(failing: range) -> dict[str, Any]:
    """One suite of ``CASES`` cases; those in ``failing`` answer another category than the
    gold's (their values are private: ``PRIVATE-...``). The first case's id carries a
    mention and HTML, which every text shows escaped."""
    cases = []
    for index in range(CASES):
        answer = f"PRIVATE-ACTUAL-{index}" if index in failing else f"PRIVATE-EXPECTED-{index}"
        ran = attempt(
            1,
            outcomes=("passed", "passed"),
            result={"payload": {"status": "ok", "category": answer}},
        )
        gold = [
            expectation("status", "/payload/status", "ok"),
            expectation("category", expected=f"PRIVATE-EXPECTED-{index}"),
        ]
        name = "@octocat <b>case</b>" if index == 0 else f"case-{index:03d}"
        built = case(name, [ran], gold, line=_line(index))
        cases.append(dataclasses.replace(built, input={"payload": {"n": index}, "metadata": {}}))
    return coherent(record_json(report([suite("bulk", cases, cases_source=GOLD)])))


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("checkrun-reports")
    texts = {
        "baseline.json": json.dumps(_report(range(0))),
        "failing.json": json.dumps(_report(range(CASES))),
    }
    for name, value in texts.items():
        (folder / name).write_text(value, "utf-8")
    return texts


@dataclasses.dataclass
class Job:
    """One job's workspace and runner files, its steps run in this process."""

    workspace: Path
    fake: FakeGitHub
    payload: dict[str, Any]
    lines: list[str] = dataclasses.field(default_factory=list)
    knobs: dict[str, str] = dataclasses.field(default_factory=dict)
    """``GOLDGATE_*`` variables of the job's environment."""

    def env(self, **inputs: str) -> dict[str, str]:
        files = self.workspace.parent / "files"
        files.mkdir(exist_ok=True)
        event = files / "event.json"
        event.write_text(json.dumps(self.payload), "utf-8")
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": self.fake.repository,
            "GITHUB_SHA": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",  # the merge commit
            "GITHUB_API_URL": self.fake.base_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(files / "output"),
            "GITHUB_STEP_SUMMARY": str(files / "summary"),
            "INPUT_GITHUB_TOKEN": TOKEN,
            "GOLDGATE_GITHUB_TIMEOUT": "5",
            "INPUT_MODE": "report",
            "INPUT_REPORT": "failing.json",
            "INPUT_BASELINE": "baseline.json",
            "INPUT_COMMENT_ID": "goldgate",
            "INPUT_JUNIT": "junit.xml",
        }
        env.update({f"INPUT_{key.upper()}": value for key, value in inputs.items()})
        return {**env, **self.knobs}

    def steps(self, **inputs: str) -> tuple[int, dict[str, str]]:
        """The prepare step, then the publishing step given its check run id; the publishing
        step's exit code and outputs."""
        env = self.env(**inputs)
        Path(env["GITHUB_OUTPUT"]).write_text("", "utf-8")
        Path(env["GITHUB_STEP_SUMMARY"]).write_text("", "utf-8")
        assert prepare_only(env, self.lines.append) == 0
        prepared = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text("utf-8"))
        Path(env["GITHUB_OUTPUT"]).write_text("", "utf-8")
        env["GOLDGATE_CHECK_RUN_ID"] = prepared.get("check_run_id", "")
        code = publish_only(env, self.lines.append)
        return code, parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text("utf-8"))

    def summary(self) -> str:
        return (self.workspace.parent / "files" / "summary").read_text("utf-8")


@pytest.fixture
def job(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    reports: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> Job:
    workspace = tmp_path / "workspace"
    (workspace / "evaluation" / "cases").mkdir(parents=True)
    (workspace / GOLD).write_text("[]\n" * (_line(CASES) + 1), "utf-8")
    for name, text in reports.items():
        (workspace / name).write_text(text, "utf-8")
    monkeypatch.chdir(workspace)
    return Job(workspace, fake, payload)


def _only_run(fake: FakeGitHub) -> CheckRun:
    (run,) = fake.check_runs()
    return run


def test_120_failing_cases_give_120_annotations_in_3_requests_on_the_head_commit(
    job: Job, payload: dict[str, Any]
) -> None:
    code, outputs = job.steps(check_run="true")

    assert code == 1
    run = _only_run(job.fake)
    assert run.name == "goldgate"
    assert run.head_sha == payload["pull_request"]["head"]["sha"]  # never the merge commit
    created = job.fake.requests_to("POST", r"/check-runs$")
    assert json.loads(created[0].body)["status"] == "in_progress"
    assert len(job.fake.requests_to("PATCH", r"/check-runs/\d+$")) == 3
    assert run.batches == [0, 50, 50, 20]  # the create, then three updates
    assert (run.status, run.conclusion) == ("completed", "failure")
    assert run.details_url == f"https://github.com/{job.fake.repository}/actions/runs/4242"
    annotations = run.annotations
    assert len(annotations) == CASES
    assert [(a["path"], a["start_line"], a["end_line"]) for a in annotations] == [
        (GOLD, _line(index), _line(index)) for index in range(CASES)
    ]
    assert {a["annotation_level"] for a in annotations} == {"failure"}
    assert annotations[1]["title"] == "goldgate regression: bulk / case-001"
    # The title is the comment's first line, the summary its Markdown.
    (comment,) = job.fake.comments(job.payload["number"])
    assert run.title is not None
    assert run.summary is not None
    assert comment[2].splitlines()[2] == f"## {run.title}"
    assert run.summary in comment[2]
    assert run.summary.startswith("## ❌ goldgate: failed — 120 regressed")
    # The step's own workflow commands stay as they were: ten errors and the count.
    printed = "".join(job.lines)
    assert printed.count("::error file=") == 10
    assert "110 more failing attempts not annotated" in printed
    assert outputs["regressed"] == "120"


@pytest.mark.parametrize(
    ("fail_on", "code", "conclusion"),
    [("disagreement", 1, "failure"), ("regression", 1, "failure"), ("never", 0, "neutral")],
)
def test_the_conclusion_follows_fail_on(job: Job, fail_on: str, code: int, conclusion: str) -> None:
    assert job.steps(check_run="true", fail_on=fail_on, comment="off")[0] == code
    assert _only_run(job.fake).conclusion == conclusion


def test_a_run_that_passes_concludes_success(job: Job) -> None:
    code, _ = job.steps(check_run="true", report="baseline.json", comment="off")

    assert code == 0
    run = _only_run(job.fake)
    assert (run.conclusion, run.annotations) == ("success", [])
    assert run.batches == [0, 0]


def test_no_value_reaches_the_check_run_and_data_is_escaped_as_in_the_comment(
    job: Job,
) -> None:
    job.steps(check_run="true", details="safe")

    sent = [r.body for r in job.fake.requests if "/check-runs" in r.path]
    assert sent
    assert not any("PRIVATE-" in body for body in sent)
    run = _only_run(job.fake)
    assert run.summary is not None
    assert "@octocat" not in run.summary.replace("@\u200boctocat", "")
    assert "<b>" not in run.summary
    first = run.annotations[0]
    assert first["title"] == "goldgate regression: bulk / @octocat <b>case</b>"


def test_a_refused_create_publishes_everything_as_without_the_check_run(job: Job) -> None:
    without_code, without = job.steps(check_run="false")
    summary, junit = job.summary(), (job.workspace / "junit.xml").read_text("utf-8")
    (comment,) = job.fake.comments(job.payload["number"])
    (job.workspace / "junit.xml").unlink()
    for html in (job.workspace / ".goldgate" / "action").glob("*.html"):
        html.unlink()
    job.lines.clear()
    job.fake.fail("POST", r"/check-runs$", 403, message="Resource not accessible by integration")

    code, outputs = job.steps(check_run="true")

    assert job.fake.check_runs() == []
    assert not job.fake.requests_to("PATCH", r"/check-runs")
    assert (code, outputs) == (without_code, {**without, "comparison": outputs["comparison"]})
    assert job.summary().replace(outputs["comparison"], without["comparison"]) == summary
    assert (job.workspace / "junit.xml").read_text("utf-8") == junit
    assert job.fake.comments(job.payload["number"])[0][2] == comment[2].replace(
        without["comparison"], outputs["comparison"]
    )
    warnings = [line for line in job.lines if line.startswith("::warning")]
    assert len(warnings) == 1, warnings
    assert "no check run" in warnings[0]
    assert "checks: write" in warnings[0]


def test_a_bound_keeps_the_first_and_counts_the_rest(job: Job) -> None:
    job.knobs["GOLDGATE_MAX_ANNOTATIONS"] = "60"
    job.steps(check_run="true", comment="off")

    run = _only_run(job.fake)
    assert run.batches == [0, 50, 11]
    last = run.annotations[-1]
    assert last["annotation_level"] == "notice"
    assert last["message"].startswith("60 more annotations not sent (GOLDGATE_MAX_ANNOTATIONS")


def test_a_run_step_that_left_nothing_completes_the_check_run_as_cancelled(job: Job) -> None:
    env = job.env(check_run="true", mode="evaluate", report="")
    Path(env["GITHUB_OUTPUT"]).write_text("", "utf-8")
    assert prepare_only(env, job.lines.append) == 0
    prepared = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text("utf-8"))
    env.update(GOLDGATE_CHECK_RUN_ID=prepared["check_run_id"], GOLDGATE_RUN_OUTCOME="cancelled")

    code = publish_only(env, job.lines.append, handoff=job.workspace / "no-handoff.json")

    assert code == 130
    run = _only_run(job.fake)
    assert (run.status, run.conclusion) == ("completed", "cancelled")


def test_a_failed_update_is_retried_as_other_github_writes_are(job: Job) -> None:
    job.fake.fail("PATCH", r"/check-runs/\d+$", 502, message="Server Error", times=1)

    job.steps(check_run="true", comment="off", report="baseline.json")

    run = _only_run(job.fake)
    assert (run.status, run.conclusion) == ("completed", "success")
    assert len(job.fake.requests_to("PATCH", r"/check-runs/\d+$")) == 2  # the 502, then again
    assert not [line for line in job.lines if line.startswith("::warning")]


def test_a_create_that_fails_is_a_warning_and_never_posted_twice(job: Job) -> None:
    job.fake.fail("POST", r"/check-runs$", 500, message="Server Error", times=None)

    code, outputs = job.steps(check_run="true", comment="off")

    assert (code, outputs["exit_code"]) == (1, "1")
    assert len(job.fake.requests_to("POST", r"/check-runs$")) == 1  # it may exist: not again
    (warning,) = [line for line in job.lines if line.startswith("::warning")]
    assert "no check run" in warning
    assert "500" in warning


def test_a_step_with_no_report_to_publish_completes_its_check_run(job: Job) -> None:
    """Mode check settles the step itself (here: no settings, exit 2): the check run is
    completed with the step's conclusion, never left in progress."""
    code, _ = job.steps(check_run="true", mode="check", comment="off")

    assert code == 2
    run = _only_run(job.fake)
    assert (run.status, run.conclusion) == ("completed", "failure")
    assert run.summary == "goldgate ended with exit code 2; nothing was published."
