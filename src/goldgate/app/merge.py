"""``goldgate report merge``: the reports of shards joined into the report of the whole run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from goldgate.app.conclude import (
    emit_text,
)
from goldgate.base.errors import (
    ExitCode,
)


def merge_shard_reports(paths: Sequence[Path], output: Path) -> ExitCode:
    """``goldgate report merge``: the shards' reports joined into one; its exit code is the
    verdict of the whole run."""
    from goldgate.report.io import ensure_writable, read_report, write_report
    from goldgate.report.merge import ShardReport, merge_reports
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    merged = merge_reports([ShardReport(str(path), read_report(path)) for path in paths])
    written = write_report(merged, output)
    code = ExitCode(merged.verdict.exit_code)
    emit_text(render_summary(merged, written, code))
    return code
