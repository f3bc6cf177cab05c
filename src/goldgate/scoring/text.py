"""The ``text`` comparison: an answer string checked against the assertions its case declares.

``expected`` is either a plain string, which declares nothing (the attempt joins the
adjudication queue for a human verdict), or an object of assertions:

===============  ===========================================================================
key              holds when
===============  ===========================================================================
contains         every string appears in the answer (one assertion per string)
notContains      none of the strings appears (one assertion per string)
matches          every regular expression matches somewhere (``re.search``), one per pattern
notMatches       no regular expression matches anywhere, one per pattern
minChars         the answer has at least that many code points
maxChars         the answer has at most that many code points
maxLines         the answer has at most that many lines (see ``count_lines``)
requiredKeys     every dot path (a string or an array of them) exists in the answer parsed as
                 JSON, one assertion per path
note             never checked and not counted: the sentence a human adjudicator reads
===============  ===========================================================================

A check that could not run (a broken regular expression, ``requiredKeys`` against text that is
not JSON) fails and never passes; its reason names why. A malformed assertion object (an
unknown key, a value of the wrong type) or one that declares nothing or can never hold (an
empty object or array, ``minChars`` above ``maxChars``, a dot path with an empty segment) is
an ``error``: the gold check refuses it offline (``goldgate.gold.shapes``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from goldgate.base.errors import JsonSyntaxError
from goldgate.base.jsonvalue import MISSING, json_type_name, thaw
from goldgate.base.strictjson import parse_json_text
from goldgate.gold.compiled import TextAssertion, TextGold, compile_text
from goldgate.gold.errors import PatternTimeout
from goldgate.gold.patterns import PATTERN_DEADLINE, compile_pattern, search_with_deadline
from goldgate.gold.shapes import TEXT_ASSERTIONS as ASSERTION_SHAPES
from goldgate.gold.shapes import first_problem, text_problems
from goldgate.scoring.outcomes import (
    ABSENT_REASON,
    NO_TEXT_OPTIONS,
    CheckOutcome,
    Outcome,
    TextOptionFigures,
    scored,
)

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import TextOptions

__all__ = [
    "ADJUDICATION_REASON",
    "TEXT_ASSERTIONS",
    "compare_text",
    "count_lines",
    "count_text_assertions",
    "dot_path_exists",
    "score_text",
    "text_expected_problem",
]

ADJUDICATION_REASON: Final = "declares no assertions; queued for human adjudication"

TEXT_ASSERTIONS: Final = tuple(ASSERTION_SHAPES)
_PATTERNS = frozenset(key for key, shape in ASSERTION_SHAPES.items() if shape == "patterns")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _a(type_name: str) -> str:
    if type_name == "null":
        return type_name
    return ("an " if type_name[0] in "aeiou" else "a ") + type_name


# --- validation (shared with the offline gold check) -------------------------------------------


def text_expected_problem(expected: Any) -> str | None:
    """Why ``expected`` is not a valid text expectation, or ``None`` when it is (the offline
    check's rules). A plain string is valid: it declares nothing. Regular expressions are not
    compiled here: a broken one makes the check fail at scoring time with its reason."""
    return first_problem(text_problems(expected))


def _entries(value: Any) -> Sequence[Any]:
    return [value] if isinstance(value, str | int) else list(value)


def count_text_assertions(expected: Any) -> int:
    """How many assertions a valid ``expected`` declares: each entry of a list counts once,
    a bound counts once, ``note`` and a plain string declare nothing."""
    if not isinstance(expected, Mapping):
        return 0
    return sum(len(_entries(value)) for key, value in expected.items() if key != "note")


# --- helpers -----------------------------------------------------------------------------------


def count_lines(text: str) -> int:
    """Lines of ``text`` as separated by ``\\n`` only.

    The empty string has 0 lines; a final ``\\n`` ends the last line rather than starting a
    new one, so ``"a"`` and ``"a\\n"`` have 1 line and ``"a\\n\\n"`` has 2. ``\\r`` and other
    Unicode line separators are ordinary characters.
    """
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def dot_path_exists(value: Any, path: str) -> bool:
    """Whether the dot path (``a.b.0.c``) exists in a parsed JSON value.

    Each segment names an object key; in an array a segment that is a decimal index
    (``0``, ``12``, no sign or leading zero) selects an element. A ``null`` at the path exists.
    """
    current = value
    for segment in path.split("."):
        if isinstance(current, Mapping):
            if segment not in current:
                return False
            current = current[segment]
        elif isinstance(current, list | tuple):
            if not _ARRAY_INDEX.fullmatch(segment) or int(segment) >= len(current):
                return False
            current = current[int(segment)]
        else:
            return False
    return True


# --- scoring -----------------------------------------------------------------------------------


class _Answer:
    """The answer text, with its JSON parse done at most once, and only when needed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._parsed: tuple[bool, Any] | None = None

    @property
    def parsed(self) -> tuple[bool, Any]:
        """Whether the answer is strict JSON, and its value when it is."""
        if self._parsed is None:
            try:
                self._parsed = (True, parse_json_text("answer", self.text).value)
            except JsonSyntaxError:
                self._parsed = (False, None)
        return self._parsed


def _item(noun: str, key: str, index: int, listed: bool) -> str:
    return f"{noun} {index + 1} of {key}" if listed else f"the {key} {noun}"


# fmt: off
# (Each yield's ``type: ignore`` names the one line it is about; the formatter would move it.)
def _failures(gold: TextGold, answer: _Answer) -> Iterator[str | None]:
    """Each declared assertion in declaration order: None when it held, else the reason (built
    only then: most assertions hold)."""
    text = answer.text
    for assertion in gold.assertions:
        key, operand = assertion.key, assertion.operand
        if key == "contains":
            yield None if operand in text else (  # type: ignore[operator]
                f"the answer lacks {_item('string', key, assertion.position, assertion.listed)}"
            )
        elif key == "notContains":
            yield None if operand not in text else (  # type: ignore[operator]
                f"the answer includes {_item('string', key, assertion.position, assertion.listed)}"
            )
        elif key in _PATTERNS:
            yield _pattern_failure(assertion, text)
        elif key == "minChars":
            yield None if len(text) >= operand else (  # type: ignore[operator]
                f"the answer has {len(text)} code points, fewer than minChars {operand}"
            )
        elif key == "maxChars":
            yield None if len(text) <= operand else (  # type: ignore[operator]
                f"the answer has {len(text)} code points, more than maxChars {operand}"
            )
        elif key == "maxLines":
            lines = count_lines(text)
            yield None if lines <= operand else (  # type: ignore[operator]
                f"the answer has {lines} lines, more than maxLines {operand}"
            )
        elif key == "requiredKeys":
            parsed, document = answer.parsed
            if not parsed:
                yield "requiredKeys need a JSON answer, but the answer is not JSON"
            else:
                yield None if dot_path_exists(document, operand) else (  # type: ignore[arg-type]
                    f"{_item('key', key, assertion.position, assertion.listed)} is absent from the "
                    "JSON answer"
                )
# fmt: on


def _pattern_failure(assertion: TextAssertion, text: str) -> str | None:
    pattern = assertion.pattern
    if pattern is None and assertion.problem is None:
        # Left uncompiled by a check that no run follows (a flat pattern, which compiles):
        # compiled here should such gold ever be scored.
        pattern = compile_pattern(str(assertion.operand))
    if pattern is None:
        what = _item("pattern", assertion.key, assertion.position, assertion.listed)
        return f"{what} is not a valid regular expression: {assertion.problem}"
    try:
        found = search_with_deadline(pattern, text)
    except PatternTimeout:
        what = _item("pattern", assertion.key, assertion.position, assertion.listed)
        return f"{what} ran out of time ({PATTERN_DEADLINE:g} s) on the answer"
    if found is (assertion.key == "matches"):
        return None
    what = _item("pattern", assertion.key, assertion.position, assertion.listed)
    return f"{what} does not match the answer" if found is False else f"{what} matches the answer"


def compare_text(actual: Any, expected: Any, options: TextOptions | None = None) -> CheckOutcome:
    """``score_text`` for an expectation not compiled yet (tests, one-off use)."""
    return score_text(actual, compile_text(expected), options)


def score_text(actual: Any, gold: TextGold, options: TextOptions | None = None) -> CheckOutcome:
    """Score one answer against its text expectation (and the suite's text options).

    ``actual`` is the value at the expectation's path (``MISSING`` when absent) and must be a
    string. The outcome records how many declared assertions held; with suite options it also
    records whether the answer parsed as JSON (``json_parsed``, only when the suite sets
    ``json``) and how many of the suite's ``requiredKeys`` it has. Suite options are recorded,
    never asserted: the suite's thresholds gate on them.
    """
    present = actual is not MISSING
    is_text = isinstance(actual, str)
    answer = _Answer(actual if is_text else "")
    figures = NO_TEXT_OPTIONS
    if options is not None and (options.json_ or options.requiredKeys):
        figures = _option_figures(options, answer, is_text)
    recorded = thaw(actual) if present else None
    if gold.problem is not None:
        return scored(
            Outcome.ERROR, gold.problem, actual_present=present, actual=recorded, options=figures
        )
    result, reason, held, queued = _verdict(
        actual, present=present, is_text=is_text, gold=gold, answer=answer
    )
    return scored(
        result,
        reason,
        actual_present=present,
        actual=recorded,
        assertions_declared=gold.declared,
        assertions_held=held,
        adjudication=queued,
        options=figures,
    )


def _option_figures(options: TextOptions, answer: _Answer, is_text: bool) -> TextOptionFigures:
    """What the suite's ``json`` and ``requiredKeys`` options find in the answer."""
    json_parsed: bool | None = None
    keys_found: int | None = None
    keys_declared: int | None = None
    if options.json_:
        json_parsed = is_text and answer.parsed[0]
    if options.requiredKeys:
        parsed, value = answer.parsed if is_text else (False, None)
        keys_declared = len(options.requiredKeys)
        keys_found = (
            sum(1 for path in options.requiredKeys if dot_path_exists(value, path)) if parsed else 0
        )
    return TextOptionFigures(json_parsed, keys_found, keys_declared)


def _verdict(
    actual: Any, *, present: bool, is_text: bool, gold: TextGold, answer: _Answer
) -> tuple[Outcome, str | None, int, bool]:
    """The outcome, its reason, how many assertions held and whether the answer waits for
    a person, of a well-formed text expectation."""
    if not present:
        return Outcome.FAILED, ABSENT_REASON, 0, False
    if not is_text:
        return Outcome.FAILED, f"the answer is {_a(json_type_name(actual))}, not a string", 0, False
    declared = gold.declared
    if declared == 0:
        return Outcome.NOT_RUN, ADJUDICATION_REASON, 0, True
    held = 0
    first_failure: str | None = None
    for failure in _failures(gold, answer):
        if failure is None:
            held += 1
        elif first_failure is None:
            first_failure = failure
    if first_failure is None:
        return Outcome.PASSED, None, held, gold.has_note
    reason = f"{first_failure} ({held} of {declared} assertions held)"
    return Outcome.FAILED, reason, held, gold.has_note
