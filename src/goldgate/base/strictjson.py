"""Strict JSON with positions: text that is not strict JSON (duplicate keys, NaN, lone
surrogates, nesting past ``MAX_DEPTH``) is refused with its 1-based line and column.

Loading takes the fast path through the standard library and only falls back to the slower
position-aware scanner (``_scanner``) when something is wrong or a caller needs the line and
column of a value, so that clean gold loads at C speed.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

import orjson

from goldgate.base._scanner import MAX_DEPTH
from goldgate.base.errors import InvalidInputError, JsonRejected, JsonSyntaxError
from goldgate.base.files import read_regular_file
from goldgate.base.jsonvalue import JsonValue
from goldgate.base.memorylimit import memory_left

_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class JsonDocument:
    """A strictly parsed JSON text, able to say where each of its values starts."""

    source: str
    text: str
    value: JsonValue
    _index: list[Any] = field(default_factory=list, repr=False, compare=False)

    def position(self, path: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of the value at ``path`` (or of the key, where ``path`` names an
        object member); the nearest existing ancestor when the path does not exist."""
        from goldgate.base._scanner import locate

        if not self._index:
            self._index.append(_scan_positions(self.source, self.text))
        return locate(self._index[0], self.text, path)


def _scan_positions(source: str, text: str) -> Any:
    from goldgate.base._scanner import scan

    return scan(source, text)


def _reject_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise JsonRejected
    return result


def _reject_constant(name: str) -> Any:
    raise JsonRejected


def finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise JsonRejected
    return number


def decode_utf8(source: str, data: bytes) -> str:
    """The text of ``data``, refusing a byte order mark and invalid UTF-8 with their place."""
    if data.startswith(_UTF8_BOM):
        raise JsonSyntaxError(source, 1, 1, "starts with a UTF-8 byte order mark; save it without")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = utf8_error_place(data, error)
        raise JsonSyntaxError(
            source, line, column, f"invalid UTF-8 (byte 0x{data[error.start]:02x})"
        ) from None


def utf8_error_place(data: bytes, error: UnicodeDecodeError) -> tuple[int, int]:
    """The 1-based line and column (in characters) of the first byte of ``data`` that is not
    UTF-8, as ``error`` from decoding it found it."""
    prefix = data[: error.start].decode("utf-8")
    return prefix.count("\n") + 1, len(prefix) - (prefix.rfind("\n") + 1) + 1


# A lone UTF-16 surrogate (escaped, or a raw one in a str that did not come from UTF-8) is
# not a Unicode character: it cannot be written back as UTF-8, hashed or printed.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


_RAW_SURROGATE = re.compile("[\ud800-\udfff]")


class _Marks(NamedTuple):
    """What ``keys_surely_unique`` and ``too_deep_or_surrogates`` look for, in text (str) or
    in UTF-8 bytes looked at in place: every one is ASCII, so the same bytes as text."""

    escape: Any  # where an escaped surrogate may start
    escaped_surrogate: re.Pattern[Any]
    colon_escape: Any  # where an escaped colon may start
    escaped_colon: re.Pattern[Any]
    colon: Any
    array: Any
    object: Any


_MARKS: Final[dict[type, _Marks]] = {
    str: _Marks("\\u", _ESCAPED_SURROGATE, "\\u003", re.compile(r"\\u003[aA]"), ":", "[", "{"),
    bytes: _Marks(
        b"\\u", re.compile(rb"\\u[dD][89a-fA-F]"), b"\\u003", re.compile(rb"\\u003[aA]"),
        b":", b"[", b"{",
    ),
}  # fmt: skip


def _may_hold_surrogates(text: str, start: int = 0, end: int | None = None) -> bool:
    end = len(text) if end is None else end
    # Two simple searches: one alternation of both was four times slower on large gold.
    return _escaped_surrogate_in(text, start, end) or bool(_RAW_SURROGATE.search(text, start, end))


