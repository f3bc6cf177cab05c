"""Suite metrics over observations: ``classification`` (one catalog label) and ``multilabel``.

Every included observation counts in ``support``. An observation that yields no usable
prediction (``missing``, ``skipped``, ``error``, ``invalid`` or ``abstained``) stays visible in
``unavailable`` and in the confusion matrix, and never becomes a predicted label: it counts
against recall and never towards precision. The numbers agree with scikit-learn:

- classification: ``precision_recall_fscore_support(y_true, y_pred, labels=catalog,
  zero_division=0)`` with every unavailable observation predicted as a label outside the
  catalog, and ``confusion_matrix(y_true, y_pred, labels=catalog)`` for the catalog columns;
- multilabel: ``multilabel_confusion_matrix`` and ``precision_recall_fscore_support`` on
  indicator matrices in which an unavailable observation's row is all zeros.

Macro averages run over the whole catalog (a label nobody predicted or expected scores 0).
With a support of 0 every ratio is 0.0.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`):
# pydantic would otherwise eval() every field's annotation when a process defines the models.
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import MISSING
from goldgate.gold.models import Metric
from goldgate.scoring.observations import Observation, ObservationStatus

__all__ = [
    "UNAVAILABLE_KINDS",
    "Averages",
    "ClassificationMetricResult",
    "Confusion",
    "LabelScores",
    "MetricResult",
    "MultilabelLabelScores",
    "MultilabelMetricResult",
    "Observation",
    "ObservationStatus",
    "UnavailableCounts",
    "classification_metric",
    "classify_prediction",
    "compute_metric",
    "multilabel_metric",
    "multilabel_prediction",
]

Unavailable: TypeAlias = Literal["missing", "skipped", "error", "invalid", "abstained"]
UNAVAILABLE_KINDS: Final[tuple[Unavailable, ...]] = (
    "missing",
    "skipped",
    "error",
    "invalid",
    "abstained",
)


# --- result models -----------------------------------------------------------------------------


class _Result(BaseModel):
    # Built on first validation: a run constructs its records without validating them and
    # writes them with report.plain, so that no run pays for building these models.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class UnavailableCounts(_Result):
    """Observations that yielded no usable prediction, by kind."""

    missing: int = Field(0, description="The attempt ran but nothing was at the metric's path.")
    skipped: int = Field(0, description="The attempt was skipped (e.g. an unauthorized live run).")
    error: int = Field(0, description="The attempt failed (the target raised or timed out).")
    invalid: int = Field(0, description="The prediction is not a catalog label (or label set).")
    abstained: int = Field(0, description="The prediction is null and null is not a label.")

    @property
    def total(self) -> int:
        return self.missing + self.skipped + self.error + self.invalid + self.abstained


class Averages(_Result):
    precision: float
    recall: float
    f1: float


class LabelScores(_Result):
    """One classification label: ``support`` is how many observations have it as gold."""

    label: str | None
    precision: float
    recall: float
    f1: float
    support: int


class Confusion(_Result):
    """Rows are gold labels and columns predicted labels, both in catalog order; the last five
    columns (by position) count the unavailable kinds in ``UNAVAILABLE_KINDS`` order."""

    rows: tuple[str | None, ...]
    columns: tuple[str | None, ...]
    matrix: tuple[tuple[int, ...], ...]


class ClassificationMetricResult(_Result):
    name: str
    kind: Literal["classification"] = "classification"
    path: str
    labels: tuple[str | None, ...]
    support: int = Field(description="Every included observation, available or not.")
    observed: int = Field(description="Observations whose prediction is a catalog label.")
    correct: int
    accuracy: float = Field(description="correct / support")
    coverage: float = Field(description="observed / support")
    unavailable: UnavailableCounts
    confusion: Confusion
    per_label: tuple[LabelScores, ...]
    micro: Averages
    macro: Averages


class MultilabelLabelScores(_Result):
    """One multilabel label over all observations (an unavailable one predicts nothing)."""

    label: str
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    support: int = Field(description="Observations whose gold set has the label (tp + fn).")


class MultilabelMetricResult(_Result):
    name: str
    kind: Literal["multilabel"] = "multilabel"
    path: str
    labels: tuple[str, ...]
    support: int = Field(description="Every included observation, available or not.")
    observed: int = Field(description="Observations whose prediction is a set of catalog labels.")
    exact_set_correct: int
    exact_set_accuracy: float = Field(description="exact_set_correct / support")
    coverage: float = Field(description="observed / support")
    unavailable: UnavailableCounts
    per_label: tuple[MultilabelLabelScores, ...]
    micro: Averages
    macro: Averages


MetricResult: TypeAlias = Annotated[
    ClassificationMetricResult | MultilabelMetricResult, Field(discriminator="kind")
]


# --- arithmetic --------------------------------------------------------------------------------


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def _scores(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 with scikit-learn's ``zero_division=0``; F1 as
    ``2tp / (2tp + fp + fn)``, the form scikit-learn computes."""
    return _ratio(tp, tp + fp), _ratio(tp, tp + fn), _ratio(2 * tp, 2 * tp + fp + fn)


