"""What a report names as having run: the variant (``--variant``, ``--variant-revision``, else
the commit, else the configuration digest), the dataset a Python API suite came from, and the
project folder that default reports go to."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from goldgate.gold import Case, load_gold
from goldgate.gold.settings.load import load_settings
from goldgate.run.api import (
    EvaluationSuite,
    EvaluationVariant,
    Expectation,
    RegisteredScorer,
    evaluate,
)
from goldgate.run.identity import commit_revision, project_folder, variant_revision

from .support import EXAMPLE, Project, case, run_cli


def _digest(project: Project) -> str:
    result = run_cli(
        "validate", "--format", "json", "--config", str(project.settings_path), cwd=project.root
    )
    return str(json.loads(result.stdout)["configuration_digest"])


@pytest.mark.slow
def test_variant_name_and_revision_come_from_the_options(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()

    result, report = project.evaluate("--variant", "candidate", "--variant-revision", "pr-42")

    assert result.code == 0, result.stderr
    assert report is not None
    assert report["variant"] == {
        "name": "candidate",
        "revision": "pr-42",
        "configuration_revision": _digest(project),
    }


@pytest.mark.slow
def test_without_options_the_revision_is_github_sha_in_actions(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    sha = "0123456789abcdef0123456789abcdef01234567"

    result, report = project.evaluate(env={"GITHUB_ACTIONS": "true", "GITHUB_SHA": sha})

    assert result.code == 0, result.stderr
    assert report is not None
    assert report["variant"]["name"] == "settings"
    assert report["variant"]["revision"] == sha


def test_without_options_the_revision_is_the_git_head_of_a_checkout(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    git = ["git", "-C", str(project.root), "-c", "user.name=t", "-c", "user.email=t@e"]
    try:
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "gold"], check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()

    result, report = project.evaluate()

    assert result.code == 0, result.stderr
    assert report is not None
    assert report["variant"]["revision"] == head


@pytest.mark.slow
def test_outside_a_checkout_the_revision_is_the_configuration_digest(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()

    result, report = project.evaluate()

    assert result.code == 0, result.stderr
    assert report is not None
    assert report["variant"]["revision"] == _digest(project)
    assert commit_revision(project.root, {}) is None
    assert variant_revision(None, project.root, {}, "sha256:x") == "sha256:x"


def test_project_folder_is_the_one_holding_config(tmp_path: Path) -> None:
    assert project_folder(tmp_path / "config" / "settings.yaml") == tmp_path
    assert project_folder(tmp_path / "ci" / "settings.yaml") == tmp_path / "ci"


def test_default_report_goes_to_the_project_folder_and_is_printed(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "settings.yaml").write_text(
        "workflows:\n  w:\n    revision: r\n    target: {python: 'app:handle'}\n", "utf-8"
    )
    (tmp_path / "app.py").write_text("def handle(request):\n    return {'payload': {}}\n", "utf-8")
    gold = tmp_path / "gold.json"
    gold.write_text(
        json.dumps(
            {
                "name": "g",
                "revision": "1",
                "suites": [{"name": "s", "workflow": "w", "cases": [case("a", "ok")]}],
            }
        ),
        "utf-8",
    )

    result = run_cli(
        "evaluate", "--config", str(folder / "settings.yaml"), "--dataset", str(gold),
        cwd=tmp_path,
    )  # fmt: skip

    path = result.report_path()
    assert path is not None, result.output
    assert (tmp_path / path).parent == folder / ".goldgate" / "evaluations"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_python_api_report_names_the_dataset_a_loaded_suite_came_from() -> None:
    gold = load_gold(load_settings(EXAMPLE / "config" / "settings.yaml"))

    async def run(envelope: object) -> dict[str, object]:
        return {"execution": {"status": "completed"}}

    variant = EvaluationVariant(name="v", revision="prompt-7", run=run, workflow="support_triage")

    async def never(actual: object, expected: object) -> bool:
        return False

    scorers = (RegisteredScorer("casefolded", "1", never),)
    report = await evaluate(gold.suite("pipeline"), variant, scorers=scorers)

    assert report.dataset.name == "support_checks"
    assert report.dataset.revision == "reviewed-2026-11-30"
    assert report.dataset.fingerprint == gold.fingerprint
    assert report.variant.revision == "prompt-7"


@pytest.mark.anyio
async def test_an_in_memory_suite_is_a_dataset_of_its_own() -> None:
    async def run(envelope: object) -> dict[str, object]:
        return {"payload": {"x": 1}}

    cases = [
        Case(
            id="a",
            input={"payload": {}, "metadata": {}},
            expectations=[Expectation("x", "/payload/x", 1)],
        )
    ]
    variant = EvaluationVariant(name="v", revision="prompt-7", run=run)

    named = await evaluate(EvaluationSuite("api", cases, revision="gold-3"), variant)
    unnamed = await evaluate(EvaluationSuite("api", cases), variant)

    assert (named.dataset.name, named.dataset.revision) == ("api", "gold-3")
    assert unnamed.dataset.revision == unnamed.dataset.fingerprint
    assert unnamed.dataset.revision.startswith("sha256:")
