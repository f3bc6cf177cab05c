"""What several commands declare alike and do alike: the ``--config`` and ``--format``
options, the limits of ``--max-concurrency``, ``--timeout`` and ``--repeat``, exiting with a
code, and running the rest of a command that runs user code under a supervisor.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.models import Default

from goldgate.base.errors import ExitCode
from goldgate.base.stdio import streams_inheritable
from goldgate.run.limits import MAX_CONCURRENCY, MAX_REPEAT, MAX_TIMEOUT


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    github = "github"


ConfigOption = Annotated[
    Path,
    typer.Option(
        "--config", help="Settings file.", show_default=True, dir_okay=False, resolve_path=False
    ),
]
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        help="text for people, json for machines, github for workflow-command annotations "
        "of the problems found (checks only).",
    ),
]


def concurrency_option(help: str) -> Any:
    """``--max-concurrency``, within the run's bounds (``run.limits``)."""
    return typer.Option("--max-concurrency", min=1, max=MAX_CONCURRENCY, help=help)


def repeat_option(help: str) -> Any:
    """``--repeat``, within the run's bounds (``run.limits``)."""
    return typer.Option("--repeat", min=1, max=MAX_REPEAT, help=help)


def command_group(name: str, help_text: str | None = None) -> typer.Typer:
    """A typer app made as goldgate makes each of its commands' groups: help when called
    bare, no shell completion, no rich tracebacks or markup."""
    return typer.Typer(
        name=name,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        # Unset (not None): the root app's help is its callback's docstring.
        help=Default(None) if help_text is None else help_text,
    )


def finish(code: ExitCode) -> NoReturn:
    raise typer.Exit(int(code))


def supervised(import_seconds: float, json_output: bool) -> None:
    """Run the rest of this command (which imports and runs user code) in a child process
    that user code cannot turn into a false outcome (``goldgate.app.supervisor``); this process
    waits and exits with the run's code. A caller whose stdout or stderr is not a file
    descriptor (an in-process test) cannot share them with a child: it runs here."""
    from goldgate.base.problems import pin_working_folder

    pin_working_folder()  # before user code, which may change the working folder
    if not streams_inheritable():
        return
    from goldgate.app.supervisor import supervise

    code = supervise(import_seconds=import_seconds, json_output=json_output)
    if code is not None:
        raise typer.Exit(code)


def fixed(path: Path | None) -> Path | None:
    """``path`` made absolute now, before user code runs: a target or an eval that changes
    the working folder does not move the report, the settings or the gold."""
    return None if path is None else path.absolute()


def check_timeout(timeout: float | None) -> None:
    """Refuse a --timeout that is not a positive number of seconds up to a day (exit 2)."""
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:
        raise typer.BadParameter(
            f"must be a positive number of seconds, at most {MAX_TIMEOUT:g} (one day)",
            param_hint="--timeout",
        )
