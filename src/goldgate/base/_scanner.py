"""A position-aware strict JSON scanner: the slow path of ``jsonvalue``.

It runs only when the fast standard-library parse refused a text (to find and describe the
first problem in text order) or when a caller needs the line and column of a value. It is
iterative, so hostile nesting depth cannot exhaust the interpreter's stack.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from goldgate.base.errors import JsonSyntaxError
from goldgate.base.textsafe import quote

# The standard library's C string reader (typeshed does not declare it): linear, strict about
# control characters, and it reports where it stopped.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_NUMBER_START = frozenset("-0123456789")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LITERALS = {"true": True, "false": False, "null": None}
_NOT_JSON_CONSTANTS = ("NaN", "Infinity", "-Infinity")
"""Deeper nesting is refused: no gold needs it, and it would make the path index quadratic."""


@dataclass
class PositionIndex:
    """Where each value starts (and each member's key), by path of string tokens."""

    values: dict[tuple[str, ...], int]
    keys: dict[tuple[str, ...], int]
    line_starts: list[int]


class _Frame:
    __slots__ = ("count", "is_object", "keys", "path")

    def __init__(self, is_object: bool, path: tuple[str, ...]) -> None:
        self.is_object = is_object
        self.path = path
        self.keys: set[str] = set()
        self.count = 0


class _Scanner:
    def __init__(self, source: str, text: str, *, record: bool) -> None:
        self.source = source
        self.text = text
        # Finding the first problem needs no index: recording every value's place would cost
        # memory per value on exactly the (hostile) texts that are refused anyway.
        self.record = record
        self.values: dict[tuple[str, ...], int] = {}
        self.keys: dict[tuple[str, ...], int] = {}

    def fail(self, offset: int, message: str) -> JsonSyntaxError:
        # One problem, one position: counted directly, without a table of line starts.
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return JsonSyntaxError(self.source, line, column, message)

    def skip(self, offset: int) -> int:
        match = _WHITESPACE.match(self.text, offset)
        assert match is not None
        return match.end()

    def describe(self, offset: int) -> str:
        if offset >= len(self.text):
            return "the end of the file"
        return f"{self.text[offset]!r}"

    def string(self, offset: int) -> tuple[str, int]:
        """The string starting at ``offset`` (its opening quote) and where it ends.

        The standard library's C ``scanstring`` reads it in one linear pass. A regular
        expression with one alternation per character would keep backtracking state for
        every character (gigabytes for a 20 MB string)."""
        try:
            value, end = _scanstring(self.text, offset + 1, True)
        except json.JSONDecodeError as error:
            raise self.string_problem(offset, error.pos) from None
        if _SURROGATE.search(value):
            raise self.fail(
                offset, "string holds a lone UTF-16 surrogate, which is not a character"
            )
        return value, end

    def string_problem(self, offset: int, position: int) -> JsonSyntaxError:
        """Why the string starting at ``offset`` is not strict JSON, from the place where
        ``scanstring`` stopped (read from the text, not from the wording of its message)."""
        text = self.text
        char = text[position] if offset < position < len(text) else ""
        if char == "\\":
            return self.fail(position, "invalid escape sequence in string")
        if char == "u" and text[position - 1] == "\\":  # a \u without four hex digits
            return self.fail(position - 1, "invalid escape sequence in string")
        if char and char != "\n" and ord(char) < 0x20:
            return self.fail(
                position, f"control character U+{ord(char):04X} must be escaped in a string"
            )
        if char == "" and _ends_with_lone_backslash(text, offset):
            return self.fail(len(text) - 1, "invalid escape sequence in string")
        return self.fail(offset, "unterminated string")

    def scalar(self, offset: int) -> int:
        """The end of the scalar at ``offset``; the scalar's value itself is not needed.
        Dispatched on the first character: this runs once per value of a hostile text."""
        text = self.text
        char = text[offset] if offset < len(text) else ""
        if char == '"':
            return self.string(offset)[1]
        match = _NUMBER.match(text, offset) if char in _NUMBER_START else None
        if match is not None:
            return self.number(offset, match)
        for constant in _NOT_JSON_CONSTANTS:
            if text.startswith(constant, offset):
                raise self.fail(offset, f"{constant} is not a JSON value")
        for literal in _LITERALS:
            if text.startswith(literal, offset):
                return offset + len(literal)
        raise self.fail(offset, f"expected a JSON value, found {self.describe(offset)}")

    def number(self, offset: int, match: re.Match[str]) -> int:
        """The end of the number ``match`` found at ``offset``, refusing what Python cannot
        hold: a float out of range, an integer past the interpreter's digit limit."""
        number = match.group()
        if match.lastindex is None:  # no fraction and no exponent: an integer
            limit = sys.get_int_max_str_digits()
            if limit and len(number) - number.startswith("-") > limit:
                raise self.fail(offset, f"integer has more than {limit} digits")
        elif math.isinf(float(number)):
            raise self.fail(offset, "number is out of range for a 64-bit float")
        return match.end()

    def run(self) -> None:
        text = self.text
        offset = self.skip(0)
        if offset >= len(text):
            raise self.fail(offset, "expected a JSON value, found the end of the file")
        stack: list[_Frame] = []
        path: tuple[str, ...] = ()
        while True:
            # A value starts at `offset`, belonging at `path`.
            if self.record:
                self.values[path] = offset
            char = text[offset] if offset < len(text) else ""
            if char in "{[":
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(offset, f"nested deeper than {MAX_DEPTH} levels")
                frame = _Frame(char == "{", path)
                stack.append(frame)
                offset = self.skip(offset + 1)
                closer = "}" if frame.is_object else "]"
                if offset < len(text) and text[offset] == closer:
                    offset += 1
                    stack.pop()
                else:
                    path, offset = self.open_member(frame, offset)
                    continue
            else:
                offset = self.scalar(offset)
            # The value ended: close containers or move to the next member.
            while True:
                if not stack:
                    end = self.skip(offset)
                    if end < len(text):
                        raise self.fail(end, "unexpected data after the JSON value")
                    return
                frame = stack[-1]
                offset = self.skip(offset)
                closer = "}" if frame.is_object else "]"
                if offset < len(text) and text[offset] == ",":
                    offset = self.skip(offset + 1)
                    path, offset = self.open_member(frame, offset)
                    break
                if offset < len(text) and text[offset] == closer:
                    offset += 1
                    stack.pop()
                    continue
                raise self.fail(
                    offset, f"expected ',' or '{closer}', found {self.describe(offset)}"
                )

    def open_member(self, frame: _Frame, offset: int) -> tuple[tuple[str, ...], int]:
        """Start the next member of ``frame`` at ``offset``: its path and where its value
        starts."""
        if not frame.is_object:
            path = (*frame.path, str(frame.count))
            frame.count += 1
            return path, offset
        if offset >= len(self.text) or self.text[offset] != '"':
            raise self.fail(
                offset, f"expected a string key in double quotes, found {self.describe(offset)}"
            )
        key, end = self.string(offset)
        if key in frame.keys:
            raise self.fail(offset, f"duplicate key {quote(key)}")
        frame.keys.add(key)
        path = (*frame.path, key)
        if self.record:
            self.keys[path] = offset
        end = self.skip(end)
        if end >= len(self.text) or self.text[end] != ":":
            raise self.fail(end, f"expected ':' after a key, found {self.describe(end)}")
        return path, self.skip(end + 1)


def _ends_with_lone_backslash(text: str, offset: int) -> bool:
    """Whether ``text`` ends in an odd run of backslashes after ``offset``: the last one
    escapes nothing (an even run is escaped backslashes, and the string is unterminated)."""
    start = len(text)
    while start > offset + 1 and text[start - 1] == "\\":
        start -= 1
    return (len(text) - start) % 2 == 1


def line_column(line_starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column (in code points) of a character offset."""
    line = bisect.bisect_right(line_starts, offset)
    return line, offset - line_starts[line - 1] + 1


def scan(source: str, text: str) -> PositionIndex:
    """Validate ``text`` strictly, raising ``JsonSyntaxError`` at the first problem, and
    index where every value and key starts."""
    scanner = _Scanner(source, text, record=True)
    scanner.run()
    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
    return PositionIndex(scanner.values, scanner.keys, line_starts)


def find_problem(source: str, text: str) -> None:
    """Raise ``JsonSyntaxError`` at the first problem of ``text`` in text order (nothing is
    indexed: time and memory stay linear in the text)."""
    _Scanner(source, text, record=False).run()


def locate(index: PositionIndex, text: str, path: Sequence[str | int]) -> tuple[int, int]:
    """Line and column for ``path``: a member's key where the path names one, else the value;
    the nearest existing ancestor when the path does not exist."""
    tokens = tuple(str(token) for token in path)
    for length in range(len(tokens), -1, -1):
        prefix = tokens[:length]
        if prefix in index.keys and length == len(tokens):
            return line_column(index.line_starts, index.keys[prefix])
        if prefix in index.values:
            return line_column(index.line_starts, index.values[prefix])
    return 1, 1


MAX_DEPTH: Final = 512
