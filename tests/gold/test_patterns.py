"""Gold patterns compile as ``re.compile`` compiles them, without going through (or filling)
``re``'s own cache, and every way the compiler refuses one is a ``PatternProblem``."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.gold import patterns
from goldgate.gold.errors import PatternProblem
from goldgate.gold.patterns import (
    compile_pattern,
    rebuild_pattern,
    record_patterns,
    search_with_deadline,
    take_recorded,
)

PATTERNS = [
    r"T-12\b",
    r"(?i)refund",
    r"^\d{3}-\d{4}$",
    r"(?P<word>\w+)\s+(?P=word)",
    r"(?s)a.b",
    r"(?m)^end$",
    r"[^\x00-\x1f]+",
    r"(?x) a  b  # spaced",
    r"\N{BULLET} item",
    r"(?<=x)y|z(?!w)",
    r"",
]
TEXTS = ["T-12 done", "T-123", "A REFUND", "555-1234", "the the", "a\nb", "x\nend", "• item",
         "xy", "zw", "zz", "", "\x01abc"]  # fmt: skip


@pytest.mark.parametrize("pattern", PATTERNS)
def test_compiles_as_re_compile_does(pattern: str) -> None:
    ours, theirs = compile_pattern(pattern), re.compile(pattern)
    assert (ours.pattern, ours.flags, ours.groups, dict(ours.groupindex)) == (
        theirs.pattern, theirs.flags, theirs.groups, dict(theirs.groupindex),
    )  # fmt: skip
    for text in TEXTS:
        found, expected = ours.search(text), theirs.search(text)
        assert (found and found.span()) == (expected and expected.span()), (pattern, text)
        assert search_with_deadline(ours, text) is (expected is not None)


def test_leaves_the_re_cache_alone() -> None:
    """Thousands of distinct gold patterns would churn ``re``'s cache (and pay for it on every
    miss): ours are compiled beside it."""
    re.purge()
    for index in range(600):
        compile_pattern(rf"only-here-{index}\b")
    assert not any("only-here-" in str(key) for key in getattr(re, "_cache", {}))


def test_a_repeated_pattern_is_compiled_once() -> None:
    first = compile_pattern(r"\bT-\d+\b")
    assert compile_pattern(r"\bT-\d+\b") is first


@pytest.mark.parametrize(
    ("pattern", "summary"),
    [
        ("(", "missing ), unterminated subpattern at position 0"),
        ("a{3,2}", "min repeat greater than max repeat at position 2"),
        ("[z-a]", "bad character range at position 1"),
        ("(?<=a+)b", "look-behind requires fixed-width pattern"),
        ("a{99999999999}", "it is too large or nested too deeply (OverflowError)"),
    ],
)
def test_refusals_are_problems_with_a_safe_summary(pattern: str, summary: str) -> None:
    with pytest.raises(PatternProblem) as caught:
        compile_pattern(pattern)
    assert str(caught.value) == summary
    with pytest.raises(PatternProblem):  # refused again, not remembered as compiled
        compile_pattern(pattern)


def test_deep_nesting_is_a_problem_not_an_escaping_exception() -> None:
    with pytest.raises(PatternProblem, match="too large or nested too deeply"):
        compile_pattern("(" * 100_000 + ")" * 100_000)


def test_only_text_is_a_pattern() -> None:
    with pytest.raises(TypeError):
        compile_pattern(re.compile("x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compile_pattern(b"x")  # type: ignore[arg-type]


@pytest.mark.filterwarnings("ignore:Possible (nested set|set ):FutureWarning")
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab()[]{}|*+?.^$\\-,0123456789dwsbB:=!<>P", max_size=12))
def test_any_text_compiles_or_is_refused_as_re_decides(pattern: str) -> None:
    try:
        theirs: re.Pattern[str] | None = re.compile(pattern)
    except (re.error, OverflowError, RecursionError, ValueError):
        theirs = None
    if theirs is None:
        with pytest.raises(PatternProblem):
            compile_pattern(pattern)
        return
    ours = compile_pattern(pattern)
    assert ours == theirs  # a pattern's equality compares its flags, text and whole program
    assert (ours.pattern, ours.flags, ours.groups) == (theirs.pattern, theirs.flags, theirs.groups)
    for text in ("", "ab", "a(b)", "0a-b", "abab", "\\"):
        found, expected = ours.search(text), theirs.search(text)
        assert (found and found.span()) == (expected and expected.span())


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """Programs recorded as a checking helper records them, for this test only (the cache
    emptied, so that every pattern is compiled anew)."""
    monkeypatch.setattr(patterns, "_RECORDER", patterns._Recorder())
    patterns._compile.cache_clear()  # type: ignore[attr-defined]
    record_patterns()


@pytest.mark.usefixtures("recording")
@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_recorded_program_rebuilds_the_very_pattern(pattern: str) -> None:
    """A helper sends each pattern's program through a pipe; the pattern rebuilt from it is
    the one ``re`` compiles, without compiling it again."""
    compiled = compile_pattern(pattern)
    recorded = take_recorded()
    assert [made.pattern for made in recorded] == [pattern]
    rebuilt = rebuild_pattern(pickle.loads(pickle.dumps(recorded[0])))
    assert rebuilt == compiled == re.compile(pattern)
    assert (rebuilt.groups, dict(rebuilt.groupindex)) == (
        compiled.groups, dict(compiled.groupindex),
    )  # fmt: skip
    for text in TEXTS:
        found, expected = rebuilt.search(text), compiled.search(text)
        assert (found and found.groups()) == (expected and expected.groups())


@pytest.mark.usefixtures("recording")
def test_each_new_pattern_is_recorded_once_and_taken_once() -> None:
    compile_pattern(r"first\b")
    compile_pattern(r"first\b")  # from the cache: compiled and recorded once
    with pytest.raises(PatternProblem):
        compile_pattern("(refused")  # nothing to record
    compile_pattern(r"second\d")
    assert [made.pattern for made in take_recorded()] == [r"first\b", r"second\d"]
    assert take_recorded() == ()


def test_nothing_is_recorded_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patterns, "_RECORDER", patterns._Recorder())
    compile_pattern(r"unrecorded-\d+")
    assert take_recorded() == ()


_ONE_STEP_OPS = {"LITERAL", "NOT_LITERAL", "ANY", "AT", "IN"}  # each matches one character or none


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab.^$\\-,:=!<>PdwsbBAZxu0123456789*+?{}()[]|", max_size=14))
def test_patterns_searched_untimed_cannot_backtrack(pattern: str) -> None:
    """The untimed path's test (no ``*+?{(|[``) admits only patterns whose every item matches
    one character or none: a search's work is bounded by the text's length times the
    pattern's, so no deadline can pass."""
    if patterns._MAY_BACKTRACK.search(pattern) is not None:
        return
    try:
        parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
    except re.error:
        return
    assert {str(op) for op, _ in parsed} <= _ONE_STEP_OPS, pattern


def test_a_flat_pattern_on_a_short_text_needs_no_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr(patterns.signal, "setitimer", lambda which, seconds: calls.append(seconds))
    flat = compile_pattern(r"T-12\b")
    assert search_with_deadline(flat, "ticket T-12 open") is True
    assert search_with_deadline(flat, "ticket T-123 open") is False
    assert calls == []
    # A repeat, or a text long enough to make the work unbounded in practice: timed.
    assert search_with_deadline(compile_pattern(r"T-\d+"), "ticket T-12 open") is True
    long_text = "x" * (patterns.UNTIMED_WORK // len(flat.pattern)) + "T-12"
    assert search_with_deadline(flat, long_text) is True
    assert calls == [patterns.PATTERN_DEADLINE, 0, patterns.PATTERN_DEADLINE, 0]


def test_a_flat_pattern_off_the_main_thread_stays_on_re(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the regex module was used")

    monkeypatch.setattr(patterns, "_search_elsewhere", refuse)
    found: list[bool] = []
    thread = threading.Thread(
        target=lambda: found.append(search_with_deadline(compile_pattern(r"^a.c$"), "abc"))
    )
    thread.start()
    thread.join()
    assert found == [True]