def _macro(per_label: Sequence[tuple[float, float, float]]) -> Averages:
    count = len(per_label)
    return Averages(
        precision=sum(p for p, _, _ in per_label) / count if count else 0.0,
        recall=sum(r for _, r, _ in per_label) / count if count else 0.0,
        f1=sum(f for _, _, f in per_label) / count if count else 0.0,
    )


def _included(metric: Metric, observations: Iterable[Observation]) -> list[Observation]:
    if metric.cases is None:
        return list(observations)
    cases = set(metric.cases)
    return [observation for observation in observations if observation.case_id in cases]


def _catalog_index(metric: Metric) -> dict[str | None, int]:
    index: dict[str | None, int] = {}
    for position, label in enumerate(metric.labels):
        if label in index:
            raise InvalidInputError(f"metric '{metric.name}' lists a label more than once.")
        index[label] = position
    return index


# --- classification ----------------------------------------------------------------------------


def _gold_refused(metric: Metric, observation: Observation, what: str) -> InvalidInputError:
    """The error for a case whose gold is not ``what`` the metric needs (the offline check
    refuses such gold, so only gold built in code reaches it)."""
    return InvalidInputError(
        f"metric '{metric.name}': the gold of case '{observation.case_id}' is not {what}."
    )


def _unavailable(observation: Observation) -> Unavailable | None:
    """Why an observation predicts nothing before its value is looked at: the attempt was
    skipped or failed (whatever it holds), or nothing was at the path."""
    if observation.status == "skipped":
        return "skipped"
    if observation.status == "error":
        return "error"
    if observation.predicted is MISSING:
        return "missing"
    return None


def classify_prediction(
    observation: Observation, catalog: Mapping[str | None, int]
) -> int | Unavailable:
    """The catalog position of an observation's predicted label, or why there is none.

    A skipped or failed attempt is ``skipped`` or ``error`` whatever it holds; then an absent
    value is ``missing``; ``null`` is a label when the catalog lists it and ``abstained``
    otherwise; anything else that is not a catalog string is ``invalid``.
    """
    unavailable = _unavailable(observation)
    if unavailable is not None:
        return unavailable
    predicted = observation.predicted
    if predicted is None:
        return catalog.get(None, "abstained")
    if isinstance(predicted, str) and predicted in catalog:
        return catalog[predicted]
    return "invalid"


def classification_metric(
    metric: Metric, observations: Iterable[Observation]
) -> ClassificationMetricResult:
    """Accuracy, coverage, confusion and per-label scores of a ``classification`` metric."""
    catalog = _catalog_index(metric)
    size = len(metric.labels)
    included = _included(metric, observations)
    matrix = [[0] * (size + len(UNAVAILABLE_KINDS)) for _ in range(size)]
    unavailable = dict.fromkeys(UNAVAILABLE_KINDS, 0)
    for observation in included:
        gold = observation.gold
        if not (gold is None or isinstance(gold, str)) or gold not in catalog:
            raise _gold_refused(metric, observation, "one of the metric's labels")
        predicted = classify_prediction(observation, catalog)
        if isinstance(predicted, str):
            unavailable[predicted] += 1
            column = size + UNAVAILABLE_KINDS.index(predicted)
        else:
            column = predicted
        matrix[catalog[gold]][column] += 1

    support = len(included)
    correct = sum(matrix[i][i] for i in range(size))
    observed = support - sum(unavailable.values())
    per_label: list[LabelScores] = []
    triples: list[tuple[float, float, float]] = []
    for position, label in enumerate(metric.labels):
        tp = matrix[position][position]
        predicted_as = sum(matrix[row][position] for row in range(size))
        gold_count = sum(matrix[position])
        precision, recall, f1 = _scores(tp, predicted_as - tp, gold_count - tp)
        triples.append((precision, recall, f1))
        per_label.append(
            LabelScores(label=label, precision=precision, recall=recall, f1=f1, support=gold_count)
        )
    micro_precision, micro_recall, micro_f1 = _scores(
        correct, observed - correct, support - correct
    )
    return ClassificationMetricResult(
        name=metric.name,
        path=metric.path,
        labels=tuple(metric.labels),
        support=support,
        observed=observed,
        correct=correct,
        accuracy=_ratio(correct, support),
        coverage=_ratio(observed, support),
        unavailable=UnavailableCounts(**unavailable),
        confusion=Confusion(
            rows=tuple(metric.labels),
            columns=(*metric.labels, *UNAVAILABLE_KINDS),
            matrix=tuple(tuple(row) for row in matrix),
        ),
        per_label=tuple(per_label),
        micro=Averages(precision=micro_precision, recall=micro_recall, f1=micro_f1),
        macro=_macro(triples),
    )


