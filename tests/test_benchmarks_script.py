"""The benchmark script is not run by the tests (figures belong to benchmarks), but it must
stay a valid program with every benchmark it documents."""

from __future__ import annotations

import ast
from pathlib import Path


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
    docstring = ast.get_docstring(tree) or ""
    for name in names:
        assert f"- {name}:" in docstring, f"benchmarks/run.py does not document {name!r}"
