"""Gold: the manifest, suites, cases and expectations; loading, the offline check, fingerprints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "check_gold": "goldgate.gold.load",
    "load_gold": "goldgate.gold.load",
    "Case": "goldgate.gold.models",
    "Expectation": "goldgate.gold.models",
    "Metric": "goldgate.gold.models",
}

__all__ = [
    "Case",
    "Expectation",
    "Metric",
    "check_gold",
    "load_gold",
]

if TYPE_CHECKING:
    from goldgate.gold.load import check_gold, load_gold
    from goldgate.gold.models import Case, Expectation, Metric


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
