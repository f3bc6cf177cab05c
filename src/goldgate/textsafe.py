"""Quoting data from files in messages, so that no file can forge a line of output.

A newline in a case id would start a new line in a CI log (a fake ``verdict:`` line, an
``::error::`` workflow command); an ESC would drive the terminal. Messages show such
characters as visible escapes instead, and write JSON values as JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_UNESCAPED_CONTROL: Final = re.compile("[\x7f-\x9f]")

QUOTE_LIMIT: Final = 80
"""Characters of a quoted value a message shows; the rest is elided."""


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def escape_control(text: str) -> str:
    """``text`` with every control character (Unicode category Cc) written visibly: ``\\n``,
    ``\\r`` and ``\\t`` as those two characters, the others as ``\\x1b`` or ``\\u0085``."""
    return _CONTROL.sub(_visible, text)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (Unicode category Cc)."""
    return bool(_CONTROL.search(text))


def refuse_control(value: str) -> str:
    """``value`` unchanged, or ``ValueError`` when it holds a control character: names, ids
    and revisions are printed in summaries, CI logs and annotations, where a newline or an ESC
    could forge a line (a fake verdict, an ``::error::`` workflow command)."""
    if has_control(value):
        raise ValueError(
            f"names, ids and revisions must not hold control characters, found {quote(value)}"
        )
    return value


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A JSON value as a message shows it: JSON text (``null``, ``true``, ``"x"``), control
    characters escaped, at most about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_plain)
    except (TypeError, ValueError):
        text = escape_control(repr(value))
    # json escapes U+0000-U+001F itself; DEL and the C1 controls pass through unescaped.
    text = _JSON_UNESCAPED_CONTROL.sub(_json_escape, text)
    if len(text) > limit:
        return text[: limit - 1] + "…"
    return text


def _plain(value: Any) -> Any:
    # Frozen gold (read-only mappings, tuples) quotes like the JSON it came from.
    if hasattr(value, "items"):
        return dict(value.items())
    raise TypeError(type(value).__name__)


_URL_PARTS: Final = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)?(?P<authority>[^/?#]*)(?P<path>[^?#]*)"
    r"(?:\?(?P<query>[^#]*))?(?P<fragment>#.*)?",
    re.DOTALL,
)


def redact_url(url: str) -> str:
    """``url`` as messages and reports show it: user information (``user:pass@``) dropped,
    query values and any fragment replaced by ``…`` (query keys kept). Query strings carry
    API keys and signatures; neither belongs in a log or a report. Plain text work, so a
    malformed URL is redacted too; ``quote`` the result to escape control characters."""
    parts = _URL_PARTS.fullmatch(url)
    assert parts is not None  # every group is optional: any text matches
    host = parts["authority"].rpartition("@")[2]
    shown = f"{parts['scheme'] or ''}{host}{parts['path']}"
    if parts["query"] is not None:
        keys = [field.partition("=") for field in parts["query"].split("&")]
        shown += "?" + "&".join(key + ("=…" if equals else "") for key, equals, _ in keys)
    if parts["fragment"] is not None:
        shown += "#…"
    return shown
