"""What every rendered output must satisfy, as functions the tests share."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt

from goldgate.render.escape import ZWJ

_OUR_HTML = re.compile(
    r"^(<details><summary>.*</summary>|</details>|<!-- goldgate:[A-Za-z0-9_.:-]+ -->)\n?$"
)
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def starts_workflow_command(line: str) -> bool:
    # The runner trims leading whitespace before it looks for '::'.
    return line.lstrip().startswith("::")


def no_workflow_commands(text: str) -> None:
    """No line of ``text`` can be read as a workflow command."""
    offending = [line for line in text.splitlines() if starts_workflow_command(line)]
    assert offending == []


def markdown_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _cells(line: str) -> int:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return len(_CELL_SPLIT.split(inner))


def markdown_is_safe(document: str, link_base: str | None = None) -> None:
    """Tables are closed and every row has the header's cell count; the only HTML is ours;
    the only links are to the gold; no mention, issue reference, emphasis or code span
    comes from data; no line starts a workflow command."""
    no_workflow_commands(document)
    lines = document.splitlines()
    tokens = markdown_parser().parse(document)
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            assert token.map is not None
            start, end = token.map
            rows = [line for line in lines[start:end] if line.strip()]
            header = _cells(rows[0])
            assert re.fullmatch(r"\|(---\|)+", rows[1]), rows[1]
            for row in rows:
                assert row.startswith("|"), row
                assert row.endswith("|"), row
                assert _cells(row) == header, row
        if token.type == "html_block":
            for line in token.content.splitlines():
                assert _OUR_HTML.match(line), line
        if token.type == "inline":
            for child in token.children or []:
                _inline_is_safe(child, link_base, tokens[index - 1].type)


def _inline_is_safe(token: Any, link_base: str | None, parent: str) -> None:
    assert token.type not in ("html_inline", "code_inline", "image", "em_open", "s_open"), token
    if token.type == "strong_open":
        return
    if token.type == "link_open":
        href = token.attrs["href"]
        assert link_base is not None, href
        assert str(href).startswith(link_base + "/"), href
    if token.type == "text":
        content = token.content
        assert not re.search(r"@(?!" + ZWJ + r")\w", content), content
        assert not re.search(r"#(?!" + ZWJ + r")\d", content), content
        assert "://" not in content, content
        assert not re.search(r"(?i)www\.", content), content
        assert not re.search(r"(?i)\bgh-\d", content), content
        assert not re.search(r"(?<![0-9A-Za-z_])[0-9A-Fa-f]{7,40}(?![0-9A-Za-z_])", content)
        # Zero-width characters and direction marks from data are gone; the only one left
        # is the joiner that breaks a mention, a reference or a commit id.
        hidden = re.findall("[\u200b\u200c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]", content)
        assert not hidden, content
