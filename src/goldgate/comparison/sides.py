"""One side of a comparison: a report reduced to what comparing needs, read fast.

A report of 100,000 attempts is 40 MB of JSON and most of it is result documents, which
full validation would copy into models. A side keeps, per attempt, its status, latency,
usage and its checks' outcomes as one short string (``P`` passed, ``F`` failed, ``E`` error,
``N`` not_run), and for a text check a person may judge, how it was decided and the digest
of the answer (so that a verdict recorded between two runs is told from a changed answer);
per case, canonical bytes of its input and gold (equal bytes, equal values);
and, only for the cases a caller asks for, the saved result documents (partial comparison
re-scores those). The header and each suite's own fields are validated with the report
models; cases are checked by hand as they are reduced, so a malformed report is refused
with the place it breaks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from sys import intern
from typing import Any, NamedTuple

import orjson
from pydantic import ValidationError

from goldgate.base.errors import PointerSyntaxError, ReportRefusedError
from goldgate.base.files import open_regular_file
from goldgate.base.jsonvalue import MISSING, canonical_json
from goldgate.base.memory import collections_paused
from goldgate.base.pointers import resolve_pointer
from goldgate.report.digests import bytes_digest
from goldgate.report.io import (
    admit_side,
    read_report_bytes,
    report_bytes,
    report_value,
    validation_problem,
)
from goldgate.report.models import Report, SuiteRecord, validated
from goldgate.report.plain import record_json
from goldgate.report.readbound import admit_case, memory_bounded
from goldgate.report.scan import LazyCases, scan_report
from goldgate.report.verified import verified_once
from goldgate.report.verify import verify_report
from goldgate.scoring.adjudication import output_digest

__all__ = [
    "CODES",
    "AttemptSide",
    "CaseSide",
    "Judged",
    "ReportSide",
    "SuiteSide",
    "load_side",
    "side_of",
]

CODES = {"passed": "P", "failed": "F", "error": "E", "not_run": "N"}
OUTCOMES = {code: outcome for outcome, code in CODES.items()}
_CODE = CODES.__getitem__
_OUTCOME = itemgetter("outcome")
_STATUSES = frozenset({"completed", "failed", "timed_out", "skipped", "cancelled"})

ResultsWanted = Callable[[str, str, bytes], bool]
"""(suite name, case id, gold key) -> whether to keep that case's result documents."""


def canonical(value: Any) -> bytes:
    """Sorted-key JSON bytes: the identity of a value (orjson, or the canonical writer for
    what orjson refuses, such as integers beyond 64 bits). Copied to its own size: orjson's
    bytes keep the buffer it wrote into (4 KB for a short text), and a side keeps two per
    case."""
    try:
        return bytes(memoryview(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)))
    except orjson.JSONEncodeError:
        return canonical_json(value).encode("utf-8")


@dataclass(frozen=True, slots=True)
class Expectation:
    name: str
    path: str
    comparison: str
    scorer: str | None
    expected: Any

    def key(self) -> bytes:
        return canonical([self.name, self.path, self.comparison, self.scorer, self.expected])


VERDICT = "verdict"
"""A person's recorded verdict decided the check."""
WAITING = "waiting"
"""The check waits for a person's verdict: it has no outcome of its own (``not_run``)."""
QUEUED = "queued"
"""The check joined the adjudication queue but its assertions decided it."""
JUDGED = "judged:"
"""A calibrated judge decided the check: the state is ``judged:NAME@REVISION``, so that a
changed judge revision, or a judge decided on one side only, is told apart (a gold change)."""

Judged = tuple[str, str | None]
"""How a check a person may judge was decided (``VERDICT``, ``WAITING`` or ``QUEUED``) and
the digest of the answer it is about (``None`` when the result was not saved)."""


class AttemptSide(NamedTuple):
    """One attempt as compared (a tuple: 100,000 of them are made per report)."""

    attempt: int
    status: str
    latency_ms: float | None
    usage: Any
    codes: str
    """One letter per expectation, in gold order (``CODES``)."""
    result: Mapping[str, Any] | None = None
    """Kept only for the cases a caller asked for."""
    judged: tuple[Judged | None, ...] = ()
    """Per check, for text checks a person judged or may judge; empty when none was."""
    cost: float | None = None
    """The attempt's cost at its workflow's pricing (live suites)."""
    judge_cost: float | None = None
    """What asking judges about the attempt's answers cost, apart from ``cost``."""


