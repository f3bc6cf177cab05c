"""goldgate: gate pull requests of LLM applications on reviewed gold.

The public API. Names load on first use (PEP 562), so that importing goldgate — and with it
``goldgate --help`` — stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate._version import __version__
from goldgate.base.lazy import lazy_exports
from goldgate.base.provided import COMPARISON_KINDS


def _comparison_kinds() -> Any:
    # Gold checks and compiles by comparison kind but sits below scoring, which holds the
    # kinds: wired here, above every stage, made on first use (goldgate.base.provided).
    from goldgate.scoring.kinds import KINDS

    return KINDS


COMPARISON_KINDS.provide(_comparison_kinds)

_EXPORTS = {
    "Application": "goldgate.run.api",
    "EvaluationSuite": "goldgate.run.api",
    "EvaluationVariant": "goldgate.run.api",
    "evaluate": "goldgate.run.api",
    "open_application": "goldgate.run.api",
    "RunOptions": "goldgate.run.limits",
    "Expectation": "goldgate.gold.models",
    "Case": "goldgate.gold.models",
    "Envelope": "goldgate.gold.models",
    "Metric": "goldgate.gold.models",
    "TextOptions": "goldgate.gold.models",
    "FrozenJson": "goldgate.base.jsonvalue",
    "MISSING": "goldgate.base.jsonvalue",
    "RegisteredScorer": "goldgate.scoring.scorers",
    "Report": "goldgate.report.records",
    "read_report": "goldgate.report.io",
    "replay": "goldgate.comparison.replay",
    "compare": "goldgate.comparison",
    "Comparison": "goldgate.comparison.models",
    "read_comparison": "goldgate.comparison",
    "load_settings": "goldgate.gold.settings.load",
    "check_gold": "goldgate.gold.load",
    "load_gold": "goldgate.gold.load",
    "GoldgateError": "goldgate.base.errors",
    "InvalidInputError": "goldgate.base.errors",
    "ExitCode": "goldgate.base.errors",
    "TransientFailure": "goldgate.run.errors",
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
    "RunOptions",
    "TextOptions",
    "TransientFailure",
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
    from goldgate.base.errors import ExitCode, GoldgateError, InvalidInputError
    from goldgate.base.jsonvalue import MISSING, FrozenJson
    from goldgate.comparison import compare, read_comparison
    from goldgate.comparison.models import Comparison
    from goldgate.comparison.replay import replay
    from goldgate.gold.load import check_gold, load_gold
    from goldgate.gold.models import Case, Envelope, Expectation, Metric, TextOptions
    from goldgate.gold.settings.load import load_settings
    from goldgate.report.io import read_report
    from goldgate.report.records import Report
    from goldgate.run.api import (
        Application,
        EvaluationSuite,
        EvaluationVariant,
        evaluate,
        open_application,
    )
    from goldgate.run.errors import TransientFailure
    from goldgate.run.limits import RunOptions
    from goldgate.scoring.scorers import RegisteredScorer


__getattr__ = lazy_exports(__name__, _EXPORTS)
