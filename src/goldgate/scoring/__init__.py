"""Scoring: the comparison kinds (a registry, ``scoring.kinds``), text assertions, the custom
scorer registry, suite metrics, an attempt's outcome and the verdicts reviewers recorded
(``adjudication``).

Everything here is a pure function over frozen data; only ``score_expectation`` is async,
and only because custom scorers are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "Verdict": "goldgate.scoring.comparisons",
    "KINDS": "goldgate.scoring.kinds",
    "ScoringKind": "goldgate.scoring.kinds",
    "compare_exact": "goldgate.scoring.kinds.exact",
    "compare_set": "goldgate.scoring.kinds.set_",
    "compare_source_span": "goldgate.scoring.kinds.source_span",
    "describe_difference": "goldgate.scoring.kinds.exact",
    "set_key": "goldgate.scoring.kinds.set_",
    "source_span_problem": "goldgate.scoring.kinds.source_span",
    "UNAVAILABLE_KINDS": "goldgate.scoring.metrics",
    "Averages": "goldgate.scoring.metrics",
    "ClassificationMetricResult": "goldgate.scoring.metrics",
    "Confusion": "goldgate.scoring.metrics",
    "LabelScores": "goldgate.scoring.metrics",
    "MetricResult": "goldgate.scoring.metrics",
    "MultilabelLabelScores": "goldgate.scoring.metrics",
    "MultilabelMetricResult": "goldgate.scoring.metrics",
    "Observation": "goldgate.scoring.observations",
    "ObservationStatus": "goldgate.scoring.observations",
    "UnavailableCounts": "goldgate.scoring.metrics",
    "classification_metric": "goldgate.scoring.metrics",
    "classify_prediction": "goldgate.scoring.metrics",
    "compute_metric": "goldgate.scoring.metrics",
    "multilabel_metric": "goldgate.scoring.metrics",
    "multilabel_prediction": "goldgate.scoring.metrics",
    "ABSENT_REASON": "goldgate.scoring.outcomes",
    "CheckOutcome": "goldgate.scoring.outcomes",
    "Outcome": "goldgate.scoring.outcomes",
    "not_run": "goldgate.scoring.outcomes",
    "RegisteredScorer": "goldgate.scoring.scorers",
    "ScorerFunction": "goldgate.scoring.scorers",
    "ScorerRegistry": "goldgate.scoring.scorers",
    "envelope_document": "goldgate.scoring.score",
    "score_compiled": "goldgate.scoring.score",
    "score_expectation": "goldgate.scoring.score",
    "ADJUDICATION_REASON": "goldgate.scoring.text",
    "TEXT_ASSERTIONS": "goldgate.scoring.text",
    "compare_text": "goldgate.scoring.text",
    "count_lines": "goldgate.scoring.text",
    "count_text_assertions": "goldgate.scoring.text",
    "dot_path_exists": "goldgate.scoring.text",
    "text_expected_problem": "goldgate.scoring.text",
}

__all__ = [
    "ABSENT_REASON",
    "ADJUDICATION_REASON",
    "KINDS",
    "TEXT_ASSERTIONS",
    "UNAVAILABLE_KINDS",
    "Averages",
    "CheckOutcome",
    "ClassificationMetricResult",
    "Confusion",
    "LabelScores",
    "MetricResult",
    "MultilabelLabelScores",
    "MultilabelMetricResult",
    "Observation",
    "ObservationStatus",
    "Outcome",
    "RegisteredScorer",
    "ScorerFunction",
    "ScorerRegistry",
    "ScoringKind",
    "UnavailableCounts",
    "Verdict",
    "classification_metric",
    "classify_prediction",
    "compare_exact",
    "compare_set",
    "compare_source_span",
    "compare_text",
    "compute_metric",
    "count_lines",
    "count_text_assertions",
    "describe_difference",
    "dot_path_exists",
    "envelope_document",
    "multilabel_metric",
    "multilabel_prediction",
    "not_run",
    "score_compiled",
    "score_expectation",
    "set_key",
    "source_span_problem",
    "text_expected_problem",
]

if TYPE_CHECKING:
    from goldgate.scoring.comparisons import Verdict
    from goldgate.scoring.kinds import KINDS, ScoringKind
    from goldgate.scoring.kinds.exact import compare_exact, describe_difference
    from goldgate.scoring.kinds.set_ import compare_set, set_key
    from goldgate.scoring.kinds.source_span import compare_source_span, source_span_problem
    from goldgate.scoring.metrics import (
        UNAVAILABLE_KINDS,
        Averages,
        ClassificationMetricResult,
        Confusion,
        LabelScores,
        MetricResult,
        MultilabelLabelScores,
        MultilabelMetricResult,
        Observation,
        ObservationStatus,
        UnavailableCounts,
        classification_metric,
        classify_prediction,
        compute_metric,
        multilabel_metric,
        multilabel_prediction,
    )
    from goldgate.scoring.outcomes import ABSENT_REASON, CheckOutcome, Outcome, not_run
    from goldgate.scoring.score import envelope_document, score_compiled, score_expectation
    from goldgate.scoring.scorers import (
        RegisteredScorer,
        ScorerFunction,
        ScorerRegistry,
    )
    from goldgate.scoring.text import (
        ADJUDICATION_REASON,
        TEXT_ASSERTIONS,
        compare_text,
        count_lines,
        count_text_assertions,
        dot_path_exists,
        text_expected_problem,
    )


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
