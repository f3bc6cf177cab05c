"""``scored`` builds exactly what ``CheckOutcome(...)`` builds, without its checks; a
check's values build it again."""

from __future__ import annotations

import dataclasses
import itertools
import pickle

import pytest

from goldgate.scoring.outcomes import (
    CheckOutcome,
    Outcome,
    TextOptionFigures,
    check_of_values,
    check_values,
    scored,
)


def test_scored_sets_every_field_in_declaration_order() -> None:
    built = scored(Outcome.PASSED, None, actual_present=True, actual="x")
    assert list(vars(built)) == [field.name for field in dataclasses.fields(CheckOutcome)]


@pytest.mark.parametrize(
    ("outcome", "reason", "present", "actual"),
    [
        (Outcome.PASSED, None, True, {"a": [1]}),
        (Outcome.FAILED, "no", False, None),
        (Outcome.ERROR, "bad", True, None),
        (Outcome.NOT_RUN, "queued", True, "answer"),
    ],
)
def test_scored_equals_the_constructor(
    outcome: Outcome, reason: str | None, present: bool, actual: object
) -> None:
    optional = [None, 0, 3]
    for declared, held, json_parsed, found, keys in itertools.product(
        optional, optional, [None, True, False], optional, optional
    ):
        for queued in (False, True):
            text = {
                "assertions_declared": declared,
                "assertions_held": held,
                "adjudication": queued,
            }
            options = TextOptionFigures(json_parsed, found, keys)
            built = scored(
                outcome, reason, actual_present=present, actual=actual, options=options, **text
            )
            reference = CheckOutcome(
                outcome,
                reason,
                actual_present=present,
                actual=actual,
                json_parsed=json_parsed,
                required_keys_found=found,
                required_keys_declared=keys,
                **text,
            )
            assert built == reference
            assert vars(built) == vars(reference)


def test_scored_is_frozen() -> None:
    built = scored(Outcome.PASSED, None, actual_present=True, actual=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.reason = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    "check",
    [
        CheckOutcome(Outcome.PASSED),
        CheckOutcome(Outcome.FAILED, "the answer lacks string 1 of contains", True, "text", 2, 1),
        CheckOutcome(
            Outcome.NOT_RUN, "waits", True, "an answer", 0, 0, True, False, 1, 2, adjudicated=True
        ),
        CheckOutcome(Outcome.PASSED, None, True, {"nested": [1, None]}),
    ],
)
def test_a_check_crosses_to_another_process_as_its_values(check: CheckOutcome) -> None:
    """What a report process receives (``check_values``) builds the very check again, every
    field in place, through a pickle as the pipe carries it."""
    values = pickle.loads(pickle.dumps(check_values(check)))
    assert type(values) is tuple
    rebuilt = check_of_values(values)
    assert rebuilt == check
    assert vars(rebuilt) == vars(check)
    assert rebuilt.outcome is check.outcome
