"""The engine's ``Case`` models of eval cases are built without pydantic's ``model_construct``
(twice per case: 20,000 calls for 10,000 cases); they must be the very models it builds."""

from __future__ import annotations

from typing import Any

import pytest

from goldgate.evals.casemodel import case_model
from goldgate.evals.collector import PASS_ONLY, score_expectation
from goldgate.gold.models import Case, Envelope


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
    built = case_model("e", envelope, compiled, family=family, split=split)

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


def _planned(tmp_path: Any) -> Any:
    from goldgate.evals import EvalContext, eval
    from goldgate.evals.collect import cases_of
    from goldgate.evals.plan import plan_evals

    def subject(ctx: EvalContext) -> None:
        return None

    subject.__code__ = subject.__code__.replace(co_filename=str(tmp_path / "eval_x.py"))
    function = eval(
        dataset="d",
        cases=[
            {"input": {"q": 1}, "reference": "r", "metadata": {"m": [1]}},
            {"id": "second", "input": "b", "expect": {"contains": "b", "matches": "^b"}},
            {"input": None},
        ],
    )(subject)
    return plan_evals(cases_of([function]), project=tmp_path).suites[0].gold


def test_eval_cases_are_models_when_indexed_and_recorded_cases_for_a_run(tmp_path: Any) -> None:
    from goldgate.evals.plan import EvalCases
    from goldgate.gold.recorded import RecordedCase, RecordedCases, recorded_case

    suite = _planned(tmp_path)
    cases = suite.cases
    assert isinstance(cases, EvalCases)
    assert isinstance(cases, RecordedCases)
    assert len(cases) == 3
    assert cases.ids == ["subject[0]", "subject[second]", "subject[2]"]
    models = list(cases)
    assert [model.id for model in models] == cases.ids
    assert all(isinstance(model, Case) for model in models)
    assert cases[-1] == models[2]
    assert cases[0:2] == models[0:2]
    with pytest.raises(IndexError):
        cases[3]
    for index, model in enumerate(models):
        assert model == case_model(model.id, model.input.as_json(), suite.compiled[index])
        recorded = recorded_case(cases, index)
        gold, compiled = suite.attempt_gold(index)
        assert type(recorded) is RecordedCase
        assert gold == recorded
        assert compiled is suite.compiled[index]
        assert (recorded.id, recorded.family, recorded.split) == (
            model.id, model.family, model.split,
        )  # fmt: skip
        assert recorded.input.as_json() == model.input.as_json()
        assert [tuple(e) for e in recorded.expectations] == [
            (e.name, e.path, e.comparison, e.scorer, e.expected, e.judge)
            for e in model.expectations
        ]
    assert len(recorded_case(cases, 1).expectations) == 2  # pass and expect