# --- multilabel --------------------------------------------------------------------------------


def _label_set(value: Any, catalog: Mapping[str | None, int]) -> frozenset[int] | None:
    if not isinstance(value, list | tuple):
        return None
    positions = set()
    for item in value:
        if not isinstance(item, str) or item not in catalog:
            return None
        positions.add(catalog[item])
    return frozenset(positions)


def multilabel_prediction(
    observation: Observation, catalog: Mapping[str | None, int]
) -> frozenset[int] | Unavailable:
    """The catalog positions an observation predicts, or why there are none.

    ``skipped`` and ``error`` come from the attempt's status; an absent value is ``missing``;
    ``null`` is ``abstained``; anything but an array of catalog strings is ``invalid``.
    Duplicates are ignored; an empty array is a valid prediction of no labels.
    """
    unavailable = _unavailable(observation)
    if unavailable is not None:
        return unavailable
    predicted = observation.predicted
    if predicted is None:
        return "abstained"
    labels = _label_set(predicted, catalog)
    return "invalid" if labels is None else labels


def multilabel_metric(
    metric: Metric, observations: Iterable[Observation]
) -> MultilabelMetricResult:
    """Exact-set accuracy, coverage and per-label TP, FP, FN, TN of a ``multilabel`` metric."""
    labels = [label for label in metric.labels if label is not None]
    if len(labels) != len(metric.labels):
        raise InvalidInputError(f"metric '{metric.name}': multilabel labels must be strings.")
    catalog = _catalog_index(metric)
    size = len(metric.labels)
    included = _included(metric, observations)
    tp, fp, fn = [0] * size, [0] * size, [0] * size
    unavailable = dict.fromkeys(UNAVAILABLE_KINDS, 0)
    exact = 0
    for observation in included:
        gold = _label_set(observation.gold, catalog)
        if gold is None:
            raise _gold_refused(metric, observation, "an array of the metric's labels")
        predicted = multilabel_prediction(observation, catalog)
        if isinstance(predicted, str):
            unavailable[predicted] += 1
            predicted = frozenset()
        elif predicted == gold:
            exact += 1
        for position in gold & predicted:
            tp[position] += 1
        for position in predicted - gold:
            fp[position] += 1
        for position in gold - predicted:
            fn[position] += 1

    support = len(included)
    observed = support - sum(unavailable.values())
    per_label: list[MultilabelLabelScores] = []
    triples: list[tuple[float, float, float]] = []
    for position, label in enumerate(labels):
        precision, recall, f1 = _scores(tp[position], fp[position], fn[position])
        triples.append((precision, recall, f1))
        per_label.append(
            MultilabelLabelScores(
                label=label,
                tp=tp[position],
                fp=fp[position],
                fn=fn[position],
                tn=support - tp[position] - fp[position] - fn[position],
                precision=precision,
                recall=recall,
                f1=f1,
                support=tp[position] + fn[position],
            )
        )
    micro_precision, micro_recall, micro_f1 = _scores(sum(tp), sum(fp), sum(fn))
    return MultilabelMetricResult(
        name=metric.name,
        path=metric.path,
        labels=tuple(labels),
        support=support,
        observed=observed,
        exact_set_correct=exact,
        exact_set_accuracy=_ratio(exact, support),
        coverage=_ratio(observed, support),
        unavailable=UnavailableCounts(**unavailable),
        per_label=tuple(per_label),
        micro=Averages(precision=micro_precision, recall=micro_recall, f1=micro_f1),
        macro=_macro(triples),
    )


def compute_metric(
    metric: Metric, observations: Iterable[Observation]
) -> ClassificationMetricResult | MultilabelMetricResult:
    """The metric's result over the observations of the cases it includes (``metric.cases``,
    every observation when that is not set). Gold outside the catalog raises
    ``InvalidInputError`` (the offline check refuses such gold)."""
    if metric.kind == "classification":
        return classification_metric(metric, observations)
    return multilabel_metric(metric, observations)
