"""The text comparison: assertions, counts, adjudication, checks that cannot run."""

from __future__ import annotations

from typing import Any

import pytest

from goldgate.base.jsonvalue import MISSING
from goldgate.gold.models import TextOptions
from goldgate.scoring import (
    ABSENT_REASON,
    ADJUDICATION_REASON,
    CheckOutcome,
    Outcome,
    compare_text,
    count_lines,
    count_text_assertions,
    dot_path_exists,
    text_expected_problem,
)


def _score(actual: Any, expected: Any, options: TextOptions | None = None) -> CheckOutcome:
    return compare_text(actual, expected, options)


# --- one assertion at a time -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "holds", "fails", "reason"),
    [
        ({"contains": "refund"}, "a refund", "a Refund", "the answer lacks the contains string"),
        ({"notContains": "```"}, "no fence", "```py", "the answer includes the notContains string"),
        ({"matches": r"^\d{3}$"}, "123", "1234", "the matches pattern does not match the answer"),
        ({"notMatches": r"(?i)sorry"}, "ok", "SORRY!", "the notMatches pattern matches the answer"),
        ({"minChars": 3}, "abc", "ab", "the answer has 2 code points, fewer than minChars 3"),
        ({"maxChars": 2}, "😀😀", "abc", "the answer has 3 code points, more than maxChars 2"),
        ({"maxLines": 1}, "one\n", "one\ntwo", "the answer has 2 lines, more than maxLines 1"),
        (
            {"requiredKeys": ["a.b"]},
            '{"a": {"b": null}}',
            '{"a": {}}',
            "key 1 of requiredKeys is absent from the JSON answer",
        ),
    ],
)
def test_each_assertion_holds_and_fails(
    expected: dict[str, Any], holds: str, fails: str, reason: str
) -> None:
    passed = _score(holds, expected)
    assert passed.outcome is Outcome.PASSED
    assert passed.reason is None
    assert (passed.assertions_declared, passed.assertions_held) == (1, 1)
    assert passed.actual_present
    assert passed.actual == holds

    failed = _score(fails, expected)
    assert failed.outcome is Outcome.FAILED
    assert failed.reason == f"{reason} (0 of 1 assertions held)"
    assert (failed.assertions_declared, failed.assertions_held) == (1, 0)


def test_lists_count_one_assertion_per_entry_and_note_is_not_counted() -> None:
    expected = {
        "contains": ["alpha", "beta", "gamma"],
        "notContains": ["delta"],
        "matches": [r"\balpha\b", "z+"],
        "maxChars": 100,
        "note": "a person reads this",
    }
    assert count_text_assertions(expected) == 7
    outcome = _score("alpha beta", expected)
    assert outcome.outcome is Outcome.FAILED
    assert (outcome.assertions_declared, outcome.assertions_held) == (7, 5)
    # The first failing assertion, in declaration order, is named; the count is given.
    assert outcome.reason == "the answer lacks string 3 of contains (5 of 7 assertions held)"
    assert outcome.adjudication is True  # a note asks a person to look as well


def test_all_declared_assertions_must_hold() -> None:
    expected = {"contains": ["a", "b"], "maxLines": 2, "minChars": 1}
    outcome = _score("a\nb", expected)
    assert outcome.outcome is Outcome.PASSED
    assert (outcome.assertions_declared, outcome.assertions_held) == (4, 4)
    assert outcome.adjudication is False


def test_plain_string_expected_goes_to_adjudication() -> None:
    outcome = _score("Dear customer, ...", "A polite refusal that cites the policy.")
    assert outcome.outcome is Outcome.NOT_RUN
    assert outcome.adjudication is True
    assert outcome.reason == ADJUDICATION_REASON
    assert (outcome.assertions_declared, outcome.assertions_held) == (0, 0)


def test_an_object_with_only_a_note_goes_to_adjudication() -> None:
    # An empty object or list declares nothing by accident and is an error (see below); a
    # note alone is written on purpose, for the person who judges the answer.
    outcome = _score("anything", {"note": "judge the tone"})
    assert outcome.outcome is Outcome.NOT_RUN
    assert outcome.adjudication is True
    assert outcome.assertions_declared == 0


def test_broken_regex_fails_and_never_passes() -> None:
    expected = {"matches": ["ok", "(unclosed"], "notMatches": "[z-a]"}
    outcome = _score("ok", expected)
    assert outcome.outcome is Outcome.FAILED
    assert (outcome.assertions_declared, outcome.assertions_held) == (3, 1)
    assert outcome.reason == (
        "pattern 2 of matches is not a valid regular expression: "
        "missing ), unterminated subpattern at position 0 (1 of 3 assertions held)"
    )
    # notMatches with a broken pattern does not hold either (it is not "does not match").
    only_not = _score("ok", {"notMatches": "[z-a]"})
    assert only_not.outcome is Outcome.FAILED
    assert only_not.reason == (
        "the notMatches pattern is not a valid regular expression: bad character range at "
        "position 1 (0 of 1 assertions held)"
    )


