"""A report file read as a stream: one pass over its bytes, a case at a time, holding the
report's figures (everything but its cases) and where each case's bytes are, never the cases
themselves (issue 43).

The scanner walks the report's top-level object and its suites member by member, in any
order and with any whitespace, over the file's bytes, and each case of a suite's ``cases``
array is parsed on its own and let go of: what is kept is its offset, length and checksum
(``CaseIndex``). A case as goldgate writes it (compact, the next one after ``},{"id":``) is
found in the bytes and parsed by orjson straight from them (``_Scanner.written_run``); any
other value is decoded by the standard library's decoder (``_Scanner.value``). Both give
the values ``jsonvalue.loads_exact`` gives. Reading the cases again (``CaseIndex.read``)
takes them back from the same open file, a run of cases read in order at once, and refuses
a case whose bytes changed since.

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
_SMALL: Final = 1 << 12
"""The fewest bytes decoded at once for a value the standard library's decoder reads."""
_AHEAD: Final = 1 << 18
"""Bytes read at once where cases are read again in order (``CaseIndex.read``)."""
_WHITESPACE: Final = b" \t\n\r"
_DECODER: Final = keyless_decoder(finite_float)
_NEXT_CASE: Final = b'},{"id":'
"""What lies between two cases of a suite as goldgate writes a report (compact, the case's
id first)."""
_OPEN_OBJECT, _CLOSE_OBJECT, _OPEN_ARRAY, _CLOSE_ARRAY, _COMMA, _COLON = b"{}[],:"
_CUT: Final = object()
"""What ``_as_written`` answers for bytes that are not one JSON value."""
_TRIES: Final = 3
"""How many more times ``},{"id":`` is taken for a case's end where it was not (each try
parses the case so far again: past a few, the standard library's decoder is cheaper)."""


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
    of their bytes, in order (some 33 bytes a case, never the case)."""

    def __init__(self) -> None:
        self.offsets = array("q")
        self.lengths = array("q")
        self.checksums = array("L")
        self.heaviest = 0
        self.positions = array("q")
        """Each case's stored ``position`` (a shard's; -1 where it has none or it is not a
        non-negative integer), noted as the cases are scanned."""
        self.exact = bytearray()
        """1 for a case whose bytes orjson is known to read as the standard library does
        (read again without looking: ``jsonvalue.loads_exact`` looks)."""
        self._ahead: tuple[BinaryIO, int, int, bytes] | None = None
        """The file's bytes read ahead for the cases after the last one read (``read``):
        the handle they were read from, where they start and end in the file, the bytes."""
        self._next = 0
        """The case after the last one read: where reading it too reads ahead."""

    def __len__(self) -> int:
        return len(self.offsets)

    def __getstate__(self) -> dict[str, Any]:
        # Handed to another process (``streamread.hand_scan``) without an open file's bytes.
        return {**self.__dict__, "_ahead": None, "_next": 0}

    def add(self, offset: int, data: bytes, case: Any, exact: bool = False) -> None:
        self.offsets.append(offset)
        self.lengths.append(len(data))
        self.checksums.append(zlib.crc32(data))
        if len(data) > self.heaviest // ELEMENT_WEIGHT:  # it may outweigh the heaviest
            self.heaviest = max(self.heaviest, weighed(data))
        position = case.get("position") if type(case) is dict else None
        if type(position) is not int or not 0 <= position < 1 << 62:
            position = -1
        self.positions.append(position)
        self.exact.append(exact)

    def largest(self) -> int:
        """The size the heaviest case weighs as when read (``readbound.weighed``: its
        bytes, or more where its values are dense)."""
        return self.heaviest

    def read(self, handle: BinaryIO, path: str, position: int) -> Any:
        """The plain JSON of case ``position``, read again from ``handle``; a case whose
        bytes are not those scanned is refused (the file changed while it was read)."""
        offset, length = self.offsets[position], self.lengths[position]
        ahead = self._ahead
        if ahead is not None and ahead[0] is handle and ahead[1] <= offset <= ahead[2] - length:
            at = offset - ahead[1]
            data = ahead[3][at : at + length]
            self._next = position + 1
            if self._next == len(self.offsets):  # a pass ends: its bytes let go of
                self._ahead = None
        else:
            data = self._read(handle, offset, length, position)
        if len(data) != length or zlib.crc32(data) != self.checksums[position]:
            raise ReportRefusedError(
                f"{escape_control(path)}: changed while it was read; read it again."
            )
        return orjson.loads(data) if self.exact[position] else loads_exact(data)

    def _read(self, handle: BinaryIO, offset: int, length: int, position: int) -> bytes:
        """Case ``position``'s bytes read from the file, with the cases after it (up to
        ``_AHEAD`` bytes) where it follows the case read last: a run read in order takes one
        read, not one a case (``read`` takes the next ones from those bytes)."""
        in_order, self._next = position == self._next, position + 1
        self._ahead = None
        if not in_order or length >= _AHEAD or self._next == len(self.offsets):
            return os.pread(handle.fileno(), length, offset)
        end = self.offsets[-1] + self.lengths[-1]  # no further than the suite's cases
        block = os.pread(handle.fileno(), min(_AHEAD, end - offset), offset)
        self._ahead = (handle, offset, offset + len(block), block)
        return block[:length]


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


class _Bytes:
    """The file's bytes from ``base`` (their offset in the file) on, read a chunk at a time;
    each chunk hashed and checked to be UTF-8 as it is read (orjson checks what it parses
    again; what lies between the cases only this checks)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.data = b""
        self.base = 0
        self.done = False
        self.hash = hashlib.sha256()
        self.utf8 = codecs.getincrementaldecoder("utf-8")("strict")

    def more(self, least: int = _CHUNK, at: int = 0) -> int:
        """Read ``least`` bytes more (a chunk at least), forgetting those before ``at`` (an
        offset in ``data``, where the reader is); where ``at`` is now. Both at once: the
        bytes kept are copied once."""
        if self.done:
            raise _Unstreamable("ends early")
        data = self.handle.read(max(least, _CHUNK))
        self.hash.update(data)
        # ASCII with no character begun before it is UTF-8 (a check many times faster than
        # decoding); else it is decoded, the text let go of.
        if not data.isascii() or self.utf8.getstate()[0]:
            try:
                self.utf8.decode(data, final=not data)
            except UnicodeDecodeError:
                raise _Unstreamable("not UTF-8") from None
        self.data = self.data[at:] + data
        self.base += at
        self.done = not data
        return 0


