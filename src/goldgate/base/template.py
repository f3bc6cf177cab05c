"""Message templates: text with ``{/json/pointer}`` placeholders filled from a case envelope.

The ``model`` target builds its chat messages with them (``system`` and ``prompt``). The
syntax is deliberately small, so that settings hold no code: ``{`` opens a placeholder that
holds one RFC 6901 pointer into the envelope and ``}`` closes it; ``{{`` and ``}}`` are a
literal brace. A string value is put in as it is; any other JSON value as compact JSON text.
A template is parsed once when settings load (a bad one is refused there, at its place) and
filled per attempt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from goldgate.base.errors import PointerSyntaxError, TemplateError
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import parse_pointer, resolve

__all__ = ["Template", "parse_template"]


@dataclass(frozen=True)
class Template:
    """A parsed template: literal text and pointers, alternately (``parts[0]`` is text)."""

    parts: tuple[str | tuple[str, ...], ...]
    pointers: tuple[str, ...]

    def fill(self, envelope: Mapping[str, Any]) -> str:
        """The text with each placeholder replaced by the envelope's value at its pointer;
        ``TemplateError`` naming the pointer when the envelope has nothing there."""
        pieces: list[str] = []
        pointer_index = 0
        for part in self.parts:
            if isinstance(part, str):
                pieces.append(part)
                continue
            value = resolve(envelope, part)
            if value is MISSING:
                raise TemplateError(
                    f"the template's {self.pointers[pointer_index]} is absent from the case input"
                )
            pointer_index += 1
            pieces.append(value if isinstance(value, str) else _compact(value))
        return "".join(pieces)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_thawed)


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(type(value).__name__)


def parse_template(text: str) -> Template:
    """``text`` parsed; ``TemplateError`` for an unclosed or empty placeholder, a lone ``}``
    or a placeholder that is not a JSON pointer."""
    parts: list[str | tuple[str, ...]] = []
    pointers: list[str] = []
    literal: list[str] = []
    position = 0
    while position < len(text):
        char = text[position]
        if text.startswith("{{", position) or text.startswith("}}", position):
            literal.append(char)
            position += 2
        elif char == "{":
            end = text.find("}", position)
            if end < 0:
                raise TemplateError(
                    f"a placeholder opened at character {position + 1} is not closed"
                )
            pointer = text[position + 1 : end]
            try:
                tokens = parse_pointer(pointer)
            except PointerSyntaxError:
                raise TemplateError(
                    f"the placeholder at character {position + 1} is not a JSON pointer "
                    "such as {/payload/message}"
                ) from None
            if not tokens:
                raise TemplateError(
                    f"the placeholder at character {position + 1} names the whole input; "
                    "name a value such as {/payload/message}"
                )
            parts.append("".join(literal))
            parts.append(tokens)
            pointers.append(pointer)
            literal = []
            position = end + 1
        elif char == "}":
            raise TemplateError(
                f"a lone '}}' at character {position + 1}: write '}}}}' for a literal brace"
            )
        else:
            literal.append(char)
            position += 1
    parts.append("".join(literal))
    return Template(tuple(parts), tuple(pointers))
