"""``goldgate evaluate --replay REPORT``: the current gold applied to a report's saved results
(no target is run), written as a new report and summarized like a run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from goldgate.app.conclude import (
    emit_json,
    emit_text,
    published,
    refusal_json,
)
from goldgate.base.errors import (
    ExitCode,
    GoldgateError,
)


@dataclass(frozen=True)
class ReplayRequest:
    """What ``goldgate evaluate --replay`` was asked to do."""

    report: Path
    config: Path
    dataset: Path | None = None
    output: Path | None = None
    json_output: bool = False


def replay_evaluation(request: ReplayRequest) -> ExitCode:
    """``goldgate evaluate --replay``: the current gold over a saved report's results, into
    a new report; the exit code is the replayed report's verdict."""
    from goldgate.comparison.replay import prepare_replay
    from goldgate.report.summary import render_summary, summary_json

    try:
        prepared = prepare_replay(request.report, request.config, request.dataset, request.output)
        outcome = prepared.execute()
    except GoldgateError as error:
        if not request.json_output:
            raise
        return refusal_json(error)
    measured = outcome.source.record()  # the run whose latency and usage were copied
    code = published(ExitCode(outcome.report.verdict.exit_code), outcome)
    if request.json_output:
        summary = summary_json(outcome.report, outcome.report_path, code)
        summary["replay_of"] = {"path": measured.path, "digest": measured.digest}
        emit_json(summary)
    else:
        emit_text(render_summary(outcome.report, outcome.report_path, code))
        emit_text(
            f"replay of: {measured.path} ({measured.digest}); latency and usage are that "
            "run's measurements"
        )
    return code