def _escaped_surrogate_in(text: str | bytes, start: int, end: int) -> bool:
    marks = _MARKS[type(text)]
    return text.find(marks.escape, start, end) >= 0 and bool(
        marks.escaped_surrogate.search(text, start, end)
    )


def parse_json_text(source: str, text: str) -> JsonDocument:
    """Strict JSON: duplicate keys, NaN/Infinity, out-of-range numbers, trailing data,
    control characters and lone surrogates in strings are errors naming ``source``, line and
    column."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_reject_pairs,
            parse_constant=_reject_constant,
            parse_float=finite_float,
        )
    except (ValueError, JsonRejected, RecursionError) as error:  # ValueError: too many digits
        from goldgate.base._scanner import find_problem

        find_problem(source, text)  # raises JsonSyntaxError at the first problem
        if isinstance(error, RecursionError):
            raise JsonSyntaxError(source, 1, 1, "nested too deeply to load") from None
        if isinstance(error, json.JSONDecodeError):  # pragma: no cover - scanner is stricter
            raise JsonSyntaxError(source, error.lineno, error.colno, error.msg) from None
        raise JsonSyntaxError(source, 1, 1, "not strict JSON") from None  # pragma: no cover
    if too_deep_or_surrogates(text, value):
        from goldgate.base._scanner import scan

        index = scan(source, text)  # raises JsonSyntaxError at a lone surrogate or too deep
        if _depth(value) > MAX_DEPTH:  # pragma: no cover - the scanner refuses it first
            raise JsonSyntaxError(source, 1, 1, "nested too deeply to load")
        return JsonDocument(source, text, value, [index])
    return JsonDocument(source, text, value)


def strict_decoder(parse_float: Callable[[str], float] | None = None) -> json.JSONDecoder:
    """The standard library's decoder with ``parse_json_text``'s strict hooks; what it refuses
    raises ``ValueError`` or ``JsonRejected`` (lone surrogates and depth are checked apart,
    by ``too_deep_or_surrogates``). ``parse_float`` replaces the float hook (it must refuse
    what ``finite_float`` refuses)."""
    return json.JSONDecoder(
        object_pairs_hook=_reject_pairs,
        parse_constant=_reject_constant,
        parse_float=parse_float or finite_float,
    )


def keyless_decoder(parse_float: Callable[[str], float]) -> json.JSONDecoder:
    """``strict_decoder`` without its duplicate-key hook, which is most of its cost (a Python
    call and a list of pairs for every object): what it decodes is strict once
    ``keys_surely_unique`` says so; otherwise decode it again with ``strict_decoder``."""
    return json.JSONDecoder(parse_constant=_reject_constant, parse_float=parse_float)


def keys_surely_unique(text: str | bytes, start: int, end: int, value: JsonValue) -> bool:
    """Whether no object of ``value``, decoded from ``text[start:end]`` by a decoder that keeps
    the last of repeated keys (``keyless_decoder``), repeated a key. False also when it cannot
    tell (then decode with ``strict_decoder``, which knows). ``text`` may be the UTF-8 bytes
    ``value`` was decoded from, looked at without decoding them: a colon is one byte in UTF-8,
    never part of another character, so the bytes hold as many as the text.

    Every member of an object in the text has one colon outside strings, so the text's colons
    are its members plus the colons written inside its strings. orjson writes the decoded value
    with one colon per member kept and the colons of the strings kept. Without an escaped colon
    (``\\u003a``) a string holds as many colons decoded as written; so the two counts are equal
    when no member was dropped, and the written value has fewer when one was (a repeated key:
    one member, its key and its value are gone)."""
    if type(value) is not dict and type(value) is not list:
        return True  # a scalar has no keys
    marks = _MARKS[type(text)]
    if text.find(marks.colon_escape, start, end) >= 0 and marks.escaped_colon.search(
        text, start, end
    ):
        return False
    try:
        written = written_colons(value)
    except TypeError:  # an integer past 64 bits, or a lone surrogate: strict_decoder decides
        return False
    return written == text.count(marks.colon, start, end)


@functools.cache
def _memory_limited() -> bool:
    """Whether a memory limit applies to this process (it does not change while it runs)."""
    try:
        return memory_left() is not None
    except InvalidInputError:  # a GOLDGATE_MEMORY_LIMIT that is not a number: said elsewhere
        return True


def written_colons(value: Any) -> int:
    """The colons of ``value`` written as compact JSON: by orjson where no memory limit
    applies; under one, by the standard library, which raises MemoryError when short (the
    sentence of a report too large to read). orjson's writer crashes the process instead, and
    sets aside about 256 bytes of address space for each element of an array it writes, so
    that 4 million small numbers (8 MB written) take a gigabyte for a moment.
    ``TypeError``: orjson cannot write it (an integer past 64 bits, a lone surrogate)."""
    if not _memory_limited():
        return orjson.dumps(value).count(b":")
    return json.dumps(value, separators=(",", ":")).count(":")


def too_deep_or_surrogates(
    text: str | bytes,
    value: JsonValue,
    *,
    from_utf8: bool = False,
    start: int = 0,
    end: int | None = None,
) -> bool:
    """Whether ``value``, parsed from ``text[start:end]``, holds a lone surrogate or nests past
    the limit: what the strict parser refuses beyond the decoder's hooks. Text decoded
    strictly from UTF-8 (``from_utf8``), and valid UTF-8 bytes (looked at without decoding
    them), cannot hold a raw surrogate, only an escaped one."""
    end = len(text) if end is None else end
    if isinstance(text, str) and not from_utf8:
        may_hold = _may_hold_surrogates(text, start, end)
    else:
        may_hold = _escaped_surrogate_in(text, start, end)
    # An escaped pair (an emoji written "\\ud83d\\ude00") is one character once decoded:
    # only a surrogate left in the decoded strings is refused.
    if may_hold and _holds_surrogate(value):
        return True
    # Cheap (C speed) and necessary: deeper nesting needs more brackets than the limit, and so
    # more characters (most cases are shorter: not counted at all). Bytes are at least as many
    # as characters: only a quick bound, which the value's own depth then settles.
    marks = _MARKS[type(text)]
    return (
        end - start > MAX_DEPTH
        and text.count(marks.array, start, end) + text.count(marks.object, start, end) > MAX_DEPTH
        and _depth(value) > MAX_DEPTH
    )


def _holds_surrogate(value: JsonValue) -> bool:
    """Whether any string in ``value`` (a key or a value) holds a UTF-16 surrogate."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is str:
            if _RAW_SURROGATE.search(item):
                return True
        elif type(item) is dict:
            pending.extend(item)
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return False


def nests_too_deep(value: JsonValue) -> bool:
    """Whether containers nest in ``value`` deeper than ``MAX_DEPTH`` (for JSON parsed by
    another reader, such as an event payload)."""
    return _depth(value) > MAX_DEPTH


def _depth(value: JsonValue) -> int:
    """How deeply containers nest in ``value`` (a scalar is 0), level by level, looking only
    at containers; it stops counting once past the limit."""
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level and depth <= MAX_DEPTH:
        depth += 1
        deeper: list[JsonValue] = []
        for container in level:
            items = container.values() if type(container) is dict else container
            deeper.extend([item for item in items if type(item) in (dict, list)])
        level = deeper
    return depth


def load_json_file(path: Path, *, display: str | None = None) -> JsonDocument:
    """Read and strictly parse one JSON file; unreadable files are input errors too (only a
    regular file within the size cap is read, see ``goldgate.base.files``)."""
    source = display or str(path)
    data = read_regular_file(path, source, what="a JSON file")
    return parse_json_text(source, decode_utf8(source, data))
