"""``goldgate report merge``: the reports of shards joined into the report of the whole run."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.conclude import (
    emit_text,
)
from goldgate.base.errors import (
    ExitCode,
    ReportRefusedError,
)
from goldgate.base.textsafe import escape_control

if TYPE_CHECKING:
    from goldgate.report.background import Background
    from goldgate.report.streamread import StreamedReport


def merge_shard_reports(paths: Sequence[Path], output: Path) -> ExitCode:
    """``goldgate report merge``: the shards' reports joined into one; its exit code is the
    verdict of the whole run."""
    from goldgate.report.background import fork_possible
    from goldgate.report.io import ensure_writable, write_report_pieces
    from goldgate.report.mergestream import merged_stream
    from goldgate.report.streamread import streamed_report
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    # With a second CPU, a forked helper verifies the shards while this process writes the
    # merged report from them (report.background): the report is published only once every
    # shard is verified, and a refusal is the one reading them one by one makes (nothing
    # written). Without it, each shard is verified here as it is read.
    helper = None
    if len(paths) > 1 and fork_possible():
        _built_before_the_fork()
        helper = _Helpers.forked(paths)
    with contextlib.ExitStack() as opened:
        if helper is not None:
            opened.callback(helper.close)
        try:
            # Each shard's cases are read again as they are written: the merged report is
            # never held whole (report.mergestream).
            shards = [
                opened.enter_context(streamed_report(path, verify=helper is None))
                for path in paths
            ]
            merging = merged_stream(shards)
            pieces = merging.chunks()
            if helper is not None:
                pieces = _verified_last(pieces, helper.wait, shards)
            written = write_report_pieces(pieces, output)
        except Exception:
            if helper is not None:  # a shard refused wins, as when verified first
                helper.wait()
                _verify_each(paths)
            raise
    merged = merging.report
    assert merged is not None  # every piece was written
    code = ExitCode(merged.verdict.exit_code)
    emit_text(render_summary(merged, written, code))
    return code


def _built_before_the_fork() -> None:
    """What this process and the helpers both need, made once before the fork (the helpers
    share it, copy on write): the readers' and verification's modules and the records'
    adapters, which a helper otherwise imports and builds again (about a third of a CPU
    second each)."""
    from goldgate.report import verify  # noqa: F401 - imported for the helper
    from goldgate.report.models import CaseRecord, Report, adapter

    adapter(Report)
    adapter(CaseRecord)


class _Helpers:
    """The shards verified by forked helpers (``report.background``), one for each CPU but
    the one this process writes on, each given shards of about the same size in all:
    verifying takes about what writing takes, so with two CPUs one helper verifies them all
    (a second would only take CPU time from this process), with more each verifies a part."""

    def __init__(self, helpers: Sequence[Background]) -> None:
        self.helpers = helpers

    @classmethod
    def forked(cls, paths: Sequence[Path]) -> _Helpers | None:
        from goldgate.base.accelerators import cpu_budget
        from goldgate.report.background import verify_in_background

        count = max(1, min(len(paths), int(cpu_budget()) - 1))
        groups: list[list[Path]] = [[] for _ in range(count)]
        sizes = [0] * len(groups)
        for path in sorted(paths, key=_size, reverse=True):  # the largest first, to the least
            least = sizes.index(min(sizes))
            groups[least].append(path)
            sizes[least] += _size(path)
        helpers = []
        for group in groups:
            helper = verify_in_background([path for path in paths if path in group])
            if helper is None:  # no fork here: this process verifies what no helper took
                break
            helpers.append(helper)
        return cls(helpers) if helpers else None

    def wait(self) -> None:
        for helper in self.helpers:
            helper.wait()

    def close(self) -> None:
        for helper in self.helpers:
            helper.close()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # refused where it is read, in its own words
        return 0


def _verified_last(
    pieces: Iterator[bytes], wait: Callable[[], object], shards: Sequence[StreamedReport]
) -> Iterator[bytes]:
    """The merged report's pieces, then (before it is published) every shard verified: by
    the helper (the very bytes read here), or here where it did not."""
    from goldgate.report.streamread import streamed_report
    from goldgate.report.verified import is_verified

    yield from pieces
    wait()
    for shard in shards:
        if not is_verified(shard.digest):
            with streamed_report(Path(shard.path)) as again:
                if again.digest != shard.digest:  # not the bytes merged: changed since
                    raise ReportRefusedError(
                        f"{escape_control(shard.path)}: changed while it was read; read it again."
                    )


def _verify_each(paths: Sequence[Path]) -> None:
    """Each shard verified in turn (those whose bytes the helper verified are only scanned):
    the refusal of the first that is refused."""
    from goldgate.report.streamread import streamed_report

    for path in paths:
        with streamed_report(path):
            pass
