""".ci/run builds the site beside mypy: each failing still fails the run (the site's log shown),
and only both passing lets the tests start. The block of .ci/run between the site's log and
the tests runs in bash with stand-ins for mypy and mkdocs (``.venv/bin`` of a folder of its
own), so the run's own lines are what is checked. It also collects the suite once before the
tests, so that their workers need not each rewrite every test module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CI_RUN = Path(__file__).resolve().parents[1] / ".ci" / "run"
FIRST, LAST = 'site_log="$(mktemp)"', '[ "$mypy_failed" = 0 ] || exit 1'


def _block() -> str:
    text = CI_RUN.read_text("utf-8")
    start, end = text.index(FIRST), text.index(LAST) + len(LAST)
    return text[start:end]


@pytest.mark.slow
@pytest.mark.parametrize(("mypy", "mkdocs", "code"), [(0, 0, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
def test_mypy_and_the_site_each_fail_the_run(
    tmp_path: Path, mypy: int, mkdocs: int, code: int
) -> None:
    bin_folder = tmp_path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    for name, status in (("mypy", mypy), ("mkdocs", mkdocs)):
        stand_in = bin_folder / name
        stand_in.write_text(f"#!/bin/sh\necho {name} said this\nexit {status}\n", "utf-8")
        stand_in.chmod(0o755)
    script = f"set -euo pipefail\n{_block()}\necho the tests start\n"

    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )

    assert done.returncode == code, done
    assert "mypy said this" in done.stdout
    assert ("the tests start" in done.stdout) is (code == 0)
    assert ("mkdocs said this" in done.stderr) is (mkdocs == 1)


COLLECT = ".venv/bin/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 &"
TESTS = ".venv/bin/python -m pytest -q -n auto --dist loadgroup"


def test_one_collection_writes_the_rewritten_modules_the_workers_read(
    tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.ci/run collects the suite once before the tests (and waits for it), so that its three
    workers read the test modules as pytest rewrote them instead of each rewriting them: which
    holds only while a rewritten module is kept under PYTHONDONTWRITEBYTECODE, as these
    machines set it (tests/conftest.py keeps it)."""
    lines = CI_RUN.read_text("utf-8").splitlines()
    start, tests = lines.index(COLLECT), lines.index(TESTS)
    assert lines[start + 1] == "collect_job=$!"
    waits = [n for n, line in enumerate(lines) if line.startswith('wait "$collect_job"')]
    assert len(waits) == 1
    assert start < waits[0] < tests
    from _pytest.assertion import rewrite

    module = tmp_path / "test_module.py"
    module.write_text("def test_it():\n    assert 1 + 1 == 2\n", "utf-8")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    rewrite._rewrite_test(module, pytestconfig)
    kept = list((tmp_path / "__pycache__").glob("test_module.*-pytest-*.pyc"))
    assert len(kept) == 1, sorted(tmp_path.rglob("*"))
