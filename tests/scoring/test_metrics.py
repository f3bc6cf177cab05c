"""Classification and multilabel metrics on small cases computed by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import MISSING
from goldgate.gold.models import Metric
from goldgate.scoring import (
    UNAVAILABLE_KINDS,
    ClassificationMetricResult,
    MetricResult,
    MultilabelMetricResult,
    Observation,
    compute_metric,
)


def _metric(kind: str, labels: list[Any], cases: list[str] | None = None) -> Metric:
    return Metric.model_validate(
        {"name": "m", "path": "/p", "kind": kind, "labels": labels, "cases": cases}
    )


def _obs(gold: Any, predicted: Any = MISSING, status: str = "observed", case: str = "c") -> Any:
    return Observation(case, 0, gold, status, predicted)  # type: ignore[arg-type]


def _classification(metric: Metric, observations: list[Observation]) -> Any:
    result = compute_metric(metric, observations)
    assert isinstance(result, ClassificationMetricResult)
    return result


def _multilabel(metric: Metric, observations: list[Observation]) -> Any:
    result = compute_metric(metric, observations)
    assert isinstance(result, MultilabelMetricResult)
    return result


def test_classification_by_hand() -> None:
    result = _classification(
        _metric("classification", ["a", "b", "c"]),
        [
            _obs("a", "a"),
            _obs("a", "b"),
            _obs("b", "b"),
            _obs("b"),  # missing
            _obs("c", status="skipped"),
            _obs("c", None),  # abstained: null is not in the catalog
            _obs("a", "zzz"),  # invalid: not a catalog label
            _obs("b", "b", status="error"),  # error, whatever it holds
            _obs("c", 3),  # invalid: not a string
        ],
    )
    assert (result.support, result.observed, result.correct) == (9, 3, 2)
    assert result.accuracy == pytest.approx(2 / 9, abs=1e-15)
    assert result.coverage == pytest.approx(3 / 9, abs=1e-15)
    assert result.unavailable.model_dump() == {
        "missing": 1,
        "skipped": 1,
        "error": 1,
        "invalid": 2,
        "abstained": 1,
    }
    assert result.confusion.rows == ("a", "b", "c")
    assert result.confusion.columns == ("a", "b", "c", *UNAVAILABLE_KINDS)
    assert result.confusion.matrix == (
        (1, 1, 0, 0, 0, 0, 1, 0),
        (0, 1, 0, 1, 0, 1, 0, 0),
        (0, 0, 0, 0, 1, 0, 1, 1),
    )
    scores = {s.label: (s.precision, s.recall, s.f1, s.support) for s in result.per_label}
    assert scores["a"] == pytest.approx((1.0, 1 / 3, 0.5, 3))
    assert scores["b"] == pytest.approx((0.5, 1 / 3, 0.4, 3))
    assert scores["c"] == (0.0, 0.0, 0.0, 3)
    assert (result.micro.precision, result.micro.recall, result.micro.f1) == pytest.approx(
        (2 / 3, 2 / 9, 1 / 3)
    )
    assert (result.macro.precision, result.macro.recall, result.macro.f1) == pytest.approx(
        (0.5, 2 / 9, 0.3)
    )


def test_null_in_the_catalog_is_a_label() -> None:
    metric = _metric("classification", ["yes", None])
    result = _classification(
        metric, [_obs(None, None), _obs("yes", None), _obs(None, "yes"), _obs("yes", "yes")]
    )
    assert (result.support, result.observed, result.correct) == (4, 4, 2)
    assert result.unavailable.abstained == 0
    assert result.confusion.matrix == ((1, 1, 0, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0, 0))
    assert [s.label for s in result.per_label] == ["yes", None]
    dumped = json.loads(result.model_dump_json())
    assert dumped["labels"] == ["yes", None]
    assert dumped["per_label"][1]["label"] is None
    assert dumped["confusion"]["columns"][1] is None


def test_null_outside_the_catalog_is_an_abstention_and_null_gold_is_refused() -> None:
    metric = _metric("classification", ["yes", "no"])
    result = _classification(metric, [_obs("yes", None)])
    assert result.unavailable.abstained == 1
    assert result.observed == 0
    with pytest.raises(InvalidInputError, match="the gold of case 'c' is not one of"):
        compute_metric(metric, [_obs(None, "yes")])
    with pytest.raises(InvalidInputError, match="the gold of case 'c' is not one of"):
        compute_metric(metric, [_obs(["yes"], "yes")])
    with pytest.raises(InvalidInputError, match="the gold of case 'c' is not one of"):
        compute_metric(metric, [_obs(MISSING, "yes")])


def test_true_is_not_a_string_label() -> None:
    result = _classification(_metric("classification", ["true", "false"]), [_obs("true", True)])
    assert result.unavailable.invalid == 1


def test_support_zero_gives_zero_ratios() -> None:
    result = _classification(_metric("classification", ["a"]), [])
    assert (result.support, result.accuracy, result.coverage) == (0, 0.0, 0.0)
    assert result.micro.model_dump() == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert result.confusion.matrix == ((0, 0, 0, 0, 0, 0),)
    multi = _multilabel(_metric("multilabel", ["a", "b"]), [])
    assert (multi.exact_set_accuracy, multi.coverage) == (0.0, 0.0)
    assert multi.macro.model_dump() == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_metric_cases_select_observations() -> None:
    metric = _metric("classification", ["a", "b"], cases=["one"])
    result = _classification(metric, [_obs("a", "a", case="one"), _obs("b", "a", case="two")])
    assert (result.support, result.correct) == (1, 1)


def test_multilabel_by_hand() -> None:
    result = _multilabel(
        _metric("multilabel", ["x", "y", "z"]),
        [
            _obs(["x"], ["x"]),
            _obs(["x", "y"], ["y", "z", "y"]),
            _obs([], []),
            _obs(["y"]),  # missing
            _obs([], status="skipped"),  # unavailable: never exactly right, even for []
            _obs(["z"], ["x", "q"]),  # invalid: q is not a label
            _obs(["x"], None),  # abstained
            _obs(["x", "x"], "x"),  # invalid: not an array; duplicate gold is one label
        ],
    )
    assert (result.support, result.observed, result.exact_set_correct) == (8, 3, 2)
    assert (result.exact_set_accuracy, result.coverage) == (0.25, 3 / 8)
    assert result.unavailable.model_dump() == {
        "missing": 1,
        "skipped": 1,
        "error": 0,
        "invalid": 2,
        "abstained": 1,
    }
    counts = {s.label: (s.tp, s.fp, s.fn, s.tn, s.support) for s in result.per_label}
    assert counts == {"x": (1, 0, 3, 4, 4), "y": (1, 0, 1, 6, 2), "z": (0, 1, 1, 6, 1)}
    ratios = {s.label: (s.precision, s.recall, s.f1) for s in result.per_label}
    assert ratios["x"] == pytest.approx((1.0, 0.25, 0.4))
    assert ratios["y"] == pytest.approx((1.0, 0.5, 2 / 3))
    assert ratios["z"] == (0.0, 0.0, 0.0)
    assert (result.micro.precision, result.micro.recall, result.micro.f1) == pytest.approx(
        (2 / 3, 2 / 7, 0.4)
    )
    assert (result.macro.precision, result.macro.recall, result.macro.f1) == pytest.approx(
        (2 / 3, 0.25, (0.4 + 2 / 3) / 3)
    )


def test_multilabel_refuses_bad_gold_and_null_labels() -> None:
    with pytest.raises(InvalidInputError, match="is not an array of the metric's labels"):
        compute_metric(_metric("multilabel", ["a"]), [_obs(["b"], ["a"])])
    with pytest.raises(InvalidInputError, match="multilabel labels must be strings"):
        compute_metric(_metric("multilabel", ["a", None]), [])
    with pytest.raises(InvalidInputError, match="lists a label more than once"):
        compute_metric(_metric("classification", ["a", "a"]), [])


def test_observation_status_is_checked() -> None:
    with pytest.raises(ValueError, match="observation status"):
        Observation("c", 0, "a", "done", "a")  # type: ignore[arg-type]


def test_results_are_frozen_strict_and_round_trip() -> None:
    result = _classification(_metric("classification", ["a", None]), [_obs("a", "a")])
    with pytest.raises(ValidationError):
        result.support = 3
    adapter: TypeAdapter[Any] = TypeAdapter(MetricResult)
    assert adapter.validate_json(result.model_dump_json()) == result
    multi = _multilabel(_metric("multilabel", ["a"]), [_obs(["a"], ["a"])])
    assert adapter.validate_json(multi.model_dump_json()) == multi
    schema = adapter.json_schema()
    assert set(schema["discriminator"]["mapping"]) == {"classification", "multilabel"}
    with pytest.raises(ValidationError):
        ClassificationMetricResult.model_validate({**result.model_dump(), "extra": 1})
