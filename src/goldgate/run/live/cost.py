"""An attempt's cost: its result document's ``/usage`` priced per million tokens."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from goldgate.gold.settings.live import PricingSettings

_INPUT = ("input_tokens", "prompt_tokens")
_OUTPUT = ("output_tokens", "completion_tokens")


def tokens(usage: Any) -> tuple[int, int] | None:
    """(input, output) tokens of a usage value: ``input_tokens`` and ``output_tokens`` (the
    model target's) or OpenAI's ``prompt_tokens`` and ``completion_tokens``; None when it
    holds neither."""
    if not isinstance(usage, Mapping):
        return None
    found = [_count(usage, names) for names in (_INPUT, _OUTPUT)]
    if found[0] is None and found[1] is None:
        return None
    return found[0] or 0, found[1] or 0


def _count(usage: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def priced(usage: Any, pricing: PricingSettings) -> float | None:
    """What ``usage`` costs at ``pricing``, in its currency; None without token counts."""
    counted = tokens(usage)
    if counted is None:
        return None
    spent = counted[0] * pricing.input_per_million + counted[1] * pricing.output_per_million
    return round(spent / 1_000_000, 12)
