"""Flat patterns compiled in one pass: the program and flags are those ``re`` compiles, for
every pattern taken; every other pattern is left to ``re``."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldgate.gold import _flatpatterns as flatpatterns
from goldgate.gold._flatpatterns import flat_program
from goldgate.gold.errors import PatternProblem
from goldgate.gold.patterns import compile_pattern

_generate = re._compiler._code  # type: ignore[attr-defined]
_parse = re._parser.parse  # type: ignore[attr-defined]

FLAT_ITEMS = st.one_of(
    st.characters(blacklist_characters="\\*+?{}[]()|", blacklist_categories=("Cs",)),
    st.sampled_from([".", "^", "$", "-", "#", " ", "\n", "\x00", "0", "a", "Z", "é", "𝄞"]),
    st.sampled_from([f"\\{letter}" for letter in "afnrtvAbBdDsSwWZ"]),
    st.sampled_from(["\\\\", "\\.", "\\-", "\\*", "\\(", "\\[", "\\|", "\\ ", "\\\n", "\\é"]),
)
flat_patterns = st.lists(FLAT_ITEMS, max_size=24).map("".join)
# Repeated runs of few characters: literal prefixes that overlap themselves.
overlapping = st.lists(st.sampled_from(["a", "b", "ab", "aab", "\\b", "."]), max_size=12).map(
    "".join
)


def _same_program(pattern: str) -> None:
    made = flat_program(pattern)
    assert made is not None, pattern
    theirs = _parse(pattern, 0)
    assert made.flags == theirs.state.flags
    assert made.code == _generate(theirs, 0)


def test_this_python_compiles_the_probes_as_re_does() -> None:
    """Otherwise every pattern would silently go to ``re``, and the rest of this file would
    test nothing."""
    assert flatpatterns._tables() is not None


@settings(max_examples=1500, deadline=None)
@given(flat_patterns)
@example("T-123456\\b")
@example("")
@example("\\b\\B")
@example("\\d\\d\\d-\\d\\d")
@example("^$.")
def test_a_flat_pattern_compiles_as_re_compiles_it(pattern: str) -> None:
    _same_program(pattern)
    # is_flat takes it too (test_a_pattern_taken_for_flat_surely_compiles, for any text).
    assert flatpatterns.is_flat(pattern)
    compiled = compile_pattern(pattern)
    assert compiled == re.compile(pattern)  # equality compares flags, text and whole program
    assert (compiled.groups, dict(compiled.groupindex)) == (0, {})
    for text in ("", "T-123456 x", "aab\nb", "7 ab", pattern, pattern.upper()):
        found, expected = compiled.search(text), re.search(pattern, text)
        assert (found and found.span()) == (expected and expected.span())


@settings(max_examples=500, deadline=None)
@given(overlapping)
def test_a_literal_prefix_that_overlaps_itself_has_re_s_overlap_table(pattern: str) -> None:
    _same_program(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        "a*", "a+", "a?", "a{2}", "x}", "x]", "[ab]", "(a)", "a|b", "(?i)a",
        "\\1", "\\0", "\\x41", "\\u00e9", "\\N{BULLET}", "\\g", "\\q", "a\\", "x" * 70_000,
    ],
)  # fmt: skip
def test_anything_else_is_left_to_re(pattern: str) -> None:
    assert flat_program(pattern) is None
    try:
        expected = re.compile(pattern)
    except re.error:  # refused by re: a problem of ours too
        with pytest.raises(PatternProblem):
            compile_pattern(pattern)
    else:
        assert compile_pattern(pattern) == expected


@pytest.mark.filterwarnings("ignore:Possible (nested set|set ):FutureWarning")
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aT-1\\bdwsAZ.^$*+?{}[]()|,é\n", max_size=12))
def test_any_text_is_compiled_by_one_of_the_two_as_re_compiles_it(pattern: str) -> None:
    try:
        expected: re.Pattern[str] | None = re.compile(pattern)
    except re.error:
        expected = None
    if flat_program(pattern) is not None:
        assert expected is not None  # nothing re refuses is taken for flat
        _same_program(pattern)
    if expected is not None:
        assert compile_pattern(pattern) == expected


# Flat patterns are drawn by test_a_flat_pattern_compiles_as_re_compiles_it (1,500 of them,
# each also held to is_flat): here any text, as many as this test drew of it beside them.
@pytest.mark.filterwarnings("ignore:Possible (nested set|set ):FutureWarning")
@settings(max_examples=750, deadline=None)
@given(st.text(alphabet="aT-1\\bdwsAZqgN0.^$*+?{}[]()|,é\n", max_size=12))
@example("x" * 70_000)
@example("a\\")
@example("\\q")
@example("T-123456\\b")
def test_a_pattern_taken_for_flat_surely_compiles(pattern: str) -> None:
    """A check that no run follows leaves a flat pattern uncompiled, as sure to compile: so
    nothing ``re`` refuses may be taken for flat, and ``is_flat`` takes what
    ``flat_program`` takes (where this Python's ``re`` has the tables)."""
    if flatpatterns.is_flat(pattern):
        re.compile(pattern)  # raises if it does not compile
    assert flatpatterns.is_flat(pattern) == (flat_program(pattern) is not None)
