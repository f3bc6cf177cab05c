"""How a command ends, written once: the run's summary and exit code (a report written
elsewhere is a runtime failure), a refusal as one sentence or one JSON document, and the exit
of a run whose event loop a target or an eval keeps blocked."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from goldgate.base import english
from goldgate.base.channel import announce
from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode, GoldgateError, most_severe
from goldgate.base.problems import Violation
from goldgate.base.stdio import (
    end_user_output,
    settle_streams,
    warn,
    write_commands,
    write_json,
    write_stdout,
)

if TYPE_CHECKING:
    from goldgate.run.session import SessionOutcome


def emit_text(text: str) -> bool:
    """``text`` on stdout; False when stdout cannot take it (never raised: see stdio)."""
    return write_stdout(text)


def emit_json(payload: dict[str, Any]) -> bool:
    return write_json(payload)


INTERRUPTED = "interrupted before the report was written."


def emit_json_refusal(message: str, violations: Sequence[Violation] = ()) -> None:
    """A command refused, or ended without a report: the one JSON document that
    ``--format json`` prints, whatever the outcome."""
    emit_json({"ok": False, "error": message, "violations": [v.as_json() for v in violations]})


def refusal_json(error: GoldgateError | KeyboardInterrupt) -> ExitCode:
    if isinstance(error, KeyboardInterrupt):
        emit_json_refusal(INTERRUPTED)
        return ExitCode.INTERRUPTED
    emit_json_refusal(str(error).splitlines()[-1], getattr(error, "violations", ()))
    return error.exit_code


def violations_listing(
    violations: Sequence[Violation], json_output: bool, github: bool = False
) -> ExitCode:
    """Every violation, then the count: the output of a check that found problems. With
    ``github``, the violations are workflow-command annotations at their file, line and
    column (GitHub shows ten; a notice counts the rest)."""
    if json_output:
        emit_json({"ok": False, "violations": [v.as_json() for v in violations]})
        return ExitCode.INVALID_INPUT
    if github:
        from goldgate.render.annotations import violation_annotations

        write_commands(violation_annotations(violations))
    else:
        for violation in violations:
            emit_text(violation.render())
    problems, files = len(violations), len({v.source for v in violations})
    emit_text(f"{english.count(problems, 'problem')} in {english.count(files, 'file')}.")
    return ExitCode.INVALID_INPUT


def published(code: ExitCode, outcome: Any) -> ExitCode:
    """A file written elsewhere because its folder failed loses nothing, but it is not where
    CI looks for it: a runtime failure."""
    if outcome.fallback_reason:
        warn(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead."
        )
        return most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


def note_project_secrets() -> None:
    """Load the working folder's settings, if it has any, for the secrets they name (their
    credentials' values are redacted from what is rendered); a report alone names none."""
    # Here, not at the top: a run's ending must not load the settings models (pydantic, YAML).
    from goldgate.gold.settings.load import DEFAULT_SETTINGS, load_settings

    if DEFAULT_SETTINGS.is_file():
        with contextlib.suppress(GoldgateError, OSError, ValueError):
            load_settings(DEFAULT_SETTINGS)


def refused(error: GoldgateError | KeyboardInterrupt, json_output: bool) -> ExitCode:
    """A run refused before its report (or interrupted while preparing): with ``--format
    json`` the one JSON document; otherwise an interruption says so here and any other error
    is raised again, for the CLI to print as its one sentence with its exit code."""
    if json_output:
        return refusal_json(error)
    if isinstance(error, KeyboardInterrupt):  # typer would exit 130 without a word
        warn(f"goldgate: {INTERRUPTED}")
        return ExitCode.INTERRUPTED
    raise error


def run_summary(
    outcome: SessionOutcome, json_output: bool, at_least: ExitCode = ExitCode.PASSED
) -> ExitCode:
    """The end of a run (``evaluate``, ``evals run``, ``evals regrade``): the exit code its
    report decides (a shard decides nothing alone; ``at_least`` when input was refused while
    the rest ran), told to a supervisor, and the summary on stdout; when stdout cannot take
    it, stderr still says the code and where the report is."""
    from goldgate.report.summary import render_summary, shard_exit_code, summary_json

    code = shard_exit_code(outcome.report, ExitCode(outcome.report.verdict.exit_code))
    code = most_severe(published(code, outcome), at_least)
    announce("report", int(code), str(outcome.report_path))
    if json_output:
        shown = emit_json(summary_json(outcome.report, outcome.report_path, code))
    else:
        shown = emit_text(render_summary(outcome.report, outcome.report_path, code))
    if not shown:  # the outcome must not be lost with stdout
        warn(
            f"goldgate: stdout cannot be written; the run ends with exit {int(code)} "
            f"({EXIT_CODE_MEANINGS[code]}) and its report is {outcome.report_path}."
        )
    return code


def blocked_exit(json_output: bool, who: str) -> Callable[[SessionOutcome], None]:
    """What a run calls from its watchdog's thread when ``who`` (a target, an eval) keeps the
    event loop blocked for good: summarize what finished and end the process now."""

    def exit_now(outcome: SessionOutcome) -> None:
        end_user_output()
        code = run_summary(outcome, json_output)
        warn(
            f"goldgate: {who} kept the event loop blocked and could not be stopped; "
            "what finished is in the report."
        )
        settle_streams()
        os._exit(int(code))

    return exit_now
