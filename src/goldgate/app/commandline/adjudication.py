"""``goldgate adjudication ...``: the answers waiting for a person exported for reviewers,
and their verdicts recorded in the project's store. ``goldgate.cli`` adds the group to the
root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import command_group, finish

adjudication_app = command_group(
    "adjudication",
    "Answers waiting for a person: export them, record the verdicts.",
)


@adjudication_app.command("export")
def adjudication_export(
    report: Annotated[Path, typer.Argument(metavar="REPORT", help="A report with details.")],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="JSON Lines file to create for reviewers.", dir_okay=False
        ),
    ],
) -> None:
    """Write every answer awaiting a human verdict (id, note, input, output) for reviewers."""
    from goldgate.app.adjudication import export_command

    finish(export_command(report, output))


@adjudication_app.command("apply")
def adjudication_apply(
    verdicts: Annotated[
        Path, typer.Argument(metavar="VERDICTS", help="The reviewed export (JSON Lines).")
    ],
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="Verdict store; default: evaluation/verdicts.jsonl in the project folder.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Record reviewers' verdicts in the project's verdict store."""
    from goldgate.app.adjudication import apply_command

    finish(apply_command(verdicts, store))
