"""Quoting data from files in messages, so that no file can forge a line of output.

A newline in a case id would start a new line in a CI log (a fake ``verdict:`` line, an
``::error::`` workflow command); an ESC would drive the terminal. Messages show such
characters as visible escapes instead, and write JSON values as JSON.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
# Shown as escapes in messages: the controls, line separators (a line break to some
# readers) and the zero-width and direction marks that make text read as it is not.
_HIDDEN: Final = "\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff"
_ESCAPED: Final = re.compile(f"[\x00-\x1f\x7f-\x9f{_HIDDEN}]")
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_UNESCAPED_CONTROL: Final = re.compile(f"[\x7f-\x9f{_HIDDEN}]")

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
    ``\\r`` and ``\\t`` as those two characters, the others as ``\\x1b`` or ``\\u0085``;
    line separators, zero-width and direction marks too (``\\u2028``, ``\\u202e``)."""
    return _ESCAPED.sub(_visible, text)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (Unicode category Cc)."""
    return bool(_CONTROL.search(text))


_LINE_SEPARATORS: Final = re.compile("[\u2028\u2029]")
# What may stand before a workflow command at the start of a line: the runner trims
# whitespace (.NET's, a subset of Python's), and zero-width and direction marks and terminal
# colour sequences (rich's, on a terminal) are invisible, so a line they start reads as if
# ``::`` began it.
_BLANK_OR_FORMAT: Final = re.compile(
    "(?:[\\s\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f]|\x1b\\[[0-9;?]*[ -/]*[@-~])*"
)


def _lead(line: str) -> int:
    """Where ``line``'s first visible character is."""
    blank = _BLANK_OR_FORMAT.match(line)
    return blank.end() if blank else 0


def starts_command(line: str) -> bool:
    """Whether ``line`` would read as a GitHub workflow command: ``::`` after nothing but
    whitespace and invisible characters."""
    return line.startswith("::", _lead(line))


def refuse_control(value: str) -> str:
    """``value`` unchanged, or ``ValueError`` when it holds a control character or a line
    separator, or starts with ``::``: names, ids and revisions are printed in summaries, CI
    logs and annotations, where a newline or an ESC could forge a line (a fake verdict, an
    ``::error::`` workflow command), and a name at the start of a line could be one."""
    if has_control(value) or _LINE_SEPARATORS.search(value):
        raise ValueError(
            f"names, ids and revisions must not hold control characters, found {quote(value)}"
        )
    if starts_command(value):
        raise ValueError(
            "names, ids and revisions must not start with '::' (the runner would read a line "
            f"they start as a workflow command), found {quote(value)}"
        )
    return value


def printable(text: str) -> str:
    """``text`` safe to print to a CI log: no line of it can be read as a workflow command.
    The one way goldgate's output reaches stdout and stderr (``goldgate.base.stdio``,
    ``goldgate.app.progress``); only goldgate's own workflow commands, whose data is escaped
    inside them, bypass it.

    A line (ended by CR, LF or any other line break) whose first visible characters are
    ``::`` gets ``: :`` instead, so neither a forged annotation, a mask nor
    ``::stop-commands::`` (which would silence goldgate's own commands) gets through; every
    ``##[`` (the old command form, recognised anywhere in a line) becomes ``# #[``. Nothing
    else changes, so the log still reads as the data did. Known secret values are redacted
    first (``redact``)."""
    text = redact(text)
    if "::" not in text and "##[" not in text:
        return text
    safe: list[str] = []
    for piece in text.splitlines(keepends=True):
        start = _lead(piece)
        line = f"{piece[:start]}: :{piece[start + 2 :]}" if piece.startswith("::", start) else piece
        safe.append(line.replace("##[", "# #["))
    return "".join(safe)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A JSON value as a message shows it: JSON text (``null``, ``true``, ``"x"``), control
    characters escaped, at most about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_plain)
    except (TypeError, ValueError):
        text = escape_control(repr(value))
    # json escapes U+0000-U+001F itself; DEL, the C1 controls and the hidden marks do not.
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


# --- known secret values, redacted from everything rendered or printed ---------------------

REDACTED: Final = "***"
SECRET_MIN_LENGTH: Final = 4
"""Values shorter than this are not redacted: a secret of one to three characters guards
nothing, and replacing every ``a`` or ``on`` of a report would make it unreadable (the
runner's ``::add-mask::`` has the same blind spot for what it cannot tell from text)."""
TOKEN_VARIABLES: Final = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)
"""The GitHub and Actions tokens: always secret, wherever goldgate runs."""

_secret_variables: list[str] = list(TOKEN_VARIABLES)
_secret_values: list[str] = []
_active: tuple[str, ...] = ()
_active_from: tuple[str | None, ...] | None = None


def note_secret_variables(names: Iterable[str]) -> None:
    """Environment variables whose values are secret (the credentials the settings name):
    their values, as the environment holds them when something is rendered, are redacted
    from every rendered and printed text of this process."""
    global _active_from  # noqa: PLW0603 - one process, one set of secrets
    for name in names:
        if name not in _secret_variables:
            _secret_variables.append(name)
            _active_from = None


def note_secret_values(values: Iterable[str]) -> None:
    """Values that are secret whatever variable holds them (those the action masks)."""
    global _active_from  # noqa: PLW0603 - one process, one set of secrets
    for value in values:
        if value and value not in _secret_values:
            _secret_values.append(value)
            _active_from = None


def _forms(value: str) -> Iterator[str]:
    """``value`` as it may stand in text: itself, each of its lines (the runner masks line
    by line) and as inside a JSON string (a rendered value is JSON)."""
    for piece in (value, *value.splitlines()):
        yield piece
        yield json.dumps(piece, ensure_ascii=False)[1:-1]
        yield json.dumps(piece)[1:-1]


def secret_values(*, fresh: bool = True) -> tuple[str, ...]:
    """Every known secret value, in the forms text may hold it, longest first: as the
    environment holds them now, or (not ``fresh``) when last asked, which is what a
    renderer wants for each string (reading the environment costs more than redacting;
    ``render.view.build_view`` asks afresh once per rendering)."""
    global _active, _active_from  # noqa: PLW0603 - one process, one set of secrets
    if not fresh and _active_from is not None:
        return _active
    source = (*(os.environ.get(name) for name in _secret_variables), *_secret_values)
    if source != _active_from:
        forms = {
            form
            for value in source
            if value
            for form in _forms(value)
            if len(form.strip()) >= SECRET_MIN_LENGTH
        }
        _active = tuple(sorted(forms, key=len, reverse=True))
        _active_from = source
    return _active


def redact(text: str, *, fresh: bool = True) -> str:
    """``text`` with every known secret value (``secret_values``) replaced by ``***``. Done
    before any escaping or shortening, so that neither can split a secret from its match."""
    for secret in secret_values(fresh=fresh):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
