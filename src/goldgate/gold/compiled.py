"""Gold compiled once: each expectation's parsed pointer, comparison and what its comparison
kind compiles of ``expected`` (``form``; for text, its assertions with their patterns
compiled: ``compile_text``, the text kind's compiler, here as loading hands compiled patterns
on, ``gold._stream``).

Loading (and ``--check``) builds these while it validates, so scoring never re-validates gold
or re-compiles a pattern: every attempt of every repeat uses the same compiled objects. The
offline check reads the pattern problems from here too, so a pattern is compiled at most once
(a check that no run follows leaves the flat ones, which surely compile, uncompiled).
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a
# named tuple's string annotations are each compiled as a forward reference when the class is
# made, at some 60 us a field.
import re
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, NamedTuple, Protocol

from goldgate.base import accelerators
from goldgate.base.errors import PointerSyntaxError
from goldgate.base.pointers import parse_pointer
from goldgate.gold._flatpatterns import is_flat
from goldgate.gold.errors import PatternProblem
from goldgate.gold.kinds import Kinds, comparison_kinds
from goldgate.gold.patterns import compile_pattern
from goldgate.gold.shapes import TEXT_ASSERTIONS, Suffix, text_problems

__all__ = [
    "CompiledExpectation",
    "GoldFields",
    "TextAssertion",
    "TextGold",
    "compile_expectation",
    "compile_expectations",
    "compile_text",
]

_PATTERN_KEYS = frozenset(key for key, shape in TEXT_ASSERTIONS.items() if shape == "patterns")
_new = tuple.__new__
"""Builds a named tuple from every field at once: its generated ``__new__`` is one more
Python call, and gold compiles several of these per case."""

# The compiled forms are named tuples: immutable like frozen dataclasses, and built five times
# faster. Loading builds seven of them per case of typical gold, and a streamed case file
# builds them again for its run (``gold._stream.store``).


class GoldFields(Protocol):
    """An expectation's fields: a gold ``Expectation``, one read back from checked JSON, or
    a compiled one (a Python eval's score keys are compiled expectations of their own)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def comparison(self) -> str: ...
    @property
    def scorer(self) -> str | None: ...
    @property
    def expected(self) -> Any: ...


class TextAssertion(NamedTuple):
    """One declared assertion: ``key`` (e.g. ``contains``), its operand, where it sits in a
    list (``position``, ``listed``) and, for patterns, the compiled pattern or why it is not
    one (neither, for a flat pattern a check alone left uncompiled: see ``compile_text``)."""

    key: str
    operand: str | int
    position: int
    listed: bool
    pattern: re.Pattern[str] | None = None
    problem: str | None = None


class TextGold(NamedTuple):
    """A text expectation compiled: ``problem`` when ``expected`` is malformed (the check
    refuses it; scoring makes the check ``error``), else its assertions in declaration order.
    No assertions (prose, or only a ``note``) sends the attempt to adjudication."""

    assertions: tuple[TextAssertion, ...]
    has_note: bool
    problems: tuple[tuple[Suffix, str], ...] = ()
    """Every shape problem of ``expected`` at its place (``shapes.text_problems``)."""

    @property
    def problem(self) -> str | None:
        """The first shape problem's sentence, or None."""
        return self.problems[0][1] if self.problems else None

    @property
    def declared(self) -> int:
        return len(self.assertions)

    def pattern_problems(self) -> list[tuple[Suffix, str]]:
        """Patterns that do not compile, each at its place in ``expected`` (for the check)."""
        problems: list[tuple[Suffix, str]] = []
        for assertion in self.assertions:
            if assertion.problem is not None:
                problems.append(
                    (
                        ("expected", assertion.key),
                        f"pattern {assertion.position + 1} is not a valid regular expression: "
                        f"{assertion.problem}",
                    )
                )
        return problems


def compile_text(
    expected: Any,
    known: MutableMapping[str, re.Pattern[str]] | None = None,
    check_only: bool = False,
) -> TextGold:
    """``expected`` of a text comparison, compiled; never raises. ``known``: gold checked
    before (a streamed case file read back), with the patterns its check compiled, taken
    from it instead of compiled again; its shape is not checked again. ``check_only``: for a
    check that no run follows, which compiles a pattern only to know whether it compiles: a
    flat one (``flatpatterns.is_flat``) surely does, and is left uncompiled (``pattern`` and
    ``problem`` both None): some 25,000 instructions a pattern, 6% of the whole check of gold
    with a pattern per case."""
    problems = () if known is not None else tuple(text_problems(expected))
    if problems:
        return TextGold((), False, problems)
    if type(expected) is not dict and not isinstance(expected, Mapping):  # prose
        return TextGold((), False)
    assertions: list[TextAssertion] = []
    for key, value in expected.items():
        if key == "note":
            continue
        # One operand (a string or a count), or a list of them: checked by text_problems.
        listed = type(value) is list or not isinstance(value, str | int)
        operands = value if listed else (value,)
        if key not in _PATTERN_KEYS:
            for index, operand in enumerate(operands):
                assertions.append(_new(TextAssertion, (key, operand, index, listed, None, None)))
            continue
        for index, operand in enumerate(operands):
            compiled = None if known is None else known.pop(operand, None)
            why = None
            flat_left = check_only and accelerators.enabled() and is_flat(operand)
            if compiled is None and not flat_left:
                try:
                    compiled = compile_pattern(operand)
                except PatternProblem as error:
                    why = str(error)
            assertions.append(_new(TextAssertion, (key, operand, index, listed, compiled, why)))
    return _new(TextGold, (tuple(assertions), "note" in expected, ()))


class CompiledExpectation(NamedTuple):
    """An expectation ready to score. ``tokens`` is ``None`` when ``path`` is not a valid
    pointer (the check refuses that; scoring makes the check ``error``). ``form``: what the
    comparison kind compiled of ``expected`` (``ComparisonKind.compile``), None if nothing."""

    name: str
    path: str
    comparison: str
    scorer: str | None
    expected: Any
    tokens: tuple[str, ...] | None
    form: Any = None
    judge: str | None = None
    """The judge that decides what a person would (docs/judges.md); None: a person does."""

    @property
    def text(self) -> TextGold | None:
        """A text expectation's compiled assertions (None for other kinds)."""
        form = self.form
        return form if type(form) is TextGold else None


def compile_expectation(
    expectation: GoldFields,
    known: MutableMapping[str, re.Pattern[str]] | None = None,
    *,
    check_only: bool = False,
    kinds: Kinds | None = None,
) -> CompiledExpectation:
    """An expectation compiled by its kind (``known``, ``check_only``: see ``compile_text``;
    ``kinds``: the registry, read once by a caller that compiles many). An unknown kind
    compiles nothing: the check refuses it, scoring makes its check ``error``."""
    try:
        tokens: tuple[str, ...] | None = parse_pointer(expectation.path)
    except PointerSyntaxError:
        tokens = None
    comparison = expectation.comparison
    expected = expectation.expected
    kind = (comparison_kinds() if kinds is None else kinds).get(comparison)
    compile_form = None if kind is None else kind.compile
    form = None if compile_form is None else compile_form(expected, known, check_only)
    fields = (expectation.name, expectation.path, comparison, expectation.scorer, expected)
    judge = getattr(expectation, "judge", None)  # a Python eval's score keys have none
    return _new(CompiledExpectation, (*fields, tokens, form, judge))


def compile_expectations(
    expectations: Sequence[GoldFields],
    known: MutableMapping[str, re.Pattern[str]] | None = None,
    *,
    check_only: bool = False,
) -> tuple[CompiledExpectation, ...]:
    kinds = comparison_kinds()
    return tuple(
        compile_expectation(expectation, known, check_only=check_only, kinds=kinds)
        for expectation in expectations
    )
