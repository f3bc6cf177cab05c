"""The files ``goldgate action`` writes in the workspace (JUnit, the Markdown copy, the fork
hand-off) are created like reports: a symlink a pull request planted is replaced, never
written through; a path that cannot be written is a warning, and every other output and the
``fail_on`` decision are kept."""

from __future__ import annotations

from pathlib import Path

from .conftest import Runner
from .support import why


def test_planted_symlinks_are_replaced_never_followed(runner: Runner, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me\n", "utf-8")
    junit = runner.workspace / "goldgate-junit.xml"
    junit.symlink_to(victim)

    result = runner.run(comment="off")

    assert result.code == 1, result.stderr
    assert victim.read_text("utf-8") == "keep me\n"
    assert not junit.is_symlink()
    assert junit.read_text("utf-8").startswith("<?xml")
    assert runner.outputs()["junit"] == "goldgate-junit.xml"


def test_an_unwritable_junit_path_is_a_warning_that_keeps_the_rest(runner: Runner) -> None:
    (runner.workspace / "not-a-folder").write_text("", "utf-8")

    result = runner.run(comment="off", junit="not-a-folder/junit.xml", fail_on="never")

    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("not-a-folder/junit.xml: cannot be written" in line for line in warnings)
    outputs = runner.outputs()
    assert outputs["junit"] == ""
    assert outputs["markdown"]
    assert Path(runner.workspace / outputs["markdown"]).is_file()
    assert why(runner.summary.read_text("utf-8")).startswith("Passed whatever the run found")


def test_a_symlinked_work_folder_is_refused_before_anything_runs(
    runner: Runner, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (runner.workspace / ".goldgate").mkdir(exist_ok=True)
    action_folder = runner.workspace / ".goldgate" / "action"
    if action_folder.exists():
        action_folder.rmdir()
    action_folder.symlink_to(elsewhere, target_is_directory=True)

    result = runner.run(comment="off")

    assert "Traceback" not in result.stdout + result.stderr
    assert list(elsewhere.iterdir()) == []
    assert result.code == 2  # the report itself has nowhere safe to go: nothing runs
    assert "cannot write a report there" in result.stderr
    assert ".goldgate/action is a symlink" in result.stderr
    assert runner.outputs()["exit_code"] == "2"
