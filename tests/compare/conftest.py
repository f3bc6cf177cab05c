"""The example application as a baseline and a candidate with known changes: copies of
``examples/support_triage`` whose rules are edited before they run, evaluated through the real
CLI once per test session.

- baseline: account numbers are never found (every ``account`` check fails);
- candidate: accounts are found again, but German "kündig" no longer means cancellation and
  "upgrade" no longer means a service change.

So the candidate improves the account cases, regresses a German and an upgrade case, and
``positive_cancellation_de`` is mixed (its account passes now, its queue no longer does).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from run.support import EXAMPLE, run_cli

TRIAGE = "support_triage_app/triage.py"
BASELINE_EDITS = {TRIAGE: [('re.compile(r"\\b[A-Z]-\\d+\\b")', 're.compile(r"\\bNO-ACCOUNT\\b")')]}
CANDIDATE_EDITS = {
    TRIAGE: [
        ('"cancellation": ("cancel", "kündig"),', '"cancellation": ("cancel",),'),
        ('        "upgrade",\n', '        "upgrade-never",\n'),
    ]
}


def example_copy(root: Path, edits: dict[str, list[tuple[str, str]]]) -> Path:
    """A copy of the example at ``root`` with each (old, new) text replaced once."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".goldgate", "__pycache__"))
    for relative, replacements in edits.items():
        path = root / relative
        text = path.read_text("utf-8")
        for old, new in replacements:
            assert text.count(old) == 1, (relative, old)
            text = text.replace(old, new)
        path.write_text(text, "utf-8")
    return root


def evaluate(root: Path, output: Path, *args: str) -> Path:
    result = run_cli("evaluate", "--output", str(output), *args, cwd=root, timeout=120)
    assert result.code in (0, 1), result.output
    return output


@dataclass(frozen=True)
class ExampleReports:
    folder: Path
    baseline: Path
    candidate: Path
    baseline_root: Path
    candidate_root: Path


def example_reports_in(folder: Path) -> ExampleReports:
    """The baseline and the candidate evaluated in ``folder`` (the session's
    ``example_reports``, tests/conftest.py)."""
    baseline_root = example_copy(folder / "baseline", BASELINE_EDITS)
    candidate_root = example_copy(folder / "candidate", CANDIDATE_EDITS)
    baseline = evaluate(baseline_root, folder / "baseline.json", "--variant-revision", "base")
    candidate = evaluate(candidate_root, folder / "candidate.json", "--variant-revision", "cand")
    return ExampleReports(folder, baseline, candidate, baseline_root, candidate_root)
