"""Reports (and gold) in, a report or a comparison out: ``replay`` applies the current gold to
a report's saved results; ``compare`` (here) classifies a candidate report against a
baseline, per attempt improved, regressed, mixed or unchanged, with aggregate deltas.
Descriptive: the gate decides what fails.

``compare`` is the Python API and what ``goldgate evaluate --compare`` runs: it loads no
settings and runs nothing. The comparison file (``goldgate.comparison/1``) is written like a
report: exclusively, never overwriting, mode 0600.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from goldgate.base.errors import ReportRefusedError
from goldgate.base.memory import collections_paused
from goldgate.comparison.compute import compare_sides
from goldgate.comparison.models import COMPARISON_FORMAT, Comparison
from goldgate.comparison.opened import ReportSide, opened_side, side_of
from goldgate.comparison.spool import Listed
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
    "comparison_chunks",
    "default_comparison_path",
    "json_pieces",
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
    return b"".join(comparison_chunks(comparison))


def comparison_chunks(comparison: Comparison) -> Iterator[bytes]:
    """The file text of a comparison in pieces of about a megabyte, as ``comparison_bytes``
    (the same bytes as dumping the whole model): its spooled lists (``comparison.spool``) are
    copied line by line, never read into memory whole."""
    if not _spools(comparison):  # an ordinary comparison: dumped whole, at once
        yield dumps(comparison.model_dump(mode="json")) + b"\n"
        return
    pending = bytearray()
    for piece in json_pieces(comparison):
        pending += piece
        if len(pending) >= _CHUNK:
            yield bytes(pending)
            pending.clear()
    pending += b"\n"
    yield bytes(pending)


_CHUNK = 1 << 20


def _spools(comparison: Comparison) -> bool:
    """Whether any of the comparison's lists is spooled to a file."""
    return any(
        listed.spooled
        for suite in comparison.suites
        for listed in (
            suite.changes,
            suite.cases,
            suite.findings,
            suite.unmatched.added,
            suite.unmatched.removed,
            suite.unmatched.input_changed,
            suite.unmatched.rescored,
        )
    )


def _holds_listed(value: object) -> bool:
    if isinstance(value, Listed):
        return True
    if isinstance(value, BaseModel):
        return any(_holds_listed(getattr(value, name)) for name in type(value).model_fields)
    if isinstance(value, tuple):
        return any(_holds_listed(each) for each in value)
    return False


def json_pieces(value: object) -> Iterator[bytes]:
    """``value``'s compact JSON (as ``dumps(model_dump(mode="json"))`` gives it), the parts
    that hold a ``Listed`` written piece by piece, every other part dumped whole."""
    if isinstance(value, Listed):
        yield b"["
        for place, line in enumerate(value.lines()):
            yield b"," + line if place else line
        yield b"]"
    elif isinstance(value, tuple) and _holds_listed(value):
        yield b"["
        for place, each in enumerate(value):
            if place:
                yield b","
            yield from json_pieces(each)
        yield b"]"
    elif isinstance(value, BaseModel) and _holds_listed(value):
        names = tuple(type(value).model_fields)
        spliced = {name for name in names if _holds_listed(getattr(value, name))}
        plain = value.model_dump(mode="json", exclude=spliced)
        for place, name in enumerate(names):
            yield (b"{" if place == 0 else b",") + dumps(name) + b":"
            if name in spliced:
                yield from json_pieces(getattr(value, name))
            else:
                yield dumps(plain[name])
        yield b"}" if names else b"{}"
    elif isinstance(value, BaseModel):
        yield dumps(value.model_dump(mode="json"))
    elif isinstance(value, tuple):
        yield b"[" + b",".join(b"".join(json_pieces(each)) for each in value) + b"]"
    else:
        raise TypeError(f"not part of a comparison: {type(value).__name__}")


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
    return write_whole_file(comparison_chunks(comparison), path)
