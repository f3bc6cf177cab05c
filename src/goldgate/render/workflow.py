"""GitHub Actions workflow commands and environment files, as text.

The runner reads a step's stdout line by line and obeys any line that starts with ``::``
(after leading whitespace), so anything that comes from data (case ids, messages, a
target's output) must be escaped inside a command and neutralized outside one; otherwise a
gold file could mask a log, forge an annotation or stop command processing. Outputs go
through the ``GITHUB_OUTPUT`` file with a random heredoc delimiter, so that a value cannot
end its own entry and set another output. Pure functions over strings, plus two appends to
the files the runner names; nothing here talks to the network.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from goldgate.base.textsafe import printable

AnnotationKind = Literal["error", "warning", "notice"]
ANNOTATION_KINDS: tuple[AnnotationKind, ...] = ("error", "warning", "notice")

# The runner shows at most 10 annotations of each kind per step and drops the rest silently.
ANNOTATIONS_PER_KIND = 10

# Line breaks in the log as the runner reads a step's output (.NET ReadLine): CRLF, CR or LF.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def escape_data(text: str) -> str:
    """Escape a command's message (the part after the second ``::``): ``%``, CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command's property value: as ``escape_data``, plus ``:`` and ``,``, which
    would otherwise end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Annotation:
    """One annotation: its kind, message and optionally where and under what title."""

    kind: AnnotationKind
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None

    def command(self) -> str:
        return annotation(self.kind, self.message, file=self.file, line=self.line, title=self.title)


def annotation(
    kind: AnnotationKind,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    """The workflow command for one annotation: ``::error file=F,line=L,title=T::message``."""
    if kind not in ANNOTATION_KINDS:
        raise ValueError(f"annotation kind {kind!r} is not one of error, warning, notice.")
    if line is not None and (isinstance(line, bool) or line < 1):
        raise ValueError(f"annotation line {line!r} is not a line number (1 or more).")
    properties = [
        f"{key}={escape_property(str(value))}"
        for key, value in (("file", file), ("line", line), ("title", title))
        if value is not None
    ]
    head = f"::{kind} {','.join(properties)}" if properties else f"::{kind}"
    return f"{head}::{escape_data(message)}"


def limit_annotations(
    items: Iterable[Annotation],
    per_kind: int = ANNOTATIONS_PER_KIND,
    *,
    rest_in: str = "the job summary",
) -> list[Annotation]:
    """The first ``per_kind`` annotations of each kind, in their order, so the runner drops
    none silently; when any are left out, a last notice counts them and says where they are.
    That notice is itself one of the ``per_kind`` notices."""
    if per_kind < 1:
        raise ValueError("per_kind must be at least 1.")
    annotations = list(items)
    totals = Counter(item.kind for item in annotations)
    overflow = any(count > per_kind for count in totals.values())
    room = dict.fromkeys(ANNOTATION_KINDS, per_kind)
    if overflow:
        room["notice"] = per_kind - 1
    kept: list[Annotation] = []
    for item in annotations:
        if room[item.kind] > 0:
            room[item.kind] -= 1
            kept.append(item)
    if overflow:
        shown = Counter(item.kind for item in kept)
        left = [
            f"{totals[kind] - shown[kind]} {kind}{'s' if totals[kind] - shown[kind] != 1 else ''}"
            for kind in ANNOTATION_KINDS
            if totals[kind] > shown[kind]
        ]
        kept.append(
            Annotation(
                "notice",
                f"{_join(left)} more than GitHub shows were left out; see {rest_in}.",
                title="goldgate: more annotations",
            )
        )
    return kept


def add_mask(value: str) -> str:
    """The command(s) that mask ``value`` in the rest of the log: one per line of it, since
    the runner matches masks line by line. Empty for a blank value (nothing to hide)."""
    lines = [line for line in _LINE_BREAK.split(value) if line.strip()]
    return "\n".join(f"::add-mask::{escape_data(line)}" for line in lines)


def neutralize_commands(text: str) -> str:
    """``text`` safe to print to the log: ``goldgate.base.textsafe.printable``, the one function
    every line goldgate prints goes through."""
    return printable(text)










def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
