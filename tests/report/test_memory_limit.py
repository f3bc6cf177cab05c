"""Reading a report costs a small, stated multiple of its size (docs/report-format.md), and
running out of memory while reading one is exit 4 with one sentence, never a traceback: in
``report *`` and in both sides of ``evaluate --compare``. The limit is the process's address
space (``RLIMIT_AS``), set for a real goldgate process below what a 100,000-attempt report
needs and above what goldgate needs to start."""

from __future__ import annotations

import importlib.util
import json
import resource
import subprocess
from pathlib import Path

import pytest

from run.support import GOLDGATE, cli_env

LIMIT = 220 * 1024 * 1024
"""Enough for goldgate to start and render a small report, not to read a 29 MB one."""


def _report(attempts: int) -> dict[str, object]:
    """A report (as JSON) of ``attempts`` single-attempt cases (benchmarks/run.py's render
    workload), every figure as a run computes it."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
    spec = importlib.util.spec_from_file_location("goldgate_benchmarks", script)
    assert spec is not None
    assert spec.loader is not None
    benchmarks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmarks)
    report: dict[str, object] = benchmarks._render_report(attempts)
    return report


def _limited(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run(
        [*GOLDGATE, *args], cwd=cwd, env=cli_env(None), capture_output=True, text=True,
        preexec_fn=limit, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memory") / "big.json"
    path.write_text(json.dumps(_report(100_000)), "utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("command", ["junit", "markdown", "compare", "baseline"])
def test_out_of_memory_while_reading_is_exit_4_with_one_sentence(
    big: Path, tmp_path: Path, command: str
) -> None:
    small = tmp_path / "small.json"
    small.write_text(json.dumps(_report(10)), "utf-8")
    fits = _limited("report", "junit", str(small), "-o", str(tmp_path / "s.xml"), cwd=tmp_path)
    assert fits.returncode == 0, fits.stderr  # the limit lets goldgate itself run

    arguments = {
        "junit": ["report", "junit", str(big), "-o", str(tmp_path / "j.xml")],
        "markdown": ["report", "markdown", str(big)],
        "compare": ["evaluate", "--compare", str(big), "--baseline", str(small)],
        "baseline": ["evaluate", "--compare", str(small), "--baseline", str(big)],
    }[command]
    result = _limited(*arguments, cwd=tmp_path)

    assert result.returncode == 4, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"goldgate: {big}: not enough memory to read this report"), line
