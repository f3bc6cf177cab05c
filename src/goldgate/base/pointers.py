"""RFC 6901 JSON pointers: parsed once, formatted back, and resolved, an absent value being
``MISSING`` (never ``null``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.jsonvalue import MISSING, is_array
from goldgate.base.textsafe import quote

_TOKEN_ESCAPE = re.compile(r"~(?![01])")


_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The reference tokens of an RFC 6901 pointer, unescaped (``~1`` before ``~0``)."""
    if not isinstance(pointer, str):
        raise PointerSyntaxError("a JSON pointer must be a string")
    return _parse_pointer_text(pointer)


@lru_cache(maxsize=4096)  # gold repeats the same few paths across thousands of cases
def _parse_pointer_text(pointer: str) -> tuple[str, ...]:
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise PointerSyntaxError(f"JSON pointer {quote(pointer)} must be empty or start with '/'")
    if _TOKEN_ESCAPE.search(pointer):
        raise PointerSyntaxError(
            f"JSON pointer {quote(pointer)} has a '~' that is not '~0' or '~1'"
        )
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/"))


def format_pointer(tokens: Iterable[str | int]) -> str:
    """The RFC 6901 pointer for a sequence of object keys and array indexes."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in tokens)


def resolve(document: Any, tokens: Sequence[str]) -> Any:
    """The value at ``tokens``, or ``MISSING`` when there is none (``-`` is always absent)."""
    current = document
    for token in tokens:
        # Result documents are plain dicts: the exact type test spares the ABC check, and
        # one lookup does for both asking and taking (no JSON value is MISSING).
        if type(current) is dict:
            current = current.get(token, MISSING)
            if current is MISSING:
                return MISSING
        elif isinstance(current, Mapping):
            if token not in current:
                return MISSING
            current = current[token]
        elif is_array(current):
            if not _ARRAY_INDEX.fullmatch(token):
                return MISSING
            index = int(token)
            if index >= len(current):
                return MISSING
            current = current[index]
        else:
            return MISSING
    return current


def resolve_pointer(document: Any, pointer: str) -> Any:
    """``resolve`` for a pointer string; a malformed pointer raises ``PointerSyntaxError``."""
    return resolve(document, parse_pointer(pointer))
