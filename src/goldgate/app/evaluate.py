"""TODO docstring."""

from __future__ import annotations

import os

from goldgate.app.conclude import (
    INTERRUPTED,
    emit_json,
    emit_text,
    refusal_json,
)
from goldgate.base.channel import announce
from goldgate.base.errors import (
    EXIT_CODE_MEANINGS,
    ExitCode,
    GoldgateError,
    most_severe,
)
from goldgate.base.memory import long_lived
from goldgate.base.stdio import (
    end_user_output,
    settle_streams,
    user_output_to_stderr,
    warn,
)
from goldgate.run.session import RunRequest


def run_evaluation(request: RunRequest) -> ExitCode:
    """``goldgate evaluate``: check gold, prepare targets, run, write the report, summarize.

    Everything that can be refused is refused before the first attempt starts (exit 2).
    """
    with long_lived():
        from goldgate.report.summary import render_summary, shard_exit_code, summary_json
        from goldgate.run.session import SessionOutcome, prepare_session

    def conclude(outcome: SessionOutcome) -> ExitCode:
        code = shard_exit_code(outcome.report, ExitCode(outcome.report.verdict.exit_code))
        if outcome.fallback_reason:
            # Nothing is lost, but the report is not where CI looks for it: a runtime failure.
            warn(
                f"goldgate: {outcome.fallback_reason}; the report was written to "
                f"{outcome.report_path} instead."
            )
            code = most_severe(code, ExitCode.RUNTIME_FAILURE)
        announce("report", int(code), str(outcome.report_path))
        if request.json_output:
            shown = emit_json(summary_json(outcome.report, outcome.report_path, code))
        else:
            shown = emit_text(render_summary(outcome.report, outcome.report_path, code))
        if not shown:  # the outcome must not be lost with stdout
            warn(
                f"goldgate: stdout cannot be written; the run ends with exit {int(code)} "
                f"({EXIT_CODE_MEANINGS[code]}) and its report is {outcome.report_path}."
            )
        return code

    def emergency_exit(outcome: SessionOutcome) -> None:
        # From the watchdog's thread: the main thread is stuck in a target for good.
        end_user_output()
        code = conclude(outcome)
        warn(
            "goldgate: a target kept the event loop blocked and could not be stopped; "
            "what finished is in the report."
        )
        settle_streams()
        os._exit(int(code))

    try:
        # Importing targets and scorers may print; the prepared gold lives as long as the run.
        with user_output_to_stderr(), long_lived():
            session = prepare_session(request)
        from goldgate.app.progress import Progress

        outcome = session.execute(emergency_exit, Progress().suite)
    except (GoldgateError, KeyboardInterrupt) as error:
        if request.json_output:
            return refusal_json(error)
        if isinstance(error, KeyboardInterrupt):  # typer would exit 130 without a word
            warn(f"goldgate: {INTERRUPTED}")
            return ExitCode.INTERRUPTED
        raise  # one message on stderr, as for every refused run
    return conclude(outcome)
