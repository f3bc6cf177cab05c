"""Annotations and gold links name each gold file relative to the workspace
(``GITHUB_WORKSPACE``, else the working folder), whatever form ``--config`` took: relative,
absolute, or through a symlink; a file outside the workspace is named nowhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goldgate.app.render import gold_sources
from goldgate.render.annotations import render_annotations
from goldgate.render.markdown import render_markdown
from goldgate.render.registry import Links, RenderContext
from goldgate.report.models import SuiteRecord
from render.builders import attempt, case, report, suite

LINK = "https://github.com/o/r/blob/abc"


def _failing(source: str) -> SuiteRecord:
    failing = attempt(1, outcomes=("failed",))
    return suite(source, [case("c", [failing], line=4)], cases_source=source)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspace"
    (root / "evaluation" / "cases").mkdir(parents=True)
    (root / "evaluation" / "cases" / "gold.json").write_text("[]", "utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "gold.json").write_text("[]", "utf-8")
    os.symlink(root, tmp_path / "link")
    monkeypatch.chdir(tmp_path / "elsewhere")  # the working folder is not the workspace
    return root


def test_every_form_of_the_path_names_the_file_in_the_workspace(workspace: Path) -> None:
    inside = workspace / "evaluation" / "cases" / "gold.json"
    forms = {
        str(inside): "evaluation/cases/gold.json",  # absolute
        str(workspace.parent / "link" / "evaluation" / "cases" / "gold.json"): (
            "evaluation/cases/gold.json"  # through a symlink
        ),
        os.path.relpath(inside): "evaluation/cases/gold.json",  # relative to the working folder
        "gold.json": None,  # in the working folder, outside the workspace
    }
    value = report([_failing(source) for source in forms])

    places = gold_sources(value, {"GITHUB_WORKSPACE": str(workspace)})

    assert places == forms
    annotations = render_annotations(RenderContext(value, sources=places)).splitlines()
    assert [line.split(",line=")[0].split("file=")[-1] for line in annotations[:3]] == [
        "evaluation/cases/gold.json"
    ] * 3
    assert "file=" not in annotations[3]
    markdown = render_markdown(
        RenderContext(value, sources=places, budget="summary", links=Links(link_base=LINK))
    )
    assert markdown.count(f"]({LINK}/evaluation/cases/gold.json#L4)") == 3


def test_without_github_workspace_the_working_folder_is_the_workspace(workspace: Path) -> None:
    value = report([_failing("gold.json"), _failing("../workspace/evaluation/cases/gold.json")])

    assert gold_sources(value, {}) == {
        "gold.json": "gold.json",
        "../workspace/evaluation/cases/gold.json": None,
    }


def test_a_file_that_is_not_there_keeps_the_report_s_name(workspace: Path) -> None:
    value = report([_failing("evaluation/missing.json")])

    places = gold_sources(value, {"GITHUB_WORKSPACE": str(workspace)})

    assert places == {}
    assert "file=evaluation/missing.json," in render_annotations(
        RenderContext(value, sources=places)
    )
