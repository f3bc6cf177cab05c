"""Replay with unchanged gold reproduces every check outcome and metric of the run exactly,
whatever the gold and the results: a property over generated suites (Python API)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldgate.base.errors import InvalidInputError
from goldgate.comparison.replay import replay
from goldgate.gold.models import Case, Suite
from goldgate.gold.suites import GoldSuite
from goldgate.report.models import Report
from goldgate.run.api import EvaluationVariant, evaluate

LABELS = ["a", "b", "c"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "x", "A"])
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=4)


@st.composite
def suites_and_results(draw: st.DrawFn) -> tuple[GoldSuite, dict[str, list[Any]], bool]:
    count = draw(st.integers(1, 6))
    repeat = draw(st.integers(1, 3))
    cases, results = [], {}
    for index in range(count):
        case_id = f"case-{index}"
        message = draw(st.text(alphabet="ab ", min_size=2, max_size=8))
        expectations = [
            {"name": "label", "path": "/payload/label", "expected": draw(st.sampled_from(LABELS))},
            {"name": "value", "path": "/payload/value", "expected": draw(values)},
            {
                "name": "tags",
                "path": "/payload/tags",
                "expected": draw(st.lists(scalars, max_size=3)),
                "comparison": "set",
            },
            {
                "name": "reply",
                "path": "/payload/reply",
                "expected": {"contains": draw(st.sampled_from(["a", "b"])), "maxChars": 6},
                "comparison": "text",
            },
            {
                "name": "span",
                "path": "/payload/span",
                "expected": {
                    "input_path": "/payload/message",
                    "required": [0, 1],
                    "allowed": [0, len(message)],
                },
                "comparison": "source_span",
            },
        ]
        cases.append(
            {
                "id": case_id,
                "input": {"payload": {"message": message}, "metadata": {}},
                "expectations": expectations,
            }
        )
        attempts: list[Any] = []
        for _ in range(repeat):
            if draw(st.integers(0, 5)) == 0:
                attempts.append(None)  # the target fails
                continue
            payload: dict[str, Any] = {}
            if draw(st.booleans()):
                payload["label"] = draw(st.one_of(st.sampled_from([*LABELS, "z"]), st.none()))
            if draw(st.booleans()):
                payload["value"] = draw(values)
            payload["tags"] = draw(st.lists(scalars, max_size=3))
            payload["reply"] = draw(st.one_of(st.text(alphabet="ab", max_size=8), st.integers()))
            payload["span"] = message[: draw(st.integers(0, len(message)))]
            attempts.append({"payload": payload})
        results[case_id] = attempts
    suite = Suite(
        name="generated",
        workflow="python",
        cases=cases,
        metrics=[
            {"name": "labels", "path": "/payload/label", "kind": "classification", "labels": LABELS}
        ],
    )
    parsed = tuple(Case.model_validate(raw) for raw in cases)
    return GoldSuite.build(suite, parsed, "<python>"), results, repeat > 1


def _checks(report: Report) -> list[Any]:
    return [
        (a.case_id, a.attempt, a.status, [(c.name, c.outcome, c.reason) for c in a.checks])
        for suite in report.suites
        for a in suite.iter_attempts()
    ]


async def _run(gold: GoldSuite, results: Mapping[str, list[Any]]) -> Report:
    seen: dict[str, int] = {}

    async def run(envelope: Mapping[str, Any]) -> Any:
        # The message identifies the case only together with its position: count calls.
        case_id = next(c.id for c in gold.cases if c.input.as_json() is envelope)
        attempt = seen.get(case_id, 0)
        seen[case_id] = attempt + 1
        document = results[case_id][attempt]
        if document is None:
            raise RuntimeError("the application broke")
        return document

    variant = EvaluationVariant(name="v", revision="r", run=run)
    return await evaluate(gold, variant)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suites_and_results())
def test_replay_with_unchanged_gold_reproduces_checks_and_metrics(
    generated: tuple[GoldSuite, dict[str, list[Any]], bool],
) -> None:
    gold, results, repeated = generated
    if repeated:  # evaluate() runs each case once; repeats go through the CLI tests
        results = {case_id: attempts[:1] for case_id, attempts in results.items()}
    original = anyio.run(_run, gold, results)

    replayed = anyio.run(lambda: replay(original, gold))

    assert _checks(replayed) == _checks(original)
    [before], [after] = original.suites, replayed.suites
    assert after.metrics == before.metrics
    assert after.counts == before.counts
    assert after.summary == before.summary
    assert after.verdict == before.verdict
    assert replayed.verdict == original.verdict
    assert replayed.replay_of is not None
    assert [a.latency_ms for a in after.iter_attempts()] == [
        a.latency_ms for a in before.iter_attempts()
    ]


def _fixed_suite(name: str, ids: list[str]) -> GoldSuite:
    cases = [
        {
            "id": case_id,
            "input": {"payload": {}, "metadata": {}},
            "expectations": [{"name": "v", "path": "/payload/v", "expected": 1}],
        }
        for case_id in ids
    ]
    suite = Suite(name=name, workflow="python", cases=cases)
    return GoldSuite.build(suite, tuple(Case.model_validate(c) for c in cases), "<python>")


def test_replay_refuses_gold_whose_cases_differ() -> None:
    gold = _fixed_suite("s", ["a", "b"])
    original = anyio.run(_run, gold, {"a": [{"payload": {"v": 1}}], "b": [None]})

    with pytest.raises(InvalidInputError, match=r"^cannot replay: the dataset name is 's'"):
        anyio.run(lambda: replay(original, _fixed_suite("t", ["a", "b"])))
    with pytest.raises(InvalidInputError, match=r"^cannot replay: suite 's': 2 cases in the"):
        anyio.run(lambda: replay(original, _fixed_suite("s", ["a", "b", "c"])))
