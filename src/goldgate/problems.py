"""Violations: one clear sentence about one place in one file, and how to list them.

Settings and gold both report through this module, so every structural mistake reads the
same way: ``path:line:col: message (at /json/pointer)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from goldgate.jsonvalue import format_pointer, json_type_name


class Located(Protocol):
    """A parsed file that can say where the value at a path starts."""

    @property
    def source(self) -> str: ...

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
        where = f" (at {self.pointer})" if self.pointer else ""
        return f"{self.source}:{self.line}:{self.column}: {self.message}{where}"

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.source,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "message": self.message,
        }


def violation_at(document: Located, path: Sequence[str | int], message: str) -> Violation:
    """A violation at ``path`` of ``document``, positioned by the document itself."""
    line, column = document.position(path)
    return Violation(document.source, line, column, message, format_pointer(path))


def from_validation_error(
    document: Located, error: ValidationError, prefix: Sequence[str | int] = ()
) -> list[Violation]:
    """Pydantic's errors as violations, each one sentence at its place in ``document``."""
    violations = []
    for detail in error.errors(include_url=False):
        path = [*prefix, *_clean_location(detail["loc"])]
        violations.append(violation_at(document, path, _sentence(detail)))
    return violations


def _clean_location(location: Iterable[Any]) -> list[str | int]:
    # Pydantic names union branches and validator steps in the location; they are not places.
    cleaned: list[str | int] = []
    for part in location:
        if isinstance(part, int) or (
            isinstance(part, str) and not any(mark in part for mark in "[]()")
        ):
            cleaned.append(part)
    return cleaned


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
        return f"unknown key {field_name!r}; check its spelling against the schema"
    if kind == "missing":
        return f"missing required key {field_name!r}"
    if kind in _TYPE_WORDS:
        found = json_type_name(detail.get("input"))
        return f"expected {_TYPE_WORDS[kind]}, found {found}"
    if kind == "literal_error":
        expected = detail.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}, found {detail.get('input')!r}"
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
