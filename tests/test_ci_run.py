""".ci/run builds the site beside mypy: each failing still fails the run (the site's log shown),
and only both passing lets the tests start. The block of .ci/run between the site's log and
the tests runs in bash with stand-ins for mypy and mkdocs (``.venv/bin`` of a folder of its
own), so the run's own lines are what is checked."""

from __future__ import annotations

import subprocess
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