def _as_written(piece: bytes) -> Any:
    """The case ``piece`` holds as goldgate wrote it, parsed by orjson: ``_CUT`` where it
    is not one JSON value (the next case was not where ``},{"id":`` said: an object of its
    own inside this one), None where orjson may read it otherwise than the standard library.
    A slice that starts with ``{`` and parses whole ends where that object ends: it is the
    very value the standard library's decoder would decode there.

    Where orjson writes the value back as these very bytes (as goldgate wrote them), orjson
    read them exactly, no key repeated (a repeated one is written once), nothing is nested
    past the limit (orjson writes no deeper than 255) and no string holds a surrogate
    (orjson writes none); other bytes are looked at further, as the decoded ones are.
    (A backslash is looked for first: a byte found in C at memory speed.)"""
    try:
        value = orjson.loads(piece)
    except orjson.JSONDecodeError:
        return _CUT
    try:
        # An escaped colon (or text that looks like one) is looked at further, as ever:
        # ``keys_surely_unique`` leaves it to the whole read.
        if orjson.dumps(value) == piece and (b"\\" not in piece or b"\\u003" not in piece):
            return value
    except TypeError:  # nested past what orjson writes: looked at further
        pass
    if not orjson_reads_exactly(piece):  # an integer orjson reads as a float: decoded
        return None
    if not keys_surely_unique(piece, 0, len(piece), value) or too_deep_or_surrogates(piece, value):
        raise _Unstreamable("needs the strict parser")
    return value


