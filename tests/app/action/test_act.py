"""A real Actions runner (nektos/act, tests/helpers/act.py) on the act fixture's composite
action (tests/app/action/act_fixture/) and on the stand-ins of the actions goldgate's
example workflows use (tests/app/action/standins/): what the runner gives a step, and what
the harness reads back (results, outputs, the job summary, annotations, the exit code)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.act import GOLDGATE_USES, Act, UnmappedAction, act_binary, action_source, with_action
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN, FakeGitHub
from helpers.job_python import runner_base, runner_python

from .support import REPO_ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

FIXTURE = Path(__file__).resolve().parent / "act_fixture"
WORKFLOWS = FIXTURE / "workflows"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
PUSHED = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


@pytest.fixture
def act(tmp_path: Path, fake: FakeGitHub) -> Act:
    source = tmp_path / "source"
    shutil.copytree(FIXTURE, source)
    return Act(tmp_path / "runs", fake, source)


def push_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """A push of ``PUSHED`` to the default branch of the pull request's repository."""
    repository = payload["repository"]
    return {
        "ref": f"refs/heads/{repository['default_branch']}",
        "before": "0" * 40,
        "after": PUSHED,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": repository,
        "pusher": {"name": "octocat", "email": "octocat@example.com"},
        "sender": payload["sender"],
    }


def test_a_composite_action_s_inputs_outputs_summary_and_annotations(
    act: Act, payload: dict[str, Any]
) -> None:
    result = act.run(
        WORKFLOWS / "echo.yml", "pull_request", payload, secrets={"GITHUB_TOKEN": TOKEN}
    )
    job = result.job("Echo")

    assert result.exit_code == 1, result.text  # the failing step fails the job, and act
    assert job.result == "failure"
    assert job.steps["plain"] == job.steps["given"] == "success", result.text
    assert job.steps["failing"] == "failure"
    assert job.steps["after"] == "success"
    head = payload["pull_request"]["head"]["ref"]
    assert job.outputs["plain"]["said"] == f"hello from {head}"
    assert f"failing was failure; plain said hello from {head}" in job.log("after")
    # The runner's world: the fake's address and repository, never GitHub's.
    assert f"api {act.fake.base_url}, repository {act.fake.repository}" in job.log("plain")
    assert job.summary == "".join(
        f"## Greeting\n\n{said}\n" for said in (f"hello from {head}", "with a token", "failing")
    )
    plain = next(a for a in job.annotations if a.step.startswith("plain"))
    assert (plain.level, plain.message) == ("warning", f"said hello from {head}")
    assert plain.properties == {"file": "greeting.txt", "line": "2", "title": "Greeting"}
    # A step holds a token only when the workflow gives it one.
    assert job.outputs["plain"]["token_variables"] == ""
    # act, unlike GitHub, also exports a composite action's inputs as INPUT_<NAME>: a
    # composite action must not rely on them (goldgate's passes each through env:).
    assert job.outputs["given"]["token_variables"] == "GITHUB_TOKEN,INPUT_GITHUB_TOKEN"
    assert TOKEN not in result.text  # act masks secrets in the log


def test_artifacts_go_through_the_fake_github(
    act: Act, fake: FakeGitHub, payload: dict[str, Any], tmp_path: Path
) -> None:
    stored = act.run(WORKFLOWS / "artifacts.yml", "push", push_payload(payload))
    job = stored.job()

    assert stored.exit_code == 0, stored.text
    assert all(outcome == "success" for outcome in job.steps.values()), job.steps
    # setup-python's stand-in put the test's Python first on PATH.
    python = str(act.python_bin / "python")
    assert job.outputs["python"]["python-path"] == python
    assert job.log("Compare").splitlines()[-1] == python
    # Uploaded by the run, for its commit and branch, as GitHub lists a push's artifacts.
    (artifact,) = [a for a in fake.artifacts() if a["name"] == f"reports-{PUSHED}"]
    assert artifact["workflow_run"]["head_sha"] == PUSHED
    assert artifact["workflow_run"]["head_branch"] == payload["repository"]["default_branch"]
    assert artifact["workflow_run"]["id"] == stored.run_id
    assert job.outputs["upload"]["artifact-id"] == str(artifact["id"])
    # Hidden files stay out unless asked for: nothing to upload is a warning.
    (warning,) = job.annotations
    assert warning.level == "warning"
    assert warning.message.startswith("No files were found with the provided path: .goldgate/")

    later = act.run(
        WORKFLOWS / "later.yml",
        "pull_request",
        payload,
        secrets={"GITHUB_TOKEN": TOKEN},
        variables={"EARLIER_RUN": str(stored.run_id)},
    )
    assert later.exit_code == 0, later.text
    assert later.job().log("1").split() == [
        f"./reports-{PUSHED}/.goldgate/report.json",
        f"./reports-{PUSHED}/out/python.txt",
    ]
    # Through the REST API, the archive from the storage host without the token.
    blobs = [r for r in fake.requests if r.path.startswith("/_blob/")]
    assert len(blobs) == 2
    assert all("authorization" not in r.headers for r in blobs)
    assert fake.requests_to("GET", rf"/actions/runs/{stored.run_id}/artifacts")


