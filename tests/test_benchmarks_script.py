"""The benchmark script is not run by the tests (figures belong to benchmarks), but it must
stay a valid program with every benchmark it documents, and refuse a name it does not know."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from compare.conftest import example_copy


def test_the_benchmark_script_compiles_and_lists_what_it_documents(repo_root: Path) -> None:
    source = (repo_root / "benchmarks" / "run.py").read_text(encoding="utf-8")
    tree = ast.parse(source)  # a syntax error fails here
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "BENCHMARKS" for t in node.targets)
    )
    assert isinstance(table, ast.Dict)
    names = [key.value for key in table.keys if isinstance(key, ast.Constant)]
    defined_before = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.lineno < table.lineno
    }
    functions = [value.id for value in table.values if isinstance(value, ast.Name)]
    assert len(functions) == len(names)
    assert [f for f in functions if f not in defined_before] == []
    docstring = ast.get_docstring(tree) or ""
    for name in names:
        assert f"- {name}:" in docstring, f"benchmarks/run.py does not document {name!r}"


def test_the_cold_start_benchmark_s_workflows_and_edit_fit_the_example(
    repo_root: Path, tmp_path: Path
) -> None:
    """benchmarks/coldstart.py (run by run.py's ``coldstart``) edits the example's python
    target to note the time of each call, and runs one-job workflows: the edit must still
    apply, and each workflow must name the action it times."""
    spec = importlib.util.spec_from_file_location(
        "coldstart", repo_root / "benchmarks" / "coldstart.py"
    )
    assert spec is not None
    assert spec.loader is not None
    coldstart = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(coldstart)

    stamp = tmp_path / "stamp"
    app = example_copy(tmp_path / "example", coldstart.stamping(stamp)) / "support_triage_app"
    assert str(stamp) in (app / "app.py").read_text("utf-8")
    for kind, uses in (
        ("composite", coldstart.harness.GOLDGATE_USES),
        ("container", coldstart.DOCKER_USES),
    ):
        workflow = yaml.safe_load(coldstart.WORKFLOW.format(steps=coldstart.STEPS[kind]))
        steps = workflow["jobs"]["gold"]["steps"]
        assert steps[0]["uses"].startswith("actions/checkout@")
        assert steps[-1]["uses"] == uses


@pytest.mark.slow
def test_an_unknown_benchmark_is_one_sentence_and_runs_nothing(repo_root: Path) -> None:
    script = repo_root / "benchmarks" / "run.py"
    done = subprocess.run(
        [sys.executable, str(script), "lean", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("benchmarks/run.py: no benchmark '--help'; one of check,")
    assert "Traceback" not in done.stderr
    assert "- lean:" in done.stdout  # what each benchmark measures
