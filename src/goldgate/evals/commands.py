"""What ``goldgate evals run`` and ``goldgate evals regrade`` do, as plain functions returning
an exit code. They print only the safe summary (names, counts, verdicts, the report path);
the exit code is the report's, as for ``goldgate evaluate``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import typer

from goldgate.errors import ExitCode, InvalidInputError, most_severe
from goldgate.evals.regrade import RegradeRequest
from goldgate.evals.session import EvalsRequest
from goldgate.session import SessionOutcome

__all__ = ["regrade_command", "run_command"]


def _emit_json(payload: dict[str, Any]) -> None:
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))


def _conclude(outcome: SessionOutcome, json_output: bool) -> ExitCode:
    from goldgate.report.summary import render_summary, summary_json

    if json_output:
        _emit_json(summary_json(outcome.report, outcome.report_path))
    else:
        typer.echo(render_summary(outcome.report, outcome.report_path))
    code = ExitCode(outcome.report.verdict.exit_code)
    if outcome.fallback_reason:
        print(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead.",
            file=sys.stderr,
        )
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


def _refused(error: InvalidInputError, json_output: bool) -> ExitCode:
    if not json_output:
        raise error  # one sentence on stderr, exit 2
    _emit_json({"ok": False, "error": str(error).splitlines()[-1], "violations": []})
    return ExitCode.INVALID_INPUT


def _guarded(prepare: Callable[[], Any], json_output: bool) -> Any:
    try:
        return prepare()
    except InvalidInputError as error:
        return _refused(error, json_output)


def run_command(request: EvalsRequest) -> ExitCode:
    """``goldgate evals run``: discover, check, run, write the report, summarize."""
    from goldgate.evals.session import prepare

    session = _guarded(lambda: prepare(request), request.json_output)
    if isinstance(session, ExitCode):
        return session

    def emergency_exit(outcome: SessionOutcome) -> None:
        code = _conclude(outcome, request.json_output)
        print(
            "goldgate: an eval kept the event loop blocked and could not be stopped; what "
            "finished is in the report.",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(code))

    return _conclude(session.execute(emergency_exit), request.json_output)


def regrade_command(request: RegradeRequest, json_output: bool) -> ExitCode:
    """``goldgate evals regrade``: the evaluators again on a report's saved outputs."""
    from goldgate.evals.regrade import regrade

    outcome = _guarded(lambda: regrade(request), json_output)
    if isinstance(outcome, ExitCode):
        return outcome
    return _conclude(outcome, json_output)
