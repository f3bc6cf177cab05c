"""A report file read as a stream: one pass over its bytes, a case at a time, holding the
report's figures (everything but its cases) and where each case's bytes are, never the cases
themselves (issue 43).

The scanner walks the report's top-level object and its suites member by member, in any
order and with any whitespace, and each case of a suite's ``cases`` array is parsed on its
own (the standard library's decoder, which gives the values ``jsonvalue.loads_exact`` gives)
and let go of: what is kept is its offset, length and checksum (``CaseIndex``). Reading the
cases again (``CaseIndex.read``) takes them back from the same open file, a case at a time,
and refuses a case whose bytes changed since.

Nothing here describes a problem: anything the stream cannot take as it comes (not JSON, a
repeated key, a lone surrogate, nesting past the limit, invalid UTF-8, an older format to
migrate, trailing data) makes ``scan_report`` answer None, and the caller reads the file
whole (``report.io``), whose parser names the file, line and column.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import zlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

import orjson

from goldgate.base.errors import InvalidInputError, JsonRejected, ReportRefusedError
from goldgate.base.jsonvalue import loads_exact, orjson_reads_exactly
from goldgate.base.memorylimit import memory_left
from goldgate.base.strictjson import (
    finite_float,
    keyless_decoder,
    keys_surely_unique,
    too_deep_or_surrogates,
)
from goldgate.base.textsafe import escape_control
from goldgate.report.readbound import ELEMENT_WEIGHT, admit_case, weighed
from goldgate.report.records import REPORT_FORMAT

__all__ = ["CaseHook", "CaseIndex", "ScannedReport", "scan_report"]

CaseHook = Callable[[int, int, Any], None]
"""Called with each case as the scan parses it: the suite's place in the report, the case's
place in the suite, and its plain JSON (let go of once the hook returns). What it makes is
trusted only once the report is verified."""

_CHUNK: Final = 1 << 20
_WHITESPACE: Final = " \t\n\r"
_DECODER: Final = keyless_decoder(finite_float)
_NEXT_CASE: Final = '},{"id":'
"""What lies between two cases of a suite as goldgate writes a report (compact, the case's
id first)."""


def _unlimited() -> bool:
    """Whether no memory limit applies to this process (``base.memorylimit``)."""
    try:
        return memory_left() is None
    except InvalidInputError:  # a limit that is not a number: said where it is read
        return False


class _Unstreamable(Exception):  # private control flow, never leaves here: not a GoldgateError
    """The file needs the whole-file reader, which says what is wrong with it."""


class CaseIndex:
    """Where each case of one suite lies in the report file: offsets, lengths and checksums
    of their bytes, in order (24 bytes a case, never the case)."""

    def __init__(self) -> None:
        self.offsets = array("q")
        self.lengths = array("q")
        self.checksums = array("L")
        self.heaviest = 0
        self.positions = array("q")
        """Each case's stored ``position`` (a shard's; -1 where it has none or it is not a
        non-negative integer), noted as the cases are scanned."""

    def __len__(self) -> int:
        return len(self.offsets)

    def add(self, offset: int, data: bytes, case: Any) -> None:
        self.offsets.append(offset)
        self.lengths.append(len(data))
        self.checksums.append(zlib.crc32(data))
        if len(data) > self.heaviest // ELEMENT_WEIGHT:  # it may outweigh the heaviest
            self.heaviest = max(self.heaviest, weighed(data))
        position = case.get("position") if type(case) is dict else None
        if type(position) is not int or not 0 <= position < 1 << 62:
            position = -1
        self.positions.append(position)

    def largest(self) -> int:
        """The size the heaviest case weighs as when read (``readbound.weighed``: its
        bytes, or more where its values are dense)."""
        return self.heaviest

    def read(self, handle: BinaryIO, path: str, position: int) -> Any:
        """The plain JSON of case ``position``, read again from ``handle``; a case whose
        bytes are not those scanned is refused (the file changed while it was read)."""
        length = self.lengths[position]
        data = os.pread(handle.fileno(), length, self.offsets[position])
        if len(data) != length or zlib.crc32(data) != self.checksums[position]:
            raise ReportRefusedError(
                f"{escape_control(path)}: changed while it was read; read it again."
            )
        return loads_exact(data)


class LazyCases:
    """A suite's ``cases`` in the scanned plain JSON: as long as the list, each case read
    again when reached (``report.verify`` goes through it in order and lets go of each case
    by setting its place to None, which here does nothing)."""

    def __init__(self, index: CaseIndex, handle: BinaryIO, path: str) -> None:
        self.index, self._handle, self._path = index, handle, path

    def __len__(self) -> int:
        return len(self.index)

    def __iter__(self) -> Iterator[Any]:
        for place in range(len(self.index)):
            yield self.index.read(self._handle, self._path, place)

    def __setitem__(self, position: int, value: object) -> None:
        return None


@dataclass(frozen=True)
class ScannedReport:
    """A report file scanned: its plain JSON with each suite's ``cases`` a ``LazyCases``
    (where the file had an array there), the sha256 of its bytes, and the largest case."""

    value: dict[str, Any]
    digest: str
    indexes: tuple[CaseIndex | None, ...]
    largest_case: int


class _Text:
    """The file's text from ``base`` (a byte offset) on, read a chunk at a time."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.text = ""
        self.mark = 0
        """A place in ``text`` whose byte offset in the file is ``mark_byte``."""
        self.mark_byte = 0
        self.done = False
        self.hash = hashlib.sha256()

    def more(self, least: int = _CHUNK) -> None:
        if self.done:
            raise _Unstreamable("ends early")
        data = self.handle.read(max(least, _CHUNK))
        self.hash.update(data)
        try:
            self.text += self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise _Unstreamable("not UTF-8") from None
        self.done = not data

    def byte_at(self, position: int) -> int:
        """The byte offset in the file of ``position`` (at or after the last one asked)."""
        self.mark_byte += len(self.text[self.mark : position].encode("utf-8"))
        self.mark = position
        return self.mark_byte

    def drop(self, position: int) -> int:
        """Forget the text before ``position``; where that is now."""
        if position > _CHUNK:
            self.byte_at(position)
            self.text, self.mark = self.text[position:], 0
            return 0
        return position