@dataclass(frozen=True, slots=True)
class CaseSide:
    id: str
    input_key: bytes
    gold_key: bytes
    expectations: tuple[Expectation, ...]
    names: tuple[str, ...]
    attempts: tuple[AttemptSide, ...]


@dataclass(frozen=True)
class SuiteSide:
    record: SuiteRecord
    """The suite's own fields (target, status, repeat, metrics...), without its cases."""
    cases: tuple[CaseSide, ...]

    @property
    def name(self) -> str:
        return self.record.name


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


def _invalid(path: str, where: str, why: str) -> ReportRefusedError:
    return ReportRefusedError(f"{path}: not a valid report at {where}: {why}.")


def _expectations(raw: Any) -> tuple[Expectation, ...]:
    if not isinstance(raw, list):
        raise TypeError("expectations must be an array")
    found = []
    for item in raw:
        name, path = item["name"], item["path"]
        comparison = item.get("comparison") or "exact"
        scorer = item.get("scorer")
        if not (isinstance(name, str) and isinstance(path, str) and isinstance(comparison, str)):
            raise TypeError("an expectation's name, path and comparison are strings")
        if scorer is not None and not isinstance(scorer, str):
            raise TypeError("an expectation's scorer is a string")
        # Interned: every case of a suite names the same few, which the parser made anew each
        # time (a side of 100,000 cases held them 200,000 times).
        found.append(
            Expectation(intern(name), intern(path), comparison, scorer, item.get("expected"))
        )
    return tuple(found)


def _judged_state(check: Any) -> str | None:
    if not isinstance(check, dict):
        raise TypeError("a check is an object")
    if check.get("adjudicated") is True:
        return VERDICT
    said = check.get("judge")
    if isinstance(said, dict) and said.get("decided") is True:
        return f"{JUDGED}{said.get('name')}@{said.get('revision')}"
    if check.get("adjudication") is True:
        return WAITING if check.get("outcome") == "not_run" else QUEUED
    return None


def _answer_digest(result: Any, path: str) -> str | None:
    try:
        answer = resolve_pointer(result, path) if isinstance(result, dict) else MISSING
    except PointerSyntaxError:
        return None
    return output_digest(answer) if isinstance(answer, str) else None


def _judged(
    raw: Any, text_checks: tuple[tuple[int, str], ...], size: int
) -> tuple[Judged | None, ...]:
    """How each text check of a completed attempt was decided, where a person judged it or
    may judge it; ``()`` when no check was."""
    checks = raw["checks"]
    found: list[Judged | None] | None = None
    for position, path in text_checks:
        state = _judged_state(checks[position])
        if state is not None:
            if found is None:
                found = [None] * size
            found[position] = (state, _answer_digest(raw.get("result"), path))
    return () if found is None else tuple(found)


def _attempts(
    raws: Any, size: int, keep: bool, text_checks: tuple[tuple[int, str], ...] = ()
) -> tuple[AttemptSide, ...]:
    """A case's attempts, checked as they are reduced (this loop runs once per attempt of
    both reports: it is kept lean). ``text_checks``: (position, path) of each text check."""
    not_run = "N" * size
    reduced = []
    new = tuple.__new__  # AttemptSide(...) would go through a Python-level __new__
    for raw in raws:
        status = raw["status"]
        judged: tuple[Judged | None, ...] = ()
        if status == "completed":
            codes = "".join(map(_CODE, map(_OUTCOME, raw["checks"])))
            if len(codes) != size:
                raise ValueError(f"{len(codes)} checks for {size} expectations")
            if text_checks:
                judged = _judged(raw, text_checks, size)
        elif status in _STATUSES:
            codes = not_run
        else:
            raise ValueError(f"unknown attempt status {status!r}")
        number = raw["attempt"]
        if type(number) is not int or number < 1:
            raise TypeError("attempt must be a positive integer")
        latency = raw.get("latency_ms")
        if latency is not None and type(latency) is not float and type(latency) is not int:
            raise TypeError("latency_ms must be a number")
        result = raw.get("result") if keep else None
        usage, cost, judge_cost = raw.get("usage"), raw.get("cost"), raw.get("judge_cost")
        reduced.append(
            new(
                AttemptSide,
                (number, status, latency, usage, codes, result, judged, cost, judge_cost),
            )
        )
    return tuple(reduced)


