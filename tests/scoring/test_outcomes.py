"""``scored`` builds exactly what ``CheckOutcome(...)`` builds, without its checks."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from goldgate.scoring.outcomes import CheckOutcome, Outcome, scored


def test_scored_sets_every_field_in_declaration_order() -> None:
    built = scored(Outcome.PASSED, None, True, "x")
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
            fields = {
                "assertions_declared": declared,
                "assertions_held": held,
                "adjudication": queued,
                "json_parsed": json_parsed,
                "required_keys_found": found,
                "required_keys_declared": keys,
            }
            built = scored(outcome, reason, present, actual, *fields.values())
            reference = CheckOutcome(
                outcome, reason, actual_present=present, actual=actual, **fields
            )
            assert built == reference
            assert vars(built) == vars(reference)


def test_scored_is_frozen() -> None:
    built = scored(Outcome.PASSED, None, True, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.reason = "changed"  # type: ignore[misc]
