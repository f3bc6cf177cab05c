"""The goldgate command line: parse, call one function, map errors to exit codes.

Heavy modules are imported inside the commands so that ``goldgate --help`` starts fast.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
import contextlib
import io
import os
import signal
import sys
import threading
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from goldgate._version import __version__
from goldgate.base.errors import ExitCode, GoldgateError, InvalidInputError
from goldgate.base.memory import long_lived
from goldgate.base.stdio import claim_standard_streams, settle_streams, warn
from goldgate.run.leftovers import threads_left_running

MAX_REPEAT = 10_000
"""More attempts per case than any gate needs; a typo such as --repeat 1000000 is refused."""
MAX_TIMEOUT = 86_400.0
"""One day per attempt: a longer deadline is a typo, and a deadline must end."""

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
    comparison = "comparison"


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
    from goldgate.app.check import validate_settings

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
        int | None,
        typer.Option(
            "--max-concurrency", min=1, max=64, help="Case workers per suite (1-64; default 1)."
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            help="Seconds per attempt, custom scoring included (positive, at most "
            f"{MAX_TIMEOUT:g}; default 300).",
        ),
    ] = None,
    repeat: Annotated[
        int | None,
        typer.Option(
            "--repeat",
            min=1,
            max=MAX_REPEAT,
            help=f"Attempts per case, in case-major order (1-{MAX_REPEAT}; default 1).",
        ),
    ] = None,
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
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="K/N",
            help="Run shard K of N: the cases whose id hashes there, the same on every "
            "machine; join the reports with 'goldgate report merge'.",
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
            help="With --compare: exit 1 when any attempt (a case, with --repeat) regressed "
            "or is mixed.",
        ),
    ] = False,
) -> None:
    """Run gold against the application and write an immutable report (or --check it,
    --replay a report, or --compare two)."""
    with long_lived():
        from goldgate.app import check as check_app
        from goldgate.app import compare as compare_app
        from goldgate.app import evaluate as evaluate_app
        from goldgate.app import replay as replay_app
        from goldgate.run.session import RunRequest

    json_output = output_format is OutputFormat.json
    github = output_format is OutputFormat.github
    # Run options default to None so that one given explicitly is known: --check runs
    # nothing, and silently ignoring an option would let a user believe it took effect.
    run_options: dict[str, Any] = {
        "max_concurrency": max_concurrency,
        "timeout": timeout,
        "repeat": repeat,
    }
    if check:
        _refuse_run_options(
            {
                "--suite": suite,
                "--live": live or None,
                "--max-concurrency": max_concurrency,
                "--timeout": timeout,
                "--repeat": repeat,
                "--output": output,
                "--shard": shard,
            }
        )
        _finish(
            check_app.check_gold_command(config, dataset, json_output=json_output, github=github)
        )
    if github:
        raise typer.BadParameter(
            "github annotations are for --check; after a run use 'goldgate report annotations'",
            param_hint="--format",
        )
    run_only = {
        "--suite": bool(suite), "--live": live, "--repeat": repeat is not None,
        "--max-concurrency": max_concurrency is not None, "--timeout": timeout is not None,
        "--shard": shard is not None, "--variant": variant is not None,
        "--variant-revision": variant_revision is not None,
    }  # fmt: skip
    if compare is not None or baseline is not None:
        _refuse_for_mode(run_only, "--compare", "a comparison reads two reports")
        if compare is None or baseline is None:
            missing = "--baseline" if baseline is None else "--compare"
            raise typer.BadParameter("--compare and --baseline go together", param_hint=missing)
        if replay is not None:
            raise typer.BadParameter("replay or compare, not both", param_hint="--replay")
        _finish(
            compare_app.compare_reports(
                compare_app.CompareRequest(
                    candidate=compare,
                    baseline=baseline,
                    output=output,
                    partial=partial,
                    fail_on_regression=fail_on_regression,
                    json_output=json_output,
                )
            )
        )
    for flag, used in (("--partial", partial), ("--fail-on-regression", fail_on_regression)):
        if used:
            raise typer.BadParameter("only with --compare", param_hint=flag)
    if replay is not None:
        _refuse_for_mode(run_only, "--replay", "a replay re-scores what the report ran")
        _finish(
            replay_app.replay_evaluation(
                replay_app.ReplayRequest(
                    report=replay,
                    config=config,
                    dataset=dataset,
                    output=output,
                    json_output=json_output,
                )
            )
        )
    _check_timeout(timeout)
    given = {name: value for name, value in run_options.items() if value is not None}
    _supervised(300.0 if timeout is None else timeout, json_output)
    _finish(
        evaluate_app.run_evaluation(
            RunRequest(
                config=config,
                dataset=dataset,
                suites=tuple(suite or ()),
                live=live,
                output=output,
                json_output=json_output,
                shard=_shard(shard),
                **given,
                variant=variant,
                variant_revision=variant_revision,
            )
        )
    )


def _streams_inheritable() -> bool:
    """Whether stdout and stderr are descriptors 1 and 2, which a child or a new program can
    share (not so for a caller that captures them in memory, an in-process test)."""
    try:
        return sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        return False


def _supervised(import_seconds: float, json_output: bool) -> None:
    """Run the rest of this command (which imports and runs user code) in a child process
    that user code cannot turn into a false outcome (``goldgate.app.supervisor``); this process
    waits and exits with the run's code. A caller whose stdout or stderr is not a file
    descriptor (an in-process test) cannot share them with a child: it runs here."""
    if not _streams_inheritable():
        return
    from goldgate.app.supervisor import supervise

    code = supervise(import_seconds=import_seconds, json_output=json_output)
    if code is not None:
        raise typer.Exit(code)


def _check_timeout(timeout: float | None) -> None:
    """Refuse a --timeout that is not a positive number of seconds up to a day (exit 2)."""
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:
        raise typer.BadParameter(
            f"must be a positive number of seconds, at most {MAX_TIMEOUT:g} (one day)",
            param_hint="--timeout",
        )


def _shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    from goldgate.report.merge import parse_shard

    try:
        return parse_shard(text)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--shard") from None


def _refuse_run_options(options: dict[str, object]) -> None:
    """Refuse the run-only options given with --check (exit 2), naming them."""
    given = [name for name, value in options.items() if value is not None]
    if not given:
        return
    several = len(given) > 1
    raise InvalidInputError(
        f"{', '.join(given)} only {'apply' if several else 'applies'} to a run, and --check "
        f"runs nothing; drop {'them' if several else 'it'} or drop --check."
    )


@app.command()
def schema(
    name: Annotated[SchemaName, typer.Argument(help="Which file format.")],
) -> None:
    """Print the JSON Schema of a file format, generated from the models goldgate uses."""
    from goldgate.app.schema import schema_text

    typer.echo(schema_text(name.value), nl=False)


report_app = typer.Typer(
    name="report",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Render a report for CI or a person (JUnit XML, Markdown, annotations, a terminal "
    "view), or merge the reports of shards.",
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
ComparisonFile = Annotated[
    Path | None,
    typer.Option(
        "--comparison",
        metavar="FILE",
        help="A comparison of this report with a baseline (goldgate evaluate --compare): "
        "show regressions, improvements, flaky cases and McNemar's test.",
        dir_okay=False,
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
    comparison: ComparisonFile = None,
) -> None:
    """JUnit XML: a testsuite per suite, a testcase per attempt (for the checks tab)."""
    from goldgate.app.render import render_report

    _finish(render_report("junit", report, output, comparison))


def _link_base(value: str | None) -> str | None:
    if value is None:
        return None
    from goldgate.render.escape import check_link_base

    try:
        return check_link_base(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


@report_app.command("fork-comment")
def report_fork_comment(
    folder: Annotated[
        Path,
        typer.Argument(help="The downloaded comment artifact of a pull request's run."),
    ],
    head_sha: Annotated[
        str,
        typer.Option(
            "--head-sha",
            metavar="SHA",
            help="The commit the triggering run ran on (github.event.workflow_run.head_sha).",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", metavar="FILE", help="JSON file to write.", dir_okay=False),
    ],
    repository: Annotated[
        str | None,
        typer.Option(
            "--repository", metavar="OWNER/REPO", help="Link gold in this repository."
        ),
    ] = None,
    server_url: Annotated[
        str | None, typer.Option("--server-url", metavar="URL", help="e.g. https://github.com")
    ] = None,
    details: Annotated[
        Details,
        typer.Option(
            "--details",
            help="values shows expected and actual values only if the hand-off asks for "
            "them too (a fork's run cannot widen what is shown).",
        ),
    ] = Details.safe,
) -> None:
    """Rebuild a fork pull request's comment from the report its run left (for a trusted
    workflow_run job): the body is rendered here, never taken from the artifact."""
    from goldgate.app.forkcomment import fork_comment

    _finish(
        fork_comment(
            folder,
            head_sha,
            output,
            repository=repository,
            server_url=server_url,
            details=details.value,
        )
    )


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
    comparison: ComparisonFile = None,
) -> None:
    """Markdown for a pull-request comment or a job summary, within GitHub's size limits."""
    from goldgate.app.render import render_report

    _finish(
        render_report(
            "markdown",
            report,
            output,
            comparison,
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
    comparison: ComparisonFile = None,
) -> None:
    """GitHub workflow commands: an error at the gold line of each failing case."""
    from goldgate.app.render import render_report

    _finish(render_report("annotations", report, None, comparison, maximum=maximum))


@report_app.command("show")
def report_show(report: ReportArgument, comparison: ComparisonFile = None) -> None:
    """The report for a person: tables and colour on a terminal, plain text otherwise."""
    import os
    import shutil

    from goldgate.app.render import render_report

    terminal = sys.stdout.isatty()
    _finish(
        render_report(
            "show",
            report,
            None,
            comparison,
            rich=terminal,
            color=terminal and "NO_COLOR" not in os.environ,
            width=shutil.get_terminal_size().columns,
        )
    )


@report_app.command("merge")
def report_merge(
    reports: Annotated[
        list[Path], typer.Argument(help="The report of every shard (evaluate --shard K/N).")
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Report file to create (never overwritten).")
    ],
) -> None:
    """Join the reports of all shards of one run into the report of the whole run."""
    from goldgate.app.merge import merge_shard_reports

    try:
        code = merge_shard_reports(reports, output)
    except KeyboardInterrupt:  # typer would exit 130 without a word
        done = f"written to {output}" if output.is_file() else "not written"
        warn(f"goldgate: interrupted; the merged report was {done}.")
        code = ExitCode.INTERRUPTED
    _finish(code)


_ACTION_INPUTS = """Inputs, as the runner passes them (action.yml documents each):

INPUT_MODE: check | evaluate | evals | replay | compare | report (default evaluate).
INPUT_CONFIG: the settings file (default config/settings.yaml).
INPUT_SUITES: suites to run, comma- or newline-separated (default: all); datasets in evals
mode.
INPUT_EVALS: eval files and folders to run in evals mode, space- or newline-separated.
INPUT_LIVE: true authorizes live workflows (default false).
INPUT_MAX_CONCURRENCY, INPUT_TIMEOUT, INPUT_REPEAT: as evaluate's options.
INPUT_VARIANT: the name of what runs (default settings).
INPUT_BASELINE: artifact:NAME (the artifact NAME-<merge-base commit>) or a report path.
INPUT_REPORT: an existing report: the candidate (compare), the saved run (replay) or the
report to render (report).
INPUT_PARTIAL: true | false: compare what matches when gold changed (default true).
INPUT_JUNIT: where to write JUnit XML (default: none).
INPUT_COMMENT: update | new | off (default update).
INPUT_COMMENT_ID: tells this step's sticky comment apart (default goldgate).
INPUT_DETAILS: safe | values (default safe).
INPUT_LINK_GOLD: true links cases to their gold lines (default true).
INPUT_FAIL_ON: disagreement | regression | never (default disagreement).
INPUT_GITHUB_TOKEN: the token that comments and downloads the baseline.
"""


@app.command(epilog=_ACTION_INPUTS)
def action() -> None:
    """The GitHub Action's entrypoint: read the INPUT_* variables and the event, evaluate
    (gold, or Python evals), compare with the baseline, and report (JUnit, sticky comment,
    job summary, annotations, step outputs)."""
    from goldgate.app.action import hold_tokens_apart, run_action

    # Starts goldgate again without them in its environment (not under an in-process caller).
    tokens = hold_tokens_apart() if _streams_inheritable() else {}
    _finish(ExitCode(run_action({**os.environ, **tokens})))


def _refuse_for_mode(given: dict[str, bool], mode: str, why: str) -> None:
    """Options that shape a run mean nothing to a replay or a comparison: refuse them rather
    than ignore them."""
    for flag, used in given.items():
        if used:
            raise typer.BadParameter(f"not used with {mode}: {why}", param_hint=flag)


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
        float,
        typer.Option(
            "--timeout",
            help="Seconds per attempt, evaluators included (positive, at most "
            f"{MAX_TIMEOUT:g}). An eval's own @eval(timeout=...) limits its function within "
            "that: the smaller one wins, and either way the attempt is timed_out (exit 4).",
        ),
    ] = 300.0,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat",
            min=1,
            max=MAX_REPEAT,
            help=f"Attempts per case, in case-major order (1-{MAX_REPEAT}).",
        ),
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
    with long_lived():
        from goldgate.app.evals import run_command
        from goldgate.evals.session import EvalsRequest

    _check_timeout(timeout)
    _supervised(timeout, output_format is OutputFormat.json)
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
    from goldgate.app.evals import regrade_command
    from goldgate.evals.regrade import RegradeRequest

    _check_timeout(timeout)
    _supervised(timeout, output_format is OutputFormat.json)
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
    from goldgate.app.adjudication import export_command

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
    from goldgate.app.adjudication import apply_command

    _finish(apply_command(verdicts, store))


