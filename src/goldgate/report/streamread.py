"""A report read as a stream of cases (issue 43): verified in one pass that holds the run's
figures and one case at a time, then its cases handed out again one at a time, in order or
by place, from the same open file.

``streamed_report`` scans the file (``report.scan``), validates and verifies every case as it
is reached (``report.io.validated_report`` without keeping them: every refusal a whole read
makes, made here, before the caller has anything), and yields a ``StreamedReport``: the
report's records with each suite's cases left out, and ``cases(suite)`` to read them again.
A file the stream cannot take (another format to migrate, text that is not JSON as the
stream reads it) is read whole instead, which names the problem or migrates it; its cases
are then handed out from memory.

Memory: the figures, where each case's bytes are (24 bytes a case) and the case being read.
A case too large for the memory the process may use is refused with one sentence
(``readbound.admit_case``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from goldgate.base.files import open_regular_file
from goldgate.report.passing import PassingCase, passing_case
from goldgate.report.readbound import admit_case, memory_bounded
from goldgate.report.scan import CaseHook, CaseIndex, LazyCases, ScannedReport, scan_report
from goldgate.report.verified import is_verified, note_verified

if TYPE_CHECKING:
    from goldgate.report.caserecords import CaseRecord
    from goldgate.report.records import Report

__all__ = [
    "HandedScan",
    "StreamedReport",
    "hand_scan",
    "handed_scan",
    "streamed_from_scan",
    "streamed_report",
    "verify_streamed",
]


@dataclass(frozen=True)
class StreamedReport:
    """A verified report whose cases are read again as they are asked for: ``report`` has
    every suite's cases left out (``cases=()``) where the file was streamed."""

    path: str
    report: Report
    digest: str
    _handle: BinaryIO | None
    _indexes: tuple[CaseIndex | None, ...]
    _scanned: dict[str, Any] | None = None
    """The scan's plain JSON where the file was streamed without ``verify``, to verify it
    later from (``verify_streamed``)."""

    @property
    def streamed(self) -> bool:
        """Whether the file was scanned (its cases read again from it), not read whole."""
        return self._handle is not None

    @property
    def unverified(self) -> bool:
        """Whether it was streamed without ``verify``: to be verified from its scan
        (``verify_streamed``, ``report.background.verify_streamed_in_background``)."""
        return self._scanned is not None

    def raw_case(self, suite: int, position: int) -> Any:
        """The plain JSON of the case at ``position`` of suite ``suite`` (a streamed file's),
        read again from the file; refused where its bytes changed since they were scanned."""
        index = self._indexes[suite]
        assert index is not None
        assert self._handle is not None
        return index.read(self._handle, self.path, position)

    def case_count(self, suite: int) -> int:
        index = self._indexes[suite] if self._indexes else None
        return len(self.report.suites[suite].cases) if index is None else len(index)

    def case(self, suite: int, position: int) -> CaseRecord:
        """The case at ``position`` of suite ``suite``, validated again."""
        index = self._indexes[suite] if self._indexes else None
        if index is None or self._handle is None:
            return self.report.suites[suite].cases[position]
        with memory_bounded(self.path):
            return _validated(index.read(self._handle, self.path, position))

    def position(self, suite: int, place: int) -> int | None:
        """The stored ``position`` (a shard's) of the case at ``place``, noted when it was
        verified."""
        index = self._indexes[suite] if self._indexes else None
        if index is None or self._handle is None:
            return self.report.suites[suite].cases[place].position
        stored = index.positions[place]
        return stored if stored >= 0 else self.case(suite, place).position

    def cases(self, suite: int) -> Iterator[CaseRecord]:
        """Suite ``suite``'s cases in order, one at a time."""
        for position in range(self.case_count(suite)):
            yield self.case(suite, position)

    def cases_or_passing(self, suite: int) -> Iterator[CaseRecord | PassingCase]:
        """``cases``, where each case whose every attempt passed is a ``PassingCase`` where
        its bytes show it (its record not validated: ``report.passing``)."""
        index = self._indexes[suite] if self._indexes else None
        if index is None or self._handle is None:
            yield from self.cases(suite)
            return
        for position in range(len(index)):
            with memory_bounded(self.path):
                plain = index.read(self._handle, self.path, position)
                case = passing_case(plain) or _validated(plain)
            yield case


def _validated(plain: Any) -> CaseRecord:
    from goldgate.report.models import CaseRecord, adapter

    # No shared records: they would grow with the report.
    record: CaseRecord = adapter(CaseRecord).validate_python(plain)
    return record


