"""The renderers' per-case fast paths write exactly what their reference paths write: a
passing JUnit testcase without junit-xml or ElementTree, on hostile names and odd times; a
Markdown cell's escaping remembered, whatever the text and limit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.render import escape, text
from goldgate.render.junit import _case_xml
from goldgate.render.junitcases import (
    Passed,
    clean_illegal,
    new_testcase,
    passed_xml,
    problem_xml,
    xml_text,
)

_ODD = st.sampled_from(
    [
        "]]>",
        "<a&b>",
        '"q"',
        "'",
        "\x00",
        "\x7f",
        "\x85",
        "\t",
        "\r\n",
        "\ud800",
        "\udfff",
        "\ufffe",
        "\U0001fffe",
        "\ufdd0",
        "&amp;",
        " ",
        "é",
        "::error::",
    ]
)
NAMES = st.lists(st.text(max_size=6) | _ODD, max_size=4).map("".join)
LATENCIES = st.none() | st.floats() | st.integers(-(10**30), 10**30).map(float)


def _reference(passed: Passed) -> str:
    return _case_xml(passed.testcase())


@settings(max_examples=300, deadline=None)
@given(label=NAMES, classname=NAMES, latency=LATENCIES, cleaned=st.booleans())
def test_a_passing_testcase_written_directly_is_what_junit_xml_writes(
    label: str, classname: str, latency: float | None, cleaned: bool
) -> None:
    if cleaned:  # as the renderer hands them over
        label, classname = xml_text(label, text.NAME_LIMIT), xml_text(classname, text.NAME_LIMIT)
    passed = Passed(label, classname, latency)
    fast = passed_xml(passed)
    if fast is None:
        return  # the long way: the reference itself
    written, seconds = fast
    assert written == _reference(passed)
    assert seconds == passed.testcase().elapsed_sec


def test_the_direct_path_is_taken_for_plain_names_and_escapes_as_elementtree_does() -> None:
    for label, latency in (("case-1", 12.5), ('a<b>&"c"', None), ("x#2", 1e12), ("y", 0.0)):
        passed = Passed(label, "suite & co", latency)
        fast = passed_xml(passed)
        assert fast is not None
        assert fast[0] == _reference(passed)
    assert new_testcase("n", "c", None).elapsed_sec == 0.0
    # A time %f cannot write with three trailing zeros goes the long way (which refuses it).
    assert passed_xml(Passed("a", "b", 123456789012345.678)) is None


_CELLS = st.lists(NAMES | st.text(min_size=190, max_size=210), max_size=6)
"""Texts around the longest whose escaping is remembered (200 characters)."""
_LIMITS = st.lists(st.sampled_from([1, 5, text.REASON_LIMIT]), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(values=_CELLS, limits=_LIMITS)
def test_a_markdown_cell_s_escaping_remembered_is_the_escaping(
    values: list[str], limits: list[int]
) -> None:
    for limit in limits:
        for value in values * 2:  # the second time, from what is remembered
            assert escape.markdown(value, limit) == escape._escaped_markdown(value, limit)


def test_the_illegal_characters_taken_out_are_junit_xml_s() -> None:
    from junit_xml import _clean_illegal_xml_chars  # type: ignore[import-untyped]

    every = "".join(map(chr, range(0x110000)))
    assert clean_illegal(every) == _clean_illegal_xml_chars(every)


_TEXTS = st.none() | NAMES | st.lists(NAMES, max_size=3).map("\n".join)
_ENTRY = st.tuples(st.sampled_from(["failure", "error", "skipped"]), _TEXTS, _TEXTS, _TEXTS)


@settings(max_examples=400, deadline=None)
@given(
    name=NAMES,
    classname=NAMES,
    latency=LATENCIES,
    entries=st.lists(_ENTRY, max_size=2),
    cleaned=st.booleans(),
)
def test_a_testcase_with_a_problem_written_directly_is_what_junit_xml_writes(
    name: str,
    classname: str,
    latency: float | None,
    entries: list[tuple[str, str | None, str | None, str | None]],
    cleaned: bool,
) -> None:
    if cleaned:  # as the renderer hands them over
        name, classname = xml_text(name, text.NAME_LIMIT), xml_text(classname, text.NAME_LIMIT)
    case = new_testcase(name, classname, latency)
    for kind, message, output, kind_named in entries:
        if kind == "failure":
            case.add_failure_info(message=message, output=output, failure_type=kind_named)
        elif kind == "error":
            case.add_error_info(message=message, output=output, error_type=kind_named)
        else:
            case.add_skipped_info(message=message, output=output)
    fast = problem_xml(case)
    if fast is not None:
        assert fast == _case_xml(case)


def test_the_direct_path_is_taken_for_a_testcase_with_one_problem() -> None:
    case = new_testcase("case-1", "suite", 12.5)
    case.add_failure_info(
        message='expected "a" <b>',
        output="x.json:3: case case-1\nfailed: q: r",
        failure_type="gold",
    )
    fast = problem_xml(case)
    assert fast is not None
    assert fast == _case_xml(case)
    assert fast.startswith('<testcase name="case-1" time="0.013" classname="suite">\n<failure ')
    skipped = new_testcase("s", "suite", None)
    skipped.add_skipped_info(message="cancelled: r")
    assert problem_xml(skipped) == _case_xml(skipped)
