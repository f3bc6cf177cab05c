"""Rendered files are created like reports (``goldgate.base.outputs``): never through a symlink
planted in the checkout, never over the report being rendered, and a path that cannot be
written is one sentence (exit 2), never a traceback."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldgate.report.io import report_bytes
from goldgate.report.models import Report

# Every test here starts processes (tests/helpers/slow.py); one worker makes the session's
# corpus (tests/render/conftest.py) for the modules that read it, not each worker that draws
# one of their tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("render_corpus")]


@pytest.fixture
def report_path(corpus: dict[str, Report], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "report.json"
    path.write_bytes(report_bytes(corpus["repeats"]))
    return path


KINDS = [("junit", []), ("markdown", []), ("markdown", ["--budget", "summary"])]


@pytest.mark.parametrize(("kind", "extra"), KINDS)
def test_a_planted_symlink_is_replaced_never_followed(
    run_cli: Callable[..., Any], report_path: Path, tmp_path: Path, kind: str, extra: list[str]
) -> None:
    victim = tmp_path / "outside" / "bashrc"
    victim.parent.mkdir()
    victim.write_text("keep me\n", "utf-8")
    planted = tmp_path / "goldgate-out.txt"
    planted.symlink_to(victim)

    result = run_cli("report", kind, str(report_path), *extra, "-o", str(planted))

    assert result.code == 0, result.output
    assert victim.read_text("utf-8") == "keep me\n"
    assert not planted.is_symlink()
    assert planted.read_text("utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_symlinked_folder_in_the_checkout_is_refused(
    run_cli: Callable[..., Any], report_path: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").symlink_to(elsewhere, target_is_directory=True)

    result = run_cli("report", "junit", str(report_path), "-o", "out/junit.xml")

    assert result.code == 2, result.output
    assert "out/junit.xml: cannot be written" in result.stderr
    assert "is a symlink" in result.stderr
    assert list(elsewhere.iterdir()) == []
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", ["report.json", "hardlink.json"])
def test_the_report_being_rendered_is_never_overwritten(
    run_cli: Callable[..., Any], report_path: Path, tmp_path: Path, name: str
) -> None:
    before = report_path.read_bytes()
    if name == "hardlink.json":
        os.link(report_path, tmp_path / name)

    result = run_cli("report", "markdown", str(report_path), "-o", str(tmp_path / name))

    assert result.code == 2, result.output
    assert "it is the file being rendered" in result.stderr
    assert report_path.read_bytes() == before


def test_a_folder_or_an_unwritable_place_is_one_sentence(
    run_cli: Callable[..., Any], report_path: Path, tmp_path: Path
) -> None:
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("", "utf-8")
    for target, why in (("a-folder", "is a directory"), ("a-file/x.xml", "Not a directory")):
        result = run_cli("report", "junit", str(report_path), "-o", target)
        assert result.code == 2, result.output
        assert why in result.stderr
        assert target in result.stderr
        assert "Traceback" not in result.output


def test_a_report_folder_planted_as_a_symlink_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    from run.support import case, new_project

    project = new_project(tmp_path / "project")
    project.suite("main", "py", [case("a")]).write()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project.root / ".goldgate").symlink_to(elsewhere, target_is_directory=True)

    result = project.run()

    assert result.code == 2, result.output
    assert ".goldgate is a symlink" in result.stderr
    assert list(elsewhere.iterdir()) == []
    assert project.calls() == []
