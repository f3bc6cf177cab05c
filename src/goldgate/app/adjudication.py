"""What ``goldgate adjudication export`` and ``apply`` do, as plain functions returning an
exit code. They print counts and paths only: the exported file holds inputs and outputs."""

from __future__ import annotations

from pathlib import Path

from goldgate.base.english import count
from goldgate.base.errors import ExitCode, InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.stdio import write_stdout
from goldgate.report.queue import export_lines, read_reviewed, write_export
from goldgate.report.streamread import streamed_report
from goldgate.report.verdictstore import (
    load_store,
    merge,
    project_folder,
    store_path,
    write_store,
)

__all__ = ["apply_command", "export_command"]


def _plural(value: int, noun: str) -> str:
    return count(value, noun)


def export_command(report_path: Path, output: Path) -> ExitCode:
    """Write every answer of ``report_path`` awaiting a verdict to ``output`` (new file)."""
    # Read a case at a time (report.streamread): verified first, then its cases read again
    # as the lines are written; a refusal on the way leaves nothing written.
    with streamed_report(report_path) as report:
        written = write_export(export_lines(report, display_path(report_path)), output)
    write_stdout(
        f"exported {_plural(written, 'answer')} awaiting a human verdict to {display_path(output)}"
    )
    return ExitCode.PASSED


def _project_here() -> Path:
    """The project this command runs in, or ``InvalidInputError`` saying what is missing:
    verdicts recorded outside a project would land in a store no run reads."""
    here = Path.cwd()
    found = project_folder(here)
    if found is None:
        raise InvalidInputError(
            f"{here} is not inside a goldgate project: neither it nor a folder above it "
            "(up to the repository's root) holds config/settings.yaml or evaluation/, so "
            "there is no verdict store to record in; run this from the project folder, or "
            "name the store with --store."
        )
    return found


def apply_command(verdicts_path: Path, store: Path | None) -> ExitCode:
    """Record the decided lines of a reviewer's file in the project's verdict store."""
    path = store if store is not None else store_path(_project_here())
    reviewed = read_reviewed(verdicts_path)
    merged = merge(load_store(path), reviewed.verdicts)
    if merged.added or merged.changed:
        write_store(merged.store)
    write_stdout(
        f"recorded {_plural(merged.added, 'new verdict')}, {merged.changed} changed, "
        f"{merged.unchanged} already recorded; {reviewed.undecided} still undecided; "
        f"store: {display_path(path)}"
    )
    return ExitCode.PASSED
