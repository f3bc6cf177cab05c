"""``goldgate report merge``: the reports of shards joined into the report of the whole run."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.conclude import (
    emit_text,
)
from goldgate.base.errors import (
    ExitCode,
    ReportRefusedError,
)
from goldgate.base.memory import long_lived
from goldgate.base.textsafe import escape_control

if TYPE_CHECKING:
    from goldgate.report.background import Background
    from goldgate.report.streamread import StreamedReport


def merge_shard_reports(paths: Sequence[Path], output: Path) -> ExitCode:
    """``goldgate report merge``: the shards' reports joined into one; its exit code is the
    verdict of the whole run."""
    from goldgate.report.background import fork_possible
    from goldgate.report.io import ensure_writable, write_report_pieces
    from goldgate.report.streamread import streamed_report
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    # With a second CPU, forked helpers scan the shards while this process builds what
    # reading and verifying them needs, and hand their scans here; others, forked from
    # this process then, verify the shards from those scans while it writes the merged
    # report from them (report.background): each shard scanned once, and read on every
    # CPU. The report is published only once every shard is verified, and a refusal is the
    # one reading them one by one makes (nothing written). Without them, each shard is
    # verified here as it is read.
    deferred = len(paths) > 1 and fork_possible()
    helpers = _Helpers()
    with contextlib.ExitStack() as opened:
        opened.callback(helpers.close)
        try:
            # Each shard's cases are read again as they are written: the merged report is
            # never held whole (report.mergestream).
            made: list[Iterator[bytes] | None] = []
            if deferred:
                shards = _scanned_and_verifying(paths, helpers, opened, made)
            else:
                shards = [opened.enter_context(streamed_report(path)) for path in paths]
            from goldgate.report.mergestream import merged_stream

            merging = merged_stream(shards, made)
            pieces = merging.chunks()
            if deferred:
                pieces = _verified_last(pieces, helpers.wait, shards)
            written = write_report_pieces(pieces, output)
        except Exception:
            if deferred:  # a shard refused wins, as when verified first
                helpers.wait()
                _verify_each(paths)
            raise
    merged = merging.report
    assert merged is not None  # every piece was written
    code = ExitCode(merged.verdict.exit_code)
    emit_text(render_summary(merged, written, code))
    return code


def _scanned_and_verifying(
    paths: Sequence[Path],
    helpers: _Helpers,
    opened: contextlib.ExitStack,
    made: list[Iterator[bytes] | None],
) -> list[StreamedReport]:
    """The shards streamed unverified, in order, each group (``_groups``) scanned by a
    helper of its own while this process builds the readers (``_built_before_the_fork``),
    or here where none is forked, then verified by a helper forked for it (or, where none
    is, before the merged report is published: ``_verified_last``). Where each group is one
    shard, its helper makes the shard's cases as the merged report writes them as it
    verifies them (``report.mergestream.make_cases``), handed here as they are made (one
    for each shard in ``made``): this process then only joins them and counts the
    figures."""
    from goldgate.report.mergestream import make_cases
    from goldgate.report.streamread import streamed_from_scan, streamed_report

    groups = _groups(paths, _helper_count(len(paths)))
    # A helper making the cases of several shards would make one's while this process
    # waits for another's: each helper makes one shard's, or none do.
    making = len(groups) == len(paths)
    scanners = [helpers.scanning(group) for group in groups]
    # Built without collections and frozen out of later ones (long_lived): neither this
    # process nor a helper scans it again, nor touches its pages (copied on write) to.
    with long_lived():
        _built_before_the_fork()
    shards: list[StreamedReport] = []
    for group, scanner in zip(groups, scanners, strict=True):
        scans = [None] * len(group) if scanner is None else scanner.handed_scans()
        scanned = [
            opened.enter_context(
                streamed_report(path, verify=False) if scan is None
                else streamed_from_scan(path, scan)
            )
            for path, scan in zip(group, scans, strict=True)
        ]  # fmt: skip
        helper = helpers.fork(scanned, partial(make_cases, scanned[0]) if making else None)
        if making:
            made.append(None if helper is None else helper.made())
        else:
            made += [None] * len(scanned)
        shards += scanned
    return shards


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
    """The forked helpers (``report.background``) of the shards: each group's scanning it
    and handing the scans here (``scanning``), then the one verifying it from them
    (``fork``)."""

    def __init__(self) -> None:
        self.helpers: list[Background] = []

    def fork(
        self,
        shards: Sequence[StreamedReport],
        made: Callable[[Callable[[bytes], object]], None] | None,
    ) -> Background | None:
        """A helper forked to verify ``shards`` (first handing what ``made`` hands it),
        where one can be."""
        from goldgate.report.background import verify_streamed_in_background

        helper = verify_streamed_in_background(shards, made)
        if helper is not None:
            self.helpers.append(helper)
        return helper

    def scanning(self, shards: Sequence[Path]) -> Background | None:
        """A helper forked to scan ``shards`` and hand their scans here."""
        from goldgate.report.background import scan_in_background

        helper = scan_in_background(shards)
        if helper is not None:
            self.helpers.append(helper)
        return helper

    def wait(self) -> None:
        for helper in self.helpers:
            helper.wait()

    def close(self) -> None:
        for helper in self.helpers:
            helper.close()


def _helper_count(shards: int) -> int:
    """How many helpers verify ``shards`` shards: one for each CPU (this process writes on
    one of them, and takes a share of the others while helpers run), at most one a shard.
    With two CPUs and two shards, the second's helper scans it while this process scans the
    first, whose helper starts verifying it as soon as it is scanned."""
    from goldgate.base.accelerators import cpu_budget

    return max(1, min(shards, int(cpu_budget())))


def _groups(paths: Sequence[Path], count: int) -> list[list[Path]]:
    """``paths`` in order, in ``count`` groups (fewer where there are fewer paths) of about
    the same size in all: each group's helper is forked once the group is scanned."""
    sizes = [_size(path) for path in paths]
    total = sum(sizes) or 1
    groups: list[list[Path]] = []
    current: list[Path] = []
    done = 0
    for number, (path, size) in enumerate(zip(paths, sizes, strict=True)):
        current.append(path)
        done += size
        wanted = count - len(groups) - 1  # groups still to make after this one
        left = len(paths) - number - 1
        if wanted > 0 and left and (done * count >= total * (len(groups) + 1) or left == wanted):
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


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
