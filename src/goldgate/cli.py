"""The goldgate command line: parse, call one function, map errors to exit codes.

Heavy modules are imported inside the commands so that ``goldgate --help`` starts fast.
"""

from __future__ import annotations

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
    github = "github"


class Budget(StrEnum):
    comment = "comment"
    summary = "summary"


class Details(StrEnum):
    safe = "safe"
    values = "values"


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
    OutputFormat,
    typer.Option(
        "--format",
        help="text for people, json for machines, github for workflow-command annotations "
        "of the problems found (checks only).",
    ),
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

    _finish(
        validate_settings(
            config,
            json_output=output_format is OutputFormat.json,
            github=output_format is OutputFormat.github,
        )
    )


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
    github = output_format is OutputFormat.github
    if check:
        _finish(
            commands.check_gold_command(config, dataset, json_output=json_output, github=github)
        )
    if github:
        raise typer.BadParameter(
            "github annotations are for --check; after a run use 'goldgate report annotations'",
            param_hint="--format",
        )
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


report_app = typer.Typer(
    name="report",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Render a report for CI or a person: JUnit XML, Markdown, annotations, a terminal view.",
)
app.add_typer(report_app)

ReportArgument = Annotated[
    Path,
    typer.Argument(help="A report file written by goldgate evaluate.", dir_okay=False),
]
OutputFile = Annotated[
    Path | None,
    typer.Option(
        "-o", "--output", metavar="FILE", help="Write here instead of stdout.", dir_okay=False
    ),
]


@report_app.command("junit")
def report_junit(
    report: ReportArgument,
    output: Annotated[
        Path,
        typer.Option(
            "-o", "--output", metavar="FILE", help="JUnit XML file to write.", dir_okay=False
        ),
    ],
) -> None:
    """JUnit XML: a testsuite per suite, a testcase per attempt (for the checks tab)."""
    from goldgate.commands import render_report

    _finish(render_report("junit", report, output))


def _link_base(value: str | None) -> str | None:
    if value is None:
        return None
    from goldgate.render.escape import check_link_base

    try:
        return check_link_base(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


@report_app.command("markdown")
def report_markdown(
    report: ReportArgument,
    budget: Annotated[
        Budget,
        typer.Option("--budget", help="comment: 65,536 characters; summary: 1 MiB (job summary)."),
    ] = Budget.comment,
    details: Annotated[
        Details,
        typer.Option(
            "--details",
            help="safe: names, ids, statuses and numbers; values: also expected and actual "
            "values of failing checks (never for held-out cases).",
        ),
    ] = Details.safe,
    link_base: Annotated[
        str | None,
        typer.Option(
            "--link-base",
            metavar="URL",
            callback=_link_base,
            help="Link each case to its gold line: the repository's blob URL at a commit, "
            "e.g. https://github.com/OWNER/REPO/blob/SHA.",
        ),
    ] = None,
    output: OutputFile = None,
) -> None:
    """Markdown for a pull-request comment or a job summary, within GitHub's size limits."""
    from goldgate.commands import render_report

    _finish(
        render_report(
            "markdown",
            report,
            output,
            budget=budget.value,
            details=details.value,
            link_base=link_base,
        )
    )


@report_app.command("annotations")
def report_annotations(
    report: ReportArgument,
    maximum: Annotated[
        int,
        typer.Option("--max", min=0, help="Error annotations to print (GitHub shows 10 per step)."),
    ] = 10,
) -> None:
    """GitHub workflow commands: an error at the gold line of each failing case."""
    from goldgate.commands import render_report

    _finish(render_report("annotations", report, maximum=maximum))


@report_app.command("show")
def report_show(report: ReportArgument) -> None:
    """The report for a person: tables and colour on a terminal, plain text otherwise."""
    import os
    import shutil

    from goldgate.commands import render_report

    terminal = sys.stdout.isatty()
    _finish(
        render_report(
            "show",
            report,
            rich=terminal,
            color=terminal and "NO_COLOR" not in os.environ,
            width=shutil.get_terminal_size().columns,
        )
    )


def _finish(code: ExitCode) -> NoReturn:
    raise typer.Exit(int(code))


def main() -> None:
    """The console script: every whole-run failure becomes one sentence and its exit code."""
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
    sys.exit(code if isinstance(code, int) else 0)