def _finish(code: ExitCode) -> NoReturn:
    raise typer.Exit(int(code))


def _stop(signum: int, frame: object) -> None:
    from goldgate.base.channel import note_signal, signal_received

    first = not signal_received()
    note_signal(signum)
    if first:  # a second signal (Ctrl-C reaches a supervised child twice) is held
        raise KeyboardInterrupt


def _json_requested(argv: list[str]) -> bool:
    """Whether the command line asks for ``--format json``, for errors click raises before
    the command runs (the option may not have been parsed yet)."""
    return any(
        word == "--format=json" or (word == "--format" and following == "json")
        for word, following in zip(argv, [*argv[1:], ""], strict=True)
    )


def _main() -> NoReturn:
    """Every whole-run failure becomes one sentence and its exit code."""
    # SIGINT and SIGTERM stop goldgate while it prepares (importing a slow target, say), as a
    # KeyboardInterrupt that run_evaluation turns into 'interrupted' and exit 130. A run
    # installs its own handlers, which keep what finished.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _stop)
    try:
        code = app(standalone_mode=False)
    except GoldgateError as error:
        warn(f"goldgate: {error}")
        if _json_requested(sys.argv[1:]):  # e.g. run options refused with --check
            from goldgate.app.conclude import emit_json_refusal

            emit_json_refusal(str(error))
        sys.exit(int(error.exit_code))
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        warn("goldgate: interrupted.")
        sys.exit(int(ExitCode.INTERRUPTED))
    except MemoryError:  # what was being built is let go of as it leaves: enough to say so
        warn("goldgate: not enough memory to go on (the input is too large for this machine).")
        sys.exit(int(ExitCode.RUNTIME_FAILURE))
    except Exception as error:  # click's usage errors
        # Recent typer versions vendor click (typer._click) and do not install it, so
        # usage errors are recognised by their shape rather than by importing click.
        show = getattr(error, "show", None)
        if callable(show) and isinstance(getattr(error, "exit_code", None), int):
            # Click writes the refused value into its message: to stderr through warn, so
            # that no value can start a workflow command there.
            shown = io.StringIO()
            with contextlib.suppress(OSError, ValueError, TypeError):
                show(file=shown)
            if shown.getvalue():
                warn(shown.getvalue().rstrip("\n"))
            if _json_requested(sys.argv[1:]):
                from goldgate.app.conclude import emit_json_refusal

                describe = getattr(error, "format_message", None)
                message = describe() if callable(describe) else str(error)
                emit_json_refusal(f"{message.rstrip('.')}.")
            sys.exit(int(ExitCode.INVALID_INPUT))
        raise
    sys.exit(code if isinstance(code, int) else 0)


