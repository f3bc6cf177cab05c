"""The shape of ``expected`` for text comparisons: one set of rules for the offline check
(every problem, each at its place) and for scoring (the first problem, as the reason of an
``error`` check when gold reaches scoring unchecked, e.g. from the Python API). Here, below
the text kind (``goldgate.scoring.kinds.text``), as loading compiles text gold itself
(``gold.compiled``) and the suite's text options share the dot paths' rule. The other kinds
keep their rules in their own modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from goldgate.base.jsonvalue import json_type_name
from goldgate.base.textsafe import quote

Suffix = tuple[str | int, ...]
Problem = tuple[Suffix, str]

TEXT_ASSERTIONS = {
    "contains": "strings",
    "notContains": "strings",
    "matches": "patterns",
    "notMatches": "patterns",
    "minChars": "count",
    "maxChars": "count",
    "maxLines": "count",
    "requiredKeys": "strings",
    "note": "note",
}


def text_problems(expected: Any) -> list[Problem]:
    """Every problem of a text ``expected``: prose (a string) or an object of assertions.
    An object must declare something that can hold: no empty object or list, no bounds that
    exclude each other, no malformed dot path. Patterns are compiled once, with the rest of
    the gold (``gold.compiled``), which reports the ones that do not compile.

    A list, built without a generator per assertion: every text expectation of large gold is
    checked here, and most have no problem."""
    if isinstance(expected, str):
        return []  # prose declares nothing: the attempt goes to human adjudication
    if type(expected) is not dict and not isinstance(expected, Mapping):
        return [
            (
                ("expected",),
                f"a text comparison expects assertions or prose, found {json_type_name(expected)}",
            )
        ]
    if not expected:
        return [
            (
                ("expected",),
                "an empty assertion object declares nothing; write at least one assertion, "
                "or prose for a person to judge",
            )
        ]
    problems: list[Problem] = []
    for key, value in expected.items():
        found = _assertion_problems(key, value)
        if found:
            problems += found
    if "minChars" in expected and "maxChars" in expected:  # the only bounds that can clash
        problems += _bounds_problems(expected)
    return problems


_NO_PROBLEMS: tuple[Problem, ...] = ()
_is_text = str.__instancecheck__  # isinstance(item, str), called from map() without a frame


def _assertion_problems(key: str, value: Any) -> Sequence[Problem]:
    shape = TEXT_ASSERTIONS.get(key)
    if shape is None:
        return [(("expected", key), f"unknown text assertion {quote(key)}")]
    if shape == "count":
        if not _is_count(value):
            return [(("expected", key), f"{key!r} is a nonnegative integer")]
    elif shape == "note":
        if not isinstance(value, str):
            return [(("expected", key), "'note' is a sentence for the adjudicator")]
    else:
        items = (value,) if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(map(_is_text, items)):
            return [(("expected", key), f"{key!r} is a string or an array of strings")]
        if not items:
            return [
                (
                    ("expected", key),
                    f"an empty {key!r} array declares nothing; remove it or add an entry",
                )
            ]
        if key == "requiredKeys" or "" in items:  # else no entry has a problem (most gold)
            return [
                (("expected", key), f"{_NOUNS[key]} {position + 1} {problem}")
                for position, item in enumerate(items)
                if (problem := _entry_problem(key, item)) is not None
            ]
    return _NO_PROBLEMS


_NOUNS = {
    "contains": "string",
    "notContains": "string",
    "matches": "pattern",
    "notMatches": "pattern",
    "requiredKeys": "path",
}


def _entry_problem(key: str, item: str) -> str | None:
    """What is wrong with one entry of a list assertion (the rest of a sentence), or None."""
    if key == "requiredKeys":
        return dot_path_problem(item)
    if item == "":
        # An empty string is in every answer, and an empty pattern matches every answer.
        holds = "always" if key in ("contains", "matches") else "never"
        return f"is empty, so it {holds} holds"
    return None


def dot_path_problem(path: str) -> str | None:
    """Why ``path`` is not a dot path (``answer.items.0``), or None: an empty segment (an
    empty path, a leading or trailing dot, two dots in a row) names no key of any answer."""
    if "" in path.split("."):
        return f'{quote(path)} has an empty segment; write dot paths such as "answer.items.0"'
    return None


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _bounds_problems(expected: Mapping[str, Any]) -> list[Problem]:
    low, high = expected.get("minChars"), expected.get("maxChars")
    if _is_count(low) and _is_count(high) and low > high:
        return [
            (
                ("expected", "minChars"),
                f"'minChars' {low} is above 'maxChars' {high}: no answer can hold both",
            )
        ]
    return []


def first_problem(problems: Iterable[Problem]) -> str | None:
    """The first problem's sentence, or None."""
    return next((message for _, message in problems), None)


def note_of(expected: Any) -> str | None:
    """The sentence an adjudicator reads: the prose of an expectation that declares nothing,
    or the ``note`` beside its assertions."""
    if isinstance(expected, str):
        return expected
    if isinstance(expected, Mapping) and isinstance(expected.get("note"), str):
        note: str = expected["note"]
        return note
    return None
