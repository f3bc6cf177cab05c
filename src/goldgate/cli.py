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


class SchemaName(StrEnum):
    dataset = "dataset"
    cases = "cases"
    settings = "settings"
    workflow = "workflow"
    report = "report"
    comparison = "comparison"


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
            help="Report (or comparison) file to create, never overwritten; default: a new "
            "file under .goldgate/evaluations/ in the project folder (the one holding "
            "config/); a comparison goes to .goldgate/comparisons/ there, or beside the "
            "candidate.",
            dir_okay=False,
        ),
    ] = None,
    variant: Annotated[
        str | None,
        typer.Option("--variant", metavar="NAME", help="Name what runs; default: settings."),
    ] = None,
    variant_revision: Annotated[
        str | None,
        typer.Option(
            "--variant-revision",
            metavar="REV",
            help="Revision of what runs; default: the commit (GITHUB_SHA in GitHub Actions, "
            "else git HEAD), else the configuration digest.",
        ),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(
            "--replay",
            metavar="REPORT",
            help="Apply the current gold to a complete report's saved results; run nothing.",
            dir_okay=False,
        ),
    ] = None,
    compare: Annotated[
        Path | None,
        typer.Option(
            "--compare",
            metavar="CANDIDATE",
            help="Compare this report with --baseline; load no settings, run nothing.",
            dir_okay=False,
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="BASELINE",
            help="The report --compare compares with.",
            dir_okay=False,
        ),
    ] = None,
    partial: Annotated[
        bool,
        typer.Option(
            "--partial",
            help="With --compare: compare the attempts whose identity and input match and "
            "list the rest (for pull requests that edit gold).",
        ),
    ] = False,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="With --compare: exit 1 when any attempt regressed or is mixed.",
        ),
    ] = False,
) -> None:
    """Run gold against the application and write an immutable report (or --check it,
    --replay a report, or --compare two)."""
    from goldgate import commands

    json_output = output_format is OutputFormat.json
    if check:
        _finish(commands.check_gold_command(config, dataset, json_output=json_output))
    run_only = {
        "--suite": bool(suite), "--live": live, "--repeat": repeat != 1,
        "--variant": variant is not None, "--variant-revision": variant_revision is not None,
    }  # fmt: skip
    if compare is not None or baseline is not None:
        _refuse_run_options(run_only, "--compare", "a comparison reads two reports")
        if compare is None or baseline is None:
            missing = "--baseline" if baseline is None else "--compare"
            raise typer.BadParameter("--compare and --baseline go together", param_hint=missing)
        if replay is not None:
            raise typer.BadParameter("replay or compare, not both", param_hint="--replay")
        _finish(
            commands.compare_reports(
                commands.CompareRequest(
                    candidate=compare,
                    baseline=baseline,
                    output=output,
                    partial=partial,
                    fail_on_regression=fail_on_regression,
                    json_output=json_output,
                )
            )
        )
    for flag, given in (("--partial", partial), ("--fail-on-regression", fail_on_regression)):
        if given:
            raise typer.BadParameter("only with --compare", param_hint=flag)
    if replay is not None:
        _refuse_run_options(run_only, "--replay", "a replay re-scores what the report ran")
        _finish(
            commands.replay_evaluation(
                commands.ReplayRequest(
                    report=replay,
                    config=config,
                    dataset=dataset,
                    output=output,
                    json_output=json_output,
                )
            )
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
                variant=variant,
                variant_revision=variant_revision,
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


def _refuse_run_options(given: dict[str, bool], mode: str, why: str) -> None:
    """Options that shape a run mean nothing to a replay or a comparison: refuse them rather
    than ignore them."""
    for flag, used in given.items():
        if used:
            raise typer.BadParameter(f"not used with {mode}: {why}", param_hint=flag)


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
