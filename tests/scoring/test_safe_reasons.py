"""Reasons are gate messages: they never repeat actual values, expected values or inputs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from goldgate.base.jsonvalue import FrozenJson
from goldgate.gold.models import Envelope, Expectation, TextOptions
from goldgate.scoring import Outcome, RegisteredScorer, ScorerRegistry, score_expectation

SECRET = "sk-live-7f3a9QZ"
OTHER = "sk-test-Q0b1X"
FRAGMENTS = (SECRET, OTHER, "7f3a9", "Q0b1X", "hunter")


async def _leaky(actual: FrozenJson, expected: FrozenJson) -> bool:
    raise ValueError(f"{actual!r} != {expected!r}")


async def _refuse(actual: FrozenJson, expected: FrozenJson) -> bool:
    return False


REGISTRY = ScorerRegistry(
    [RegisteredScorer("leaky", "1", _leaky), RegisteredScorer("refuse", "1", _refuse)]
)
ENVELOPE = Envelope(payload={"message": f"token {SECRET} and {SECRET}!"}, metadata={})
SPAN = {"input_path": "/payload/message", "required": [6, 21], "allowed": [6, 21]}
SPAN_TOO_LONG = {"input_path": "/payload/message", "required": [6, 21], "allowed": [0, 99]}

CASES: list[tuple[str, Any, Any, str, str | None]] = [
    ("exact-string", SECRET, OTHER, "exact", None),
    ("exact-same-length", SECRET, SECRET[::-1], "exact", None),
    ("exact-type", SECRET, 7, "exact", None),
    ("exact-object", {"token": SECRET, SECRET: 1}, {"token": OTHER, "x": OTHER}, "exact", None),
    ("exact-array", [SECRET, 1], [OTHER, "1"], "exact", None),
    ("set", [SECRET, "a"], [OTHER, "a"], "set", None),
    ("set-type", SECRET, [OTHER], "set", None),
    (
        "span-elsewhere",
        SECRET,
        {**SPAN, "required": [25, 40], "allowed": [25, 41]},
        "source_span",
        None,
    ),
    ("span-absent-from-source", OTHER, SPAN, "source_span", None),
    ("span-out-of-range", SECRET, SPAN_TOO_LONG, "source_span", None),
    ("text-contains", f"answer {OTHER}", {"contains": SECRET}, "text", None),
    ("text-not-contains", f"answer {SECRET}", {"notContains": [SECRET]}, "text", None),
    ("text-matches", OTHER, {"matches": SECRET}, "text", None),
    ("text-not-matches", SECRET, {"notMatches": "sk-live-.*"}, "text", None),
    ("text-broken-regex", OTHER, {"matches": "(?P<hunter2>" + SECRET}, "text", None),
    ("text-bad-escape", OTHER, {"matches": "\\hunter"}, "text", None),
    ("text-bounds", SECRET * 3, {"maxChars": 5, "maxLines": 0}, "text", None),
    ("text-required-keys", f'{{"{OTHER}": 1}}', {"requiredKeys": [SECRET]}, "text", None),
    ("text-not-json", SECRET, {"requiredKeys": ["a"]}, "text", None),
    ("text-adjudication", SECRET, f"should mention {OTHER}", "text", None),
    ("text-not-a-string", {"x": SECRET}, {"contains": OTHER}, "text", None),
    ("custom-raises", SECRET, OTHER, "custom", "leaky"),
    ("custom-false", SECRET, OTHER, "custom", "refuse"),
]


@pytest.mark.parametrize(
    ("actual", "expected", "comparison", "scorer"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_reasons_never_contain_values(
    actual: Any, expected: Any, comparison: str, scorer: str | None
) -> None:
    expectation = Expectation("e", "/payload/value", expected, comparison, scorer)
    document = {"payload": {"value": actual}}
    options = TextOptions.model_validate({"json": True, "requiredKeys": [SECRET]})
    outcome = asyncio.run(score_expectation(expectation, document, ENVELOPE, REGISTRY, options))
    assert outcome.outcome is not Outcome.PASSED
    assert outcome.reason
    for fragment in FRAGMENTS:
        assert fragment not in outcome.reason, (fragment, outcome.reason)
    assert "\n" not in outcome.reason
