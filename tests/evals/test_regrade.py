"""`goldgate evals regrade REPORT`: the evaluators as defined now, on the saved outputs; no
eval body is called, what it scored is kept, a new report is written."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from helpers.reports import coherent

SOURCE = """
from pathlib import Path
from goldgate.evals import eval, EvalContext

CALLS = Path(__file__).with_name("calls.log")

def judge(result):
    return {{"key": "judged", "passed": {verdict}, "notes": "judge"}}

@eval(dataset="d", cases=[{{"id": "a", "input": "x"}}, {{"id": "b", "input": "y"}}],
      evaluators=[judge])
def answer(ctx: EvalContext):
    with CALLS.open("a") as log:
        log.write("called\\n")
    ctx.output = ctx.input.upper()
    ctx.store(scores={{"key": "quality", "value": 0.5}})
    assert ctx.input == "x", "only x is right"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "eval_answer.py").write_text(textwrap.dedent(SOURCE.format(verdict="False")))
    return tmp_path


def _checks(report: dict[str, Any]) -> list[list[str]]:
    return [
        [check["outcome"] for check in case["attempts"][0]["checks"]]
        for case in report["suites"][0]["cases"]
    ]


def test_regrade_runs_the_current_evaluators_on_saved_outputs(run_cli: Any, project: Path) -> None:
    first = run_cli("evals", "run", ".", "--output", "run.json", cwd=project)
    assert first.code == 1
    calls = (project / "calls.log").read_text()
    (project / "eval_answer.py").write_text(textwrap.dedent(SOURCE.format(verdict="True")))

    result = run_cli("evals", "regrade", "run.json", "--output", "regraded.json", cwd=project)

    assert result.code == 1, result.output  # case b's own assertion still fails
    assert (project / "calls.log").read_text() == calls  # no eval body ran
    before = json.loads((project / "run.json").read_text())
    after = json.loads((project / "regraded.json").read_text())
    # Case a stored a score, so (as in EZVals) no automatic pass score: its pass check is
    # not_run; case b's failed assertion is its pass score.
    assert _checks(before) == [["not_run", "failed"], ["failed", "failed"]]
    assert _checks(after) == [["not_run", "passed"], ["failed", "passed"]]
    saved = before["suites"][0]["cases"][1]["attempts"][0]
    again = after["suites"][0]["cases"][1]["attempts"][0]
    assert again["result"]["output"] == saved["result"]["output"] == "Y"
    assert again["latency_ms"] == saved["latency_ms"]  # copied, never measured
    assert [s for s in again["result"]["scores"] if "by" not in s] == [
        s for s in saved["result"]["scores"] if "by" not in s
    ]
    assert after["suites"][0]["fingerprint"] == before["suites"][0]["fingerprint"]
    assert after["suites"][0]["summary"]["quality.mean"] == 0.5
    assert "report: regraded.json" in result.stdout


def test_regrade_never_overwrites_and_refuses_what_it_cannot_regrade(
    run_cli: Any, project: Path, tmp_path: Path
) -> None:
    assert run_cli("evals", "run", ".", "--output", "run.json", cwd=project).code == 1

    exists = run_cli("evals", "regrade", "run.json", "--output", "run.json", cwd=project)
    assert exists.code == 2
    assert "already exists" in exists.stderr

    report = json.loads((project / "run.json").read_text())
    report["complete"] = False
    report["interruption"] = "SIGINT"
    (project / "partial.json").write_text(json.dumps(coherent(report)))
    partial = run_cli("evals", "regrade", "partial.json", cwd=project)
    assert partial.code == 2
    assert "the report is incomplete" in partial.stderr

    (project / "eval_answer.py").unlink()
    gone = run_cli("evals", "regrade", "run.json", cwd=project)
    assert gone.code == 2
    assert "eval_answer.py: the eval file the report names is not there" in gone.stderr


def test_regrade_refuses_a_report_of_gold(run_cli: Any, project: Path) -> None:
    assert run_cli("evals", "run", ".", "--output", "run.json", cwd=project).code == 1
    report = json.loads((project / "run.json").read_text())
    report["suites"][0]["target"]["kind"] = "python"
    (project / "gold.json").write_text(json.dumps(report))

    result = run_cli("evals", "regrade", "gold.json", cwd=project)

    assert result.code == 2
    assert "suite 'd' is not an eval suite" in result.stderr
