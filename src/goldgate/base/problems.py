"""Violations: one clear sentence about one place in one file, and how to list them.

Settings and gold both report through this module, so every structural mistake reads the
same way: ``path:line:col: message (at /json/pointer)``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from goldgate.base.jsonvalue import json_type_name
from goldgate.base.pointers import format_pointer
from goldgate.base.textsafe import escape_control, quote

if TYPE_CHECKING:  # annotations only: Python evals run without pydantic
    from pydantic import ValidationError

    from goldgate.base.errors import PlacedSyntaxError


class Located(Protocol):
    """A parsed file that can say where the value at a path starts."""

    @property
    def source(self) -> str: ...

    @property
    def value(self) -> Any: ...

    def position(self, path: Sequence[str | int]) -> tuple[int, int]: ...


@dataclass(frozen=True, order=True)
class Violation:
    """One structural mistake. Ordered by file, then position, then message."""

    source: str
    line: int
    column: int
    message: str
    pointer: str

    def render(self) -> str:
        """One line, always: a control character from a file (in a name, a pointer, a
        message quoting data) is shown escaped, so it cannot start a line of its own."""
        where = f" (at {escape_control(self.pointer)})" if self.pointer else ""
        return (
            f"{escape_control(self.source)}:{self.line}:{self.column}: "
            f"{escape_control(self.message)}{where}"
        )

    def as_json(self) -> dict[str, Any]:
        # The same text as render(), so that both formats say the same thing.
        return {
            "file": escape_control(self.source),
            "line": self.line,
            "column": self.column,
            "pointer": escape_control(self.pointer),
            "message": escape_control(self.message),
        }

    @classmethod
    def of_syntax(cls, error: PlacedSyntaxError) -> Violation:
        """The mistake of a file that does not parse (JSON, YAML): where the error says,
        at no pointer."""
        return cls(error.source, error.line, error.column, error.message, "")


_started_in: list[str] = []
"""The working folder the command started in (``pin_working_folder``)."""


def pin_working_folder() -> None:
    """Remember the working folder now, before any user code runs: messages show paths
    relative to it even after a target or an eval changed the working folder."""
    _started_in[:] = [os.getcwd()]


def display_path(path: Path) -> str:
    """A path as messages show it: relative to the working folder the command started in
    (``pin_working_folder``; else the current one) when it lies inside it."""
    try:
        if _started_in:
            start = _started_in[0]
            relative = os.path.relpath(os.path.join(start, path), start)
        else:
            relative = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def violation_at(document: Located, path: Sequence[str | int], message: str) -> Violation:
    """A violation at ``path`` of ``document``, positioned by the document itself."""
    line, column = document.position(path)
    return Violation(document.source, line, column, message, format_pointer(path))


def from_validation_error(
    document: Located, error: ValidationError, prefix: Sequence[str | int] = ()
) -> list[Violation]:
    """Pydantic's errors as violations, each one sentence at its place in ``document``.

    A union reports one error per branch, under the branch's name (``str``,
    ``WorkflowSettings``, ``constrained-str``): those names are dropped from the place, and a
    branch's type mismatch is dropped where another branch accepted the type and found a
    deeper problem, so one mistake reads as one violation at its real place."""
    root = _value_at(document.value, prefix)
    placed: list[tuple[tuple[str | int, ...], Any]] = []
    for detail in error.errors(include_url=False):
        path = (*prefix, *_place(root, detail["loc"], detail["type"]))
        placed.append((path, detail))
    mismatches: dict[tuple[str | int, ...], list[Any]] = {}
    violations = []
    for path, detail in placed:
        if detail["type"] not in _TYPE_WORDS:
            violations.append(violation_at(document, path, _sentence(detail)))
            continue
        shadowed = any(
            other is not detail
            and other_path[: len(path)] == path
            and (other_path != path or other["type"] not in _TYPE_WORDS)
            for other_path, other in placed
        )
        if not shadowed:
            mismatches.setdefault(path, []).append(detail)
    for path, details in mismatches.items():
        words = list(dict.fromkeys(_TYPE_WORDS[detail["type"]] for detail in details))
        found = json_type_name(details[0].get("input"))
        violations.append(
            violation_at(document, path, f"expected {' or '.join(words)}, found {found}")
        )
    return violations


def _value_at(value: Any, path: Sequence[str | int]) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _place(root: Any, location: Iterable[Any], kind: str) -> list[str | int]:
    """The part of pydantic's location that names places in the document: keys and indexes
    that exist (or the missing key itself), not union branches or validator steps."""
    parts = list(location)
    cleaned: list[str | int] = []
    current = root
    for position, part in enumerate(parts):
        if _has(current, part):
            cleaned.append(part)
            current = current[part]
        elif kind == "missing" and position == len(parts) - 1 and isinstance(current, dict):
            cleaned.append(part)
    return cleaned


def _has(container: Any, part: Any) -> bool:
    if isinstance(container, dict):
        return part in container
    if isinstance(container, list):
        return isinstance(part, int) and not isinstance(part, bool) and 0 <= part < len(container)
    return False


_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "tuple_type": "an array",
}


def _sentence(detail: Any) -> str:
    kind = detail["type"]
    location = detail["loc"]
    field_name = location[-1] if location else ""
    if kind == "extra_forbidden":
        return f"unknown key {quote(field_name)}; check its spelling against the schema"
    if kind == "missing":
        return f"missing required key {field_name!r}"
    if kind in _TYPE_WORDS:
        found = json_type_name(detail.get("input"))
        return f"expected {_TYPE_WORDS[kind]}, found {found}"
    if kind == "literal_error":
        # pydantic lists the allowed literals (our own words, never data) in single quotes;
        # they are JSON strings in the file, so they are written as JSON like the value found.
        expected = str(detail.get("ctx", {}).get("expected", "")).replace("'", '"')
        return f"must be one of {expected}, found {quote(detail.get('input'))}"
    bounds = detail.get("ctx", {})
    if kind == "less_than_equal":
        return f"must be at most {bounds.get('le')}, found {quote(detail.get('input'))}"
    if kind == "greater_than_equal":
        return f"must be at least {bounds.get('ge')}, found {quote(detail.get('input'))}"
    if kind == "greater_than":
        return f"must be greater than {bounds.get('gt')}, found {quote(detail.get('input'))}"
    if kind == "finite_number":
        return f"must be a finite number, found {quote(detail.get('input'))}"
    if kind in ("too_short", "string_too_short"):
        return "must not be empty"
    if kind == "value_error":
        return str(detail["msg"]).removeprefix("Value error, ")
    if kind == "union_tag_invalid":
        return str(detail["msg"])
    return str(detail["msg"])


def sort_violations(violations: Iterable[Violation]) -> list[Violation]:
    """Sorted by file and position, duplicates removed."""
    return sorted(set(violations))