def test_regex_reason_does_not_quote_the_pattern() -> None:
    outcome = _score("x", {"matches": r"(?P<hunter2>a)(?P<hunter2>b)"})
    assert outcome.reason is not None
    assert "hunter2" not in outcome.reason
    assert outcome.reason.startswith(
        "the matches pattern is not a valid regular expression: redefinition of group name"
    )
    escape = _score("x", {"matches": r"\q-secret"})
    assert escape.reason is not None
    assert "\\q" not in escape.reason


def test_a_pattern_a_check_left_uncompiled_is_compiled_if_ever_scored() -> None:
    """``evaluate --check`` leaves flat patterns uncompiled (``compile_text(check_only=True)``):
    such gold scores as compiled gold does, never as an invalid pattern."""
    from goldgate.gold.compiled import compile_text
    from goldgate.scoring.text import score_text

    expected = {"matches": ["T-12\\b", "(unclosed"], "notMatches": "T-13\\b"}
    left = compile_text(expected, check_only=True)
    assert [(a.pattern is None, a.problem is None) for a in left.assertions] == [
        (True, True),
        (True, False),
        (True, True),
    ]
    for answer in ("ticket T-12 done", "ticket T-13 done"):
        ours, theirs = score_text(answer, left), score_text(answer, compile_text(expected))
        assert (ours.outcome, ours.reason, ours.assertions_held) == (
            theirs.outcome,
            theirs.reason,
            theirs.assertions_held,
        )
    assert "T-12" not in str(score_text("ticket T-13 done", left).reason)


def test_matches_uses_search_semantics() -> None:
    assert _score("say hello there", {"matches": "hello"}).outcome is Outcome.PASSED
    assert _score("say hello there", {"matches": "^hello"}).outcome is Outcome.FAILED
    assert _score("line1\nhello", {"matches": "(?m)^hello$"}).outcome is Outcome.PASSED


def test_required_keys_on_text_that_is_not_json_fail_with_reason() -> None:
    outcome = _score("Sure! Here is the JSON: {}", {"requiredKeys": ["a", "b"], "maxChars": 999})
    assert outcome.outcome is Outcome.FAILED
    assert (outcome.assertions_declared, outcome.assertions_held) == (3, 1)
    assert outcome.reason == (
        "requiredKeys need a JSON answer, but the answer is not JSON (1 of 3 assertions held)"
    )


def test_required_keys_follow_dot_paths_with_array_indexes() -> None:
    answer = '{"items": [{"id": 1}, {"id": 2, "tags": []}], "0": {"x": false}}'
    expected = {"requiredKeys": ["items.1.tags", "items.0.id", "0.x", "items"]}
    assert _score(answer, expected).outcome is Outcome.PASSED
    missing = _score(answer, {"requiredKeys": ["items.0", "items.2.id", "items.01"]})
    assert missing.assertions_held == 1
    assert missing.reason == (
        "key 2 of requiredKeys is absent from the JSON answer (1 of 3 assertions held)"
    )


def test_required_keys_may_be_one_string() -> None:
    assert count_text_assertions({"requiredKeys": "a.b"}) == 1
    assert _score('{"a": {"b": 1}}', {"requiredKeys": "a.b"}).outcome is Outcome.PASSED
    outcome = _score('{"a": 1}', {"requiredKeys": "a.b"})
    assert outcome.reason == (
        "the requiredKeys key is absent from the JSON answer (0 of 1 assertions held)"
    )


def test_dot_paths() -> None:
    value = {"a": [10, {"b": None}], "": {"c": 1}}
    assert dot_path_exists(value, "a.1.b")
    assert dot_path_exists(value, "a.0")
    assert not dot_path_exists(value, "a.2")
    assert not dot_path_exists(value, "a.-1")
    assert not dot_path_exists(value, "a.0.x")
    assert dot_path_exists(value, ".c")


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("a", 1), ("a\n", 1), ("\n", 1), ("a\nb", 2), ("a\n\n", 2), ("a\r\nb\r\n", 2)],
)
def test_count_lines(text: str, lines: int) -> None:
    assert count_lines(text) == lines


def test_chars_count_code_points() -> None:
    decomposed = "cafe\u0301"
    assert _score(decomposed, {"maxChars": 4}).outcome is Outcome.FAILED
    assert _score("😀" * 4, {"maxChars": 4, "minChars": 4}).outcome is Outcome.PASSED