def test_an_action_without_a_local_folder_is_refused_before_act_starts(
    act: Act, tmp_path: Path
) -> None:
    workflow = tmp_path / "elsewhere.yml"
    workflow.write_text(
        "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/cache@v4\n      - uses: someone/else@v1\n",
        "utf-8",
    )
    with pytest.raises(UnmappedAction, match=r"actions/cache@v4"):
        act.run(workflow, "push", {})


def test_an_action_named_by_owner_and_version_runs_from_a_local_folder(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    """How goldgate's own action will run: the example workflow's ``uses: ./`` made
    ``uses: OWNER/goldgate@REF`` and mapped to a folder, the workspace holding the
    application only."""
    application = tmp_path / "application"
    application.mkdir()
    (application / "greeting.txt").write_text("hello\n", "utf-8")
    workflow = with_action(WORKFLOWS / "echo.yml", tmp_path / "echo.yml")
    act = Act(tmp_path / "runs", fake, application, actions={GOLDGATE_USES: FIXTURE})

    result = act.run(workflow, "pull_request", payload)

    assert f"uses: {GOLDGATE_USES}" in workflow.read_text("utf-8")
    assert result.job().steps["plain"] == "success", result.text
    assert result.job().outputs["plain"]["said"].startswith("hello from ")


def test_goldgate_s_action_source_holds_what_the_action_installs(tmp_path: Path) -> None:
    source = action_source(tmp_path / "goldgate")
    assert (source / "action.yml").is_file()
    assert (source / "pyproject.toml").is_file()
    assert (source / "src" / "goldgate" / "__init__.py").is_file()
    assert not list(source.rglob("__pycache__"))


def test_the_jobs_python_holds_goldgate_on_a_runner_s_small_standard_library(
    tmp_path: Path,
) -> None:
    """Act's default ``python_bin`` (helpers/job_python.py's ``runner_python``): a venv of the
    system's Python of this version where there is one (``runner_base``), whose standard
    library folder, which the action's seal lists, holds no site-packages of the test venv's
    base; of the test venv it sees goldgate's dependencies and pip alone (``lean_site``);
    goldgate imported from this checkout and its console script beside that Python."""
    bin_folder = runner_python(tmp_path / "job")
    shown = subprocess.run(
        [str(bin_folder / "python"), "-c", SHOWN], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    version = subprocess.run(
        [str(bin_folder / "goldgate"), "--version"], capture_output=True, text=True, check=True
    ).stdout

    base = runner_base()
    system = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if system.exists():
        assert base == str(system)
    assert shown[0] == str(Path(base).resolve())
    assert shown[1].startswith(str(REPO_ROOT / "src" / "goldgate") + "/"), shown
    if base != sys.executable:  # the system's: its standard library holds no site-packages
        assert not Path(shown[2], "site-packages").exists(), shown
    # goldgate's dependencies and pip, not the test venv's other packages (helpers/job_python.py
    # lean_site: the seal lists every file the job's Python sees).
    assert shown[3:] == ["pydantic yes", "github yes", "pip yes", "mypy no", "pytest no"], shown
    assert version.startswith("goldgate "), version


SHOWN = """
import importlib.util, os, sys, sysconfig, goldgate
print(os.path.realpath(sys._base_executable))
print(goldgate.__file__)
print(sysconfig.get_path("stdlib"))
for name in ("pydantic", "github", "pip", "mypy", "pytest"):
    print(name, "yes" if importlib.util.find_spec(name) else "no")
"""
