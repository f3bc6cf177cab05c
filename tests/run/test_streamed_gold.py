"""Gold in case files is streamed: checked case by case, read back as the run goes (past the
first cases, which are kept as checked). Through the real CLI: a large case file runs as the
same gold inline does, and a case file rewritten in place during the run ends it with one
sentence and exit 2 at the first case read back after the change, leaving no report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.gold._stream.store import KEPT_BYTES
from goldgate.report.process import REPORT_PROCESS_FROM

from .support import Project

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

REWRITING_TARGET = """
import pathlib

_done = []


async def handle(request):
    if not _done:  # rewrite the case file in place, as a careless script might
        _done.append(True)
        path = pathlib.Path("evaluation/cases/many.json")
        data = path.read_bytes()
        with path.open("r+b") as handle:
            handle.write(data.replace(b'"case-', b'"CASE-'))  # every id, same length
    label = request["envelope"]["payload"]["label"]
    return {"execution": {"status": "completed"}, "payload": {"label": label}}
"""


def _cases(count: int, padding: int = 0) -> list[dict[str, Any]]:
    metadata = {"padding": "x" * padding} if padding else {}
    return [
        {
            "id": f"case-{index:04d}",
            "input": {"payload": {"label": "billing" if index % 3 else "tech"},
                      "metadata": metadata},
            "expectations": [
                {"name": "label", "path": "/payload/label", "expected": "billing"},
                {"name": "said", "path": "/payload/label", "comparison": "text",
                 "expected": {"matches": [f"^(billing|tech)$|n{index}"]}},
            ],
        }
        for index in range(count)
    ]  # fmt: skip


def _project_with_case_file(project: Project, target: str, count: int, padding: int = 0) -> Project:
    (project.root / "gold_app.py").write_text(target)
    project.workflows["gold"] = {"revision": "g-1", "target": {"python": "gold_app:handle"}}
    cases_path = project.root / "evaluation" / "cases" / "many.json"
    cases_path.parent.mkdir(parents=True)
    cases_path.write_text(json.dumps(_cases(count, padding), indent=1))
    project.suites.append({"name": "many", "workflow": "gold", "cases": "cases/many.json"})
    return project.write()


def test_a_case_file_runs_as_the_same_gold_inline(project: Project, tmp_path: Path) -> None:
    target = (
        "async def handle(request):\n"
        "    label = request['envelope']['payload']['label']\n"
        "    return {'execution': {'status': 'completed'}, 'payload': {'label': label}}\n"
    )
    filed = _project_with_case_file(project, target, 700)
    result, report = filed.evaluate()
    assert result.code == 1, result.stderr
    assert report is not None

    inline = Project(tmp_path / "inline", dict(project.workflows))
    inline.root.mkdir()
    (inline.root / "gold_app.py").write_text(target)
    inline.suites.append({"name": "many", "workflow": "gold", "cases": _cases(700)})
    inline_result, inline_report = inline.write().evaluate()
    assert inline_result.code == 1, inline_result.stderr
    assert inline_report is not None

    mine, theirs = report["suites"][0], inline_report["suites"][0]
    assert mine["fingerprint"] == theirs["fingerprint"]
    assert mine["counts"] == theirs["counts"]
    assert mine["counts"]["checks"]["failed"] == 234
    assert [c["id"] for c in mine["cases"]] == [c["id"] for c in theirs["cases"]]
    assert _outcomes(mine) == _outcomes(theirs)
    assert mine["cases"][5]["line"] > 1
    assert mine["cases_source"].endswith("many.json")


@pytest.mark.parametrize(
    "count", [600, REPORT_PROCESS_FROM + 100], ids=["one process", "with a report process"]
)
def test_a_case_file_rewritten_during_the_run_ends_it_with_exit_2(
    project: Project, count: int
) -> None:
    """Cases this process checked are kept as they were checked, up to ``KEPT_BYTES`` of
    the file; the others are read back, and the first read after the rewrite is refused (in
    a large run, by whichever process reads it first: the run's, or the one writing the
    report). Which cases this process checks itself depends on how fast its helper is, so
    every case is rewritten."""
    rewriting = _project_with_case_file(project, REWRITING_TARGET, count, padding=8000)
    case_file = rewriting.root / "evaluation" / "cases" / "many.json"
    assert case_file.stat().st_size > 2 * KEPT_BYTES  # most cases are read back
    result, report = rewriting.evaluate("--max-concurrency", "1")

    assert result.code == 2, result.stderr
    assert report is None
    assert "Traceback" not in result.stderr
    message = result.stderr.strip().splitlines()[-1]
    assert "evaluation/cases/many.json:" in message
    assert "the case file changed while goldgate was running from it" in message
    assert not list((rewriting.root / "out").glob("*"))  # no temporary file left behind


def _outcomes(suite: dict[str, Any]) -> list[Any]:
    return [
        (case["id"], [(a["status"], [c["outcome"] for c in a["checks"]]) for a in case["attempts"]])
        for case in suite["cases"]
    ]
