"""Tests that read process-wide state (the garbage collector's counts, its frozen generation)
run in an interpreter of their own: marked ``fresh_interpreter``, they are not run in the
test process, whose state depends on every test that ran before in it (objects they froze
being freed, threads they left allocating or collecting), but by a ``pytest`` of their module
started for them, once per module and test process, with nothing else loaded or running
(``tests/conftest.py`` hands them here). A test's outcome and its failure's text are the ones
that run gave."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

MARK = "fresh_interpreter"
INSIDE = "GOLDGATE_TEST_FRESH_INTERPRETER"
"""Set in the interpreter started for the tests: there, they run as any test does."""


def inside() -> bool:
    return os.environ.get(INSIDE) == "1"


@dataclass(frozen=True)
class Outcome:
    passed: bool
    text: str


_RUNS: dict[Path, dict[str, Outcome]] = {}


def run_in_a_fresh_interpreter(item: pytest.Function) -> None:
    """Pass if ``item`` passed in the run of its module in a new interpreter, else fail with
    what that run said."""
    module = Path(str(item.path))
    if module not in _RUNS:
        _RUNS[module] = _run_module(module, item.config.rootpath)
    outcome = _RUNS[module].get(item.name)
    if outcome is None:
        pytest.fail(f"{item.name} did not run in the interpreter started for {module.name}")
    if not outcome.passed:
        pytest.fail(f"in an interpreter of its own:\n{outcome.text}", pytrace=False)


def _run_module(module: Path, root: Path) -> dict[str, Outcome]:
    with tempfile.TemporaryDirectory(prefix="gg-fresh-") as folder:
        junit = Path(folder) / "junit.xml"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", str(module), "-q", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"--junitxml={junit}", "-m", MARK],
            cwd=root, env={**os.environ, INSIDE: "1"}, capture_output=True, text=True,
            timeout=600, check=False,
        )  # fmt: skip
        if not junit.is_file():
            pytest.fail(
                f"pytest of {module.name} ended {done.returncode}:\n{done.stdout}{done.stderr}"
            )
        outcomes: dict[str, Outcome] = {}
        for case in ElementTree.parse(junit).iter("testcase"):
            problems = [child for child in case if child.tag in ("failure", "error", "skipped")]
            text = "\n".join(
                f"{child.get('message', '')}\n{child.text or ''}" for child in problems
            )
            outcomes[str(case.get("name"))] = Outcome(not problems, text.strip())
        return outcomes
