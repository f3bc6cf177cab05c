"""Gold: the manifest, suites, cases and expectations; loading, the offline check, fingerprints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "Dataset": "goldgate.gold.suites",
    "GoldSuite": "goldgate.gold.suites",
    "GoldCheck": "goldgate.gold.load",
    "check_gold": "goldgate.gold.load",
    "load_gold": "goldgate.gold.load",
    "Case": "goldgate.gold.models",
    "Envelope": "goldgate.gold.models",
    "Expectation": "goldgate.gold.models",
    "Manifest": "goldgate.gold.models",
    "Metric": "goldgate.gold.models",
    "Suite": "goldgate.gold.models",
    "TextOptions": "goldgate.gold.models",
}

__all__ = [
    "Case",
    "Dataset",
    "Envelope",
    "Expectation",
    "GoldCheck",
    "GoldSuite",
    "Manifest",
    "Metric",
    "Suite",
    "TextOptions",
    "check_gold",
    "load_gold",
]

if TYPE_CHECKING:
    from goldgate.gold.load import GoldCheck, check_gold, load_gold
    from goldgate.gold.models import (
        Case,
        Envelope,
        Expectation,
        Manifest,
        Metric,
        Suite,
        TextOptions,
    )
    from goldgate.gold.suites import Dataset, GoldSuite


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
