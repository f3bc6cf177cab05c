"""Where each case starts in its gold file: the 1-based line of its opening brace.

Reports, annotations and links name a case's line. The position-aware scanner that error
messages use walks the text in Python, character by character, and would slow ``--check``
on large gold; here the standard library's C decoder skips every value whole
(``raw_decode``), so finding every case's line costs about one more parse of the file.
The text has been checked strictly before this runs: it is valid JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


def _end_of_value(text: str, index: int) -> int:
    return int(_DECODER.raw_decode(text, index)[1])


def _members(text: str, index: int) -> Iterator[tuple[str | int, int]]:
    """(key or position, offset) of each member of the object or array at ``index``, lazily:
    a member's value is skipped only when the next one is asked for."""
    opening = text[index]
    closing = "}" if opening == "{" else "]"
    index = _skip(text, index + 1)
    if text[index] == closing:
        return
    position = 0
    while True:
        key: str | int = position
        if opening == "{":
            key, index = _DECODER.raw_decode(text, index)
            index = _skip(text, _skip(text, index) + 1)  # past the colon
        yield key, index
        position += 1
        index = _skip(text, _end_of_value(text, index))
        if text[index] == closing:
            return
        index = _skip(text, index + 1)  # past the comma


def element_offsets(text: str, path: Sequence[str | int]) -> list[int]:
    """The offset of each element of the array at ``path`` in the JSON ``text``."""
    index = _skip(text, 0)
    for part in path:
        index = next(offset for key, offset in _members(text, index) if key == part)
    return [offset for _, offset in _members(text, index)]


def element_lines(text: str, path: Sequence[str | int]) -> tuple[int, ...]:
    """The 1-based line on which each element of the array at ``path`` starts."""
    lines: list[int] = []
    line, previous = 1, 0
    for offset in element_offsets(text, path):
        line += text.count("\n", previous, offset)
        previous = offset
        lines.append(line)
    return tuple(lines)
