"""A failing check's expected and actual values for ``goldgate report show --details
values``: one under the other, as compact JSON, and for two strings a caret under the first
code point where they differ, in a window around it so that it stays within the line; and
what a python target raised: its type and message and its last frames.

Private detail for a person at a terminal (never CI's default); held-out gold is never
shown. Each line starts with spaces and a word or a caret chosen here.
"""

from __future__ import annotations

from typing import Any

from goldgate.render import text
from goldgate.render.view import CheckItem
from goldgate.report.caserecords import ExceptionRecord

WINDOW = 60
"""Characters of a value shown around where two strings differ."""
_LEAD = 20
"""Of which before the difference."""


def first_difference(expected: str, actual: str) -> int | None:
    """The index of the first code point where two strings differ (the shorter one's
    length when one is a prefix of the other); None when they are equal."""
    for index, (one, other) in enumerate(zip(expected, actual, strict=False)):
        if one != other:
            return index
    if len(expected) == len(actual):
        return None
    return min(len(expected), len(actual))


def _json(value: Any, present: bool) -> str:
    return text.json_value(value, present, limit=100_000)


def _window(shown: str, at: int) -> tuple[str, int]:
    """``shown`` cut to ``WINDOW`` characters around ``at``, and where ``at`` is now."""
    start = max(0, at - _LEAD)
    part = shown[start : start + WINDOW]
    prefix = text.ELLIPSIS if start else ""
    suffix = text.ELLIPSIS if start + WINDOW < len(shown) else ""
    return prefix + part + suffix, at - start + len(prefix)


def value_lines(check: CheckItem, holdout: bool) -> list[str]:
    """The lines that show ``check``'s expected and actual values."""
    if holdout:
        return ["    values: (held out: never shown)"]
    expected = _json(check.expected, True)
    actual = _json(check.actual, check.actual_present)
    both_strings = (
        check.actual_present and isinstance(check.expected, str) and isinstance(check.actual, str)
    )
    at = first_difference(check.expected, check.actual) if both_strings else None
    if at is None:
        return [
            f"    expected {text.one_line(expected, text.VALUE_LIMIT)}",
            f"    actual   {text.one_line(actual, text.VALUE_LIMIT)}",
        ]
    # Both as JSON strings: the opening quote, then (escapes aside) the same code points, so
    # the difference sits where the JSON texts first differ.
    shown_at = first_difference(expected, actual) or 0
    expected_part, caret = _window(expected, shown_at)
    actual_part, _ = _window(actual, shown_at)
    return [
        f"    expected {expected_part}",
        f"    actual   {actual_part}",
        f"    {' ' * (9 + caret)}^ first difference at code point {at:,} (from 0)",
    ]


def exception_lines(exception: ExceptionRecord | None, holdout: bool) -> list[str]:
    """The lines that show what a target raised: type and message, then its last frames
    (outermost first), as the report kept them."""
    if exception is None:
        return []
    if holdout:
        return [f"    raised {text.name(exception.type)} (held out: its message is never shown)"]
    message = text.one_line(exception.message or "")
    lines = [f"    raised {text.name(exception.type)}" + (f": {message}" if message else "")]
    for frame in exception.frames:
        line = f":{frame.line}" if frame.line is not None else ""
        lines.append(f"    in {text.name(frame.function)}, {text.name(frame.file)}{line}")
    return lines
