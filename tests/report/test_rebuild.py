"""A suite rebuilt around its cases (``report.rebuild``, what ``report merge`` recomputes)
states the figures the run stated (counts, summary with text figures, the adjudication
queue, metrics, thresholds, verdict): metrics from observations held as a tally of distinct ones
(issue 43: a merge's memory does not grow with its cases), latencies kept only for a latency
maximum, and the refusal of gold outside a metric's catalog naming the case a run names."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.gold.models import Case, Expectation, Metric
from goldgate.report.models import Report
from goldgate.report.plain import record_json
from goldgate.report.rebuild import SuiteRebuild, rebuild_suite
from goldgate.run.api import EvaluationSuite, EvaluationVariant, evaluate

LABELS = ["a", "b", "c"]
PREDICTIONS: list[Any] = ["a", "b", "c", "zz", None, 1, 1.0, True, ["a"], {"x": 1}, "a", "b"]
"""What the application answers, case by case in turn: labels, and everything a metric
counts as no label (invalid, abstained), among them values equal in Python and not in JSON."""


async def _answer(envelope: dict[str, Any]) -> dict[str, object]:
    number = envelope["payload"]["n"]
    payload: dict[str, object] = {"tags": ["a", "b"][: number % 3], "text": "hello " * number}
    if number % 13 != 5:  # now and then nothing at the path: missing
        payload["label"] = PREDICTIONS[number % len(PREDICTIONS)]
    return {"execution": {"status": "completed"}, "payload": payload}


def _report(thresholds: dict[str, float]) -> Report:
    cases = [
        Case(
            id=f"c{number}",
            input={"payload": {"n": number}, "metadata": {}},
            expectations=[
                Expectation("label", "/payload/label", LABELS[number % 3]),
                Expectation("tags", "/payload/tags", [LABELS[number % 2]]),
                Expectation("polite", "/payload/text", "Is it polite?", comparison="text"),
                Expectation("says", "/payload/text", {"contains": "hello"}, comparison="text"),
            ],
        )
        for number in range(60)
    ]
    metrics = [
        Metric(name="kind", path="/payload/label", kind="classification", labels=LABELS),
        Metric(name="tagging", path="/payload/tags", kind="multilabel", labels=LABELS),
    ]
    suite = EvaluationSuite("s", cases, thresholds=thresholds)
    variant = EvaluationVariant("v", "r1", _answer)
    return anyio.run(lambda: evaluate(suite, variant, metrics=metrics))


@pytest.fixture(scope="module")
def report() -> Report:
    return _report({"kind.accuracy": 0.2, "tagging.micro_f1": 0.1, "latency.p95_ms": 60_000})


def test_a_rebuilt_suite_states_the_runs_figures(report: Report) -> None:
    [suite] = report.suites
    assert suite.metrics
    assert suite.adjudication_queue  # prose waits for a person
    assert suite.summary["text.chars"]
    assert len(suite.thresholds) == 3
    rebuilt = rebuild_suite(suite, suite.cases)
    assert record_json(rebuilt) == record_json(suite)
    # The latency maximum held against every attempt's latency, kept for it alone.
    tally = SuiteRebuild(suite)
    for case in suite.cases:
        tally.add(case)
    assert tally.latencies is not None
    assert len(tally.latencies) == len(suite.cases)
    unbounded = dataclasses.replace(suite, thresholds=suite.thresholds[:2])
    assert SuiteRebuild(unbounded).latencies is None


def test_the_observations_are_held_as_distinct_ones(report: Report) -> None:
    [suite] = report.suites
    tally = SuiteRebuild(suite)
    for case in suite.cases:
        tally.add(case)
    kind, tagging = tally.observations
    # 60 attempts; the classification's distinct (gold, status, prediction): far fewer.
    assert sum(count for _, count in kind.seen.values()) == 60
    assert len(kind.seen) < 40
    assert [o.case_id for o in kind] != [f"c{n}" for n in range(60)]  # a tally
    assert len(list(tagging)) == 60


def test_gold_outside_the_catalog_is_refused_at_the_first_case_that_has_it(
    report: Report,
) -> None:
    [suite] = report.suites

    def outside(case: Any, gold: str) -> Any:
        first = dataclasses.replace(case.expectations[0], expected=gold)
        return dataclasses.replace(case, expectations=(first, *case.expectations[1:]))

    # "zzz" first (at c7), "aaa" later (at c31): the first in the suite's order is named.
    cases = list(suite.cases)
    cases[7], cases[31] = outside(cases[7], "zzz"), outside(cases[31], "aaa")
    with pytest.raises(InvalidInputError, match="the gold of case 'c7' is not"):
        rebuild_suite(suite, cases)
