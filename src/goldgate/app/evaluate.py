"""``goldgate evaluate``: gold checked, targets prepared, the run streamed into its report,
the summary printed and the exit code the report decides."""

from __future__ import annotations

from goldgate.app.conclude import blocked_exit, refused, run_summary
from goldgate.base.errors import ExitCode, GoldgateError
from goldgate.base.memory import long_lived
from goldgate.base.stdio import user_output_to_stderr, warn
from goldgate.run.session import RunRequest


def run_evaluation(request: RunRequest) -> ExitCode:
    """``goldgate evaluate``: check gold, prepare targets, run, write the report, summarize.

    Everything that can be refused is refused before the first attempt starts (exit 2).
    """
    with long_lived():
        from goldgate.run.session import prepare_session

    try:
        # Importing targets and scorers may print; the prepared gold lives as long as the run.
        with user_output_to_stderr(), long_lived():
            session = prepare_session(request)
        from goldgate.app.progress import Progress

        outcome = session.execute(blocked_exit(request.json_output, "a target"), Progress().suite)
    except (GoldgateError, KeyboardInterrupt) as error:
        return refused(error, request.json_output)
    if session.judges is not None:  # a judge that only suggests says why, on stderr
        for sentence in session.judges.standings():
            warn(f"goldgate: {sentence}")
    elif session.settings.settings.judges:
        warn(
            "goldgate: judges are asked only with --live; checks naming one wait for a human "
            "verdict (docs/judges.md)"
        )
    if session.cache is not None:  # corrupt entries were misses: say so, not in stdout
        for sentence in session.cache.summary_warnings():
            warn(f"goldgate: {sentence}")
    return run_summary(outcome, request.json_output)