class _Scanner:
    def __init__(self, handle: BinaryIO, path: str, on_case: CaseHook | None = None) -> None:
        self.path = path
        self.source = _Text(handle)
        self.at = 0
        self.indexes: list[CaseIndex | None] = []
        self.on_case = on_case
        self.encoded: bytes | None = None
        self.as_written = _unlimited()
        """Whether cases written as goldgate writes them are parsed by orjson
        (``_case_as_written``): not under a memory limit, where orjson, short of memory,
        crashes the process (``strictjson.written_colons`` avoids it there too)."""
        self.suites = 0
        """Suites met so far (a suite's place in the report, for ``on_case``)."""

    def char(self) -> str:
        """The next character that is not whitespace (the scanner left on it)."""
        source = self.source
        while True:
            text = source.text
            at = self.at
            while at < len(text) and text[at] in _WHITESPACE:
                at += 1
            self.at = at
            if at < len(text):
                return text[at]
            self.at = source.drop(at)
            source.more()

    def take(self, expected: str) -> None:
        if self.char() != expected:
            raise _Unstreamable(expected)
        self.at += 1

    def value(self, case: bool = False) -> tuple[Any, int, int]:
        """The JSON value at the scanner, its text's start and end; a ``case`` too large for
        the memory left is refused (``readbound.admit_case``) before it is checked further
        (orjson, short of memory, crashes the process). A case's UTF-8 bytes are left in
        ``encoded`` where they were made (``_case_as_written``)."""
        self.char()
        self.at = self.source.drop(self.at)
        self.encoded = None
        if case and self.as_written:
            found = self._case_as_written()
            if found is not None:
                return found
        least = _CHUNK
        while True:
            text = self.source.text
            try:
                value, end = _DECODER.raw_decode(text, self.at)
            except (ValueError, RecursionError):
                end = None
            except JsonRejected:  # NaN, Infinity, a float too large: the strict reader says
                raise _Unstreamable("not JSON") from None
            # A value that ends where the text read so far ends may go on (a number).
            if end is not None and (end < len(text) or self.source.done):
                break
            if self.source.done:
                raise _Unstreamable("not JSON")
            self.source.more(least)
            least *= 2
        start, self.at = self.at, end
        if case and end - start > _CHUNK:
            admit_case(self.path, end - start)
        piece = text[start:end]
        if not keys_surely_unique(text, start, end, value) or too_deep_or_surrogates(
            piece, value, from_utf8=True
        ):
            raise _Unstreamable("needs the strict parser")
        return value, start, end

    def _case_as_written(self) -> tuple[Any, int, int] | None:
        """The case at the scanner where goldgate wrote it and the next one (compact:
        ``},{"id":`` between them, within the text read so far), parsed by orjson (several
        times faster than the standard library's decoder, and the same values where
        ``jsonvalue.orjson_reads_exactly``); None where that is not so, for ``value`` to
        decode it. A slice of the text that starts with ``{`` and parses whole ends where
        that object ends: it is the very value ``value`` would decode."""
        text, start = self.source.text, self.at
        close = text.find(_NEXT_CASE, start, start + _CHUNK)
        if close < 0 or text[start] != "{":
            return None
        end = close + 1
        data = text[start:end].encode("utf-8")
        if not orjson_reads_exactly(data):
            return None
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:  # not the end of this case (or not JSON): decoded
            return None
        if not keys_surely_unique(text, start, end, value) or too_deep_or_surrogates(
            text[start:end], value, from_utf8=True
        ):
            raise _Unstreamable("needs the strict parser")
        self.at, self.encoded = end, data
        return value, start, end

    def members(self, special: str, inner: Any) -> dict[str, Any]:
        """An object's members, the one named ``special`` read by ``inner`` where it is an
        array."""
        self.take("{")
        found: dict[str, Any] = {}
        if self.char() == "}":
            self.at += 1
            return found
        while True:
            key, _, _ = self.value()
            if type(key) is not str or key in found:
                raise _Unstreamable("a key")
            self.take(":")
            if key == special and self.char() == "[":
                found[key] = inner()
            else:
                found[key], _, _ = self.value()
            separator = self.char()
            self.at += 1
            if separator == "}":
                return found
            if separator != ",":
                raise _Unstreamable(",")

    def array(self, element: Any, found: list[Any] | None = None) -> list[Any]:
        """An array's elements, each read by ``element``: kept in ``found`` where given."""
        self.take("[")
        if self.char() == "]":
            self.at += 1
            return found or []
        while True:
            value = element()
            if found is not None:
                found.append(value)
            separator = self.char()
            self.at += 1
            if separator == "]":
                return found or []
            if separator != ",":
                raise _Unstreamable(",")

    def suite(self) -> Any:
        self.suites += 1
        if self.char() != "{":
            return self.value()[0]
        self.indexes.append(None)
        return self.members("cases", self.cases)

    def cases(self) -> CaseIndex:
        index = CaseIndex()
        suite, hook = self.suites - 1, self.on_case

        def case() -> None:
            value, start, end = self.value(case=True)
            source = self.source
            piece = self.encoded or source.text[start:end].encode("utf-8")
            if hook is not None:
                hook(suite, len(index), value)
            index.add(source.byte_at(start), piece, value)
            source.mark, source.mark_byte = end, source.mark_byte + len(piece)

        self.array(case)
        self.indexes[-1] = index
        return index

    def report(self) -> dict[str, Any]:
        value = self.members("suites", lambda: self.array(self.suite, []))
        source = self.source
        while True:
            if source.text[self.at :].strip(_WHITESPACE):
                raise _Unstreamable("trailing data")
            if source.done:
                return value
            self.at = source.drop(len(source.text))
            source.more()


def scan_report(
    handle: BinaryIO, path: str, on_case: CaseHook | None = None
) -> ScannedReport | None:
    """The report in ``handle`` scanned (``ScannedReport``), or None where it must be read
    whole: not JSON as the stream takes it, or not a report of the current format. Each case
    is handed to ``on_case`` as it is parsed (the one parse of the scan: a caller that needs
    something of every case, such as a comparison's index, has it without reading the cases
    again)."""
    scanner = _Scanner(handle, path, on_case)
    try:
        value = scanner.report()
    except (_Unstreamable, RecursionError):
        return None
    if value.get("format") != REPORT_FORMAT or type(value.get("suites")) is not list:
        return None
    indexes: list[CaseIndex | None] = []
    suites = iter(scanner.indexes)
    for suite in value["suites"]:
        if type(suite) is dict:
            index = next(suites)
            indexes.append(index)
            if index is not None:
                suite["cases"] = LazyCases(index, handle, path)
        else:
            indexes.append(None)
    largest = max((index.largest() for index in indexes if index is not None), default=0)
    digest = "sha256:" + scanner.source.hash.hexdigest()
    return ScannedReport(value, digest, tuple(indexes), largest)
