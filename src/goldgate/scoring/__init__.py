"""Scoring: the comparison kinds (a registry, ``scoring.kinds``), text assertions, the custom
scorer registry, suite metrics, an attempt's outcome and the verdicts reviewers recorded
(``adjudication``).

Everything here is a pure function over frozen data; only ``score_expectation`` is async,
and only because custom scorers are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldgate.base.lazy import lazy_exports

_EXPORTS = {
    "KINDS": "goldgate.scoring.kinds",
    "ScoringKind": "goldgate.scoring.kinds",
    "compare_exact": "goldgate.scoring.kinds.exact",
    "compare_set": "goldgate.scoring.kinds.set_",
    "compare_source_span": "goldgate.scoring.kinds.source_span",
    "set_key": "goldgate.scoring.kinds.set_",
    "source_span_problem": "goldgate.scoring.kinds.source_span",
    "UNAVAILABLE_KINDS": "goldgate.scoring.metrics",
    "ClassificationMetricResult": "goldgate.scoring.metrics",
    "MetricResult": "goldgate.scoring.metrics",
    "MultilabelMetricResult": "goldgate.scoring.metrics",
    "Observation": "goldgate.scoring.observations",
    "classify_prediction": "goldgate.scoring.metrics",
    "compute_metric": "goldgate.scoring.metrics",
    "multilabel_prediction": "goldgate.scoring.metrics",
    "ABSENT_REASON": "goldgate.scoring.outcomes",
    "CheckOutcome": "goldgate.scoring.outcomes",
    "Outcome": "goldgate.scoring.outcomes",
    "not_run": "goldgate.scoring.outcomes",
    "RegisteredScorer": "goldgate.scoring.scorers",
    "ScorerRegistry": "goldgate.scoring.scorers",
    "score_compiled": "goldgate.scoring.score",
    "score_expectation": "goldgate.scoring.score",
    "ADJUDICATION_REASON": "goldgate.scoring.text",
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
    "UNAVAILABLE_KINDS",
    "CheckOutcome",
    "ClassificationMetricResult",
    "MetricResult",
    "MultilabelMetricResult",
    "Observation",
    "Outcome",
    "RegisteredScorer",
    "ScorerRegistry",
    "ScoringKind",
    "classify_prediction",
    "compare_exact",
    "compare_set",
    "compare_source_span",
    "compare_text",
    "compute_metric",
    "count_lines",
    "count_text_assertions",
    "dot_path_exists",
    "multilabel_prediction",
    "not_run",
    "score_compiled",
    "score_expectation",
    "set_key",
    "source_span_problem",
    "text_expected_problem",
]

if TYPE_CHECKING:
    from goldgate.scoring.kinds import KINDS, ScoringKind
    from goldgate.scoring.kinds.exact import compare_exact
    from goldgate.scoring.kinds.set_ import compare_set, set_key
    from goldgate.scoring.kinds.source_span import compare_source_span, source_span_problem
    from goldgate.scoring.metrics import (
        UNAVAILABLE_KINDS,
        ClassificationMetricResult,
        MetricResult,
        MultilabelMetricResult,
        classify_prediction,
        compute_metric,
        multilabel_prediction,
    )
    from goldgate.scoring.observations import Observation
    from goldgate.scoring.outcomes import ABSENT_REASON, CheckOutcome, Outcome, not_run
    from goldgate.scoring.score import score_compiled, score_expectation
    from goldgate.scoring.scorers import RegisteredScorer, ScorerRegistry
    from goldgate.scoring.text import (
        ADJUDICATION_REASON,
        compare_text,
        count_lines,
        count_text_assertions,
        dot_path_exists,
        text_expected_problem,
    )


__getattr__ = lazy_exports(__name__, _EXPORTS)
