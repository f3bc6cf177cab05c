"""score_expectation: pointer resolution, dispatch, and custom scorers."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import FrozenJson
from goldgate.gold.models import Envelope, Expectation, TextOptions
from goldgate.scoring import (
    ABSENT_REASON,
    CheckOutcome,
    Outcome,
    RegisteredScorer,
    ScorerRegistry,
    not_run,
    score_expectation,
)

ENVELOPE = Envelope(payload={"message": "Cancel renewal for account C-1."}, metadata={})
DOCUMENT: dict[str, Any] = {
    "execution": {"status": "succeeded"},
    "payload": {
        "category": "Billing",
        "labels": ["urgent", "billing"],
        "action": "Cancel renewal",
        "reply": "We will cancel the renewal.",
        "nothing": None,
        "a/b": 1,
    },
}


def _score(
    expectation: Expectation,
    registry: Mapping[str, RegisteredScorer] | None = None,
    document: Any = DOCUMENT,
    options: TextOptions | None = None,
) -> CheckOutcome:
    return asyncio.run(
        score_expectation(expectation, document, ENVELOPE, registry or ScorerRegistry(), options)
    )


def test_dispatches_each_builtin_comparison() -> None:
    assert _score(Expectation("s", "/execution/status", "succeeded")).passed
    assert _score(Expectation("l", "/payload/labels", ["billing", "urgent"], "set")).passed
    span = {"input_path": "/payload/message", "required": [0, 6], "allowed": [0, 14]}
    assert _score(Expectation("a", "/payload/action", span, "source_span")).passed
    assert _score(Expectation("r", "/payload/reply", {"contains": "cancel"}, "text")).passed
    assert _score(Expectation("p", "/payload/a~1b", 1)).passed


def test_envelope_may_be_a_plain_mapping() -> None:
    span = {"input_path": "/payload/message", "required": [0, 6], "allowed": [0, 6]}
    outcome = asyncio.run(
        score_expectation(
            Expectation("a", "/payload/category", span, "source_span"),
            {"payload": {"category": "Cancel"}},
            {"payload": {"message": "Cancel it"}, "metadata": {}},
            ScorerRegistry(),
        )
    )
    assert outcome.passed


def test_outcome_records_the_actual_value() -> None:
    outcome = _score(Expectation("l", "/payload/labels", ["x"], "set"))
    assert outcome.outcome is Outcome.FAILED
    assert outcome.actual_present
    assert outcome.actual == ["urgent", "billing"]
    assert outcome.actual is not DOCUMENT["payload"]["labels"]  # a copy


def test_absent_and_null_are_different() -> None:
    absent = _score(Expectation("n", "/payload/missing", None))
    assert absent.outcome is Outcome.FAILED
    assert absent.reason == ABSENT_REASON
    assert (absent.actual_present, absent.actual) == (False, None)
    null = _score(Expectation("n", "/payload/nothing", None))
    assert null.passed
    assert (null.actual_present, null.actual) == (True, None)
    dash = _score(Expectation("d", "/payload/labels/-", None))
    assert dash.reason == ABSENT_REASON


def test_pointer_syntax_errors_are_error_outcomes() -> None:
    outcome = _score(Expectation("bad", "payload/category", "x"))
    assert outcome.outcome is Outcome.ERROR
    assert outcome.reason == "the expectation's path is not a valid JSON pointer"
    assert _score(Expectation("bad", "/payload/~2", "x")).outcome is Outcome.ERROR


def test_text_options_reach_the_text_comparison() -> None:
    options = TextOptions.model_validate({"json": True})
    outcome = _score(Expectation("r", "/payload/reply", "prose", "text"), options=options)
    assert outcome.outcome is Outcome.NOT_RUN
    assert outcome.adjudication
    assert outcome.json_parsed is False


def test_not_run_helper() -> None:
    outcome = not_run("the attempt timed out")
    assert outcome.outcome is Outcome.NOT_RUN
    assert outcome.reason == "the attempt timed out"
    assert not outcome.actual_present
    with pytest.raises(ValueError, match="needs a reason"):
        CheckOutcome(Outcome.FAILED)


# --- custom ------------------------------------------------------------------------------------


def _custom(expected: Any = "billing", path: str = "/payload/category") -> Expectation:
    return Expectation("c", path, expected, "custom", "casefolded")


async def casefolded(actual: FrozenJson, expected: FrozenJson) -> bool:
    return (
        isinstance(actual, str)
        and isinstance(expected, str)
        and (actual.casefold() == expected.casefold())
    )


def test_custom_scorer_decides() -> None:
    registry = ScorerRegistry([RegisteredScorer("casefolded", "1", casefolded)])
    assert _score(_custom("billing"), registry).passed
    failed = _score(_custom("refund"), registry)
    assert failed.outcome is Outcome.FAILED
    assert failed.reason == "scorer 'casefolded' returned false"
    assert failed.actual == "Billing"


def test_custom_scorer_gets_frozen_values() -> None:
    seen: list[tuple[Any, Any]] = []

    async def record(actual: FrozenJson, expected: FrozenJson) -> bool:
        seen.append((actual, expected))
        return True

    registry = ScorerRegistry([RegisteredScorer("casefolded", "1", record)])
    expected = {"any": ["of", {"these": 1}]}
    document = {"payload": {"category": {"labels": ["a", "b"], "meta": {"k": [1]}}}}
    assert _score(_custom(expected), registry, document).passed
    ((actual_seen, expected_seen),) = seen
    assert isinstance(actual_seen, MappingProxyType)
    assert actual_seen["labels"] == ("a", "b")
    assert isinstance(actual_seen["meta"], MappingProxyType)
    assert actual_seen["meta"]["k"] == (1,)
    assert isinstance(expected_seen, MappingProxyType)
    assert expected_seen["any"] == ("of", MappingProxyType({"these": 1}))
    with pytest.raises(TypeError):
        actual_seen["labels"] = ()  # type: ignore[index]


def test_custom_scorer_is_not_called_for_an_absent_actual() -> None:
    calls: list[Any] = []

    async def record(actual: FrozenJson, expected: FrozenJson) -> bool:
        calls.append(actual)
        return True

    registry = ScorerRegistry([RegisteredScorer("casefolded", "1", record)])
    outcome = _score(_custom(path="/payload/absent"), registry)
    assert outcome.outcome is Outcome.FAILED
    assert outcome.reason == ABSENT_REASON
    assert calls == []
    # A null actual is a value: the scorer sees it.
    assert _score(_custom(path="/payload/nothing"), registry).passed
    assert calls == [None]


def test_raising_scorer_is_an_error_naming_only_the_exception_type() -> None:
    async def explode(actual: FrozenJson, expected: FrozenJson) -> bool:
        raise KeyError(f"customer secret {actual!r} sk-live-ABCDEF")

    registry = ScorerRegistry([RegisteredScorer("casefolded", "1", explode)])
    outcome = _score(_custom(), registry)
    assert outcome.outcome is Outcome.ERROR
    assert outcome.reason == "scorer 'casefolded' raised KeyError"
    assert outcome.actual == "Billing"


def test_non_bool_return_is_an_error() -> None:
    async def truthy(actual: FrozenJson, expected: FrozenJson) -> bool:
        return 1  # type: ignore[return-value]

    registry = ScorerRegistry([RegisteredScorer("casefolded", "1", truthy)])
    outcome = _score(_custom(), registry)
    assert outcome.outcome is Outcome.ERROR
    assert outcome.reason == "scorer 'casefolded' returned int, not a bool"


def test_unregistered_scorer_raises_invalid_input() -> None:
    with pytest.raises(InvalidInputError, match="scorer 'casefolded', which is not registered"):
        _score(_custom())


def test_custom_without_a_scorer_name_is_an_error() -> None:
    outcome = _score(Expectation("c", "/payload/category", "x", "custom"))
    assert outcome.outcome is Outcome.ERROR
    assert outcome.reason == "a custom comparison needs a scorer name"


def test_registry_may_be_any_mapping() -> None:
    registry = {"casefolded": RegisteredScorer("casefolded", "1", casefolded)}
    assert _score(_custom(), registry).passed
