"""Gold: the manifest, suites, cases and expectations; loading, the offline check, fingerprints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.lazy import load_export

_EXPORTS = {
    "Dataset": "goldgate.dataset.gold",
    "GoldSuite": "goldgate.dataset.gold",
    "GoldCheck": "goldgate.dataset.load",
    "check_gold": "goldgate.dataset.load",
    "load_gold": "goldgate.dataset.load",
    "Case": "goldgate.dataset.models",
    "Envelope": "goldgate.dataset.models",
    "Expectation": "goldgate.dataset.models",
    "Manifest": "goldgate.dataset.models",
    "Metric": "goldgate.dataset.models",
    "Suite": "goldgate.dataset.models",
    "TextOptions": "goldgate.dataset.models",
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
    from goldgate.dataset.gold import Dataset, GoldSuite
    from goldgate.dataset.load import GoldCheck, check_gold, load_gold
    from goldgate.dataset.models import (
        Case,
        Envelope,
        Expectation,
        Manifest,
        Metric,
        Suite,
        TextOptions,
    )


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
