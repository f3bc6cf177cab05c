"""``goldgate init``: write a starter project that runs green (settings, gold and a stand-in
target; with ``--github`` the pull-request and baseline workflows), overwriting nothing.
``goldgate.cli`` registers the command on the root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import finish


def init(
    path: Annotated[
        Path,
        typer.Argument(help="The project's folder (for --github, the repository's root)."),
    ] = Path("."),
    github: Annotated[
        bool,
        typer.Option(
            "--github",
            help="Also write .github/workflows/goldgate.yml (pull requests) and "
            "goldgate-baseline.yml (the default branch's baseline).",
        ),
    ] = False,
) -> None:
    """Write a starter config/, evaluation/ and goldgate_target.py (a stand-in for the
    application) that validate and run green; refuse, writing nothing, if any file exists."""
    from goldgate.app.init import init_project

    finish(init_project(path, github=github))
