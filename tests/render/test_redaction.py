"""Known secret values never reach a rendered output: a target that echoes the credential
its live workflow names (or the GitHub token) into its answer or an error gets ``***`` in
the Markdown (``--details values`` too), JUnit, annotations and the terminal, through the
real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.textsafe import REDACTED, SECRET_MIN_LENGTH, redact
from goldgate.render.escape import markdown
from run.support import STATUS_OK, case, expect, new_project, run_cli

KEY = 'sk-live_<b>|`x`*_~"\\@team 123'
"""A credential holding what Markdown, HTML, XML and JSON escape: it must be found before."""
TOKEN = "ghs_0123456789abcdefTOKEN"


def _leaky_project(tmp_path: Path) -> Any:
    project = new_project(tmp_path / "project")
    project.workflows["live"]["credentials"] = ["GG_API_KEY"]
    wrong = expect("category", "/payload/category", "billing")
    project.suite(
        "leaks",
        "live",
        [
            case("answer", "leak", STATUS_OK, wrong, variable="GG_API_KEY"),
            case("error", "leak", STATUS_OK, variable="GG_API_KEY", **{"raise": True}),
            case("token", "leak", STATUS_OK, wrong, variable="GITHUB_TOKEN"),
        ],
    ).write()
    return project


def _renderings(project: Any, report: Path, env: dict[str, str]) -> dict[str, str]:
    out = project.root / "out"
    rendered: dict[str, str] = {}
    for name, args in {
        "values.md": ["markdown", "--details", "values"],
        "comment.md": ["markdown"],
        "summary.md": ["markdown", "--budget", "summary", "--details", "values"],
        "junit.xml": ["junit"],
        "values.html": ["html", "--details", "values"],
    }.items():
        result = run_cli("report", *args, str(report), "-o", str(out / name),
                         cwd=project.root, env=env)  # fmt: skip
        assert result.code == 0, result.output
        rendered[name] = (out / name).read_text("utf-8") + result.output
    for kind in ("annotations", "show"):
        result = run_cli("report", kind, str(report), cwd=project.root, env=env)
        assert result.code == 0, result.output
        rendered[kind] = result.output
    return rendered


@pytest.mark.slow
def test_a_target_s_echoed_credential_is_redacted_from_every_rendering(tmp_path: Path) -> None:
    project = _leaky_project(tmp_path)
    env = {"GG_API_KEY": KEY, "GITHUB_TOKEN": TOKEN}
    result, report = project.evaluate("--live", env=env)
    assert report is not None, result.output
    assert KEY not in result.output
    assert TOKEN not in result.output
    answers = json.dumps(report)
    assert json.dumps(KEY)[1:-1] in answers  # the private report keeps what the target said

    rendered = _renderings(project, project.output(), env)

    for name, text in rendered.items():
        for secret in (KEY, TOKEN):
            for form in (secret, json.dumps(secret)[1:-1], "sk-live", "0123456789abcdefTOKEN"):
                assert form not in text, (name, form)
    assert f"key {markdown(REDACTED)}" in rendered["values.md"]
    assert f"key {markdown(REDACTED)} \\(json: " in rendered["summary.md"]


def test_without_the_secret_in_the_environment_nothing_is_redacted(tmp_path: Path) -> None:
    project = _leaky_project(tmp_path)
    result, report = project.evaluate("--live", env={"GG_API_KEY": KEY})
    assert report is not None, result.output

    shown = run_cli("report", "markdown", "--details", "values", str(project.output()),
                    cwd=project.root, env={"GG_API_KEY": "another value"})  # fmt: skip

    assert "sk-live" in shown.stdout  # nothing known to hide: the value is shown


@pytest.mark.parametrize("value", ["", "a", "abc"])
def test_values_too_short_to_guard_anything_are_not_redacted(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(value) < SECRET_MIN_LENGTH
    monkeypatch.setenv("GITHUB_TOKEN", value)

    assert redact("a abc b") == "a abc b"


def test_every_line_and_json_form_of_a_secret_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", 'first-line\nsecond"line')

    assert redact('x first-line y second"line z') == "x *** y *** z"
    assert redact('["first-line\\nsecond\\"line"]') == '["***"]'
