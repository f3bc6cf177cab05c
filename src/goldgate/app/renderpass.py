"""Every rendering of a report from one pass over its cases (issue 43).

A report opened with ``report.streamread.streamed_report`` is verified a case at a time and
hands its cases out again one at a time. ``render_pass`` walks them once and feeds each to
every renderer's sink (``render.fanout``): the problem counts and capped lists Markdown,
annotations and the terminal read, where the compared cases are written, the check run's
annotations, JUnit's testcases and the HTML page's table, the last two spooled to temporary
files. What it yields renders the Markdown, annotations and the rest from what was kept,
and writes the JUnit file and the HTML page from their spools, in order: memory holds the
report's figures, the current case and each sink's bounded part, never the list of cases.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import tempfile
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from goldgate.base import accelerators
from goldgate.base.memory import collections_paused, freeze_survivors
from goldgate.render.fanout import CaseSink, LocationSink, ProblemSink, feed, takes_passing

if TYPE_CHECKING:
    from goldgate.app.action.verifying import Handed
    from goldgate.comparison.models import Comparison
    from goldgate.comparison.opened import ReportSide
    from goldgate.render.checkrun import CheckAnnotation, CheckRunSink
    from goldgate.render.htmlcases import CaseTableSink
    from goldgate.render.junit import JUnitSink
    from goldgate.render.registry import RenderContext
    from goldgate.report.idrepeats import IdHook
    from goldgate.report.models import Report
    from goldgate.report.scan import CaseHook
    from goldgate.report.streamread import StreamedReport

CHUNK = 1 << 20
"""Characters copied from a spool at a time."""


@dataclass(frozen=True)
class PassRequest:
    """What the pass makes besides the listings: JUnit, the HTML page (with the baseline's
    latencies per suite where its report is at hand), the check run's annotations (at most
    this many)."""

    junit: bool = False
    html: bool = False
    check_run: int | None = None
    baseline_latencies: Mapping[str, Sequence[float]] | None = None


@dataclass(frozen=True)
class RenderPass:
    """What one pass over the cases kept: ``context`` renders Markdown, annotations and the
    terminal view (``app.render.render``) as the whole report would."""

    context: RenderContext
    check_run: CheckRunSink | None
    request: PassRequest
    _junit: tuple[JUnitSink, IO[str]] | None
    _html: tuple[CaseTableSink, IO[str], IO[str]] | None

    def check_annotations(self, maximum: int) -> tuple[CheckAnnotation, ...]:
        from goldgate.render.checkrun import check_annotations

        return check_annotations(self.context, maximum, self.check_run)

    def write_junit(self, write: Callable[[str], object]) -> None:
        """The JUnit document, in order, to ``write``."""
        assert self._junit is not None
        sink, spool = self._junit
        spool.seek(0)
        sink.assemble(write, lambda chars: _copy(spool, write, chars))

    def write_html(self, write: Callable[[str], object]) -> None:
        """The HTML page, in order, to ``write``."""
        from goldgate.render.html import PageParts, write_page
        from goldgate.render.view import build_view

        assert self._html is not None
        table, rows, details = self._html
        context = self.context
        view = build_view(context.report, context.comparison, context.collected)
        parts = PageParts(context, view, table, self.request.baseline_latencies)
        rows.seek(0)
        details.seek(0)
        write_page(parts, write, lambda: _copy(rows, write), lambda: _copy(details, write))


def _copy(spool: IO[str], write: Callable[[str], object], chars: int | None = None) -> None:
    """The next ``chars`` characters of ``spool`` (None: the rest) to ``write``."""
    while chars is None or chars > 0:
        chunk = spool.read(CHUNK if chars is None else min(chars, CHUNK))
        if not chunk:
            return
        write(chunk)
        if chars is not None:
            chars -= len(chunk)


def listed_cap(context: RenderContext) -> int:
    """The most attempts of one kind any listing renderer shows: Markdown's summary, the
    terminal's list, the annotations' maximum."""
    from goldgate.render.markdown import LIST_CAPS
    from goldgate.render.terminal import LIST_CAP

    return max(*LIST_CAPS.values(), LIST_CAP, context.maximum)


@contextlib.contextmanager
def render_pass(
    streamed: StreamedReport,
    context: RenderContext,
    comparison: Comparison | None,
    request: PassRequest,
    baseline_name: str | None = None,
) -> Iterator[RenderPass]:
    """One pass over ``streamed``'s cases for ``context`` (whose report is
    ``streamed.report``) and ``comparison`` (its candidate that report; ``baseline_name``
    names its baseline); the spools are removed when the block ends."""
    from goldgate.render.view import build_view

    with contextlib.ExitStack() as stack:

        def spool() -> IO[str]:
            return stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", newline=""))

        view = None
        if comparison is not None:  # the comparison's modules are imported only for one
            from goldgate.render.compared import comparison_view, located_cases

            view = comparison_view(comparison, baseline=baseline_name, locations={})
        context = replace(context, comparison=view)
        problems = ProblemSink(listed_cap(context))
        sinks: list[CaseSink] = [problems]
        located = None
        if comparison is not None:
            located = LocationSink(located_cases(comparison))
            sinks.append(located)
        junit = None
        if request.junit:
            from goldgate.render.junit import JUnitSink

            junit_spool = spool()
            junit = JUnitSink(context, junit_spool.write), junit_spool
            sinks.append(junit[0])
        html = None
        if request.html:
            from goldgate.render.htmlcases import CaseTableSink

            rows, details = spool(), spool()
            values = context.details == "values"
            html = CaseTableSink(view, values, rows.write, details.write), rows, details
            sinks.append(html[0])
        check_run = None
        if request.check_run is not None:
            from goldgate.render.checkrun import CheckRunSink

            check_run = CheckRunSink(view, context.sources, request.check_run)
            sinks.append(check_run)
        suites = build_view(context.report).suites

        def walked(only: Sequence[CaseSink]) -> None:
            # Records with no cycles, made and let go of a case at a time: the collector
            # would only rescan what lives on (as ``app.render`` does for the whole pass).
            with collections_paused():
                cases = streamed.cases_or_passing if takes_passing(only) else streamed.cases
                feed(((suite, cases(i)) for i, suite in enumerate(suites)), only)
                # What the sinks kept lives until the renderings are written: frozen out of
                # the collections that would scan it twice after the pass (some 30 ms).
                freeze_survivors()

        table = None if html is None else _table_elsewhere(streamed, html, walked)
        if table is not None:
            stack.callback(table.stop)
            sinks.remove(table.sink)
        walked(sinks)
        if table is not None and not table.taken():  # the helper failed: made here
            walked([table.sink])
        if comparison is not None and located is not None:
            view = comparison_view(comparison, baseline=baseline_name, locations=located.locations)
        final = replace(context, comparison=view, collected=problems.collected)
        yield RenderPass(final, check_run, request, junit, html)


FORK_FROM = 2_000
"""The fewest cases for which the case table is made by a helper (below, a fork costs more
than it saves)."""


def _table_elsewhere(
    streamed: StreamedReport,
    html: tuple[CaseTableSink, IO[str], IO[str]],
    walked: Callable[[Sequence[CaseSink]], None],
) -> _TableElsewhere | None:
    """The case table being made by a helper (``_TableElsewhere``), or None where none is
    forked."""
    count = sum(streamed.case_count(suite) for suite in range(len(streamed.report.suites)))
    if count < FORK_FROM:
        return None
    sink = html[0]
    table = _TableElsewhere(sink, (html[1], html[2]))
    return table if table.start(lambda: walked([sink])) else None


class _TableElsewhere:
    """The HTML page's case table (the costliest sink) made by a process forked for it
    while this one feeds the other sinks: the same code over the same cases, its rows and
    details written to the same spools, the sink's state sent back when it is done. Only
    where a second CPU is there for it (``report.background.fork_possible``: the
    accelerators on, Linux, no other thread); where the helper fails in any way, its spools
    are emptied and the table is made here, as it is with the accelerators off."""

    def __init__(self, sink: CaseTableSink, spools: tuple[IO[str], IO[str]]) -> None:
        self.sink, self._spools = sink, spools
        self._pid: int | None = None
        self._reader = -1

    def start(self, make: Callable[[], None]) -> bool:
        """Fork the helper that runs ``make`` (the table's pass); whether one was forked."""
        from goldgate.report.background import fork_possible

        if not fork_possible():
            return False
        try:
            reader, writer = os.pipe()
        except OSError:
            return False
        try:
            pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            return False
        if pid == 0:  # pragma: no cover - the helper (its outputs tested in the parent)
            self._serve(make, reader, writer)
        os.close(writer)
        self._pid, self._reader = pid, reader
        accelerators.note("html case table helper")
        return True

    def _serve(  # pragma: no cover - the helper
        self, make: Callable[[], None], reader: int, writer: int
    ) -> None:
        code = 1
        try:
            os.close(reader)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            make()
            for spool in self._spools:
                spool.flush()
            state = {k: v for k, v in vars(self.sink).items() if k not in _NOT_SENT}
            left = memoryview(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
            while left:
                left = left[os.write(writer, left) :]
            code = 0
        except BaseException:  # anything: the parent makes the table itself
            pass
        finally:
            os._exit(code)

    def taken(self) -> bool:
        """Wait for the helper; whether it made the table (the sink then holds its state).
        If it did not, the spools are emptied for the table to be made here."""
        if self._pid is None:
            return False
        chunks = []
        with contextlib.suppress(OSError):
            while chunk := os.read(self._reader, 1 << 16):
                chunks.append(chunk)
        status = self._reaped(kill=False)
        if status == 0 and chunks:
            vars(self.sink).update(pickle.loads(b"".join(chunks)))
            return True
        for spool in self._spools:
            spool.seek(0)
            spool.truncate()
        return False

    def stop(self) -> None:
        """End the helper where it still runs (the pass was left early) and reap it."""
        self._reaped(kill=True)

    def _reaped(self, *, kill: bool) -> int:
        """The helper reaped (killed first where ``kill``); its wait status, -1 for none."""
        pid, self._pid = self._pid, None
        if pid is None:
            return -1
        with contextlib.suppress(OSError):
            os.close(self._reader)
        try:
            if kill:
                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return -1


_NOT_SENT = frozenset({"_comparison", "_rows", "_details"})
"""The sink's fields the helper does not send back: the parent's own (view, spools)."""


def spooled_file(
    path: Path,
    produce: Callable[[Callable[[str], object]], None],
    protected: Sequence[Path],
    mode: int = 0o644,
) -> None:
    """``produce``'s text written to ``path`` as it comes (``base.outputs.write_output_stream``:
    never through a planted symlink, never over a file in ``protected``)."""
    from goldgate.base.outputs import write_output_stream

    def encoded(write: Callable[[bytes], object]) -> None:
        produce(lambda text: write(text.encode("utf-8")))

    write_output_stream(path, encoded, protected=protected, mode=mode)


@dataclass(frozen=True)
class BaselineRead:
    """A report read a case at a time for its figures alone (a comparison's baseline): its
    records (each suite's cases left out), the digest of its bytes and each suite's
    latencies (the HTML page's baseline side); opened by ``opened_baseline``, also whether
    its ids may repeat (``comparison.opened.IdHook``), noted by the same scan, and the file
    still open for the comparison's walk over its cases."""

    path: Path
    report: Report
    digest: str
    latencies: Mapping[str, Sequence[float]]
    streamed: StreamedReport | None = None
    ids: IdHook | None = None

    def side(self, label: str) -> ReportSide | Path:
        """This report as a side of a comparison (``comparison.compare``): the one scanned
        already where it is still open and was streamed, else its path (read again)."""
        from goldgate.comparison.opened import streamed_side

        streamed, ids = self.streamed, self.ids
        if streamed is None or ids is None or not streamed.streamed:
            return self.path
        return streamed_side(streamed, ids, label, str(self.path))


class LatencyHook:
    """Each suite's latencies from a report's scan (``report.scan.CaseHook``), as a pass
    over its validated cases (``render.fanout.LatencySink``) gives them: the page's baseline
    side without reading the cases again."""

    def __init__(self) -> None:
        self._suites: dict[int, array[float]] = {}

    def __call__(self, suite: int, position: int, raw: Any) -> None:
        kept = self._suites.setdefault(suite, array("d"))
        try:
            for attempt in raw["attempts"]:
                value = attempt.get("latency_ms")
                if value is None:
                    continue
                kept.append(value if type(value) is float else _latency(value))
        except (KeyError, TypeError, AttributeError, ValueError):
            return  # not a valid case: its validation refuses the report

    def latencies(self, report: Report) -> dict[str, array[float]]:
        found: dict[str, array[float]] = {}
        for place, suite in enumerate(report.suites):
            if place in self._suites:
                found.setdefault(suite.name, array("d")).extend(self._suites[place])
        return found


def _latency(value: object) -> float:
    """A stored latency as the record's validation reads it (an integer, a numeric
    string...)."""
    from goldgate.report.caserecords import AttemptRecord
    from goldgate.report.models import adapter

    read = adapter(AttemptRecord).validate_python(
        {"attempt": 1, "status": "completed"} | {"latency_ms": value}
    )
    if read.latency_ms is None:  # pragma: no cover - None is skipped before
        raise ValueError("no latency")
    return read.latency_ms


def baseline_hooks(path: Path, indexed: bool = True) -> tuple[CaseHook, ...]:
    """What the scan of a baseline at ``path`` hands each case to: a ``LatencyHook`` and,
    where ``indexed``, an ``IdHook`` (whether its ids may repeat)."""
    from goldgate.report.idrepeats import IdHook

    return (LatencyHook(), IdHook(str(path))) if indexed else (LatencyHook(),)


@contextlib.contextmanager
def opened_baseline(
    path: Path,
    *,
    indexed: bool = True,
    verify: bool = True,
    handed: Callable[[Path], Handed | None] | None = None,
) -> Iterator[BaselineRead]:
    """The report at ``path``, verified a case at a time, with its latencies and (where
    ``indexed``) whether its ids may repeat (for the comparison's walk), from one scan; the
    file stays open for the comparison's reading of its cases until the block ends. The refusals of
    ``report.io.read_report``; without ``verify``, those of ``streamed_report``'s scan (for a
    caller that has the report verified meanwhile), or none where ``handed`` gives the scan a
    helper made of it (``app.action.verifying.Deferred.handed``: streamed from that scan,
    with the helper's copies of ``baseline_hooks``)."""
    from goldgate.render.fanout import baseline_latencies
    from goldgate.report.idrepeats import IdHook
    from goldgate.report.streamread import streamed_from_scan, streamed_report

    taken = None if verify or handed is None else handed(path)
    hooks = baseline_hooks(path, indexed) if taken is None else taken.hooks
    latencies, *indexing = hooks
    ids = indexing[0] if indexing else None
    assert isinstance(latencies, LatencyHook)
    assert ids is None or isinstance(ids, IdHook)

    def hook(suite: int, position: int, raw: Any) -> None:
        for each in hooks:
            each(suite, position, raw)

    opened = (
        streamed_report(path, on_case=hook, verify=verify)
        if taken is None
        else streamed_from_scan(path, taken.scan)
    )
    with opened as streamed:
        if streamed.streamed:
            found = latencies.latencies(streamed.report)
        else:  # read whole: its cases are at hand
            found = baseline_latencies(streamed.report.suites)
        yield BaselineRead(path, streamed.report, streamed.digest, found, streamed, ids)


def read_with_latencies(path: Path) -> BaselineRead:
    """The report at ``path``, verified a case at a time, and its latencies (one scan); the
    refusals of ``report.io.read_report``."""
    with opened_baseline(path, indexed=False) as found:
        return replace(found, streamed=None)
