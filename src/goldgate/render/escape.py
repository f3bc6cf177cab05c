"""Escaping data for GitHub-flavoured Markdown and for the HTML blocks inside it.

Everything that comes from gold, targets or a report file goes through ``markdown`` (or
``html`` inside an HTML block such as ``<summary>``) before it reaches a comment, so that
data can never:

- mention someone or link an issue or a commit: ``@team``, ``#123``, ``owner/repo#123``
  and ``GH-123`` are broken with a zero-width joiner after the ``@``, ``#`` or ``GH``, and
  a word of 7 to 40 hexadecimal digits (a commit id) every 6 digits (GitHub finds mentions
  and references in the rendered text, where a backslash escape is already gone);
- become HTML: ``<``, ``>`` and ``&`` become entities;
- end a table cell, open a code span, a link, an image, emphasis or strikethrough: ``|``,
  backticks, ``[``, ``]``, ``(``, ``)``, ``*``, ``_``, ``~``, ``!`` and ``\\`` are
  backslash-escaped;
- become an autolink: ``://`` and ``www.`` are broken with a zero-width joiner;
- start a line or hide what it says: newlines, control characters, zero-width characters
  and direction marks become spaces (``text.one_line``), before any of the above.
"""

from __future__ import annotations

import re
from functools import lru_cache

from goldgate.render import text

ZWJ = "\u200d"

_BACKSLASHED = str.maketrans(
    {
        **{character: "\\" + character for character in "\\`*_[]()|~!"},
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
    }
)
_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "|": "&#124;"})
_MENTION = re.compile(r"([@#＠＃])")
_AUTOLINK = re.compile(r"(?i)(:)(//)|(www)(\.)")
# GitHub links ``GH-12`` to issue 12 (``#12`` and ``owner/repo#12`` are broken at the
# ``#``), and a word of 7 to 40 hexadecimal digits to the commit it names.
_GH_REFERENCE = re.compile(r"(?i)(?<![0-9a-z_])(gh)(-[0-9])")
_HEX_WORD = re.compile(r"(?<![0-9A-Za-z_])[0-9A-Fa-f]{7,40}(?![0-9A-Za-z_])")
_HEX_PIECE = 6
"""Hexadecimal digits between two joiners: too few to name a commit."""


def _break_hex(match: re.Match[str]) -> str:
    word = match.group()
    return ZWJ.join(word[i : i + _HEX_PIECE] for i in range(0, len(word), _HEX_PIECE))


def _break_links(value: str) -> str:
    value = _MENTION.sub(r"\1" + ZWJ, value)
    value = _GH_REFERENCE.sub(r"\1" + ZWJ + r"\2", value)
    value = _HEX_WORD.sub(_break_hex, value)
    return _AUTOLINK.sub(
        lambda m: (m.group(1) or m.group(3)) + ZWJ + (m.group(2) or m.group(4)), value
    )


def markdown(value: object, limit: int = text.REASON_LIMIT) -> str:
    """``value`` as Markdown text that shows exactly what it says, on one line."""
    if type(value) is str and len(value) <= _REMEMBERED_LENGTH:
        return _remembered_markdown(value, limit)
    return _escaped_markdown(value, limit)


def _escaped_markdown(value: object, limit: int) -> str:
    return _break_links(text.one_line(value, limit).translate(_BACKSLASHED))


_REMEMBERED_LENGTH = 200
"""The longest text whose escaping is remembered (``_remembered_markdown``)."""

# A table's cells repeat (the suite, the change, the detail of thousands of rows): each short
# text is escaped once (a few regular expressions each), a few thousand remembered at most.
_remembered_markdown = lru_cache(maxsize=4096)(_escaped_markdown)


def html(value: object, limit: int = text.REASON_LIMIT) -> str:
    """``value`` as text inside an HTML block, where Markdown is not interpreted."""
    return _break_links(text.one_line(value, limit).translate(_HTML))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
LINK_BASE = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+")


def url_path(path: str) -> str:
    """A relative file path percent-encoded for a URL (``/`` kept)."""
    return "".join(
        character
        if character in _UNRESERVED
        else "".join(f"%{byte:02X}" for byte in character.encode("utf-8", "replace"))
        for character in path.replace("\\", "/")
    )


def check_link_base(base: str) -> str:
    """``base`` without a trailing slash, or ``ValueError``: it must be an http(s) URL with
    nothing that could end a Markdown link (spaces, parentheses, brackets, quotes)."""
    if not LINK_BASE.fullmatch(base):
        raise ValueError(
            "must be an http(s) URL without spaces, quotes, brackets or parentheses, "
            "e.g. https://github.com/OWNER/REPO/blob/COMMIT"
        )
    return base.rstrip("/")
