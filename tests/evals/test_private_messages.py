"""An eval author's message (an ``assert``'s, a score's notes) often holds the output itself:
the report keeps it as the reason, as EZVals does, and what CI shows by default says where
the assertion failed without it; ``--details values`` shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldgate.report.io import read_report
from run.support import run_cli

pytestmark = pytest.mark.slow

PRIVATE = "12 Main St"

EVALS = f"""
from goldgate.evals import eval, EvalContext


@eval(dataset="d")
def an_assertion(ctx: EvalContext):
    ctx.store(output="the answer about {PRIVATE}")
    assert ctx.output == "right", f"got {{ctx.output!r}}"


@eval(dataset="d")
def a_note(ctx: EvalContext):
    ctx.store(output="x", scores={{"key": "quality", "passed": False, "notes": "saw {PRIVATE}"}})
"""


def test_the_message_is_in_the_report_and_in_no_safe_rendering(tmp_path: Path) -> None:
    (tmp_path / "eval_private.py").write_text(EVALS, "utf-8")
    report = tmp_path / "r.json"
    ran = run_cli("evals", "run", "eval_private.py", "--output", str(report), cwd=tmp_path)
    assert ran.code == 1, ran.output
    assert PRIVATE not in ran.output

    reasons = [
        check.reason or ""
        for suite in read_report(report).suites
        for attempt in suite.iter_attempts()
        for check in attempt.checks
    ]
    assert sum(PRIVATE in reason for reason in reasons) == 2, reasons  # kept, as EZVals keeps it

    shown = {
        "markdown": run_cli("report", "markdown", str(report), cwd=tmp_path).stdout,
        "annotations": run_cli("report", "annotations", str(report), cwd=tmp_path).stdout,
        "show": run_cli("report", "show", str(report), cwd=tmp_path).stdout,
    }
    assert run_cli("report", "junit", str(report), "-o", "j.xml", cwd=tmp_path).code == 0
    shown["junit"] = (tmp_path / "j.xml").read_text("utf-8")
    assert run_cli("report", "html", str(report), "-o", "p.html", cwd=tmp_path).code == 0
    shown["html"] = (tmp_path / "p.html").read_text("utf-8")
    for name, text in shown.items():
        assert PRIVATE not in text, name
    assert (
        "the assertion at eval_private.py:8 failed (its message is in the report)"
        in (shown["annotations"])
    )
    values = run_cli("report", "show", str(report), "--details", "values", cwd=tmp_path)
    assert PRIVATE in values.stdout
