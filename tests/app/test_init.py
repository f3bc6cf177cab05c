"""``goldgate init``: the starter it writes validates, checks and runs green; it overwrites
nothing (one existing file and nothing is written); and its workflows are the examples'
(permissions, pins, action inputs). tests/app/action/test_workflow_lint.py lints them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from goldgate._version import __version__
from goldgate.app import init as init_module
from goldgate.app.starter import starter_files
from run.support import run_cli as run_console_script

STARTER = [path for path, _ in starter_files(github=False)]
WITH_GITHUB = [path for path, _ in starter_files(github=True)]
REPO_ROOT = Path(__file__).resolve().parents[2]


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def test_init_writes_the_starter_and_says_what_to_run(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli("init", "project", cwd=tmp_path)

    assert result.code == 0, result.output
    assert _tree(tmp_path / "project") == set(STARTER)
    assert result.stdout.splitlines() == [
        f"goldgate init: wrote {len(STARTER)} files:",
        *(f"  project/{path}" for path in STARTER),
        "next: goldgate evaluate --config project/config/settings.yaml",
    ]


def test_init_with_github_writes_the_workflows_too(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli("init", "--github", cwd=tmp_path)

    assert result.code == 0, result.output
    assert _tree(tmp_path) == set(WITH_GITHUB)
    assert "next: goldgate evaluate --config config/settings.yaml" in result.stdout
    assert "replace <owner>/goldgate@000..." in result.stdout


def test_the_starter_validates_and_its_gold_checks(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli("init", cwd=tmp_path).code == 0

    validated = run_cli("validate", cwd=tmp_path)
    checked = run_cli("evaluate", "--check", cwd=tmp_path)

    assert validated.code == 0, validated.output
    assert "1 workflows: assistant" in validated.stdout
    assert checked.code == 0, checked.output
    assert "gold OK: starter @ 1: 1 suite, 2 cases" in checked.stdout  # English counts


@pytest.mark.slow
def test_the_starter_runs_green_through_the_console_script(tmp_path: Path) -> None:
    written = run_console_script("init", "--github", cwd=tmp_path)
    assert written.code == 0, written.output

    run = run_console_script("evaluate", cwd=tmp_path)

    assert run.code == 0, run.output
    assert "support  PASSED     2 cases; 2 attempts; checks 5 passed, 0 failed" in run.stdout
    assert "verdict: passed (exit 0)" in run.stdout
    assert len(list((tmp_path / ".goldgate" / "evaluations").glob("*.json"))) == 1


@pytest.mark.parametrize("existing", WITH_GITHUB)
def test_one_existing_file_refuses_it_all_and_nothing_is_written(
    run_cli: Any, tmp_path: Path, existing: str
) -> None:
    (tmp_path / existing).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / existing).write_text("the team's own\n", encoding="utf-8")
    before = _tree(tmp_path)

    result = run_cli("init", "--github", cwd=tmp_path)

    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"goldgate: {existing} already exists; goldgate init overwrites nothing, so nothing "
        "was written.\n"
    )
    assert _tree(tmp_path) == before
    assert (tmp_path / existing).read_text(encoding="utf-8") == "the team's own\n"


def test_a_dangling_symlink_counts_as_a_file(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "goldgate_target.py").symlink_to(tmp_path / "nowhere.py")

    result = run_cli("init", cwd=tmp_path)

    assert result.code == 2
    assert "goldgate_target.py already exists" in result.stderr
    assert not (tmp_path / "nowhere.py").exists()
    assert _tree(tmp_path) == {"goldgate_target.py"}


@pytest.mark.parametrize(
    "folder", ["config", "evaluation", "evaluation/cases", ".github", ".github/workflows"]
)
def test_a_symlinked_folder_on_the_way_refuses_it_all(
    run_cli: Any, tmp_path: Path, folder: str
) -> None:
    """A folder the starter writes into (or a parent of one) that is a symlink, even to an
    empty folder: nothing is written, there or anywhere."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    link = project / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere, target_is_directory=True)

    result = run_cli("init", "project", "--github", cwd=tmp_path)

    assert result.code == 2, result.stderr
    assert result.stderr == (
        f"goldgate: project/{folder} is a symlink; goldgate init writes through no symlink, "
        "so nothing was written.\n"
    )
    assert list(elsewhere.iterdir()) == []
    top = folder.split("/", maxsplit=1)[0]
    assert {p for p in _tree(project) if not p.startswith(top)} == set()