@contextlib.contextmanager
def streamed_report(
    path: Path, *, verify: bool = True, on_case: CaseHook | None = None
) -> Iterator[StreamedReport]:
    """The report at ``path``, verified a case at a time (``StreamedReport``); the file stays
    open for its cases until the block ends. Refusals are those of ``report.io.read_report``.
    Without ``verify``, a file the stream takes is scanned and its header validated, its
    cases neither validated nor verified: for a caller that has it verified meanwhile
    (``report.background``) and trusts nothing it made of it before then. ``on_case`` is
    handed each case as the scan parses it (``report.scan.CaseHook``), where the file is
    streamed (``StreamedReport.streamed``): what it made is trusted once the block starts
    (the report verified)."""
    from goldgate.report.io import read_report_and_digest

    source = str(path)
    with open_regular_file(path, source, what="a report") as handle:
        with memory_bounded(source):
            scanned = scan_report(handle, source, on_case)
        if scanned is None:
            report, digest = read_report_and_digest(path)
            yield StreamedReport(source, report, digest, None, ())
            return
        yield _streamed(path, handle, scanned, verify)


def _streamed(path: Path, handle: BinaryIO, scanned: ScannedReport, verify: bool) -> StreamedReport:
    from goldgate.report.io import validated_report

    source = str(path)
    admit_case(source, scanned.largest_case)
    verified = verify and is_verified(scanned.digest, path)  # once a process
    with memory_bounded(source):
        report = validated_report(scanned.value, source, keep=False, verify=verify and not verified)
    if verify:
        note_verified(scanned.digest)
    kept = None if verify else scanned.value
    return StreamedReport(source, report, scanned.digest, handle, scanned.indexes, kept)


@dataclass(frozen=True)
class HandedScan:
    """What a report streamed without ``verify`` was scanned into, as another process takes
    it (``handed_scan``, ``streamed_from_scan``; picklable): its plain JSON with each
    streamed suite's ``cases`` None, its digest, where its cases are."""

    value: dict[str, Any]
    digest: str
    indexes: tuple[CaseIndex | None, ...]
    largest_case: int


def handed_scan(streamed: StreamedReport) -> HandedScan | None:
    """``streamed``'s scan to hand to another process (``report.background``), None where
    the file was read whole or verified as it was streamed."""
    value = streamed._scanned
    if value is None:
        return None
    largest = max((index.largest() for index in streamed._indexes if index), default=0)
    return hand_scan(ScannedReport(value, streamed.digest, streamed._indexes, largest))


def hand_scan(scanned: ScannedReport) -> HandedScan:
    """A report scanned (``report.scan.scan_report``) as another process takes it: its
    cases' places in the file, not the open file."""
    suites = [
        suite if index is None else {**suite, "cases": None}
        for suite, index in zip(scanned.value["suites"], scanned.indexes, strict=True)
    ]
    value = {**scanned.value, "suites": suites}
    return HandedScan(value, scanned.digest, scanned.indexes, scanned.largest_case)


@contextlib.contextmanager
def streamed_from_scan(path: Path, scan: HandedScan) -> Iterator[StreamedReport]:
    """``streamed_report(path, verify=False)`` from a scan another process made of the file
    (``handed_scan``), not scanning it again: its cases read by offset from the file opened
    here, each refused where its bytes are not those scanned (the file changed since)."""
    source = str(path)
    with open_regular_file(path, source, what="a report") as handle:
        suites = [
            suite if index is None else {**suite, "cases": LazyCases(index, handle, source)}
            for suite, index in zip(scan.value["suites"], scan.indexes, strict=True)
        ]
        value = {**scan.value, "suites": suites}
        scanned = ScannedReport(value, scan.digest, scan.indexes, scan.largest_case)
        yield _streamed(path, handle, scanned, verify=False)


def verify_streamed(streamed: StreamedReport, on_case: CaseHook | None = None) -> None:
    """Verify a report ``streamed_report`` streamed without ``verify``, as it verifies one
    (the same refusals), from the scan it made then: its cases read again from the open
    file, which is not scanned again (a forked helper's, ``report.background``), each
    handed to ``on_case`` as it is read (none where the report was read whole or verified
    as it was read)."""
    from goldgate.report.io import validated_report

    if streamed._scanned is None:  # read whole (and verified), or verified as it was read
        return
    with memory_bounded(streamed.path):
        validated_report(streamed._scanned, streamed.path, keep=False, verify=True, on_case=on_case)
    note_verified(streamed.digest)
