"""Gold: the manifest, suites, cases and expectations; loading, the offline check, fingerprints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldgate.base.lazy import lazy_exports

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


__getattr__ = lazy_exports(__name__, _EXPORTS)
