"""Gold: the manifest, suites, cases and expectations; loading, the offline check, fingerprints."""

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
