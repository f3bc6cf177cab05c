"""A report opened as one side of a comparison (issue 43): verified a case at a time, and
its cases read again one at a time as the comparison walks them (``comparison.walk``); never
the whole list of attempts, and no index of its cases where the two sides' orders match.

Opening a side scans the file (``report.scan``: the report's own fields and where each case's
bytes are), validates the report's own fields and each suite's, and verifies the report
(``report.verify``) a case at a time; as each case is scanned, what is kept of it is the
hash of its id, and only until the scan ends: each suite then keeps whether an id may repeat
in it (``IdHook``), which decides whether the comparison may walk the two sides together
place by place. The comparison then reads each case by its place and reduces it
(``SuiteSide.case``; a malformed case is refused with the place it breaks). A file the stream
cannot take is read whole, as a whole read names what is wrong with it or migrates it; its
cases are then read from memory.

Memory: the report's own fields, 8 bytes a case while the scan runs (the ids' hashes), and
the case being read (``readbound.admit_case``: a case too large for the memory left is
refused in one sentence before anything is compared). An index of cases by id
(``CaseKeys``, about ``KEY_BYTES`` a case) is made only where the orders differ: of the
baseline's cases from the first place where they differ, or of both sides' where an id may
repeat.
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
from goldgate.report.idrepeats import IdHook
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
    "IdHook",
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

    def key(self, place: int) -> tuple[str, bytes, bytes, int]:
        """The case at ``place``: its id, input and gold digests, attempts' count."""
        return (
            self.ids[place],
            self.input_digest(place),
            self.gold_digest(place),
            self.attempts[place],
        )

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


def _reduced(raw: Any, keep: bool, like: CaseSide | None, *, path: str, where: str) -> CaseSide:
    try:
        return reduce_case(raw, keep, like)
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
    count: int
    """How many cases the suite has."""
    repeats: bool
    """Whether an id may repeat among its cases (then cases are matched by an index of ids,
    as a mapping by id has them, never place by place)."""
    path: str
    index: int
    """The suite's place in its report."""
    read: Callable[[int], Any]
    """The plain JSON of the case at a place."""
    label: str = "candidate"
    """candidate or baseline: how messages name the side."""

    @property
    def name(self) -> str:
        return self.record.name

    def where(self, place: int) -> str:
        return f"/suites/{self.index}/cases/{place}"

    def case_id(self, raw: Any, place: int) -> str:
        """The id of the case ``raw`` (read at ``place``)."""
        try:
            case_id = raw["id"]
            if not isinstance(case_id, str):
                raise TypeError("a case id is a string")
        except (KeyError, TypeError) as error:
            raise _malformed(self.path, self.where(place), error) from None
        return case_id

    def raw(self, place: int) -> Any:
        """The plain JSON of the case at ``place``, read again."""
        with memory_bounded(self.path):
            return self.read(place)

    def reduced(
        self, raw: Any, place: int, keep: bool = False, like: CaseSide | None = None
    ) -> CaseSide:
        """The case ``raw`` (read at ``place``) reduced (``keep``: with its results; ``like``:
        see ``sides.reduce_case``)."""
        return _reduced(raw, keep, like, path=self.path, where=self.where(place))

    def key(self, raw: Any, place: int) -> CaseKey:
        """The case ``raw`` (read at ``place``): its id, input, gold and attempts' count."""
        return _keyed(raw, self.path, self.where(place))

    def case(self, place: int, keep: bool = False) -> CaseSide:
        """The case at ``place``, read again and reduced (``keep``: with its results)."""
        with memory_bounded(self.path):
            return self.reduced(self.read(place), place, keep)

    def keys(self, start: int = 0) -> CaseKeys:
        """The index of the suite's cases from ``start`` on (``CaseKeys``), from one pass
        over them."""
        found = CaseKeys()
        for place in range(start, self.count):
            found.add(self.key(self.raw(place), place))
        found.done()
        return found


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


def _ids(
    value: dict[str, Any], header: Report, *, path: str, digest: str, scanned: IdHook | None
) -> IdHook:
    """Whether an id may repeat in each suite: noted by the scan (``scanned``) where the file
    was scanned, else as the report is verified, or where verification took no cases (the
    same bytes verified before in this process: ``report.verified``), by a pass of its own."""
    cases = [suite["cases"] for suite in value["suites"]]
    # Verification lets go of each case it took (its place set to None): a list is copied,
    # so that the comparison can read it again.
    copied = {
        **value,
        "suites": [
            {**s, "cases": list(s["cases"])} if type(s["cases"]) is list else s
            for s in value["suites"]
        ],
    }
    ids = scanned or IdHook(path)
    verified_once(digest, lambda: verify_report(copied, header, path, None if scanned else ids))
    if any(ids.count(index) != len(each) for index, each in enumerate(cases)):
        ids = IdHook(path)
        for suite, each in enumerate(cases):
            for position, raw in enumerate(each):
                ids(suite, position, raw)
    return ids


def _side(
    value: dict[str, Any],
    *,
    label: str,
    path: str,
    digest: str,
    handle: BinaryIO | None = None,
    scanned: IdHook | None = None,
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
    ids = _ids(value, header, path=path, digest=digest, scanned=scanned)
    suites = tuple(
        SuiteSide(record, ids.count(index), ids.repeats(index), path, index, read, label)
        for index, (record, read) in enumerate(zip(header.suites, readers, strict=True))
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
            ids = IdHook(source)
            scanned = scan_report(handle, source, ids)
            if scanned is not None:
                admit_case(source, scanned.largest_case)
                side = _side(
                    scanned.value,
                    label=label,
                    path=source,
                    digest=scanned.digest,
                    handle=handle,
                    scanned=ids,
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


def streamed_side(
    streamed: StreamedReport, ids: IdHook, label: str, path: str | None = None
) -> ReportSide:
    """A report already read as a stream (``report.streamread``, verified, its cases
    scanned through ``ids``) as one side of a comparison, its cases read again from the
    same open file: no scan of its own. ``path`` names the side where it is not the file
    read (a copy kept elsewhere)."""
    assert streamed.streamed
    source = path or streamed.path
    header = streamed.report
    suites = []
    for index, record in enumerate(header.suites):
        count = streamed.case_count(index)
        if ids.count(index) != count:  # pragma: no cover - the scan fed it
            raise _invalid(source, f"/suites/{index}/cases", "cases must be an array")
        suites.append(
            SuiteSide(
                record,
                count,
                ids.repeats(index),
                source,
                index,
                partial(streamed.raw_case, index),
                label,
            )
        )
    return ReportSide(label, source, streamed.digest, header, tuple(suites))


def side_of(report: Report, label: str, path: str = "<memory>") -> ReportSide:
    """An in-memory report as one side of a comparison."""
    data = report_bytes(report)
    return _side(record_json(report), label=label, path=path, digest=bytes_digest(data))
