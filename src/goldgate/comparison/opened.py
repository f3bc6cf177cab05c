"""A report opened as one side of a comparison (issue 43): verified a case at a time, its
cases indexed by id and small digests, and read again one at a time as the comparison
reaches them; never the whole list of attempts.

Opening a side scans the file (``report.scan``: the report's own fields and where each case's
bytes are), validates the report's own fields and each suite's, and verifies the report
(``report.verify``) a case at a time; as each case is verified, what is kept of it is its
id, the sha256 of its input's and of its gold's canonical bytes and its number of attempts
(``sides.case_key``, ``CaseKeys``): what the refusals decide from before anything is
compared. The comparison then reads each case again by its place and reduces it
(``SuiteSide.case``; a malformed case is refused with the place it breaks, on either pass).
A file the stream cannot take
is read whole, as a whole read names what is wrong with it or migrates it; its cases are
then read from memory.

Memory: the report's own fields, about 160 bytes a case for the keys, and the case being
read (``readbound.admit_case``: a case too large for the memory left is refused in one
sentence before anything is compared).
"""

from __future__ import annotations

import contextlib
import hashlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, Final

from pydantic import ValidationError

from goldgate.base.errors import ReportRefusedError
from goldgate.base.files import open_regular_file
from goldgate.comparison.sides import CaseKey, CaseSide, case_key, reduce_case
from goldgate.report.digests import bytes_digest
from goldgate.report.io import read_report_bytes, report_bytes, report_value, validation_problem
from goldgate.report.models import Report, SuiteRecord, validated
from goldgate.report.plain import record_json
from goldgate.report.readbound import admit_case, memory_bounded
from goldgate.report.scan import LazyCases, scan_report
from goldgate.report.streamread import StreamedReport
from goldgate.report.verified import verified_once
from goldgate.report.verify import verify_report

__all__ = [
    "KEY_BYTES",
    "CaseKeys",
    "KeyHook",
    "ReportSide",
    "SuiteSide",
    "opened_side",
    "side_of",
    "streamed_side",
]

_DIGEST: Final = 32
_NO_INPUT: Final = bytes(_DIGEST)
"""The input digest of a case written without details (no input)."""
KEY_BYTES: Final = 160
"""What ``CaseKeys`` holds for a case, about: its id, two digests, its attempts' count."""


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class CaseKeys:
    """One suite's cases as the refusals and the matching of cases need them, in file order:
    ids, the sha256 of each input's and gold's canonical bytes (equal digests, equal
    values) and each case's number of attempts; never the cases."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.digests = bytearray()
        self.attempts = array("q")
        self.unique = True
        """Whether no id repeats (then a case at the same place with the same id is the
        one an id names)."""
        self._places: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, case: CaseKey) -> None:
        self.ids.append(case.id)
        self.digests += _sha256(case.input_key) if case.input_key else _NO_INPUT
        self.digests += _sha256(case.gold_key)
        self.attempts.append(case.attempts)

    def done(self) -> None:
        self.unique = len(set(self.ids)) == len(self.ids)

    def input_digest(self, place: int) -> bytes:
        start = 2 * _DIGEST * place
        return bytes(self.digests[start : start + _DIGEST])

    def gold_digest(self, place: int) -> bytes:
        start = 2 * _DIGEST * place + _DIGEST
        return bytes(self.digests[start : start + _DIGEST])

    def has_input(self, place: int) -> bool:
        return self.input_digest(place) != _NO_INPUT

    def place(self, case_id: str, hint: int) -> int | None:
        """Where the case ``case_id`` is (the last of that id, as a mapping by id has it):
        ``hint`` where the orders match, else looked up in an index of ids made on first
        need."""
        if self.unique and hint < len(self.ids) and self.ids[hint] == case_id:
            return hint
        if self._places is None:
            self._places = {each: place for place, each in enumerate(self.ids)}
        return self._places.get(case_id)


def _invalid(path: str, where: str, why: str) -> ReportRefusedError:
    return ReportRefusedError(f"{path}: not a valid report at {where}: {why}.")


def _reduced(raw: Any, keep: bool, path: str, where: str) -> CaseSide:
    try:
        return reduce_case(raw, keep)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _malformed(path, where, error) from None


def _keyed(raw: Any, path: str, where: str) -> CaseKey:
    try:
        return case_key(raw)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _malformed(path, where, error) from None


def _malformed(path: str, where: str, error: Exception) -> ReportRefusedError:
    why = f"missing {error}" if isinstance(error, KeyError) else str(error)
    return _invalid(path, where, why)


@dataclass(frozen=True)
class SuiteSide:
    record: SuiteRecord
    """The suite's own fields (target, status, repeat, metrics...), without its cases."""
    keys: CaseKeys
    path: str
    index: int
    """The suite's place in its report."""
    read: Callable[[int], Any]
    """The plain JSON of the case at a place."""

    @property
    def name(self) -> str:
        return self.record.name

    def case(self, place: int, keep: bool = False) -> CaseSide:
        """The case at ``place``, read again and reduced (``keep``: with its results)."""
        with memory_bounded(self.path):
            raw = self.read(place)
            return _reduced(raw, keep, self.path, f"/suites/{self.index}/cases/{place}")


@dataclass(frozen=True)
class ReportSide:
    label: str
    """candidate or baseline: how messages name this side."""
    path: str
    digest: str
    header: Report
    """The report's own fields, its suites without cases."""
    suites: tuple[SuiteSide, ...]

    @property
    def is_replay(self) -> bool:
        return self.header.replay_of is not None

    def suite(self, name: str) -> SuiteSide | None:
        return next((suite for suite in self.suites if suite.name == name), None)

    def attempts(self) -> int:
        return sum(sum(suite.keys.attempts) for suite in self.suites)


