"""Joining shards' reports a case at a time (issue 43): the merged report written as it is
built, never held whole, the same bytes ``report.merge.merge_reports`` and
``report.stream.report_chunks`` give.

Each shard is read as a stream (``report.streamread``): verified first, its cases let go of;
then the shards are checked against each other as ``merge_reports`` checks them (the same
refusals, in the same order), the merged order is decided from each case's position alone
(the shards walked side by side where each holds its cases in order, as a run writes them;
else 8 bytes a case), and each case is read again from its shard, written, and added to its
suite's figures (``report.rebuild.SuiteRebuild``). A suite's record opens with what is known
before its cases (its case and attempt counts: the shards' own, verified) and closes with the
figures recomputed from them. Where a helper verifying a shard made its cases
(``make_cases``), it also tallied them and hands the tally after each suite's cases: the
shards' tallies are joined (``report.shardtally``), no case read back here.
"""

from __future__ import annotations

import dataclasses
import heapq
from array import array
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from goldgate.base import accelerators
from goldgate.base.errors import InvalidInputError
from goldgate.report.livefigures import run_live
from goldgate.report.merge import ShardReport, check_shards, merge_status
from goldgate.report.mergecase import case_record, full_case, full_json
from goldgate.report.plain import record_json
from goldgate.report.readbound import memory_bounded
from goldgate.report.rebuild import SuiteRebuild
from goldgate.report.shardtally import ShardRebuild, ShardTally, joined
from goldgate.report.stream import ReportWriter, dumps, split_at
from goldgate.report.verdicts import run_verdict

if TYPE_CHECKING:
    from goldgate.report.caserecords import CaseRecord
    from goldgate.report.records import Report, SuiteRecord
    from goldgate.report.streamread import StreamedReport

__all__ = ["MergedStream", "make_cases", "merged_stream"]

_NONE = -1
_BATCH = 1 << 16
"""Bytes of the merged report's text held before they are handed on, joined: handed on a
case at a time (two pieces each), every piece went through each generator between here and
the file (``app.merge``) and the file's writer, per case (issue 43)."""


class _Pieces:
    """The merged report's text written so far and not yet handed on, and its size."""

    __slots__ = ("held", "size")

    def __init__(self) -> None:
        self.held: list[bytes] = []
        self.size = 0

    def append(self, piece: bytes) -> None:
        self.held.append(piece)
        self.size += len(piece)

    def taken(self) -> list[bytes]:
        """What is held, let go of here: as one piece, or where a case's bytes alone pass
        the batch, as they are (not copied once more: a large case is held once here)."""
        taken = self.held if self.size >= 2 * _BATCH else [b"".join(self.held)]
        self.held, self.size = [], 0
        return taken


