"""The structure of an HTML page, for golden files that change when the page's structure
does, not when a figure moves by a pixel or the script is edited: one line per element,
indented by depth, with its tag, its id, class, role, aria-* and data-* attributes and its
own text; the inline style and script as one line each; the case table's JSON one row a
line; digests (``sha256:`` and 64 hexadecimal digits, such as a configuration's revision,
which holds the run's folder) as ``sha256:<digest>`` and commits (40 hexadecimal digits, the
example's revision) as ``<commit>``. Parsed with the standard library's
``html.parser`` (as a browser would tokenize it), so markup smuggled in by data would show
up here as elements."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
COMMIT = re.compile(r"\b[0-9a-f]{40}\b")

VOID = frozenset({"meta", "link", "input", "br", "img", "hr", "col", "source", "wbr"})
KEPT = ("id", "class", "role", "type", "value", "href", "colspan", "hidden")
"""Attributes that say what an element is, besides every aria-* and data-* one."""


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.stack: list[str] = []
        self.raw: str | None = None
        self.data = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        shown = [
            f'{name}="{value}"' if value is not None else name
            for name, value in attrs
            if name in KEPT or name.startswith(("aria-", "data-"))
        ]
        self.lines.append("  " * len(self.stack) + " ".join([f"<{tag}", *shown]) + ">")
        if tag not in VOID:
            self.stack.append(tag)
        if tag in ("script", "style"):
            self.raw = "json" if ("type", "application/json") in attrs else tag
            self.data = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.raw is not None:
            self._raw()
        while self.stack:
            if self.stack.pop() == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.raw is not None:
            self.data += data
            return
        text = " ".join(data.split())
        if text:
            self.lines.append("  " * len(self.stack) + text)

    def _raw(self) -> None:
        indent = "  " * len(self.stack)
        if self.raw == "json":
            data = json.loads(self.data)
            for key, value in data.items():
                if isinstance(value, list) and key in ("rows", "details"):
                    self.lines.append(f"{indent}{key}:")
                    self.lines += [
                        f"{indent}  {json.dumps(item, ensure_ascii=False)}" for item in value
                    ]
                else:
                    self.lines.append(f"{indent}{key}: {json.dumps(value, ensure_ascii=False)}")
        else:
            self.lines.append(f"{indent}(inline {self.raw})")
        self.raw = None


def outline(page: str) -> str:
    """The structure of ``page`` (see the module)."""
    parser = _Outline()
    parser.feed(page)
    parser.close()
    shown = DIGEST.sub("sha256:<digest>", "\n".join(parser.lines) + "\n")
    return COMMIT.sub("<commit>", shown)
