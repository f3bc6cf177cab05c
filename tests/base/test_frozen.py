"""Every frozen dataclass built without its ``__init__`` (``goldgate.base.frozen.built``) is
exactly what its constructor builds, field by field and in order."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from goldgate.base.frozen import built
from goldgate.gold.recorded import RecordedCase, RecordedEnvelope
from goldgate.run.targets.base import TargetResponse, response
from goldgate.scoring.attempt import AttemptOutcome, Which, completed
from goldgate.scoring.outcomes import CheckOutcome, Outcome, scored


def _same(made: Any, reference: Any) -> None:
    assert type(made) is type(reference)
    assert made == reference
    assert list(vars(made)) == [field.name for field in dataclasses.fields(reference)]
    assert vars(made) == vars(reference)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.anything = 1


def test_a_completed_attempt_is_the_constructed_one() -> None:
    case = RecordedCase("c", None, "dev", RecordedEnvelope({}, {}), ())
    checks = (scored(Outcome.PASSED, None, actual_present=True, actual=1),)
    document = {"payload": {"a": 1}}
    _same(
        completed(
            Which(3, case, 2),
            latency_ms=1.5,
            document=document,
            stderr="warn",
            checks=checks,
        ),
        AttemptOutcome(3, case, 2, "completed", None, 1.5, document, "warn", checks),
    )


@pytest.mark.parametrize("stderr", [None, "tail"])
def test_a_response_is_the_constructed_one(stderr: str | None) -> None:
    _same(response({"a": [1]}, stderr), TargetResponse({"a": [1]}, stderr))


def test_built_sets_exactly_the_fields_given() -> None:
    made = built(CheckOutcome, {"outcome": Outcome.PASSED})
    assert vars(made) == {"outcome": Outcome.PASSED}


def test_an_unfinished_attempt_is_the_constructed_one() -> None:
    from goldgate.gold.models import Case, Suite
    from goldgate.gold.suites import GoldSuite
    from goldgate.scoring.attempt import unfinished

    case = Case.model_validate(
        {"id": "c", "input": {"payload": {}, "metadata": {}},
         "expectations": [{"name": "a", "path": "", "expected": 1}]}
    )  # fmt: skip
    suite = GoldSuite.build(Suite(name="s", workflow="w", cases=[{}]), (case,), "<python>")
    made = unfinished(suite, index=0, attempt=2, status="cancelled", reason="stopped")
    _same(
        made,
        AttemptOutcome(0, case, 2, "cancelled", "stopped", None, None, None, made.checks),
    )
    assert [check.outcome for check in made.checks] == ["not_run"]


@pytest.mark.parametrize("note", [None, "names the refund"])
def test_an_awaiting_record_is_the_constructed_one(note: str | None) -> None:
    from goldgate.report.build import awaiting
    from goldgate.report.records import AwaitingRecord
    from goldgate.scoring.adjudication import output_digest

    _same(
        awaiting(case="c", attempt=2, check="reply", note=note, answer="the answer"),
        AwaitingRecord(
            case="c", attempt=2, check="reply", note=note, digest=output_digest("the answer")
        ),
    )