def _case(raw: Any, suite: str, wanted: ResultsWanted | None) -> CaseSide:
    case_id = raw["id"]
    if not isinstance(case_id, str):
        raise TypeError("a case id is a string")
    expectations = _expectations(raw["expectations"])
    gold_key = canonical(
        [[e.name, e.path, e.comparison, e.scorer, e.expected] for e in expectations]
    )
    raw_input = raw.get("input")
    keep = wanted is not None and wanted(suite, case_id, gold_key)
    text_checks = tuple(
        (position, e.path) for position, e in enumerate(expectations) if e.comparison == "text"
    )
    attempts = _attempts(raw["attempts"], len(expectations), keep, text_checks)
    input_key = b"" if raw_input is None else canonical(raw_input)
    names = tuple(e.name for e in expectations)
    return CaseSide(case_id, input_key, gold_key, expectations, names, attempts)


def _reduce(
    value: dict[str, Any], *, label: str, path: str, digest: str, wanted: ResultsWanted | None
) -> ReportSide:
    raw_suites = value.get("suites")
    if not isinstance(raw_suites, list) or not all(isinstance(s, dict) for s in raw_suites):
        raise _invalid(path, "/suites", "suites must be an array of objects")
    try:
        with collections_paused():
            header = validated(
                Report, {**value, "suites": [{**suite, "cases": []} for suite in raw_suites]}
            )
    except ValidationError as error:
        raise validation_problem(path, error) from None
    suites = []
    with collections_paused():
        for index, (raw, record) in enumerate(zip(raw_suites, header.suites, strict=True)):
            cases = raw.get("cases")
            if not isinstance(cases, list | LazyCases):
                raise _invalid(path, f"/suites/{index}/cases", "cases must be an array")
            reduced = []
            for position, case in enumerate(cases):
                try:
                    reduced.append(_case(case, record.name, wanted))
                except (KeyError, TypeError, ValueError, AttributeError) as error:
                    where = f"/suites/{index}/cases/{position}"
                    why = f"missing {error}" if isinstance(error, KeyError) else str(error)
                    raise _invalid(path, where, why) from None
            suites.append(SuiteSide(record, tuple(reduced)))
        # After the reduction, which checked the cases; once a process for the same bytes.
        verified_once(digest, lambda: verify_report(value, header, path))
    return ReportSide(label, path, digest, header, tuple(suites))


def load_side(path: Path, label: str, wanted: ResultsWanted | None = None) -> ReportSide:
    """A report file as one side of a comparison (``wanted``: whose results to keep), read a
    case at a time (``report.scan``: each case reduced, then verified, as it is reached;
    never the report's plain JSON whole). A file the stream cannot take is read whole."""
    source = str(path)
    with open_regular_file(path, source, what="a report") as handle:
        admit_side(source, os.fstat(handle.fileno()).st_size)
        with memory_bounded(source):
            scanned = scan_report(handle, source)
            if scanned is not None:
                admit_case(source, scanned.largest_case)
                return _reduce(
                    scanned.value, label=label, path=source, digest=scanned.digest, wanted=wanted
                )
    data = read_report_bytes(path, held=0, peak=0)
    digest = bytes_digest(data)
    with memory_bounded(str(path)):
        value = report_value(data, str(path))
        del data  # the parsed value is enough; the reduced side is far smaller still
        return _reduce(value, label=label, path=str(path), digest=digest, wanted=wanted)


def side_of(
    report: Report, label: str, path: str = "<memory>", wanted: ResultsWanted | None = None
) -> ReportSide:
    """An in-memory report as one side of a comparison."""
    data = report_bytes(report)
    return _reduce(
        record_json(report), label=label, path=path, digest=bytes_digest(data), wanted=wanted
    )
