"""``goldgate report merge``: the reports of shards joined into the report of the whole run."""

from __future__ import annotations

import contextlib
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
    from goldgate.report.io import ensure_writable, write_report_pieces
    from goldgate.report.mergestream import merged_stream
    from goldgate.report.streamread import streamed_report
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    with contextlib.ExitStack() as opened:
        # Each shard is verified as it is read, and its cases read again as they are
        # written: the merged report is never held whole (report.mergestream).
        shards = [opened.enter_context(streamed_report(path)) for path in paths]
        merging = merged_stream(shards)
        written = write_report_pieces(merging.chunks(), output)
    merged = merging.report
    assert merged is not None  # every piece was written
    code = ExitCode(merged.verdict.exit_code)
    emit_text(render_summary(merged, written, code))
    return code
