"""Writing a report as the run goes: the header first, each case as soon as its attempts are
done, each suite's figures after its cases, the verdict last.

The writer only concatenates JSON text; what goes into it is plain data (dicts, lists and
JSON scalars). ``dumps`` is orjson where it can be (several times faster than ``json`` on
result documents) and falls back to ``json`` for what orjson refuses (integers beyond 64
bits), so every value that ``json`` can write is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import orjson

from goldgate.report.plain import record_json

if TYPE_CHECKING:
    from goldgate.report.records import Report

__all__ = ["ReportWriter", "dumps", "report_chunks", "split_at"]


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON text of a plain JSON value."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
            "utf-8"
        )


def _members(fields: Mapping[str, Any]) -> bytes:
    """``"a":1,"b":2``: the members of a JSON object, to splice into a larger one."""
    return dumps(dict(fields))[1:-1]


class ReportWriter:
    """Writes one report through ``write`` in order: ``head``, then per suite
    ``begin_suite``, ``case``..., ``end_suite``, then ``tail``. ``format`` must be the first
    member of ``head``."""

    def __init__(self, write: Callable[[bytes], object]) -> None:
        self._write = write
        self._suites = 0
        self._cases = 0

    def head(self, fields: Mapping[str, Any]) -> None:
        if next(iter(fields), None) != "format":
            raise ValueError("a report starts with its format")
        self._write(b"{" + _members(fields) + b',"suites":[')

    def begin_suite(self, fields: Mapping[str, Any]) -> None:
        self._write((b"," if self._suites else b"") + b"{" + _members(fields) + b',"cases":[')
        self._suites += 1
        self._cases = 0

    def case(self, record: Mapping[str, Any]) -> None:
        self._write((b"," if self._cases else b"") + dumps(record))
        self._cases += 1

    def rendered_cases(self, data: Iterable[bytes], count: int) -> None:
        """``count`` case records another writer wrote (its ``case`` calls' bytes, in any
        pieces), continuing this suite's cases."""
        if count and self._cases:
            self._write(b",")
        for piece in data:
            self._write(piece)
        self._cases += count

    def end_suite(self, fields: Mapping[str, Any]) -> None:
        self._write(b"]," + _members(fields) + b"}")

    def tail(self, fields: Mapping[str, Any]) -> None:
        self._write(b"]," + _members(fields) + b"}\n")


def report_chunks(report: Report) -> Iterator[bytes]:
    """The file text of a report in pieces, a case at a time (``ReportWriter``): the same
    bytes as the whole report written at once, without its plain JSON or its text whole in
    memory (a report of tens of megabytes, written whole, more than doubled what merging or
    replaying it took)."""
    pieces: list[bytes] = []
    writer = ReportWriter(pieces.append)
    before, after = split_at(record_json(replace(report, suites=())), "suites")
    writer.head(before)
    for suite in report.suites:
        opening, closing = split_at(record_json(replace(suite, cases=())), "cases")
        writer.begin_suite(opening)
        for case in suite.cases:
            writer.case(record_json(case))
            yield from pieces
            pieces.clear()
        writer.end_suite(closing)
    writer.tail(after)
    yield from pieces


def split_at(plain: dict[str, Any], key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The members of ``plain`` before ``key`` and after it (neither side empty after)."""
    names = list(plain)
    at = names.index(key)
    after = {name: plain[name] for name in names[at + 1 :]}
    if not after:  # pragma: no cover - every record has members after its list
        raise ValueError(f"a record ends with {key!r}")
    return {name: plain[name] for name in names[:at]}, after