def _stopped_by_signal() -> bool:
    session = sys.modules.get("goldgate.run.session")  # loaded only when a run happened
    return session is not None and bool(session.stopping())


def main() -> None:
    """The console script. Once the command is done the process exits with its code: stdout
    and stderr are flushed, and threads a target left running do not hold it open. A
    supervised child (``goldgate.app.supervisor``) tells its parent the code and always ends
    with ``os._exit``, whatever happened."""
    from goldgate.base import channel

    claim_standard_streams()
    present = frozenset(threading.enumerate())
    try:
        _main()
    except SystemExit as done:
        settle_streams()
        if not isinstance(done.code, int | None):
            if channel.in_child():
                warn(str(done.code))
                settle_streams()
                os._exit(1)
            raise
        code = done.code or 0
        channel.announce("exit", code)
        if _stopped_by_signal():
            os._exit(code)  # the report is on disk: a late SIGTERM must not win
        left = threads_left_running(present)
        if left:
            warn(
                f"goldgate: the target left {left} thread{'s' * (left > 1)} running; exiting anyway"
            )
            settle_streams()
            os._exit(code)  # skips joining them at interpreter exit
        if channel.in_child():
            os._exit(code)
        raise
    except BaseException:
        if channel.in_child():  # never back into the caller of the parent's command
            import traceback

            traceback.print_exc()
            settle_streams()
            os._exit(1)
        raise