class _Scanner:
    def __init__(self, handle: BinaryIO, path: str, on_case: CaseHook | None = None) -> None:
        self.path = path
        self.source = _Bytes(handle)
        self.at = 0
        """Where the scanner is: an offset in ``source.data``."""
        self.indexes: list[CaseIndex | None] = []
        self.on_case = on_case
        self.as_written = _unlimited()
        """Whether cases written as goldgate writes them are parsed by orjson
        (``written_run``): not under a memory limit, where orjson, short of memory,
        crashes the process (``strictjson.written_colons`` avoids it there too)."""
        self.suites = 0
        """Suites met so far (a suite's place in the report, for ``on_case``)."""
        self.window = _SMALL
        """How many bytes to decode for the next value (``value``): twice the last one's."""
        self.bare_until = 0
        """Where in the file a search for ``},{"id":`` (``written_run``) last ended without
        finding it: none starts between that search's start and there."""

    def char(self) -> int:
        """The next byte that is not whitespace (the scanner left on it)."""
        source = self.source
        while True:
            data = source.data
            at = self.at
            while at < len(data) and data[at] in _WHITESPACE:
                at += 1
            self.at = at
            if at < len(data):
                return data[at]
            self.at = source.more(at=at)

    def take(self, expected: int) -> None:
        if self.char() != expected:
            raise _Unstreamable(chr(expected))
        self.at += 1

    def value(self, case: bool = False) -> tuple[Any, int, int]:
        """The JSON value at the scanner, decoded by the standard library's decoder, and its
        bytes' start and end in ``source.data``; a ``case`` too large for the memory left is
        refused (``readbound.admit_case``) before it is checked further. Its bytes are
        decoded from a window that doubles until the value ends inside it (or the file
        does), starting at twice the last value's size: a case at a time is decoded about
        once, however long the file."""
        self.char()
        source = self.source
        start = self.at
        window = self.window
        while True:
            data = source.data
            if len(data) - start < window and not source.done:
                start = self.at = source.more(window - (len(data) - start), start)
                continue
            whole = source.done and len(data) - start <= window  # to the file's end
            try:
                text = codecs.utf_8_decode(memoryview(data)[start : start + window], None, whole)[0]
            except UnicodeDecodeError:
                raise _Unstreamable("not UTF-8") from None
            try:
                value, end = _DECODER.raw_decode(text, 0)
            except (ValueError, RecursionError):
                end = None
            except JsonRejected:  # NaN, Infinity, a float too large: the strict reader says
                raise _Unstreamable("not JSON") from None
            # A value that ends where the window ends may go on (a number).
            if end is not None and (end < len(text) or whole):
                break
            if whole:
                raise _Unstreamable("not JSON")
            window *= 2
        size = end if text.isascii() else len(text[:end].encode("utf-8"))
        self.window = min(max(_SMALL, 2 * size), _CHUNK)
        if case and end > _CHUNK:  # its length in characters, as the refusal says it
            admit_case(self.path, end)
        stop = self.at = start + size
        if not keys_surely_unique(data, start, stop, value) or too_deep_or_surrogates(
            data, value, start=start, end=stop
        ):
            raise _Unstreamable("needs the strict parser")
        return value, start, stop

    def members(self, special: str, inner: Any) -> dict[str, Any]:
        """An object's members, the one named ``special`` read by ``inner`` where it is an
        array."""
        self.take(_OPEN_OBJECT)
        found: dict[str, Any] = {}
        if self.char() == _CLOSE_OBJECT:
            self.at += 1
            return found
        while True:
            key, _, _ = self.value()
            if type(key) is not str or key in found:
                raise _Unstreamable("a key")
            self.take(_COLON)
            if key == special and self.char() == _OPEN_ARRAY:
                found[key] = inner()
            else:
                found[key], _, _ = self.value()
            separator = self.char()
            self.at += 1
            if separator == _CLOSE_OBJECT:
                return found
            if separator != _COMMA:
                raise _Unstreamable(",")

    def array(self, element: Any, found: list[Any] | None = None) -> list[Any]:
        """An array's elements, each read by ``element``: kept in ``found`` where given."""
        self.take(_OPEN_ARRAY)
        if self.char() == _CLOSE_ARRAY:
            self.at += 1
            return found or []
        while True:
            value = element()
            if found is not None:
                found.append(value)
            separator = self.char()
            self.at += 1
            if separator == _CLOSE_ARRAY:
                return found or []
            if separator != _COMMA:
                raise _Unstreamable(",")

    def suite(self) -> Any:
        self.suites += 1
        if self.char() != _OPEN_OBJECT:
            return self.value()[0]
        self.indexes.append(None)
        return self.members("cases", self.cases)

    def cases(self) -> CaseIndex:
        index = CaseIndex()
        suite, hook = self.suites - 1, self.on_case

        def case() -> None:
            if self.as_written:
                self.written_run(index, suite)
            value, start, end = self.value(case=True)
            data = self.source.data
            if hook is not None:
                hook(suite, len(index), value)
            index.add(self.source.base + start, data[start:end], value)

        self.array(case)
        self.indexes[-1] = index
        return index

    def written_run(self, index: CaseIndex, suite: int) -> None:
        """The cases at the scanner as goldgate writes them, each followed by ``,`` and the
        next (``},{"id":``), parsed by orjson (``_as_written``: several times faster than
        the standard library's decoder, the same values) and indexed, up to the first that
        is not (the last of the suite, or one ``_as_written`` leaves to be decoded): the
        scanner is left at its start. A case larger than a chunk is decoded."""
        source, hook = self.source, self.on_case
        self.char()
        data, base, at = source.data, source.base, self.at
        bare = self.bare_until - base  # in ``data``
        while data[at] == _OPEN_OBJECT:
            searched = at if at >= bare else bare
            close = data.find(_NEXT_CASE, searched, at + _CHUNK)
            if close < 0:
                # Where the next case's start is not: never searched again (a suite of one
                # case after another would search the rest of the chunk each time).
                bare = max(searched, min(at + _CHUNK, len(data)) - len(_NEXT_CASE) + 1)
                self.bare_until = base + bare
                if len(data) - at >= _CHUNK or source.done:
                    break  # larger than a chunk, or the last case: decoded
                # The case goes on past the bytes read: read more, keeping it (read when
                # needed, not ahead, so that little is copied with the next chunk).
                at = source.more(at=at)
                data, base = source.data, source.base
                bare = self.bare_until - base
                continue
            piece = data[at : close + 1]
            value = _as_written(piece)
            if type(value) is not dict:  # parsed whole from ``{``, it is one
                tries = _TRIES
                while value is _CUT and tries:  # an object of its own inside the case: on
                    close = data.find(_NEXT_CASE, close + 1, at + _CHUNK)
                    if close < 0:
                        break
                    piece = data[at : close + 1]
                    value = _as_written(piece)
                    tries -= 1
                if type(value) is not dict:
                    break
            if hook is not None:
                hook(suite, len(index), value)
            index.add(base + at, piece, value, exact=True)
            at = close + 2  # past the comma: the next case's ``{``
        self.at = at

    def report(self) -> dict[str, Any]:
        value = self.members("suites", lambda: self.array(self.suite, []))
        source = self.source
        while True:
            if source.data[self.at :].strip(_WHITESPACE):
                raise _Unstreamable("trailing data")
            if source.done:
                return value
            self.at = source.more(at=len(source.data))


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
