"""``goldgate import promptfoo CONFIG [--into DIR]``: another tool's suite as a goldgate
project (``goldgate.app.promptfoo``). ``goldgate.cli`` registers the group on the root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import finish

import_app = typer.Typer(
    name="import",
    help="Bring another tool's evals into goldgate as settings and gold.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@import_app.command("promptfoo")
def promptfoo(
    config: Annotated[
        Path, typer.Argument(help="The promptfoo configuration (promptfooconfig.yaml).")
    ],
    into: Annotated[
        Path | None,
        typer.Option(
            "--into",
            help="The folder the goldgate project is written into (default: the "
            "configuration's folder).",
        ),
    ] = None,
) -> None:
    """Write config/settings.yaml, evaluation/dataset.json, case files, promptfoo_checks.py
    and evaluation/IMPORTED.md from a promptfoo configuration; overwrite nothing (exit 2
    naming the file) and write no secret."""
    from goldgate.app.promptfoo.command import import_promptfoo

    finish(import_promptfoo(config, into))
