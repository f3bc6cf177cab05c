"""``goldgate evaluate --compare CANDIDATE --baseline BASELINE``: two reports compared into a
new comparison file, and its safe summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from goldgate.app.conclude import (
    emit_json,
    emit_text,
    refusal_json,
)
from goldgate.base.errors import (
    ExitCode,
    GoldgateError,
    most_severe,
)
from goldgate.base.problems import display_path
from goldgate.base.stdio import (
    warn,
)


@dataclass(frozen=True)
class CompareRequest:
    """What ``goldgate evaluate --compare`` was asked to do."""

    candidate: Path
    baseline: Path
    output: Path | None = None
    partial: bool = False
    fail_on_regression: bool = False
    json_output: bool = False


def compare_reports(request: CompareRequest) -> ExitCode:
    """``goldgate evaluate --compare``: no settings, no targets; a new comparison file and a
    safe summary. 0 when compared, 2 when incomparable; with ``--fail-on-regression``, 1
    when the comparison's one classification has a regressed or mixed unit."""
    from datetime import UTC, datetime

    from goldgate.comparison import compare, default_comparison_path, write_comparison
    from goldgate.comparison.summary import comparison_json, render_comparison
    from goldgate.report.io import ensure_writable

    now = datetime.now(UTC)
    try:
        output = request.output or default_comparison_path(request.candidate, now)
        ensure_writable(output)
        comparison = compare(request.candidate, request.baseline, partial=request.partial, now=now)
    except GoldgateError as error:
        if not request.json_output:
            raise
        return refusal_json(error)
    written, fallback_reason = write_comparison(comparison, output)
    path = Path(display_path(written))
    if request.json_output:
        emit_json(comparison_json(comparison, path))
    else:
        emit_text(render_comparison(comparison, path))
    code = ExitCode.PASSED
    if request.fail_on_regression and comparison.regressions:
        code = ExitCode.GOLD_DISAGREEMENT
    if fallback_reason:
        warn(f"goldgate: {fallback_reason}; the comparison was written to {path} instead.")
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code
