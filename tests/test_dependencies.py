"""Every package src/ imports is declared in pyproject.toml, and every declared one is used.

A package that arrives only through another one (rich through typer) can leave with that
one's next release; a declared package nothing imports is weight every user installs."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "goldgate"


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    # _typeshed exists only for the type checker (imported under TYPE_CHECKING).
    return {name for name in names if name not in sys.stdlib_module_names} - {
        "goldgate",
        "_typeshed",
    }


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {
        _normalized(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0])
        for line in project["dependencies"]
    }


@functools.cache
def _installed() -> dict[str, list[str]]:
    return packages_distributions()


def _distributions_of(top_level: str) -> set[str]:
    return {_normalized(name) for name in _installed().get(top_level, [])}


def test_every_imported_package_is_declared() -> None:
    declared = _declared()
    undeclared = sorted(
        name for name in _imported_top_levels() if not _distributions_of(name) & declared
    )

    assert undeclared == []


def test_every_declared_package_is_imported() -> None:
    imported: set[str] = set()
    for name in _imported_top_levels():
        imported |= _distributions_of(name)

    assert sorted(_declared() - imported) == []


def test_the_check_sees_an_undeclared_import() -> None:
    assert "yaml" in _imported_top_levels()
    assert _distributions_of("yaml") == {"pyyaml"}
    assert "rich" in _imported_top_levels()
