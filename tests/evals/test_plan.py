"""The engine's ``Case`` models of eval cases are built without pydantic's ``model_construct``
(twice per case: 20,000 calls for 10,000 cases); they must be the very models it builds."""

from __future__ import annotations

from typing import Any

import pytest

from goldgate.dataset.models import Case, Envelope
from goldgate.evals.plan import PASS_ONLY, case_model, score_expectation


@pytest.mark.parametrize(
    ("envelope", "compiled", "family", "split"),
    [
        ({"payload": {"case": "e", "input": {"q": [1, 2.5, None]}}, "metadata": {}}, PASS_ONLY,
         None, None),
        ({"payload": {"case": "e[1]", "input": "x", "reference": "y"}, "metadata": {"k": 1}},
         (*PASS_ONLY, score_expectation("relevance")), "positive", "dev"),
    ],
)  # fmt: skip
def test_case_models_are_those_model_construct_builds(
    envelope: dict[str, Any], compiled: Any, family: str | None, split: str | None
) -> None:
    built = case_model("e", envelope, compiled, family, split)

    expected = Case.model_construct(
        id="e",
        input=Envelope.model_construct(**envelope),
        expectations=[e.model_copy() for e in built.expectations],
        family=family,
        split=split,
    )
    assert built == expected
    dumped = built.model_dump()
    assert dumped == expected.model_dump()
    assert list(dumped) == list(expected.model_dump())  # fields in the same order
    assert built.model_fields_set == expected.model_fields_set
    assert built.input.model_fields_set == expected.input.model_fields_set
    assert built.input.as_json() == envelope
    assert [e.name for e in built.expectations] == [e.name for e in compiled]
    copied = built.model_copy(update={"family": "other"})  # pydantic's own machinery works
    assert (copied.family, copied.id, built.family) == ("other", "e", family)
    with pytest.raises(ValueError, match="frozen"):
        built.id = "changed"