def _keys(value: dict[str, Any], header: Report, path: str, digest: str) -> list[CaseKeys]:
    """Every suite's ``CaseKeys``, made as the report is verified (each case reduced first,
    so a malformed case is refused with its place); where verification took no cases
    (the same bytes verified before in this process: ``report.verified``), by a pass of
    their own."""
    keys = [CaseKeys() for _ in header.suites]

    def take(suite: int, position: int, raw: Any) -> None:
        keys[suite].add(_keyed(raw, path, f"/suites/{suite}/cases/{position}"))

    # Verification lets go of each case it took (its place set to None): a list is copied,
    # so that the comparison can read it again.
    copied = {
        **value,
        "suites": [
            {**s, "cases": list(s["cases"])} if type(s["cases"]) is list else s
            for s in value["suites"]
        ],
    }
    verified_once(digest, lambda: verify_report(copied, header, path, take))
    cases = [suite["cases"] for suite in value["suites"]]
    if any(len(found) != len(each) for found, each in zip(keys, cases, strict=True)):
        keys = [CaseKeys() for _ in header.suites]
        for suite, each in enumerate(cases):
            for position, raw in enumerate(each):
                take(suite, position, raw)
    for found in keys:
        found.done()
    return keys


def _side(
    value: dict[str, Any], *, label: str, path: str, digest: str, handle: BinaryIO | None = None
) -> ReportSide:
    raw_suites = value.get("suites")
    if not isinstance(raw_suites, list) or not all(isinstance(s, dict) for s in raw_suites):
        raise _invalid(path, "/suites", "suites must be an array of objects")
    try:
        header = validated(
            Report, {**value, "suites": [{**suite, "cases": []} for suite in raw_suites]}
        )
    except ValidationError as error:
        raise validation_problem(path, error) from None
    readers: list[Callable[[int], Any]] = []
    for index, raw in enumerate(raw_suites):
        cases = raw.get("cases")
        if isinstance(cases, LazyCases) and handle is not None:
            readers.append(partial(cases.index.read, handle, path))
        elif isinstance(cases, list):
            readers.append(cases.__getitem__)
        else:
            raise _invalid(path, f"/suites/{index}/cases", "cases must be an array")
    keys = _keys(value, header, path, digest)
    suites = tuple(
        SuiteSide(record, found, path, index, read)
        for index, (record, found, read) in enumerate(
            zip(header.suites, keys, readers, strict=True)
        )
    )
    return ReportSide(label, path, digest, header, suites)


@contextlib.contextmanager
def opened_side(path: Path, label: str) -> Iterator[ReportSide]:
    """The report at ``path`` as one side of a comparison (``ReportSide``), open for its
    cases until the block ends. Refused (``ReportRefusedError``, exit 2): what a reader of
    the report refuses, and a case too large to read in the memory left."""
    source = str(path)
    with open_regular_file(path, source, what="a report") as handle:
        with memory_bounded(source):
            scanned = scan_report(handle, source)
            if scanned is not None:
                count = sum(len(index) for index in scanned.indexes if index is not None)
                admit_case(source, scanned.largest_case, held=KEY_BYTES * count)
                side = _side(
                    scanned.value, label=label, path=source, digest=scanned.digest, handle=handle
                )
        if scanned is not None:
            yield side
            return
    data = read_report_bytes(path)
    digest = bytes_digest(data)
    with memory_bounded(source):
        value = report_value(data, source)
        del data  # the parsed value is enough
        side = _side(value, label=label, path=source, digest=digest)
    yield side


class KeyHook:
    """Each suite's ``CaseKeys`` made as a report is scanned (``report.scan.CaseHook``): the
    comparison's index of a report from the scan that verifies it, never a pass of its own.
    A malformed case is noted with its place and refused when the side is made."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.keys: list[CaseKeys] = []
        self.broken: ReportRefusedError | None = None

    def __call__(self, suite: int, position: int, raw: Any) -> None:
        while len(self.keys) <= suite:
            self.keys.append(CaseKeys())
        if self.broken is not None:
            return
        try:
            self.keys[suite].add(_keyed(raw, self.path, f"/suites/{suite}/cases/{position}"))
        except ReportRefusedError as error:
            self.broken = error


def streamed_side(
    streamed: StreamedReport, hook: KeyHook, label: str, path: str | None = None
) -> ReportSide:
    """A report already read as a stream (``report.streamread``, verified, its cases
    scanned through ``hook``) as one side of a comparison, its cases read again from the
    same open file: no scan of its own. ``path`` names the side where it is not the file
    read (a copy kept elsewhere)."""
    assert streamed.streamed
    if hook.broken is not None:
        raise hook.broken
    source = path or streamed.path
    header = streamed.report
    suites = []
    for index, record in enumerate(header.suites):
        found = hook.keys[index] if index < len(hook.keys) else CaseKeys()
        if len(found) != streamed.case_count(index):  # pragma: no cover - the scan fed it
            raise _invalid(source, f"/suites/{index}/cases", "cases must be an array")
        found.done()
        suites.append(SuiteSide(record, found, source, index, partial(streamed.raw_case, index)))
    return ReportSide(label, source, streamed.digest, header, tuple(suites))


def side_of(report: Report, label: str, path: str = "<memory>") -> ReportSide:
    """An in-memory report as one side of a comparison."""
    data = report_bytes(report)
    return _side(record_json(report), label=label, path=path, digest=bytes_digest(data))
