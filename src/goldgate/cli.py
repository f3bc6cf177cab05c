"""The goldgate command line: parse, call one function, map errors to exit codes.

Heavy modules are imported inside the commands so that ``goldgate --help`` starts fast.
"""

from __future__ import annotations

import signal
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from goldgate import __version__
from goldgate.errors import ExitCode, GoldgateError

app = typer.Typer(
    name="goldgate",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


class SchemaName(StrEnum):
    dataset = "dataset"
    cases = "cases"
    settings = "settings"
    workflow = "workflow"
    report = "report"


ConfigOption = Annotated[
    Path,
    typer.Option(
        "--config", help="Settings file.", show_default=True, dir_okay=False, resolve_path=False
    ),
]
FormatOption = Annotated[
    OutputFormat, typer.Option("--format", help="text for people, json for machines.")
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"goldgate {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Gate pull requests of LLM applications on reviewed gold.

    Exit codes: 0 passed, 1 gold disagreement, 2 invalid input or configuration,
    3 missing optional dependency, 4 runtime failure, 130 interrupted.
    """


@app.command()
def validate(
    config: ConfigOption = Path("config/settings.yaml"),
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Check the settings (nothing is imported or called) and print the configuration digest."""
    from goldgate.commands import validate_settings

    _finish(validate_settings(config, json_output=output_format is OutputFormat.json))


@app.command()
def evaluate(
    config: ConfigOption = Path("config/settings.yaml"),
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            help="Gold manifest; default: evaluation.dataset from the settings, else "
            "evaluation/dataset.json beside config/.",
            dir_okay=False,
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Check gold offline; import and run nothing.")
    ] = False,
    output_format: FormatOption = OutputFormat.text,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", metavar="NAME", help="Run only this suite (repeatable)."),
    ] = None,
    live: Annotated[
        bool,
        typer.Option("--live", help="Authorize live workflows (external, possibly paid calls)."),
    ] = False,
    max_concurrency: Annotated[
        int,
        typer.Option("--max-concurrency", min=1, max=64, help="Case workers per suite (1-64)."),
    ] = 1,
    timeout: Annotated[
        float,
        typer.Option("--timeout", help="Seconds per attempt, custom scoring included (positive)."),
    ] = 300.0,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Attempts per case, in case-major order.")
    ] = 1,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Report file to create (never overwritten); default: a new file under "
            ".goldgate/evaluations/ beside the settings.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Run gold against the application and write an immutable report (or --check it)."""
    from goldgate import commands

    json_output = output_format is OutputFormat.json
    if check:
        _finish(commands.check_gold_command(config, dataset, json_output=json_output))
    if not timeout > 0 or timeout == float("inf"):
        raise typer.BadParameter("must be a positive number of seconds", param_hint="--timeout")
    _finish(
        commands.run_evaluation(
            commands.RunRequest(
                config=config,
                dataset=dataset,
                suites=tuple(suite or ()),
                live=live,
                max_concurrency=max_concurrency,
                timeout=timeout,
                repeat=repeat,
                output=output,
                json_output=json_output,
            )
        )
    )


@app.command()
def schema(
    name: Annotated[SchemaName, typer.Argument(help="Which file format.")],
) -> None:
    """Print the JSON Schema of a file format, generated from the models goldgate uses."""
    from goldgate.schemas import schema_text

    typer.echo(schema_text(name.value), nl=False)


evals_app = typer.Typer(
    name="evals",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Python evals: functions marked @eval, run into the same report as gold.",
)
app.add_typer(evals_app)


@evals_app.command("run")
def evals_run(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATH",
            help="Eval files, and folders searched for eval_*.py and *_eval.py.",
        ),
    ],
    dataset: Annotated[
        list[str] | None,
        typer.Option("--dataset", metavar="NAME", help="Run only this dataset (repeatable)."),
    ] = None,
    live: Annotated[
        bool, typer.Option("--live", help="Authorize live evals (external, possibly paid calls).")
    ] = False,
    max_concurrency: Annotated[
        int, typer.Option("--max-concurrency", min=1, max=64, help="Case workers per suite.")
    ] = 1,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds per attempt, evaluators included.")
    ] = 300.0,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Attempts per case, in case-major order.")
    ] = 1,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Report file to create (never overwritten); default: a new file under "
            ".goldgate/evaluations/ in the project folder.",
            dir_okay=False,
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Run eval functions and write an immutable report (a suite per dataset)."""
    from goldgate.evals.commands import run_command
    from goldgate.evals.session import EvalsRequest

    if not timeout > 0 or timeout == float("inf"):
        raise typer.BadParameter("must be a positive number of seconds", param_hint="--timeout")
    _finish(
        run_command(
            EvalsRequest(
                paths=tuple(paths),
                datasets=tuple(dataset or ()),
                live=live,
                max_concurrency=max_concurrency,
                timeout=timeout,
                repeat=repeat,
                output=output,
                json_output=output_format is OutputFormat.json,
            )
        )
    )


@evals_app.command("regrade")
def evals_regrade(
    report: Annotated[Path, typer.Argument(metavar="REPORT", help="A report of evals run.")],
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Where the eval files are now; default: the files the report names.",
        ),
    ] = None,
    max_concurrency: Annotated[
        int, typer.Option("--max-concurrency", min=1, max=64, help="Attempts regraded at once.")
    ] = 1,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds for one attempt's evaluators.")
    ] = 300.0,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Report file to create (never overwritten).", dir_okay=False),
    ] = None,
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Run the evaluators again on a report's saved outputs (no eval is called)."""
    from goldgate.evals.commands import regrade_command
    from goldgate.evals.regrade import RegradeRequest

    if not timeout > 0 or timeout == float("inf"):
        raise typer.BadParameter("must be a positive number of seconds", param_hint="--timeout")
    request = RegradeRequest(
        report=report,
        paths=tuple(paths or ()),
        output=output,
        max_concurrency=max_concurrency,
        timeout=timeout,
    )
    _finish(regrade_command(request, json_output=output_format is OutputFormat.json))


adjudication_app = typer.Typer(
    name="adjudication",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Answers waiting for a person: export them, record the verdicts.",
)
app.add_typer(adjudication_app)


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
    from goldgate.adjudication.commands import export_command

    _finish(export_command(report, output))


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
    from goldgate.adjudication.commands import apply_command

    _finish(apply_command(verdicts, store))


def _finish(code: ExitCode) -> NoReturn:
    raise typer.Exit(int(code))


_STOPPED: list[int] = []


def _stop(signum: int, frame: object) -> None:
    _STOPPED.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """The console script: every whole-run failure becomes one sentence and its exit code."""
    # SIGINT and SIGTERM stop goldgate while it prepares (importing a slow target, say): typer
    # turns the KeyboardInterrupt into exit 130, and the note below says why. A run installs
    # its own handlers, which keep what finished.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _stop)
    try:
        code = app(standalone_mode=False)
    except GoldgateError as error:
        print(f"goldgate: {error}", file=sys.stderr)
        sys.exit(int(error.exit_code))
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        print("goldgate: interrupted.", file=sys.stderr)
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception as error:  # click's usage errors
        # Recent typer versions vendor click (typer._click) and do not install it, so
        # usage errors are recognised by their shape rather than by importing click.
        show = getattr(error, "show", None)
        if callable(show) and isinstance(getattr(error, "exit_code", None), int):
            show()
            sys.exit(int(ExitCode.INVALID_INPUT))
        raise
    if _STOPPED and code == ExitCode.INTERRUPTED:
        print("goldgate: interrupted.", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)
