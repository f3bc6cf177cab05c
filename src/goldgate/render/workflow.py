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
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from goldgate.base.textsafe import printable

AnnotationKind = Literal["error", "warning", "notice"]
ANNOTATION_KINDS: tuple[AnnotationKind, ...] = ("error", "warning", "notice")

# The runner shows at most 10 annotations of each kind per step and drops the rest silently.
ANNOTATIONS_PER_KIND = 10
# The job summary of one step may be at most 1 MiB; over it, the runner drops it whole.
SUMMARY_LIMIT = 1024 * 1024

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
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


def write_outputs(path: Path | str, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to the ``GITHUB_OUTPUT`` file, each as ``name<<DELIMITER``, the
    value, then the delimiter: a fresh random delimiter per value, never one the value
    contains, so no value can end early and set an output of its own."""
    entries: list[str] = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.fullmatch(name):
            raise ValueError(
                f"output name {name!r} must be letters, digits, '_' or '-', "
                "starting with a letter or '_'."
            )
        delimiter = _delimiter_for(value)
        entries.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with open(path, "a", encoding="utf-8", newline="") as file:
        file.write("".join(entries))


def append_summary(
    path: Path | str,
    markdown: str,
    limit: int = SUMMARY_LIMIT,
    *,
    rest_in: str = "the report",
) -> bool:
    """Append ``markdown`` to the job summary file ``GITHUB_STEP_SUMMARY``.

    The runner refuses a step's summary over ``limit`` bytes (1 MiB) and shows nothing, so
    what would pass it is cut at a line boundary and ends with a note saying so and where the
    rest is (``rest_in``). Returns whether everything fit."""
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    text = markdown if markdown.endswith("\n") or not markdown else markdown + "\n"
    room = limit - used
    complete = len(text.encode("utf-8")) <= room
    if not complete:
        note = (
            "\n> The job summary was cut here: GitHub shows at most 1 MiB of it per step; "
            f"the rest is in {rest_in}.\n"
        )
        text = _cut_to_bytes(text, room - len(note.encode("utf-8"))) + note
        if len(text.encode("utf-8")) > room:
            return False  # not even the note fits: leave the summary as it is
    with open(target, "a", encoding="utf-8", newline="") as file:
        file.write(text)
    return complete


def _delimiter_for(value: str) -> str:
    for _ in range(100):
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        if delimiter not in value:
            return delimiter
    raise ValueError("could not find a heredoc delimiter that the output value does not contain.")


def _cut_to_bytes(text: str, budget: int) -> str:
    """The longest prefix of ``text`` that ends at a line break and fits ``budget`` bytes."""
    if budget <= 0:
        return ""
    prefix = text.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
    end = prefix.rfind("\n")
    return prefix[: end + 1] if end >= 0 else ""


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
