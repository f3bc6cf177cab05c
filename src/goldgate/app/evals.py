"""What ``goldgate evals run`` and ``goldgate evals regrade`` do, as plain functions returning
an exit code. They print only the safe summary (names, counts, verdicts, the report path);
the exit code is the report's, and both end as ``goldgate evaluate`` does (``app.conclude``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from goldgate.app.conclude import blocked_exit, refused, run_summary
from goldgate.base.errors import ExitCode, GoldgateError
from goldgate.base.stdio import user_output_to_stderr, warn

if TYPE_CHECKING:
    from goldgate.evals.regrade import RegradeRequest
    from goldgate.evals.session import EvalsRequest
    from goldgate.run.session import SessionOutcome

__all__ = ["regrade_command", "run_command"]

_T = TypeVar("_T")


def _guarded(step: Callable[[], _T], json_output: bool) -> _T | ExitCode:
    try:
        return step()
    except (GoldgateError, KeyboardInterrupt) as error:
        return refused(error, json_output)


def run_command(request: EvalsRequest) -> ExitCode:
    """``goldgate evals run``: discover, check, run, write the report, summarize."""
    from goldgate.evals.session import prepare

    emergency_exit = blocked_exit(request.json_output, "an eval")
    refused: list[str] = []

    def run() -> SessionOutcome:
        with user_output_to_stderr():  # importing eval files may print
            session = prepare(request)
        for sentence in session.refused:
            refused.append(sentence)
            warn(
                f"goldgate: {sentence} Its evals were not run; the other files' were, and "
                "the run ends with exit 2 (invalid input)."
            )
        for name, seconds in session.plan.timeouts_beyond(request.options.timeout):
            warn(
                f"goldgate: eval '{name}' allows itself {seconds:g} s, but --timeout ends "
                f"every attempt after {request.options.timeout:g} s; pass --timeout {seconds:g} to "
                "give it its time."
            )
        from goldgate.app.progress import Progress

        return session.execute(emergency_exit, Progress().suite)

    outcome = _guarded(run, request.json_output)
    if isinstance(outcome, ExitCode):
        return outcome
    floor = ExitCode.INVALID_INPUT if refused else ExitCode.PASSED
    return run_summary(outcome, request.json_output, floor)


def regrade_command(request: RegradeRequest, json_output: bool) -> ExitCode:
    """``goldgate evals regrade``: the evaluators again on a report's saved outputs."""
    from goldgate.evals.regrade import regrade

    outcome: Any = _guarded(lambda: regrade(request), json_output)
    if isinstance(outcome, ExitCode):
        return outcome
    return run_summary(outcome, json_output)
