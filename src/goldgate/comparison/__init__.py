"""Reports (and gold) in, a report or a comparison out: ``replay`` applies the current gold to
a report's saved results; ``compare`` (here) classifies a candidate report against a
baseline, per attempt improved, regressed, mixed or unchanged, with aggregate deltas.
Descriptive: the gate decides what fails.

``compare`` is the Python API and what ``goldgate evaluate --compare`` runs: it loads no
settings and runs nothing. The comparison file (``goldgate.comparison/1``) is written like a
report: exclusively, never overwriting, mode 0600.
"""

from __future__ import annotations

from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from goldgate.base.errors import ReportRefusedError
from goldgate.base.memory import collections_paused
from goldgate.comparison.compute import compare_sides
from goldgate.comparison.models import COMPARISON_FORMAT, Comparison
from goldgate.comparison.opened import ReportSide, opened_side, side_of
from goldgate.report.io import (
    read_report_bytes,
    unique_path,
    validation_problem,
    write_whole_file,
)
from goldgate.report.jsontext import json_text_value
from goldgate.report.models import Report
from goldgate.report.readbound import let_go_after
from goldgate.report.stream import dumps

__all__ = [
    "compare",
    "comparison_bytes",
    "default_comparison_path",
    "read_comparison",
    "write_comparison",
]


def _side(stack: ExitStack, report: Report | ReportSide | Path | str, label: str) -> ReportSide:
    if isinstance(report, ReportSide):
        return report
    if isinstance(report, Report):
        return side_of(report, label)
    return stack.enter_context(opened_side(Path(report), label))


def compare(
    candidate: Report | ReportSide | Path | str,
    baseline: Report | ReportSide | Path | str,
    *,
    partial: bool = False,
    now: datetime | None = None,
) -> Comparison:
    """Compare two complete reports (models or files); ``InvalidInputError`` names the first
    thing that makes them incomparable. ``partial`` compares the attempts whose identity and
    input match, re-scoring the baseline under the candidate's gold where the gold differs,
    and lists the rest. Files are read a case at a time (``comparison.opened``): each side
    is verified and indexed, then their cases are compared side by side."""
    # Millions of short-lived objects and no cycles; the sides are let go of once compared.
    with collections_paused(), let_go_after(), ExitStack() as stack:
        mine = _side(stack, candidate, "candidate")
        theirs = _side(stack, baseline, "baseline")
        return compare_sides(mine, theirs, partial=partial, now=now or datetime.now(UTC))


def comparison_bytes(comparison: Comparison) -> bytes:
    """The file text of a comparison: compact JSON, ``format`` first."""
    return dumps(comparison.model_dump(mode="json")) + b"\n"


def read_comparison(path: Path | str) -> Comparison:
    """A comparison file; ``InvalidInputError`` naming the place where it is not one."""
    from pydantic import ValidationError

    value = json_text_value(read_report_bytes(Path(path)), str(path), "comparison")
    found = value.get("format") if isinstance(value, dict) else None
    if found != COMPARISON_FORMAT:
        why = f"its format is {found!r}" if isinstance(found, str) else "no 'format' field"
        raise ReportRefusedError(f"{path}: not a goldgate comparison file ({why}).")
    try:
        return Comparison.model_validate(value)
    except ValidationError as error:
        raise validation_problem(str(path), error, "comparison") from None


def default_comparison_path(candidate: Path, now: datetime) -> Path:
    """A unique name under .goldgate/comparisons/ of the project when the candidate is one of
    its reports (in .goldgate/evaluations/), else beside the candidate report."""
    folder = candidate.parent
    if folder.name == "evaluations" and folder.parent.name == ".goldgate":
        return unique_path(folder.parent / "comparisons", "comparison", now)
    return unique_path(folder, "comparison", now)


def write_comparison(comparison: Comparison, path: Path) -> tuple[Path, str | None]:
    """Create ``path`` (mode 0600, never overwriting); where that fails, a fresh temporary
    folder, and why."""
    return write_whole_file(comparison_bytes(comparison), path)
