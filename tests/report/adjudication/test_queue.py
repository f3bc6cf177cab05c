"""The report lists every check awaiting a person, with its note and the answer's digest; a
verdict recorded for that very answer decides the check (JSON gold, through the engine)."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import pytest

from goldgate.gold.models import Case, Suite
from goldgate.gold.suites import GoldSuite
from goldgate.report.models import Report
from goldgate.report.plain import record_json
from goldgate.run.api import EvaluationVariant, evaluate
from goldgate.scoring.adjudication import REVIEWER_FAILED, output_digest

ANSWER = "We are sorry: your refund is on its way."


def _suite(verdicts: dict[tuple[str, str, str], bool] | None = None) -> GoldSuite:
    cases = (
        Case.model_validate(
            {
                "id": "prose",
                "input": {"payload": {}, "metadata": {}},
                "expectations": [
                    {
                        "name": "tone",
                        "path": "/payload/reply",
                        "comparison": "text",
                        "expected": "a warm apology",
                    },
                ],
            }
        ),
        Case.model_validate(
            {
                "id": "noted",
                "input": {"payload": {}, "metadata": {}},
                "expectations": [
                    {
                        "name": "reply",
                        "path": "/payload/reply",
                        "comparison": "text",
                        "expected": {"contains": "refund", "note": "names the refund"},
                    },
                ],
            }
        ),
    )
    model = Suite(name="replies", workflow="app", cases=[c.model_dump() for c in cases])
    suite = GoldSuite.build(model, cases, "<test>")
    return dataclasses.replace(suite, verdicts=verdicts or {})


def _run(suite: GoldSuite, answer: str = ANSWER, include_details: bool = True) -> Report:
    async def run(envelope: Any) -> dict[str, Any]:
        return {"payload": {"reply": answer}}

    variant = EvaluationVariant(name="v", revision="r", run=run)
    return anyio.run(lambda: evaluate(suite, variant, include_details=include_details))


def test_the_queue_lists_each_waiting_check_with_its_note_and_digest() -> None:
    report = _run(_suite())
    [suite] = report.suites

    assert suite.adjudication == 2
    assert [record_json(entry) for entry in suite.adjudication_queue] == [
        {
            "case": "prose",
            "attempt": 1,
            "check": "tone",
            "note": "a warm apology",
            "digest": output_digest(ANSWER),
        },
        {
            "case": "noted",
            "attempt": 1,
            "check": "reply",
            "note": "names the refund",
            "digest": output_digest(ANSWER),
        },
    ]
    assert report.verdict.adjudication == 2


def test_without_details_the_note_stays_out() -> None:
    [suite] = _run(_suite(), include_details=False).suites

    assert [entry.note for entry in suite.adjudication_queue] == [None, None]


@pytest.mark.parametrize(("passed", "outcome"), [(True, "passed"), (False, "failed")])
def test_a_recorded_verdict_decides_prose_and_leaves_the_queue(passed: bool, outcome: str) -> None:
    verdicts = {("prose", "tone", output_digest(ANSWER)): passed}
    [suite] = _run(_suite(verdicts)).suites
    [check] = suite.cases[0].attempts[0].checks

    assert check.outcome == outcome
    assert check.adjudicated is True
    assert check.adjudication is False
    assert check.reason == (None if passed else REVIEWER_FAILED)
    assert [entry.case for entry in suite.adjudication_queue] == ["noted"]
    assert suite.counts.checks[outcome] >= 1


def test_beside_assertions_a_passing_verdict_keeps_their_outcome_a_failing_one_fails() -> None:
    digest = output_digest(ANSWER)
    [kept] = _run(_suite({("noted", "reply", digest): True})).suites
    [failed] = _run(_suite({("noted", "reply", digest): False})).suites

    assert kept.cases[1].attempts[0].checks[0].outcome == "passed"
    assert failed.cases[1].attempts[0].checks[0].outcome == "failed"
    assert failed.cases[1].attempts[0].checks[0].reason == REVIEWER_FAILED
    assert failed.verdict == "failed"


def test_a_changed_answer_goes_back_to_the_queue() -> None:
    verdicts = {("prose", "tone", output_digest(ANSWER)): True}
    [suite] = _run(_suite(verdicts), answer=ANSWER + " ").suites

    assert suite.cases[0].attempts[0].checks[0].outcome == "not_run"
    assert suite.adjudication == 2
