"""A new comparison kind is one module plus one registry line (docs/extending.md): a toy kind,
``prefix`` (the actual string starts with ``expected``), added to ``goldgate.scoring.kinds``'s
registry alone, is accepted by the gold check, refused by its own rules where its gold is
wrong, scored by a run's scoring, and listed by the JSON Schema. Nothing else is edited."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from goldgate.app.schema import schema
from goldgate.base.jsonvalue import MISSING, json_type_name
from goldgate.gold import Expectation, check_gold
from goldgate.gold.compiled import CompiledExpectation, compile_expectation
from goldgate.gold.settings import load_settings
from goldgate.scoring import KINDS, Outcome, ScoringKind, score_compiled
from goldgate.scoring.outcomes import ABSENT_REASON, CheckOutcome, scored

# --- the toy: what its module would hold --------------------------------------------------------


def _rules(expected: Any, form: Any, envelope: Mapping[str, Any]) -> Sequence[Any]:
    if isinstance(expected, str):
        return ()
    return [
        (("expected",), f"a prefix comparison expects a string, found {json_type_name(expected)}")
    ]


def _score(
    actual: Any, expectation: CompiledExpectation, envelope: Any, options: Any
) -> CheckOutcome:
    if actual is MISSING:
        return CheckOutcome(Outcome.FAILED, ABSENT_REASON)
    held = isinstance(actual, str) and actual.startswith(expectation.form)
    return scored(
        Outcome.PASSED if held else Outcome.FAILED,
        None if held else "the answer does not start with the expected prefix",
        actual_present=True,
        actual=actual,
    )


def _compile(expected: Any, known: Any, check_only: bool) -> Any:
    return expected if isinstance(expected, str) else None


PREFIX = ScoringKind(name="prefix", rules=_rules, compile=_compile, score=_score)


@pytest.fixture
def prefix(monkeypatch: pytest.MonkeyPatch) -> ScoringKind:
    """The toy registered: the one registry line, undone after the test."""
    monkeypatch.setitem(KINDS, PREFIX.name, PREFIX)
    return PREFIX


# --- the checks ---------------------------------------------------------------------------------


def _use_prefix(gold_project: Any, expected: Any) -> Any:
    gold_project.cases[0]["expectations"][0] = {
        "name": "greeting",
        "path": "/payload/answer",
        "expected": expected,
        "comparison": "prefix",
    }
    gold_project.write()
    return check_gold(load_settings(gold_project.root / gold_project.SETTINGS))


def test_unregistered_it_is_an_unknown_comparison(gold_project: Any) -> None:
    result = _use_prefix(gold_project, "Hello")

    assert [(v.pointer, v.message) for v in result.violations] == [
        (
            "/0/expectations/0/comparison",
            'must be one of "exact", "set", "source_span", "custom", "text" or '
            '"maximum", found "prefix"',
        )
    ]


def test_gold_using_the_registered_kind_passes_the_check(
    gold_project: Any, prefix: ScoringKind
) -> None:
    result = _use_prefix(gold_project, "Hello")

    assert result.violations == ()
    assert result.dataset is not None
    assert result.dataset is not None
    compiled = result.dataset.suite("filed").compiled[0][0]
    assert (compiled.comparison, compiled.form) == ("prefix", "Hello")


def test_its_own_rules_refuse_bad_gold_with_a_located_message(
    gold_project: Any, prefix: ScoringKind
) -> None:
    result = _use_prefix(gold_project, 42)

    assert len(result.violations) == 1
    violation = result.violations[0]
    assert violation.source.endswith("evaluation/cases/filed.json")
    assert violation.pointer == "/0/expectations/0/expected"
    assert violation.message == "a prefix comparison expects a string, found number"
    line = (
        gold_project.root.joinpath(gold_project.CASE_FILE)
        .read_text()
        .splitlines()[violation.line - 1]
    )
    assert '"expected": 42' in line


def test_a_run_scores_it_passed_and_failed(prefix: ScoringKind) -> None:
    expectation = compile_expectation(Expectation("greeting", "/answer", "Hello", "prefix"))
    envelope = {"payload": {}, "metadata": {}}

    passed = score_compiled(expectation, {"answer": "Hello, world"}, envelope)
    failed = score_compiled(expectation, {"answer": "Goodbye"}, envelope)
    absent = score_compiled(expectation, {}, envelope)

    assert passed.outcome is Outcome.PASSED
    assert (failed.outcome, failed.reason) == (
        Outcome.FAILED,
        "the answer does not start with the expected prefix",
    )
    assert (absent.outcome, absent.reason) == (Outcome.FAILED, ABSENT_REASON)


def test_the_schema_lists_it(prefix: ScoringKind) -> None:
    # A dataset's cases may be inline or in a case file: the case schema describes both.
    comparison = schema("cases")["$defs"]["Expectation"]["properties"]["comparison"]

    assert comparison["enum"] == [
        "exact",
        "set",
        "source_span",
        "custom",
        "text",
        "maximum",
        "prefix",
    ]
    assert "prefix" not in json.dumps(schema("dataset"))  # its cases are left to the case schema
