"""TODO docstring."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from goldgate.app.conclude import (
    note_project_secrets,
)
from goldgate.base.errors import (
    ExitCode,
    InvalidInputError,
)
from goldgate.base.memory import collections_paused
from goldgate.base.stdio import (
    warn,
    write_commands,
    write_stdout,
)


def write_or_print(
    text: str, output: Path | None, protected: Sequence[Path] = (), *, commands: bool = False
) -> None:
    """``text`` to ``output`` (never over a file in ``protected``), else to stdout;
    ``commands``: it is goldgate's own workflow commands (annotations, their data escaped
    inside them), printed as they are."""
    if output is None:
        written = write_commands(text) if commands else write_stdout(text, end="")
        if not written:
            warn("goldgate: stdout cannot be written; use -o FILE to keep the rendering.")
        return
    from goldgate.base.outputs import write_output_file

    write_output_file(output, text, protected=protected)


def render_report(
    kind: str,
    report_path: Path,
    output: Path | None = None,
    comparison_path: Path | None = None,
    **options: Any,
) -> ExitCode:
    """``goldgate report junit|markdown|annotations|show``: read a report (and a comparison
    whose candidate it is), render it, write it to ``output`` or stdout. Nothing is sent
    anywhere."""
    with collections_paused():  # a big report is millions of objects and no cycles
        text = rendered(kind, report_path, comparison_path, **options)
    read = [report_path] if comparison_path is None else [report_path, comparison_path]
    write_or_print(text, output, read, commands=kind == "annotations")
    return ExitCode.PASSED


def load_comparison_view(comparison_path: Path, digest: str, report: Any, report_path: Path) -> Any:
    """The renderers' view of the comparison file at ``comparison_path``; refused
    (``InvalidInputError``) unless its candidate is the report whose bytes have ``digest``
    (read from ``report_path``) and its figures are what its reports give
    (``comparison.verify``)."""
    from goldgate.base.problems import display_path
    from goldgate.comparison import read_comparison
    from goldgate.comparison.verify import verify_comparison
    from goldgate.render.compared import comparison_view

    shown = display_path(comparison_path)
    comparison = read_comparison(shown)  # InvalidInputError naming the place
    if comparison.candidate.digest != digest:
        raise InvalidInputError(
            f"{shown} compares the report {comparison.candidate.digest}, not this report ({digest})"
        )
    verify_comparison(comparison, shown, report_path)
    return comparison_view(comparison, report)


def rendered(kind: str, report_path: Path, comparison_path: Path | None, **options: Any) -> str:
    from goldgate.base.problems import display_path
    from goldgate.report.io import read_report_and_digest

    note_project_secrets()

    report, digest = read_report_and_digest(report_path)
    comparison = None
    if comparison_path is not None:
        comparison = load_comparison_view(comparison_path, digest, report, report_path)
    shown_path = display_path(report_path)
    if kind == "junit":
        from goldgate.render.junit import render_junit

        text = render_junit(report, comparison)
    elif kind == "markdown":
        from goldgate.render.markdown import render_markdown

        text = render_markdown(report, comparison, full_report=shown_path, **options)
    elif kind == "annotations":
        from goldgate.render.annotations import render_annotations

        text = render_annotations(report, comparison, full_report=shown_path, **options)
    else:
        from goldgate.render.terminal import render_terminal

        text = render_terminal(report, comparison, **options)
    return text
