"""goldgate.scoring.textapi.score: seed 004's engine contract, sharing the text comparison."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.gold.models import TextOptions
from goldgate.scoring import ADJUDICATION_REASON, compare_text
from goldgate.scoring import textapi as text

SEED_LINE_EXPECT = {"maxLines": 1, "maxChars": 72, "note": "one conventional subject, no body"}


def test_the_seed_line_passes_a_one_line_subject_and_asks_a_person_too() -> None:
    result = text.score("fix(parser): keep the last token", SEED_LINE_EXPECT)

    assert result == {
        "scores": {"expect.satisfied": 1.0, "text.chars": 32.0},
        "pass": True,
        "reason": None,
        "detail": {
            "outcome": "passed",
            "assertions_declared": 2,
            "assertions_held": 2,
            "adjudication": True,
        },
    }


def test_the_seed_line_fails_a_subject_with_a_body_naming_the_first_failure() -> None:
    result = text.score("fix: parser\n\nLong body.", SEED_LINE_EXPECT)

    assert result["pass"] is False
    assert result["reason"] == (
        "the answer has 3 lines, more than maxLines 1 (1 of 2 assertions held)"
    )
    assert result["scores"]["expect.satisfied"] == 0.5


def test_prose_declares_nothing_scores_nothing_and_waits_for_a_person() -> None:
    result = text.score("Sorry about that!", "a warm apology that names the order")

    assert result["pass"] is None
    assert result["reason"] == ADJUDICATION_REASON
    assert result["detail"]["adjudication"] is True
    assert "expect.satisfied" not in result["scores"]  # absent, not zero


def test_json_and_required_keys_are_scores_not_the_verdict() -> None:
    result = text.score('{"a": 1}', {"contains": "a"}, json=True, required_keys=["a", "b.c"])

    assert result["pass"] is True
    assert result["scores"]["json.parse"] == 1.0
    assert result["scores"]["schema.requiredCoverage"] == 0.5
    assert result["detail"]["required_keys_found"] == 1

    not_json = text.score("plain", {"contains": "p"}, json=True)
    assert not_json["pass"] is True
    assert not_json["scores"]["json.parse"] == 0.0


def test_without_options_their_scores_are_absent() -> None:
    result = text.score("x", {"contains": "x"})

    assert set(result["scores"]) == {"expect.satisfied", "text.chars"}


@pytest.mark.parametrize(
    ("output", "expect", "reason"),
    [
        ("not json", {"requiredKeys": ["a"]}, "requiredKeys need a JSON answer"),
        ("x", {"matches": "("}, "the matches pattern is not a valid regular expression"),
        ("x", {"maxchars": 3}, "unknown"),
        ({"a": 1}, {"contains": "a"}, "the answer is an object, not a string"),
        (None, {"contains": "a"}, "the answer is null, not a string"),
    ],
)
def test_a_check_that_could_not_run_never_passes(output: Any, expect: Any, reason: str) -> None:
    result = text.score(output, expect)

    assert result["pass"] is False
    assert reason in result["reason"]
    assert "\n" not in result["reason"]


def test_bad_options_are_the_callers_mistake() -> None:
    with pytest.raises(TypeError, match="json must be a bool"):
        text.score("x", {"contains": "x"}, json="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="required_keys"):
        text.score("x", {"contains": "x"}, required_keys="a.b")
    with pytest.raises(ValueError, match=r"required_keys\[0\]"):
        text.score("x", {"contains": "x"}, required_keys=["a..b"])


_ASSERTIONS = st.fixed_dictionaries(
    {},
    optional={
        "contains": st.lists(st.sampled_from(["a", "b", "{", "\n"]), min_size=1, max_size=3),
        "notContains": st.sampled_from(["a", "zz"]),
        "matches": st.sampled_from([r"^a", r"\d", "b$"]),
        "minChars": st.integers(0, 5),
        "maxChars": st.integers(5, 9),
        "maxLines": st.integers(1, 3),
        "requiredKeys": st.sampled_from([["a"], ["a.b", "c"]]),
        "note": st.just("read me"),
    },
)


@settings(max_examples=200, deadline=None)
@given(
    output=st.one_of(st.text(alphabet='ab{}"\n:1 ', max_size=12), st.none(), st.integers()),
    expect=st.one_of(_ASSERTIONS, st.text(min_size=1, max_size=5)),
    json_option=st.booleans(),
)
def test_the_library_is_the_text_comparison(output: Any, expect: Any, json_option: bool) -> None:
    options = TextOptions.model_validate({"json": True}) if json_option else None
    check = compare_text(output, expect, options)
    result = text.score(output, expect, json=json_option)

    assert result["reason"] == check.reason
    assert result["detail"]["outcome"] == check.outcome.value
    assert result["detail"]["assertions_held"] == (check.assertions_held or 0)
    if check.assertions_declared:
        satisfied = (check.assertions_held or 0) / check.assertions_declared
        assert result["scores"]["expect.satisfied"] == satisfied
    assert (
        result["pass"]
        is {"passed": True, "failed": False, "error": False, "not_run": None}[check.outcome.value]
    )
