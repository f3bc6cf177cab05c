"""What ``goldgate evals run`` and ``goldgate evals regrade`` do, as plain functions returning
an exit code. They print only the safe summary (names, counts, verdicts, the report path);
the exit code is the report's, as for ``goldgate evaluate`` (``app.evaluate.run_evaluation``,
whose stream handling this follows).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from goldgate.base.channel import announce
from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode, GoldgateError, most_severe
from goldgate.base.stdio import (
    end_user_output,
    settle_streams,
    user_output_to_stderr,
    warn,
    write_json,
    write_stdout,
)

if TYPE_CHECKING:
    from goldgate.evals.regrade import RegradeRequest
    from goldgate.evals.session import EvalsRequest
    from goldgate.run.session import SessionOutcome

__all__ = ["regrade_command", "run_command"]

_INTERRUPTED = "interrupted before the report was written."
_T = TypeVar("_T")


def _conclude(outcome: SessionOutcome, json_output: bool) -> ExitCode:
    from goldgate.report.summary import render_summary, summary_json

    code = ExitCode(outcome.report.verdict.exit_code)
    if outcome.fallback_reason:
        warn(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead."
        )
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    announce("report", int(code), str(outcome.report_path))
    if json_output:
        summary = summary_json(outcome.report, outcome.report_path, code)
        shown = write_json(summary)
    else:
        shown = write_stdout(render_summary(outcome.report, outcome.report_path, code))
    if not shown:
        warn(
            f"goldgate: stdout cannot be written; the run ends with exit {int(code)} "
            f"({EXIT_CODE_MEANINGS[code]}) and its report is {outcome.report_path}."
        )
    return code


def _refused(error: GoldgateError | KeyboardInterrupt, json_output: bool) -> ExitCode:
    if json_output:
        from goldgate.app.conclude import emit_json_refusal

        if isinstance(error, KeyboardInterrupt):
            emit_json_refusal(_INTERRUPTED)
            return ExitCode.INTERRUPTED
        emit_json_refusal(str(error).splitlines()[-1])
        return error.exit_code
    if isinstance(error, KeyboardInterrupt):
        warn(f"goldgate: {_INTERRUPTED}")
        return ExitCode.INTERRUPTED
    raise error  # one sentence on stderr, with the error's exit code


def _guarded(step: Callable[[], _T], json_output: bool) -> _T | ExitCode:
    try:
        return step()
    except (GoldgateError, KeyboardInterrupt) as error:
        return _refused(error, json_output)


def run_command(request: EvalsRequest) -> ExitCode:
    """``goldgate evals run``: discover, check, run, write the report, summarize."""
    from goldgate.evals.session import prepare

    def emergency_exit(outcome: SessionOutcome) -> None:
        # From the watchdog's thread: the main thread is stuck in an eval for good.
        end_user_output()
        code = _conclude(outcome, request.json_output)
        warn(
            "goldgate: an eval kept the event loop blocked and could not be stopped; what "
            "finished is in the report."
        )
        settle_streams()
        os._exit(int(code))

    def run() -> SessionOutcome:
        with user_output_to_stderr():  # importing eval files may print
            session = prepare(request)
        for name, seconds in session.plan.timeouts_beyond(request.timeout):
            warn(
                f"goldgate: eval '{name}' allows itself {seconds:g} s, but --timeout ends "
                f"every attempt after {request.timeout:g} s; pass --timeout {seconds:g} to "
                "give it its time."
            )
        from goldgate.app.progress import Progress

        return session.execute(emergency_exit, Progress().suite)

    outcome = _guarded(run, request.json_output)
    if isinstance(outcome, ExitCode):
        return outcome
    return _conclude(outcome, request.json_output)


def regrade_command(request: RegradeRequest, json_output: bool) -> ExitCode:
    """``goldgate evals regrade``: the evaluators again on a report's saved outputs."""
    from goldgate.evals.regrade import regrade

    outcome: Any = _guarded(lambda: regrade(request), json_output)
    if isinstance(outcome, ExitCode):
        return outcome
    return _conclude(outcome, json_output)
