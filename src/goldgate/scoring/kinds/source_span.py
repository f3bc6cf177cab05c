"""The ``source_span`` comparison: a verbatim extraction from the case's input.

``expected = {input_path, required: [s, e], allowed: [s, e]}`` in Unicode code points, end
exclusive. The source is the case input at ``input_path``. The candidate passes when it
occurs verbatim in the source at some offset ``p`` with ``allowed.s <= p <= required.s`` and
``required.e <= p + len <= allowed.e``. Its offline rules (``source_span_problems``): the
shape, ``required`` nonempty and inside ``allowed``, both inside the source; scoring applies
the shape's rules too, for gold that reaches it unchecked (the Python API).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.jsonvalue import MISSING, json_type_name
from goldgate.base.pointers import parse_pointer, resolve
from goldgate.base.textsafe import quote
from goldgate.gold.shapes import Problem, first_problem
from goldgate.scoring.comparisons import (
    ABSENT,
    PASSED,
    Verdict,
    article,
    envelope_document,
    error,
    failed,
    plural,
)
from goldgate.scoring.kinds.kind import verdict_kind

if TYPE_CHECKING:
    from goldgate.gold.compiled import CompiledExpectation

__all__ = ["KIND", "compare_source_span", "source_span_problem", "source_span_problems"]

SPAN_KEYS = ("input_path", "required", "allowed")


def _span(value: Any) -> tuple[int, int] | None:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        return value[0], value[1]
    return None


def source_span_problems(expected: Any, envelope: Mapping[str, Any] | None) -> Iterator[Problem]:
    """Every problem of a source_span ``expected``; with ``envelope`` also whether its
    input_path holds a string that the ranges fit (Unicode code points, end exclusive)."""
    if not isinstance(expected, Mapping):
        yield (
            ("expected",),
            "a source_span expects {input_path, required, allowed}, "
            f"found {json_type_name(expected)}",
        )
        return
    for key in sorted(expected.keys() - set(SPAN_KEYS)):
        yield ("expected", key), f"unknown key {quote(key)} in a source_span expectation"
    for key in SPAN_KEYS:
        if key not in expected:
            yield ("expected",), f"a source_span expectation needs {key!r}"
    if not set(SPAN_KEYS) <= expected.keys():
        return
    required, allowed = _span(expected["required"]), _span(expected["allowed"])
    for key, span in (("required", required), ("allowed", allowed)):
        if span is None:
            yield ("expected", key), f"{key!r} is a [start, end] pair of nonnegative integers"
        elif span[0] > span[1]:
            yield ("expected", key), f"{key!r} starts after it ends"
    source_pointer = expected["input_path"]
    try:
        tokens = parse_pointer(source_pointer)
    except PointerSyntaxError as error:
        yield ("expected", "input_path"), str(error)
        return
    if (
        required is not None
        and allowed is not None
        and required[0] <= required[1]
        and allowed[0] <= allowed[1]
    ):
        if required[0] == required[1]:
            yield ("expected", "required"), "'required' must be a nonempty range"
        if not (allowed[0] <= required[0] and required[1] <= allowed[1]):
            yield ("expected", "required"), "'required' must lie inside 'allowed'"
    if envelope is None:
        return
    source = resolve(envelope, tokens)
    if source is MISSING:
        yield ("expected", "input_path"), f"nothing in this case's input at {quote(source_pointer)}"
    elif not isinstance(source, str):
        yield (
            ("expected", "input_path"),
            f"the case's input at {quote(source_pointer)} is {json_type_name(source)}, "
            "not a string",
        )
    elif allowed is not None and allowed[1] > len(source):
        yield (
            ("expected", "allowed"),
            f"'allowed' ends at {allowed[1]}, past the source's {len(source)} code points",
        )


_SPAN_KEY_SET = frozenset(SPAN_KEYS)


def _plainly_well_formed(expected: Any) -> bool:
    """Whether ``expected`` is certainly a well-formed source_span expectation, of the
    plainest types (a dict, lists of two ints): what scoring meets case after case, told
    without ``source_span_problems``. ``False`` says nothing."""
    if type(expected) is not dict or expected.keys() != _SPAN_KEY_SET:
        return False
    required, allowed, pointer = expected["required"], expected["allowed"], expected["input_path"]
    if not (type(required) is list and type(allowed) is list and type(pointer) is str):
        return False
    if not (len(required) == 2 and len(allowed) == 2):
        return False
    (start, end), (low, high) = required, allowed
    if not (type(start) is int and type(end) is int and type(low) is int and type(high) is int):
        return False
    if not 0 <= low <= start < end <= high:
        return False
    try:
        parse_pointer(pointer)
    except PointerSyntaxError:
        return False
    return True


def source_span_problem(expected: Any) -> str | None:
    """Why ``expected`` is not a well-formed source_span expectation, or ``None``: the shape
    only (the offline check's rules); whether the ranges fit the source needs the input."""
    if _plainly_well_formed(expected):
        return None
    return first_problem(source_span_problems(expected, None))


def compare_source_span(actual: Any, expected: Any, envelope: Any) -> Verdict:
    """A verbatim extraction: ``actual`` must occur in the source (the case input at
    ``expected["input_path"]``) at some code-point offset ``p`` with
    ``allowed.start <= p <= required.start`` and
    ``required.end <= p + len(actual) <= allowed.end``."""
    if actual is MISSING:
        return ABSENT
    problem = source_span_problem(expected)
    if problem is not None:
        return error(problem)
    input_path: str = expected["input_path"]
    source = resolve(envelope, parse_pointer(input_path))
    if source is MISSING:
        return error(f"the source at input_path {input_path} is absent from the case input")
    if not isinstance(source, str):
        return error(
            f"the source at input_path {input_path} is {article(json_type_name(source))}, "
            "not a string"
        )
    (required_start, required_end), (allowed_start, allowed_end) = (
        expected["required"],
        expected["allowed"],
    )
    if allowed_end > len(source):
        return error(
            f"source_span allowed [{allowed_start}, {allowed_end}) does not fit the source "
            f"of {plural(len(source), 'code point')}"
        )
    if not isinstance(actual, str):
        return failed(f"expected a string extraction, got {article(json_type_name(actual))}")
    length = len(actual)
    if length == 0:
        return failed("the extraction is an empty string")
    # Offsets p that satisfy both bounds form one interval [low, high]; a bounded find
    # looks for an occurrence starting anywhere in it (p + length <= high + length).
    low = max(allowed_start, required_end - length)
    high = min(required_start, allowed_end - length)
    if low <= high and source.find(actual, low, high + length) != -1:
        return PASSED
    occurrences = _count_occurrences(source, actual)
    if occurrences == 0:
        return failed(
            f"the extraction ({plural(length, 'code point')}) does not occur verbatim in the source"
        )
    return failed(
        f"the extraction occurs {plural(occurrences, 'time')} in the source, but no occurrence "
        f"covers required [{required_start}, {required_end}) "
        f"within allowed [{allowed_start}, {allowed_end})"
    )


def _count_occurrences(source: str, candidate: str) -> int:
    """How many offsets ``candidate`` occurs at, overlapping occurrences included."""
    count, position = 0, source.find(candidate)
    while position != -1:
        count += 1
        position = source.find(candidate, position + 1)
    return count


def _rules(expected: Any, form: Any, envelope: Mapping[str, Any]) -> Sequence[Problem]:
    return list(source_span_problems(expected, envelope))


def _verdict(actual: Any, expectation: CompiledExpectation, envelope: Any) -> Verdict:
    return compare_source_span(actual, expectation.expected, envelope_document(envelope))


KIND = verdict_kind(name="source_span", rules=_rules, verdict=_verdict)
