"""Run options have one home (issue 40, item 3): ``RunOptions`` and its defaults live in
``goldgate.run.limits``, every way into a run carries it whole, and targets are built in one
place, so the Python API's http targets time out as the command line's do."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml

from goldgate.app.action.inputs import read_inputs
from goldgate.run.api import open_application
from goldgate.run.limits import DEFAULT_OPTIONS, DEFAULT_TIMEOUT, HTTP_MARGIN, RunOptions
from goldgate.run.session import RunRequest, prepare_session
from goldgate.run.targets.http_target import HttpTarget

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "goldgate"


def _trees() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in SRC.rglob("*.py")]


def test_the_default_timeout_is_written_once() -> None:
    found = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) is float and node.value == 300.0
    ]
    assert found == ["run/limits.py:18"]
    assert RunOptions().timeout == DEFAULT_TIMEOUT == 300.0


def test_no_signature_or_request_declares_the_run_options_apart() -> None:
    """``max_concurrency`` and ``timeout`` side by side are ``RunOptions``'s fields, the report's
    record of them, or the options of a typer command (which builds a ``RunOptions``)."""
    apart = []
    for path, tree in _trees():
        where = str(path.relative_to(SRC))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
                if {"max_concurrency", "timeout"} <= names and "commandline" not in where:
                    apart.append(f"{where}:{node.name}")
            elif isinstance(node, ast.ClassDef):
                fields = {
                    item.target.id
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                }
                if {"max_concurrency", "timeout"} <= fields:
                    apart.append(f"{where}:{node.name}")
    assert sorted(apart) == ["report/records.py:OptionsRecord", "run/limits.py:RunOptions"]


def test_the_action_carries_the_run_options_whole() -> None:
    assert read_inputs({}).options == DEFAULT_OPTIONS
    given = {"INPUT_MAX_CONCURRENCY": "4", "INPUT_TIMEOUT": "2.5", "INPUT_REPEAT": "3"}
    assert read_inputs(given).options == RunOptions(max_concurrency=4, timeout=2.5, repeat=3)


@pytest.mark.parametrize("action", ["action.yml", "docker/action.yml"])
def test_the_action_metadata_states_the_run_options_defaults(action: str) -> None:
    inputs = yaml.safe_load((ROOT / action).read_text(encoding="utf-8"))["inputs"]
    stated = {
        f"INPUT_{name.upper()}": inputs[name]["default"]
        for name in ("max_concurrency", "timeout", "repeat")
    }
    assert read_inputs(stated).options == DEFAULT_OPTIONS


def _http_project(root: Path) -> Path:
    (root / "config").mkdir()
    (root / "evaluation" / "cases").mkdir(parents=True)
    settings = root / "config" / "settings.yaml"
    settings.write_text(
        "workflows:\n  w:\n    revision: r1\n    target: {http: {url: 'http://127.0.0.1:9/run'}}\n",
        encoding="utf-8",
    )
    manifest = {"name": "d", "revision": "r1", "suites": [{"name": "s", "workflow": "w"}]}
    manifest["suites"][0]["cases"] = "cases/s.json"
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest), encoding="utf-8")
    case = {
        "id": "c",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "x", "path": "/payload/x", "expected": 1}],
    }
    (root / "evaluation" / "cases" / "s.json").write_text(json.dumps([case]), encoding="utf-8")
    return settings


@pytest.mark.anyio
async def test_the_python_api_times_http_out_as_the_command_line_does(tmp_path: Path) -> None:
    settings = _http_project(tmp_path)
    options = RunOptions(timeout=7.0)
    session = prepare_session(
        RunRequest(
            config=settings,
            options=options,
            output=tmp_path / "report.json",
            variant_revision="r1",  # no git asked
        )
    )
    [command_line] = session.targets
    async with open_application(settings, options=options) as application:
        api = application._target("w")
    assert isinstance(command_line, HttpTarget)
    assert isinstance(api, HttpTarget)
    assert api.timeout == command_line.timeout == 7.0 + HTTP_MARGIN
    async with open_application(settings) as application:
        default = application._target("w")
    assert isinstance(default, HttpTarget)
    assert default.timeout == DEFAULT_TIMEOUT + HTTP_MARGIN
