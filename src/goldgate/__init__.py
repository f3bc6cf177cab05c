"""goldgate: gate pull requests of LLM applications on reviewed gold.

The public API. Names load on first use (PEP 562), so that importing goldgate — and with it
``goldgate --help`` — stays fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Application": "goldgate.evaluation",
    "EvaluationSuite": "goldgate.evaluation",
    "EvaluationVariant": "goldgate.evaluation",
    "evaluate": "goldgate.evaluation",
    "open_application": "goldgate.evaluation",
    "Expectation": "goldgate.dataset.models",
    "Case": "goldgate.dataset.models",
    "Envelope": "goldgate.dataset.models",
    "Metric": "goldgate.dataset.models",
    "TextOptions": "goldgate.dataset.models",
    "FrozenJson": "goldgate.jsonvalue",
    "MISSING": "goldgate.jsonvalue",
    "RegisteredScorer": "goldgate.scoring.registry",
    "Report": "goldgate.report.models",
    "read_report": "goldgate.report.io",
    "replay": "goldgate.replays",
    "compare": "goldgate.comparison",
    "Comparison": "goldgate.comparison.models",
    "read_comparison": "goldgate.comparison",
    "load_settings": "goldgate.settings.load",
    "check_gold": "goldgate.dataset.load",
    "load_gold": "goldgate.dataset.load",
    "GoldgateError": "goldgate.errors",
    "InvalidInputError": "goldgate.errors",
    "ExitCode": "goldgate.errors",
}

__all__ = [
    "MISSING",
    "Application",
    "Case",
    "Comparison",
    "Envelope",
    "EvaluationSuite",
    "EvaluationVariant",
    "ExitCode",
    "Expectation",
    "FrozenJson",
    "GoldgateError",
    "InvalidInputError",
    "Metric",
    "RegisteredScorer",
    "Report",
    "TextOptions",
    "__version__",
    "check_gold",
    "compare",
    "evaluate",
    "load_gold",
    "load_settings",
    "open_application",
    "read_comparison",
    "read_report",
    "replay",
]

if TYPE_CHECKING:
    from goldgate.comparison import compare, read_comparison
    from goldgate.comparison.models import Comparison
    from goldgate.dataset.load import check_gold, load_gold
    from goldgate.dataset.models import Case, Envelope, Expectation, Metric, TextOptions
    from goldgate.errors import ExitCode, GoldgateError, InvalidInputError
    from goldgate.evaluation import (
        Application,
        EvaluationSuite,
        EvaluationVariant,
        evaluate,
        open_application,
    )
    from goldgate.jsonvalue import MISSING, FrozenJson
    from goldgate.replays import replay
    from goldgate.report.io import read_report
    from goldgate.report.models import Report
    from goldgate.scoring.registry import RegisteredScorer
    from goldgate.settings.load import load_settings


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'goldgate' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
