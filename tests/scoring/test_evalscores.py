"""The score comparison: one check per score key, a pure function of /scores."""

from __future__ import annotations

from typing import Any

import pytest

from goldgate.gold.compiled import CompiledExpectation
from goldgate.scoring import Outcome, score_compiled
from goldgate.scoring.evalscores import score_check


def _check(scores: Any, key: str = "pass") -> tuple[str, str | None]:
    outcome = score_check(scores, {"key": key})
    return outcome.outcome.value, outcome.reason


def test_every_passed_score_of_the_key_must_pass() -> None:
    scores = [
        {"key": "pass", "passed": True},
        {"key": "relevance", "passed": False, "notes": "n"},
        {"key": "pass", "value": 0.2},
    ]
    assert _check(scores) == ("passed", None)
    assert _check(scores, "relevance") == ("failed", "score 'relevance' did not pass: n")


def test_the_reason_names_the_assertion_or_the_evaluator_and_says_the_notes() -> None:
    # As EZVals shows it: a failed assertion's message (or a failed score's notes) is why.
    scores = [
        {"key": "pass", "passed": False, "notes": "Should mention\nParis", "at": "eval_a.py:7"},
        {"key": "format", "passed": True, "by": "check_format"},
        {"key": "format", "passed": False, "notes": "Invalid JSON", "by": "check_format"},
        {"key": "long", "passed": False, "notes": "x" * 400},
        {"key": "bare", "passed": False},
    ]
    assert _check(scores) == ("failed", "the assertion at eval_a.py:7 failed: Should mention Paris")
    assert _check(scores, "format") == (
        "failed",
        "evaluator 'check_format' scored 'format' as not passed: Invalid JSON (1 of 2 'format' "
        "scores passed)",
    )
    assert _check(scores, "long") == ("failed", "score 'long' did not pass: " + "x" * 297 + "...")
    assert _check(scores, "bare") == ("failed", "score 'bare' did not pass")


def test_a_score_that_could_not_be_taken_is_an_error_never_a_pass() -> None:
    scores = [
        {"key": "quality", "passed": True},
        {"key": "quality", "error": "eval 'e' stored score 'quality' with a value outside 0 to 1"},
    ]
    assert _check(scores, "quality") == (
        "error",
        "eval 'e' stored score 'quality' with a value outside 0 to 1",
    )


@pytest.mark.parametrize("scores", [[], [{"key": "x", "value": 0.5}], [{"key": "y"}]])
def test_absent_is_not_run(scores: list[Any]) -> None:
    assert _check(scores, "x") == ("not_run", "this attempt made no 'x' score with passed")


def test_malformed_input_is_an_error() -> None:
    assert score_check(None, {"key": "a"}).outcome is Outcome.ERROR
    assert score_check([], "a").outcome is Outcome.ERROR


def test_score_compiled_dispatches_the_score_comparison() -> None:
    expectation = CompiledExpectation(
        "pass", "/scores", "score", None, {"key": "pass"}, ("scores",)
    )
    document = {"output": "x", "scores": [{"key": "pass", "passed": False, "at": "f.py:1"}]}

    outcome = score_compiled(expectation, document, {"payload": {}, "metadata": {}})

    assert (outcome.outcome, outcome.reason) == (Outcome.FAILED, "the assertion at f.py:1 failed")