def test_actual_must_be_a_string() -> None:
    outcome = _score({"answer": "yes"}, {"contains": "yes"})
    assert outcome.outcome is Outcome.FAILED
    assert outcome.reason == "the answer is an object, not a string"
    assert (outcome.assertions_declared, outcome.assertions_held) == (1, 0)
    assert outcome.actual == {"answer": "yes"}
    assert _score(None, "prose").reason == "the answer is null, not a string"


def test_absent_answer_fails() -> None:
    outcome = _score(MISSING, {"contains": "x"})
    assert outcome.outcome is Outcome.FAILED
    assert outcome.reason == ABSENT_REASON
    assert not outcome.actual_present
    assert outcome.actual is None
    plain = _score(MISSING, "prose")
    assert plain.outcome is Outcome.FAILED
    assert plain.adjudication is False


@pytest.mark.parametrize(
    ("expected", "problem"),
    [
        ({"contain": "x"}, 'unknown text assertion "contain"'),
        ({"contains": 3}, "'contains' is a string or an array of strings"),
        ({"matches": ["a", None]}, "'matches' is a string or an array of strings"),
        ({"maxChars": -1}, "'maxChars' is a nonnegative integer"),
        ({"maxLines": True}, "'maxLines' is a nonnegative integer"),
        ({"minChars": 1.5}, "'minChars' is a nonnegative integer"),
        ({"requiredKeys": [1]}, "'requiredKeys' is a string or an array of strings"),
        ({"requiredKeys": {"a": 1}}, "'requiredKeys' is a string or an array of strings"),
        ({"note": 1}, "'note' is a sentence for the adjudicator"),
        (["contains"], "a text comparison expects assertions or prose, found array"),
        ({}, "an empty assertion object declares nothing"),
        ({"contains": []}, "an empty 'contains' array declares nothing"),
        ({"requiredKeys": []}, "an empty 'requiredKeys' array declares nothing"),
        ({"minChars": 5, "maxChars": 4}, "'minChars' 5 is above 'maxChars' 4"),
        ({"requiredKeys": ["a", "a..b"]}, 'path 2 "a..b" has an empty segment'),
        ({"requiredKeys": ".a"}, 'path 1 ".a" has an empty segment'),
        ({"requiredKeys": "a."}, 'path 1 "a." has an empty segment'),
        ({"requiredKeys": ""}, 'path 1 "" has an empty segment'),
        ({"notContains": ["x", ""]}, "string 2 is empty, so it never holds"),
        ({"matches": ""}, "pattern 1 is empty, so it always holds"),
    ],
)
def test_malformed_expected_is_an_error(expected: Any, problem: str) -> None:
    message = text_expected_problem(expected)
    assert message is not None
    assert problem in message
    outcome = _score("x", expected)
    assert outcome.outcome is Outcome.ERROR
    assert outcome.reason == message
    assert outcome.assertions_declared is None


# --- suite options -----------------------------------------------------------------------------


def _options(**fields: Any) -> TextOptions:
    return TextOptions.model_validate(fields)


def test_suite_json_option_records_the_parse() -> None:
    options = _options(json=True)
    parsed = _score('{"a": 1}', {"maxChars": 100}, options)
    assert parsed.json_parsed is True
    assert parsed.outcome is Outcome.PASSED
    unparsed = _score("{'a': 1}", {"maxChars": 100}, options)
    assert unparsed.json_parsed is False
    assert unparsed.outcome is Outcome.PASSED  # recorded for json.parse, not asserted
    strict = _score('{"a": 1, "a": 2}', "prose", options)
    assert strict.json_parsed is False  # duplicate keys are not strict JSON
    assert _score("[NaN]", "prose", options).json_parsed is False
    assert _score(MISSING, "prose", options).json_parsed is False
    assert _score("x", "prose").json_parsed is None
    assert _score("x", "prose", _options()).json_parsed is None


def test_suite_required_keys_are_counted() -> None:
    options = _options(requiredKeys=["verdict", "evidence.0", "score"])
    outcome = _score('{"verdict": "ok", "evidence": ["e"]}', "prose", options)
    assert outcome.outcome is Outcome.NOT_RUN
    assert (outcome.required_keys_found, outcome.required_keys_declared) == (2, 3)
    assert outcome.json_parsed is None
    not_json = _score("verdict: ok", {"contains": "ok"}, options)
    assert (not_json.required_keys_found, not_json.required_keys_declared) == (0, 3)
    assert not_json.outcome is Outcome.PASSED
    without = _score("{}", "prose", _options(json=True))
    assert (without.required_keys_found, without.required_keys_declared) == (None, None)
