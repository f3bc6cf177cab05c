"""The goldgate command line: parse, call one function, map errors to exit codes.

The root app, its top-level commands and the exit-code and signal handling are here; the
longer commands and the command groups are declared in ``goldgate.app.commandline`` (one
module each: init, evaluate, report, evals, adjudication) and registered here, in the order
``goldgate --help`` lists them. Heavy modules are imported inside the commands so that
``goldgate --help`` starts fast.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
import contextlib
import functools
import io
import os
import signal
import sys
import threading
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from goldgate._version import __version__
from goldgate.app.action.inputs import inputs_help
from goldgate.app.commandline.adjudication import adjudication_app
from goldgate.app.commandline.evals import evals_app
from goldgate.app.commandline.evaluate import evaluate
from goldgate.app.commandline.importer import import_app
from goldgate.app.commandline.init import init
from goldgate.app.commandline.judge import judge_app
from goldgate.app.commandline.report import report_app
from goldgate.app.commandline.shared import (
    ConfigOption,
    FormatOption,
    OutputFormat,
    command_group,
    finish,
)
from goldgate.base.english import count
from goldgate.base.errors import ExitCode, GoldgateError
from goldgate.base.problems import pin_working_folder
from goldgate.base.stdio import claim_standard_streams, settle_streams, streams_inheritable, warn
from goldgate.run.leftovers import threads_left_running

app = command_group("goldgate")


class SchemaName(StrEnum):
    dataset = "dataset"
    cases = "cases"
    settings = "settings"
    workflow = "workflow"
    report = "report"
    comparison = "comparison"


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


app.command()(init)


@app.command()
def validate(
    config: ConfigOption = Path("config/settings.yaml"),
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Check the settings (nothing is imported or called) and print the configuration digest."""
    from goldgate.app.check import validate_settings

    finish(
        validate_settings(
            config,
            json_output=output_format is OutputFormat.json,
            github=output_format is OutputFormat.github,
        )
    )


app.command()(evaluate)


@app.command()
def schema(
    name: Annotated[SchemaName, typer.Argument(help="Which file format.")],
) -> None:
    """Print the JSON Schema of a file format, generated from the models goldgate uses."""
    from goldgate.app.schema import schema_text

    typer.echo(schema_text(name.value), nl=False)


_ACTION_INPUTS = inputs_help()  # the table of app/action/inputs.py, as the runner passes it


class CommentMode(StrEnum):
    always = "always"
    changes = "changes"
    failures = "failures"
    off = "off"


CommentModeOption = Annotated[
    CommentMode | None,
    typer.Option(
        "--comment-mode",
        help="When to post the pull-request comment (the input comment_mode): always; "
        "changes, only when the verdict or the comparison's counts changed since the last "
        "comment; failures, only when the check fails (a comment already there is updated "
        "to say it passes now); off.",
    ),
]


def _with_comment_mode(environ: dict[str, str], mode: CommentMode | None) -> dict[str, str]:
    return environ if mode is None else {**environ, "INPUT_COMMENT_MODE": mode.value}


@app.command(epilog=_ACTION_INPUTS)
def action(
    comment_mode: CommentModeOption = None,
    run_only: Annotated[
        bool,
        typer.Option(
            "--run-only",
            help="Only run what runs user code (modes evaluate, evals, replay), with no token, "
            "and leave the report for `goldgate publish` in .goldgate/action/run.json, its "
            "digest the step output handoff_digest (goldgate publish needs it in "
            "GOLDGATE_HANDOFF_DIGEST); exit 0 whatever the run found.",
        ),
    ] = False,
) -> None:
    """The GitHub Action's entrypoint: read the INPUT_* variables and the event, evaluate
    (gold, or Python evals), compare with the baseline, and report (JUnit, sticky comment,
    job summary, annotations, step outputs)."""
    from goldgate.app.action.isolation import hold_tokens_apart

    arguments = ["action", *(["--run-only"] if run_only else [])]
    if comment_mode is not None:
        arguments += ["--comment-mode", comment_mode.value]
    # Starts goldgate again without them in its environment (not under an in-process caller),
    # before the action's modules are imported: the program that replaces this one imports
    # them anyway.
    tokens = hold_tokens_apart(arguments) if streams_inheritable() else {}
    from goldgate.app.action.modes import run_action
    from goldgate.app.action.split import run_only as run_step

    environ = _with_comment_mode({**os.environ, **tokens}, comment_mode)
    finish(ExitCode(run_step(environ) if run_only else run_action(environ)))


@app.command(epilog=_ACTION_INPUTS)
def publish(
    comment_mode: CommentModeOption = None,
    fetch_baseline: Annotated[
        bool,
        typer.Option(
            "--fetch-baseline",
            help="Before `goldgate action --run-only`, in mode replay without the input "
            "report: fetch the baseline's report (a file or the artifact) into "
            ".goldgate/action/replay-baseline.json for the run to replay; exit 0.",
        ),
    ] = False,
    prepare: Annotated[
        bool,
        typer.Option(
            "--prepare",
            help="Before `goldgate action --run-only` (no user code has run): with the input "
            "check_run, create the step's check run in_progress on the pull request's head "
            "commit (its id the step output check_run_id, which goldgate publish completes "
            "from GOLDGATE_CHECK_RUN_ID); and as --fetch-baseline; exit 0.",
        ),
    ] = False,
) -> None:
    """The publishing half of `goldgate action` (runs no user code): read what `goldgate
    action --run-only` left, or in modes check, compare and report do the whole mode; compare
    with the baseline, and report (JUnit, sticky comment, job summary, annotations, step
    outputs). The exit code is the one fail_on decides."""
    from goldgate.app.action.split import fetch_only, prepare_only, publish_only

    if prepare:
        finish(ExitCode(prepare_only(dict(os.environ))))
    if fetch_baseline:
        finish(ExitCode(fetch_only(dict(os.environ))))
    finish(ExitCode(publish_only(_with_comment_mode(dict(os.environ), comment_mode))))


app.add_typer(report_app)
app.add_typer(import_app)
app.add_typer(evals_app)
app.add_typer(adjudication_app)
app.add_typer(judge_app)


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
        for word, following in zip(argv, [*argv[1:], ""][: len(argv)], strict=True)
    )


@functools.cache
def _command() -> Callable[..., Any]:
    """``app`` as the click command typer makes of it, made once a process: calling ``app``
    makes it anew each time (about 12 ms of reading every command's signature), which a
    process that runs one command never noticed, and the tests, which call ``main`` in
    process thousands of times, did. The command holds nothing of a run: each call parses
    its own arguments in a context of its own."""
    from typer.main import get_command

    return get_command(app)


def _main() -> NoReturn:
    """Every whole-run failure becomes one sentence and its exit code."""
    # SIGINT and SIGTERM stop goldgate while it prepares (importing a slow target, say), as a
    # KeyboardInterrupt that run_evaluation turns into 'interrupted' and exit 130. A run
    # installs its own handlers, which keep what finished.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _stop)
    pin_working_folder()  # messages name paths from here, whatever user code does later
    try:
        code = _command()(standalone_mode=False)
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
            warn(f"goldgate: the target left {count(left, 'thread')} running; exiting anyway")
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
