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
    from goldgate.report.background import verify_in_background
    from goldgate.report.io import ensure_writable, write_report_pieces
    from goldgate.report.mergestream import merged_stream
    from goldgate.report.streamread import streamed_report
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    # The later half of the shards verified by a forked helper while this process verifies
    # the first (report.verified; none without the accelerators or a second CPU).
    half = (len(paths) + 1) // 2
    helper = verify_in_background(paths[half:]) if len(paths) > 1 else None
    with contextlib.ExitStack() as opened:
        if helper is not None:
            opened.callback(helper.close)
        # Each shard is verified as it is read, and its cases read again as they are
        # written: the merged report is never held whole (report.mergestream).
        shards = []
        for number, path in enumerate(paths):
            if number == half and helper is not None:
                helper.wait()  # what it verified is not verified again here
            shards.append(opened.enter_context(streamed_report(path)))
        merging = merged_stream(shards)
        written = write_report_pieces(merging.chunks(), output)
    merged = merging.report
    assert merged is not None  # every piece was written
    code = ExitCode(merged.verdict.exit_code)
    emit_text(render_summary(merged, written, code))
    return code
