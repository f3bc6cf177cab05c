"""A case file read as a stream: each case parsed strictly, one at a time, with its bytes' place.

Large gold parsed whole holds every case as Python objects at once (about 8 KB a case), so
memory grew with the gold. Here a case file is read in chunks and each element of its array is
parsed on its own by the same strict decoder ``jsonvalue`` uses; the caller keeps only where
each case's bytes are (offset, length, checksum, line) and reads a case back when the run
needs it (``gold._stream.store``).

Nothing here describes a problem. Anything the stream cannot take as it comes (a syntax error,
a byte order mark, invalid UTF-8, a lone surrogate, nesting past the limit, an empty array,
trailing data) raises ``NotStreamable``: the caller then reads the file whole with
``jsonvalue``, whose scanner names the file, line and column.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a
# named tuple's string annotations are each compiled as a forward reference when the class is
# made, at some 60 us a field.
import codecs
import json
import re
import threading
import zlib
from typing import Any, BinaryIO, Final, NamedTuple

from goldgate.base.errors import JsonRejected
from goldgate.base.files import max_file_bytes
from goldgate.base.jsonvalue import loads_exact
from goldgate.base.strictjson import (
    finite_float,
    keyless_decoder,
    keys_surely_unique,
    strict_decoder,
    too_deep_or_surrogates,
)
from goldgate.gold.errors import NotStreamable

__all__ = ["Element", "ElementReader", "strict_value"]

_CHUNK: Final = 1 << 20
_BOM: Final = b"\xef\xbb\xbf"
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class Element(NamedTuple):
    """One element of the top-level array: its value and where its bytes are (a named
    tuple: one per case, built several times faster than a frozen dataclass)."""

    value: Any
    offset: int
    length: int
    checksum: int
    """``zlib.crc32`` of the bytes, so that reading the case back can tell it is unchanged."""
    line: int
    """The 1-based line the element starts on."""
    has_floats: bool
    """Whether the element holds a float (which ``canonical_bytes`` must spell as Python's
    ``json`` does)."""


class _Text:
    """The file's text, decoded chunk by chunk, with a cursor: ``pos`` is where parsing is,
    ``mark`` how far the text is accounted for (``offset``: the bytes before it; ``line``:
    the line at ``line_mark``). Text before ``mark`` is dropped as more arrives."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self.buffer = ""
        self.eof = False
        self.read_bytes = 0
        self.cap = max_file_bytes()
        self.pos = self.mark = self.offset = self.line_mark = 0
        self.line = 1

    def more(self) -> None:
        """Drop the text before ``mark`` and append at least one chunk (as much again as is
        kept, so that a case larger than a chunk costs linear time). ``NotStreamable`` past
        the end of the file or on invalid UTF-8."""
        if self.eof:
            raise NotStreamable
        self.line += self.buffer.count("\n", self.line_mark, self.mark)
        kept = self.buffer[self.mark :]
        data = self.handle.read(max(_CHUNK, len(kept)))
        if not self.read_bytes and data.startswith(_BOM):
            raise NotStreamable
        self.read_bytes += len(data)
        if self.read_bytes > self.cap:  # it grew after the open's check
            raise NotStreamable
        try:
            text = self.decode(data, final=not data)
        except UnicodeDecodeError:
            raise NotStreamable from None
        self.eof = not data
        self.buffer = kept + text
        self.pos -= self.mark
        self.mark = self.line_mark = 0

    def skip(self) -> str:
        """Past whitespace to the next character (reading more as needed); '' at the end."""
        while True:
            self.pos = _WHITESPACE.match(self.buffer, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if self.eof:
                return ""
            # Whitespace is accounted for as it is skipped: a long run of it is not kept.
            self.offset += self.pos - self.mark
            self.line += self.buffer.count("\n", self.line_mark, self.pos)
            self.mark = self.line_mark = self.pos
            self.more()

    def account(self, start: int, end: int) -> tuple[int, int]:
        """Move past the value at ``start:end`` (after whitespace and commas, one byte each);
        its byte offset and line."""
        self.offset += start - self.mark
        self.line += self.buffer.count("\n", self.line_mark, start)
        self.line_mark = start
        self.mark = self.pos = end
        return self.offset, self.line


class _Strict:
    """The strict decoder, counting the floats in what it decoded last (a value with none
    has canonical bytes orjson can write, see ``canonical_bytes``). It decodes without the
    duplicate-key hook first, and again with it only where ``keys_surely_unique`` cannot
    rule a repeated key out.

    The float hook is a closure over a counter, not a method: a bound method held by the
    decoders would make each parser a reference cycle, which the check (run with the cyclic
    collector paused, ``memory.collections_paused``) would never free."""

    def __init__(self) -> None:
        counted = self._counted = [0]

        def counted_float(number: str) -> float:
            counted[0] += 1
            return finite_float(number)

        self._keyless = keyless_decoder(counted_float)
        self._decoder = strict_decoder(counted_float)

    @property
    def floats(self) -> int:
        return self._counted[0]

    def raw_decode(self, text: str, start: int = 0) -> tuple[Any, int]:
        self._counted[0] = 0
        value, end = self._keyless.raw_decode(text, start)
        if keys_surely_unique(text, start, end, value):
            return value, end
        self._counted[0] = 0
        return self._decoder.raw_decode(text, start)  # raises at a repeated key


class ElementReader:
    """The elements of the JSON array that is the whole of a file, one at a time: each
    parsed strictly, or (``next(strict=False)``) only found, for a caller that has its bytes
    checked elsewhere (``strict_value``): the value of a found element is ``None``."""

    def __init__(self, handle: BinaryIO) -> None:
        self._text = _Text(handle)
        self._strict = _Strict()
        self._plain = json.JSONDecoder()
        self._done = False
        self._at_value = False
        """Whether the text is at the next element already (past the separator)."""
        text = self._text
        if text.skip() != "[":
            raise NotStreamable
        text.pos += 1
        text.account(text.pos, text.pos)

    def next(self, *, strict: bool = True) -> Element | None:
        """The next element, or None after the last one."""
        if self._done:
            return None
        text = self._text
        decoder = self._strict if strict else self._plain
        if not self._at_value:
            text.skip()
        while True:
            buffer, start = text.buffer, text.pos
            try:
                value, end = decoder.raw_decode(buffer, start)
            except (ValueError, RecursionError, JsonRejected):
                value, end = None, -1
            if not text.eof and (end < 0 or _may_go_on(buffer, end, value)):  # cut by a chunk?
                text.more()
                text.skip()
                continue
            break
        if end < 0:
            raise NotStreamable
        piece = buffer[start:end]
        if strict and too_deep_or_surrogates(piece, value, from_utf8=True):
            raise NotStreamable
        offset, line = text.account(start, end)
        data = piece.encode()
        text.offset += len(data)
        holds_floats = strict and self._strict.floats > 0
        element = _new_element(
            Element,
            (value if strict else None, offset, len(data), zlib.crc32(data), line, holds_floats),
        )
        # The commonest separator, a comma between white space, with the next element in the
        # buffer: taken in one match. The rest (the end, or a chunk to read) as it comes.
        separator = _SEPARATOR.match(buffer, end)
        if separator is not None and (after := separator.end()) < len(buffer):
            text.pos = after
            self._at_value = True
            return element
        self._at_value = False
        separator_character = text.skip()
        if separator_character == "]":
            text.pos += 1
            if text.skip():  # anything after the array
                raise NotStreamable
            self._done = True
        elif separator_character == ",":
            text.pos += 1
        else:
            raise NotStreamable
        return element


_SEPARATOR: Final = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")
_new_element = tuple.__new__
"""Builds an ``Element`` from every field at once (its generated ``__new__`` is one more
Python call per case)."""


_PARSERS = threading.local()


def strict_value(data: bytes) -> tuple[Any, bool]:
    """One element's bytes parsed as strictly as ``ElementReader.next`` parses them, and
    whether it holds a float; ``NotStreamable`` for anything that parse would refuse."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotStreamable from None
    parser = getattr(_PARSERS, "strict", None)
    if parser is None:  # one per thread, made once: building its decoders costs microseconds
        parser = _PARSERS.strict = _Strict()
    try:
        value, end = parser.raw_decode(text)
    except (ValueError, RecursionError, JsonRejected):
        raise NotStreamable from None
    if end != len(text) or too_deep_or_surrogates(text, value, from_utf8=True):
        raise NotStreamable
    return value, parser.floats > 0


def _may_go_on(buffer: str, end: int, value: Any) -> bool:
    """Whether the text after a parsed value may continue it: the end of the buffer, or a
    number's next character a digit, a point or an exponent (a chunk cut "1.5" as "1." )."""
    if end == len(buffer):
        return True
    return type(value) in (int, float) and buffer[end] in _NUMBER_GOES_ON


_NUMBER_GOES_ON: Final = frozenset("0123456789.eE+-")


def reparse(data: bytes) -> Any:
    """A case's bytes parsed again (they were checked strictly when the gold was loaded)."""
    return loads_exact(data)
