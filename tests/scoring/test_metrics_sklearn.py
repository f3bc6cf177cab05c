"""Metrics agree with scikit-learn on random observations (docs/report-format.md names the
conventions)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from goldgate.base.jsonvalue import MISSING
from goldgate.gold.models import Metric
from goldgate.scoring import (
    UNAVAILABLE_KINDS,
    ClassificationMetricResult,
    MultilabelMetricResult,
    Observation,
    classify_prediction,
    compute_metric,
    multilabel_prediction,
)
from helpers.lazy import LazyModule

sklearn_metrics = LazyModule(
    "sklearn.metrics", reason="scikit-learn is needed to cross-check the metric conventions"
)
np = LazyModule("numpy", reason="numpy comes with scikit-learn")

DRAWS = 200
TOLERANCE = 1e-12
NULL = "\x00null"  # null as a label scikit-learn can sort among strings
UNAVAILABLE = "\x00unavailable"  # a prediction outside every catalog
NOT_LABELS: list[Any] = [True, 1, 0.5, "zzz", ["a"], {"a": 1}, ""]


def _status(rng: random.Random) -> str:
    return rng.choices(["observed", "skipped", "error"], weights=[8, 1, 1])[0]


def _close(ours: Any, theirs: Any) -> bool:
    return bool(np.allclose(np.asarray(ours, dtype=float), theirs, rtol=0, atol=TOLERANCE))


def _classification_draw(rng: random.Random) -> tuple[Metric, list[Observation]]:
    size = rng.randint(1, 5)
    labels: list[str | None] = [f"l{i}" for i in range(size)]
    if rng.random() < 0.4:
        labels.insert(rng.randrange(size + 1), None)
    observations = []
    for index in range(rng.randint(1, 40)):
        gold = rng.choice(labels)
        roll = rng.random()
        predicted: Any
        if roll < 0.6:
            predicted = gold if rng.random() < 0.5 else rng.choice(labels)
        elif roll < 0.7:
            predicted = MISSING
        elif roll < 0.8:
            predicted = None
        else:
            predicted = rng.choice(NOT_LABELS)
        observations.append(Observation(f"c{index}", 0, gold, _status(rng), predicted))  # type: ignore[arg-type]
    metric = Metric.model_validate(
        {"name": "m", "path": "/p", "kind": "classification", "labels": labels}
    )
    return metric, observations


def _sk_label(label: str | None) -> str:
    return NULL if label is None else label


# A one-label catalog gives a 1x1 confusion matrix, about which scikit-learn warns even when
# ``labels`` is passed.
@pytest.mark.filterwarnings("ignore:A single label was found:UserWarning")
@pytest.mark.parametrize("seed", range(DRAWS))
def test_classification_agrees_with_sklearn(seed: int) -> None:
    rng = random.Random(seed)
    metric, observations = _classification_draw(rng)
    result = compute_metric(metric, observations)
    assert isinstance(result, ClassificationMetricResult)

    catalog = {label: i for i, label in enumerate(metric.labels)}
    labels = [_sk_label(label) for label in metric.labels]
    y_true = [_sk_label(o.gold) for o in observations]
    y_pred = []
    for observation in observations:
        predicted = classify_prediction(observation, catalog)
        y_pred.append(UNAVAILABLE if isinstance(predicted, str) else labels[predicted])

    precision, recall, f1, support = sklearn_metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0
    )
    assert _close([s.precision for s in result.per_label], precision)
    assert _close([s.recall for s in result.per_label], recall)
    assert _close([s.f1 for s in result.per_label], f1)
    assert [s.support for s in result.per_label] == support.tolist()
    for average, ours in (("micro", result.micro), ("macro", result.macro)):
        theirs = sklearn_metrics.precision_recall_fscore_support(
            y_true, y_pred, labels=labels, zero_division=0, average=average
        )
        assert _close([ours.precision, ours.recall, ours.f1], theirs[:3]), average

    size = len(labels)
    matrix = np.asarray(result.confusion.matrix)
    expected = sklearn_metrics.confusion_matrix(y_true, y_pred, labels=labels)
    assert (matrix[:, :size] == expected).all()
    assert matrix.sum() == result.support == len(observations)
    assert matrix[:, size:].sum(axis=0).tolist() == [
        getattr(result.unavailable, kind) for kind in UNAVAILABLE_KINDS
    ]
    assert result.correct == int(np.trace(expected))
    assert abs(result.accuracy - sklearn_metrics.accuracy_score(y_true, y_pred)) <= TOLERANCE
    assert result.coverage == pytest.approx(result.observed / result.support, abs=TOLERANCE)


def _multilabel_draw(rng: random.Random) -> tuple[Metric, list[Observation]]:
    labels = [f"l{i}" for i in range(rng.randint(2, 6))]
    observations = []
    for index in range(rng.randint(1, 40)):
        gold = rng.sample(labels, rng.randint(0, len(labels)))
        roll = rng.random()
        predicted: Any
        if roll < 0.65:
            predicted = (
                list(gold) if rng.random() < 0.3 else rng.choices(labels, k=rng.randint(0, 4))
            )
        elif roll < 0.75:
            predicted = MISSING
        elif roll < 0.85:
            predicted = None
        else:
            predicted = rng.choice([*NOT_LABELS, [labels[0], "zzz"], "l0"])
        observations.append(Observation(f"c{index}", 0, gold, _status(rng), predicted))  # type: ignore[arg-type]
    metric = Metric.model_validate(
        {"name": "m", "path": "/p", "kind": "multilabel", "labels": labels}
    )
    return metric, observations


@pytest.mark.parametrize("seed", range(DRAWS))
def test_multilabel_agrees_with_sklearn(seed: int) -> None:
    rng = random.Random(10_000 + seed)
    metric, observations = _multilabel_draw(rng)
    result = compute_metric(metric, observations)
    assert isinstance(result, MultilabelMetricResult)

    catalog = {label: i for i, label in enumerate(metric.labels)}
    size = len(catalog)
    y_true = np.zeros((len(observations), size), dtype=int)
    y_pred = np.zeros((len(observations), size), dtype=int)
    exact = 0
    for row, observation in enumerate(observations):
        for label in observation.gold:
            y_true[row, catalog[label]] = 1
        predicted = multilabel_prediction(observation, catalog)
        if not isinstance(predicted, str):  # an unavailable row predicts nothing
            for position in predicted:
                y_pred[row, position] = 1
            exact += int((y_true[row] == y_pred[row]).all())

    confusion = sklearn_metrics.multilabel_confusion_matrix(y_true, y_pred)
    assert [(s.tn, s.fp, s.fn, s.tp) for s in result.per_label] == [
        (int(c[0, 0]), int(c[0, 1]), int(c[1, 0]), int(c[1, 1])) for c in confusion
    ]
    precision, recall, f1, support = sklearn_metrics.precision_recall_fscore_support(
        y_true, y_pred, zero_division=0
    )
    assert _close([s.precision for s in result.per_label], precision)
    assert _close([s.recall for s in result.per_label], recall)
    assert _close([s.f1 for s in result.per_label], f1)
    assert [s.support for s in result.per_label] == support.tolist()
    for average, ours in (("micro", result.micro), ("macro", result.macro)):
        theirs = sklearn_metrics.precision_recall_fscore_support(
            y_true, y_pred, zero_division=0, average=average
        )
        assert _close([ours.precision, ours.recall, ours.f1], theirs[:3]), average

    assert result.support == len(observations)
    assert result.exact_set_correct == exact
    assert result.exact_set_accuracy == pytest.approx(exact / len(observations), abs=TOLERANCE)
    assert result.observed + result.unavailable.total == result.support
