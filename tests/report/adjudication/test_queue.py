"""The report lists every check awaiting a person, with its note and the answer's digest; a
verdict recorded for that very answer decides the check (JSON gold, through the engine)."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import pytest

from goldgate.gold.models import Case, Suite
from goldgate.gold.suites import GoldSuite, RecordedVerdict
from goldgate.report.models import Report
from goldgate.report.plain import record_json
from goldgate.report.stream import queued_entry
from goldgate.run.api import EvaluationVariant, evaluate
from goldgate.scoring.adjudication import REVIEWER_FAILED, gold_digest, output_digest

ANSWER = "We are sorry: your refund is on its way."
PROSE = "a warm apology"
NOTED = {"contains": "refund", "note": "names the refund"}


def _judged(passed: bool, gold: Any = PROSE) -> RecordedVerdict:
    """A verdict as the store holds it, judged against ``gold``."""
    return RecordedVerdict(passed, gold_digest(gold))


def _suite(
    verdicts: dict[tuple[str, str, str], RecordedVerdict] | None = None,
    prose: str = PROSE,
    noted: dict[str, Any] = NOTED,
) -> GoldSuite:
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
                        "expected": prose,
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
                        "expected": noted,
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
    assert [queued_entry(record_json(entry)) for entry in suite.adjudication_queue] == [
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
    verdicts = {("prose", "tone", output_digest(ANSWER)): _judged(passed)}
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
    [kept] = _run(_suite({("noted", "reply", digest): _judged(True, NOTED)})).suites
    [failed] = _run(_suite({("noted", "reply", digest): _judged(False, NOTED)})).suites

    assert kept.cases[1].attempts[0].checks[0].outcome == "passed"
    assert failed.cases[1].attempts[0].checks[0].outcome == "failed"
    assert failed.cases[1].attempts[0].checks[0].reason == REVIEWER_FAILED
    assert failed.verdict == "failed"


def test_a_changed_answer_goes_back_to_the_queue() -> None:
    verdicts = {("prose", "tone", output_digest(ANSWER)): _judged(True)}
    [suite] = _run(_suite(verdicts), answer=ANSWER + " ").suites

    assert suite.cases[0].attempts[0].checks[0].outcome == "not_run"
    assert suite.adjudication == 2


@pytest.mark.parametrize(
    ("prose", "noted"),
    [
        ("a warm apology that names the refund", NOTED),  # the prose changed
        (PROSE, {"contains": "refund", "note": "names the refund and the date"}),  # the note
        (PROSE, {"contains": "your refund", "note": "names the refund"}),  # an assertion
        (PROSE, {**NOTED, "maxChars": 400}),  # an assertion added
    ],
)
def test_a_changed_criterion_sends_the_answer_back_to_the_queue(
    prose: str, noted: dict[str, Any]
) -> None:
    digest = output_digest(ANSWER)
    verdicts = {
        ("prose", "tone", digest): _judged(True),
        ("noted", "reply", digest): _judged(False, NOTED),
    }
    [same] = _run(_suite(verdicts)).suites
    [changed] = _run(_suite(verdicts, prose=prose, noted=noted)).suites

    assert same.adjudication == 0
    decided = [
        bool(check.adjudicated) for case in changed.cases for check in case.attempts[0].checks
    ]
    assert decided == [prose == PROSE, noted == NOTED]
    assert [entry.case for entry in changed.adjudication_queue] == (
        ["prose"] if prose != PROSE else ["noted"]
    )


def test_a_verdict_bound_to_no_gold_decides_nothing() -> None:
    """A store line recorded before verdicts were bound to gold is read but never applies."""
    unbound = {("prose", "tone", output_digest(ANSWER)): RecordedVerdict(True, None)}
    [suite] = _run(_suite(unbound)).suites

    assert suite.cases[0].attempts[0].checks[0].outcome == "not_run"
    assert suite.adjudication == 2