class MergedStream:
    """The merged report's file text in pieces (``chunks``); once they are all taken,
    ``report`` is the merged report with its cases left out."""

    def __init__(
        self, shards: Sequence[StreamedReport], made: Sequence[Iterator[bytes] | None] = ()
    ) -> None:
        self.shards = shards
        self.report: Report | None = None
        self._first = shards[0].report
        self._made = list(made) or [None] * len(shards)
        self._fast = accelerators.enabled()  # both set again as chunks starts
        self._case_json: Callable[..., dict[str, Any]] | None = None

    def _order(self, suite: int, name: str) -> tuple[bool, Iterable[tuple[int, int]]]:
        """The suite's cases in the merged order, each as (shard, place in that shard), and
        whether each shard's come in their order: where each shard holds its cases in the
        order of their positions and together they hold every position once (as shards a
        run writes do), a walk over the shards side by side that holds nothing a case;
        otherwise what ``_packed`` decides, which makes the refusals of
        ``merge._merged_cases``."""
        if self._in_order(suite):
            return True, ((number, place) for _, number, place in self._walk(suite))
        count = len(self.shards)  # each packed as place * count + shard
        packed = self._packed(suite, name)
        return False, ((each % count, each // count) for each in packed)

    def _in_order(self, suite: int) -> bool:
        """Whether each shard's cases are in the order of their positions, and the shards'
        positions together are 0, 1, ... up to the suite's size, each once."""
        for shard in self.shards:
            last = -1
            for place in range(shard.case_count(suite)):
                position = shard.position(suite, place)
                if position is None or position <= last:
                    return False
                last = position
        whole = self.shards[-1].report.suites[suite].whole_case_count or 0
        expected = 0
        for position, _, _ in self._walk(suite):
            if position != expected:
                return False
            expected += 1
        return expected == whole

    def _walk(self, suite: int) -> Iterator[tuple[int, int, int]]:
        """(position, shard, place) of every case of the suite, in the order of positions
        where each shard's are in order (``_in_order``): the shards walked side by side."""
        heads = [
            (shard.position(suite, 0) or 0, number, 0)
            for number, shard in enumerate(self.shards)
            if shard.case_count(suite)
        ]
        heapq.heapify(heads)
        while heads:
            position, number, place = heads[0]
            yield position, number, place
            shard, place = self.shards[number], place + 1
            if place < shard.case_count(suite):
                heapq.heapreplace(heads, (shard.position(suite, place) or 0, number, place))
            else:
                heapq.heappop(heads)

    def _packed(self, suite: int, name: str) -> array[int]:
        """For each position of the whole suite, which shard holds it and where (shard and
        place packed in one integer, 8 bytes a case); the refusals of
        ``merge._merged_cases``."""
        whole = self.shards[-1].report.suites[suite].whole_case_count or 0
        outside: dict[int, int] = {}  # positions past the suite's cases: refused below
        held = 0
        count = len(self.shards)
        order = array("q", [_NONE]) * whole
        for number, shard in enumerate(self.shards):
            for place in range(shard.case_count(suite)):
                position = shard.position(suite, place)
                if position is None:
                    case = shard.case(suite, place).id
                    raise InvalidInputError(f"{shard.path}: case {case!r} has no position.")
                inside = 0 <= position < whole
                before = outside.get(position)
                if inside and order[position] != _NONE:
                    before = order[position] % count
                if before is not None:
                    case = shard.case(suite, place).id
                    raise InvalidInputError(
                        f"{shard.path}: case {case!r} of suite {name!r} is also in "
                        f"{self.shards[before].path}; shards overlap."
                    )
                held += 1
                if inside:
                    order[position] = place * count + number
                else:
                    outside[position] = number
        absent = whole - held
        if absent or outside:
            raise InvalidInputError(
                f"suite {name!r}: {absent} of its {whole} cases are in no shard's report."
            )
        return order

    def chunks(self) -> Iterator[bytes]:
        from goldgate.report.models import CaseRecord, adapter

        self._case_json = adapter(CaseRecord).dump_python
        fast = self._fast = accelerators.enabled()
        first = self._first
        reports = [ShardReport(shard.path, shard.report) for shard in self.shards]
        check_shards(reports)
        orders = [self._order(index, suite.name) for index, suite in enumerate(first.suites)]
        made = self._made if fast else [None] * len(self.shards)
        pieces = _Pieces()
        writer = ReportWriter(pieces.append)
        all_reports = [shard.report for shard in self.shards]
        head = replace(
            first,
            suites=(),
            options=dataclasses.replace(first.options, shard=None),
            started_at=min(report.started_at for report in all_reports),
            finished_at=max(report.finished_at for report in all_reports),
            duration_seconds=max(report.duration_seconds for report in all_reports),
        )
        before, _ = split_at(record_json(head), "suites")
        writer.head(before)
        suites: list[SuiteRecord] = []
        for index, suite in enumerate(first.suites):
            parts = [(shard.path, shard.report.suites[index]) for shard in self.shards]
            whole = replace(suite, whole_case_count=None, status=merge_status(parts))
            known = replace(
                whole,
                cases=(),
                case_count=sum(shard.case_count(index) for shard in self.shards),
                attempt_count=sum(record.attempt_count for _, record in parts),
            )
            opening, _ = split_at(record_json(known), "cases")
            writer.begin_suite(opening)
            rebuilt = yield from self._cases(index, whole, orders[index], made, writer, pieces)
            record = rebuilt.record()
            if (record.case_count, record.attempt_count) != (known.case_count, known.attempt_count):
                raise InvalidInputError(  # pragma: no cover - each shard was verified
                    f"suite {suite.name!r}: its shards' attempts do not add up to its cases'."
                )
            _, closing = split_at(record_json(record), "cases")
            writer.end_suite(closing)
            suites.append(record)
        records = tuple(suites)
        verdict = run_verdict(records, False, sum(suite.adjudication for suite in records))
        merged = replace(head, suites=records, verdict=verdict,
                         live=run_live(suite.live for suite in records))  # fmt: skip
        _, after = split_at(record_json(replace(merged, suites=())), "suites")
        writer.tail(after)
        yield from pieces.taken()
        self.report = merged

    def _cases(
        self,
        index: int,
        whole: SuiteRecord,
        ordered: tuple[bool, Iterable[tuple[int, int]]],
        made: Sequence[Iterator[bytes] | None],
        writer: ReportWriter,
        pieces: _Pieces,
    ) -> Generator[bytes, None, SuiteRebuild]:
        """Suite ``index``'s cases written in the merged order (``ordered``: ``_order``),
        each as a helper made it (``made``) or made here; the suite's figures tallied."""
        case_json = self._case_json
        assert case_json is not None  # set as chunks starts
        in_order, order = ordered
        if not in_order:  # read here by place: what helpers made of them is let go of
            for number, source in enumerate(made):
                if source is not None:  # its cases, then its tally
                    for _ in range(self.shards[number].case_count(index) + 1):
                        next(source, None)
        sources = made if in_order else [None] * len(self.shards)
        # Where each shard's cases come in the merged order and a helper made some,
        # each shard's are tallied apart (by its helper, or here) and the tallies
        # joined (report.shardtally); else every case is tallied here, in order.
        joining = any(source is not None for source in sources)
        rebuilt = None if joining else SuiteRebuild(whole)
        here = [ShardRebuild(whole) if joining and source is None else None for source in sources]
        for number, place in order:
            shard = self.shards[number]
            source = sources[number]
            data = next(source, None) if source is not None else None
            if data:  # the case as made elsewhere (by a helper: make_cases)
                writer.rendered_cases((data,), 1)
            else:  # tallied by its helper where it made it empty (pydantic's path)
                made_here = self._case(
                    shard, writer, suite=index, place=place, fast=self._fast, case_json=case_json
                )
                tally = rebuilt if rebuilt is not None else here[number]
                if tally is not None:
                    tally.add(made_here)
            if pieces.size >= _BATCH:
                yield from pieces.taken()
        if rebuilt is None:
            tallies = [
                self._tally(sources[number], number, index, whole)
                if tally is None
                else tally.tally()
                for number, tally in enumerate(here)
            ]
            rebuilt = joined(whole, tallies)
        return rebuilt

    def _tally(
        self, source: Iterator[bytes] | None, number: int, suite: int, whole: SuiteRecord
    ) -> ShardTally:
        """The tally of a shard's cases of ``suite`` its helper handed over after them, or,
        where it stopped first, made here from them read again."""
        import pickle

        handed = next(source, None) if source is not None else None
        if handed:  # the helper is this process forked: trusted as this process's own
            tally: ShardTally = pickle.loads(handed)
            return tally
        shard = self.shards[number]
        again = ShardRebuild(whole)
        for place in range(shard.case_count(suite)):
            made = _full_case(shard, suite, place) if self._fast else None
            again.add(shard.case(suite, place) if made is None else made[1])
        return again.tally()

    @staticmethod
    def _case(
        shard: StreamedReport,
        writer: ReportWriter,
        *,
        suite: int,
        place: int,
        fast: bool,
        case_json: Callable[..., dict[str, Any]],
    ) -> CaseRecord:
        """The case at ``place`` of a shard's suite written as the merged report writes it;
        its record."""
        made = _full_case(shard, suite, place) if fast else None
        if made is not None:
            plain, case = made
        else:
            case = shard.case(suite, place)
            # pydantic's serializer writes what record_json writes (tests/report/
            # test_plain.py holds them together), several times faster.
            plain = case_json(case, mode="json")
        # The merged report's case has no position (a whole run's), as merge_reports
        # writes it.
        plain["position"] = None
        writer.case(plain)
        return case


def make_cases(shard: StreamedReport, hand: Callable[[bytes], object]) -> None:
    """Verify a shard streamed unverified (``report.streamread.verify_streamed``) and hand
    each of its cases, suite after suite, as the merged report writes it
    (``MergedStream._case``), made from the very value verified (each case read and parsed
    once for both), then the suite's tally of them (``report.shardtally.ShardTally``,
    pickled): a helper's (``report.background``), whose cases and tallies ``MergedStream``
    takes as they come, in order. A case pydantic's path must make is handed empty (the
    taker makes it; it is tallied here all the same); nothing is handed for a shard read
    whole or verified as it was read."""
    import pickle

    from goldgate.report.models import CaseRecord, adapter
    from goldgate.report.shardtally import ShardRebuild
    from goldgate.report.streamread import verify_streamed

    suites = shard.report.suites
    counts = [shard.case_count(suite) for suite in range(len(suites))]
    next_case = [0, 0]  # the suite and place of the case to hand next
    tallying: list[ShardRebuild] = []  # the suite's whose cases are being handed

    def tallied_before(suite: int) -> ShardRebuild:
        """The tally of suite ``suite``, each suite's before it handed."""
        while len(tallying) <= suite:
            if tallying:
                hand(pickle.dumps(tallying[-1].tally(), pickle.HIGHEST_PROTOCOL))
            tallying.append(ShardRebuild(suites[len(tallying)]))
        return tallying[suite]

    def made(suite: int, place: int, case: Any) -> None:
        expected, at = next_case
        while expected < len(counts) and at >= counts[expected]:
            expected, at = expected + 1, 0
        if (suite, place) != (expected, at):  # pragma: no cover - verified in order
            raise RuntimeError(f"case {place} of suite {suite} read out of order")
        tally = tallied_before(suite)
        plain = full_json(case)
        if plain is None:
            with memory_bounded(shard.path):
                tally.add(adapter(CaseRecord).validate_python(case))
            hand(b"")
        else:
            tally.add(case_record(plain))
            plain["position"] = None
            hand(dumps(plain))
        next_case[:] = [expected, at + 1]

    verify_streamed(shard, made)
    if tallying:  # the last suites' tallies (none where no case was read here)
        tallied_before(len(suites) - 1)
        hand(pickle.dumps(tallying[-1].tally(), pickle.HIGHEST_PROTOCOL))


def _full_case(
    shard: StreamedReport, suite: int, place: int
) -> tuple[dict[str, Any], CaseRecord] | None:
    """The case at ``place`` of a streamed shard's suite as the merged report writes it,
    from its plain JSON without pydantic (``report.mergecase``), or None where pydantic's
    path must make it. Its bytes are those the helper verifies before the merged report is
    published (``app.merge``), or were verified as the shard was read."""
    if not shard.streamed:
        return None
    with memory_bounded(shard.path):
        return full_case(shard.raw_case(suite, place))


def merged_stream(
    shards: Sequence[StreamedReport], made: Sequence[Iterator[bytes] | None] = ()
) -> MergedStream:
    """The merge of ``shards`` (every shard of one run), to be written as it is made; each
    shard's cases as ``make_cases`` made them where ``made`` has them (a helper's,
    ``report.background``: whatever it did not make is made here)."""
    if not shards:
        raise InvalidInputError("no shard reports to merge.")
    return MergedStream(shards, made)