def test_the_project_folder_itself_a_symlink_is_refused(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "project").symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    result = run_cli("init", "project", cwd=tmp_path)

    assert result.code == 2
    assert "goldgate: project is a symlink; goldgate init writes through none" in result.stderr
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_folder_that_becomes_a_symlink_while_writing_is_not_written_through(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the look and the write, ``evaluation/cases`` is swapped for a symlink: the file
    is not created through it (folders are opened with O_NOFOLLOW)."""
    write_new = init_module._write_new
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "project"

    def racing(root: Path, relative: str, text: str) -> None:
        if relative.startswith("evaluation/cases/"):
            (project / "evaluation" / "cases").symlink_to(elsewhere, target_is_directory=True)
        write_new(root, relative, text)

    monkeypatch.setattr(init_module, "_write_new", racing)

    result = run_cli("init", "project", cwd=tmp_path)

    assert result.code == 2
    assert "cannot write project/evaluation/cases/" in result.stderr
    assert "a folder on its way became a symlink or a file" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_file_where_a_folder_goes_refuses_it_all(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "evaluation").write_text("", encoding="utf-8")

    result = run_cli("init", cwd=tmp_path)

    assert result.code == 2
    assert "goldgate: evaluation exists and is not a folder;" in result.stderr
    assert _tree(tmp_path) == {"evaluation"}


def test_a_path_that_is_a_file_is_refused(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "project").write_text("", encoding="utf-8")

    result = run_cli("init", "project", cwd=tmp_path)

    assert result.code == 2
    assert result.stderr == "goldgate: project is not a folder; nothing was written.\n"


def test_a_file_that_appears_while_writing_is_not_overwritten(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between the look and the write, another process creates the target module: O_EXCL
    # refuses it, and what came before stays written.
    write_new = init_module._write_new

    def racing(root: Path, relative: str, text: str) -> None:
        if relative == "goldgate_target.py":
            (root / relative).write_text("theirs\n", encoding="utf-8")
        write_new(root, relative, text)

    monkeypatch.setattr(init_module, "_write_new", racing)

    result = run_cli("init", cwd=tmp_path)

    assert result.code == 2
    assert result.stderr.startswith(
        "goldgate: goldgate_target.py appeared while goldgate init was writing and was left "
        "alone (written before it: config/settings.yaml, evaluation/dataset.json,"
    )
    assert (tmp_path / "goldgate_target.py").read_text(encoding="utf-8") == "theirs\n"


def test_written_files_honour_the_umask(run_cli: Any, tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        assert run_cli("init", cwd=tmp_path).code == 0
    finally:
        os.umask(previous)

    assert (tmp_path / "config" / "settings.yaml").stat().st_mode & 0o777 == 0o640


# --- the workflows are the examples' ------------------------------------------------------------


def _workflow(text: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(text)
    return loaded


def _steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    (job,) = workflow["jobs"].values()
    steps: list[dict[str, Any]] = job["steps"]
    return steps


WRITTEN = dict(starter_files(github=True))
EXAMPLE_PINS = {
    step["uses"]
    for path in (REPO_ROOT / "examples" / "workflows").glob("*.yml")
    for job in yaml.safe_load(path.read_text("utf-8"))["jobs"].values()
    for step in job.get("steps", [])
    if step.get("uses", "").startswith("actions/")
}
PAIRS = [
    (".github/workflows/goldgate.yml", "pull-request.yml"),
    (".github/workflows/goldgate-baseline.yml", "baseline.yml"),
]


@pytest.mark.parametrize(("written", "example"), PAIRS)
def test_the_workflows_keep_the_examples_triggers_permissions_and_pins(
    written: str, example: str
) -> None:
    ours = _workflow(WRITTEN[written])
    theirs = _workflow((REPO_ROOT / "examples" / "workflows" / example).read_text("utf-8"))
    (our_job,) = ours["jobs"].values()
    their_job = next(iter(theirs["jobs"].values()))

    assert ours[True] == theirs[True]  # `on:` (YAML 1.1 reads the key as true)
    assert ours["permissions"] == theirs["permissions"] == {}
    assert our_job["permissions"] == their_job["permissions"]
    ours_actions = {s["uses"] for s in _steps(ours) if s.get("uses", "").startswith("actions/")}
    assert ours_actions <= EXAMPLE_PINS  # setup-python's pin is shards.yml's
    assert _steps(ours)[0] == _steps(theirs)[0]  # actions/checkout, by sha, no credentials


@pytest.mark.parametrize("written", [path for path, _ in PAIRS])
def test_the_goldgate_step_uses_the_placeholder_pin_and_known_inputs(written: str) -> None:
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text("utf-8"))
    text = WRITTEN[written]
    (step,) = [s for s in _steps(_workflow(text)) if s.get("id") == "goldgate"]

    assert step["uses"] == "<owner>/goldgate@" + "0" * 40
    assert f"@{'0' * 40} # v{__version__}:" in text
    assert set(step["with"]) <= set(action["inputs"])
    assert "steps.goldgate.outputs.report" in text


def test_paths_are_printed_escaped_and_the_next_command_quoted(
    run_cli: Any, tmp_path: Path
) -> None:
    result = run_cli("init", "my gold\n::warning::x", cwd=tmp_path)

    assert result.code == 0, result.output
    assert "  my gold\\n::warning::x/config/settings.yaml" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1] == (
        "next: goldgate evaluate --config 'my gold\\n::warning::x/config/settings.yaml'"
    )


def test_the_pull_request_workflows_ask_for_a_check_run_and_grant_checks_write() -> None:
    """Every goldgate step of the pull-request workflows (init's and the examples') asks for
    its check run, and its job grants ``checks: write`` (issue 44)."""
    examples = REPO_ROOT / "examples" / "workflows"
    texts = {
        "init": WRITTEN[".github/workflows/goldgate.yml"],
        **{
            name: (examples / name).read_text("utf-8")
            for name in ("pull-request.yml", "live.yml", "shards.yml")
        },
    }
    for name, text in texts.items():
        for job in _workflow(text)["jobs"].values():
            ours = [
                step
                for step in job.get("steps", [])
                if step.get("uses", "").startswith(("./", "<owner>/goldgate@"))
            ]
            for step in ours:
                assert step["with"]["check_run"] == "true", (name, step.get("id"))
            if ours:
                assert job["permissions"]["checks"] == "write", name
