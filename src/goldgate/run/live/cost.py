"""An attempt's cost: its result document's ``/usage`` priced per million tokens."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from goldgate.gold.settings.live import PricingSettings
from goldgate.run.errors import TargetFailure

MAX_COST = 1e15
"""The most one attempt may cost, in any currency: past it the usage figures are wrong, and
a run's totals (sums of such costs) must stay finite numbers."""

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
        value = _count_of(usage.get(name))
        if value is not None:
            return value
    return None


def _count_of(value: Any) -> int | None:
    """``value`` as a count of tokens: a whole number at least 0 (``12.0`` is 12); None for
    anything else (a negative or fractional number, a string, a boolean, ``null``)."""
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _not_counts(usage: Any) -> str | None:
    """The first token figure ``usage`` gives that is not a count of tokens (``_count_of``;
    ``null`` gives none); None when every one is."""
    if not isinstance(usage, Mapping):
        return None
    for name in (*_INPUT, *_OUTPUT):
        value = usage.get(name)
        if value is not None and _count_of(value) is None:
            return name
    return None


def priced(usage: Any, pricing: PricingSettings) -> float | None:
    """What ``usage`` costs at ``pricing``, in its currency; None without token counts. A
    token figure that is not a count (``_not_counts``: dropped, it would price the attempt
    below what it cost and let a cost maximum hold) and a cost that is not a finite number,
    or is past ``MAX_COST`` (token counts no answer can hold), are the attempt's
    ``TargetFailure``: one would hide a cost, the other make every total infinite."""
    wrong = _not_counts(usage)
    if wrong is not None:
        raise TargetFailure(
            f"the answer's usage {wrong} is not a count of tokens, so its cost at the "
            "workflow's pricing is unknown"
        )
    counted = tokens(usage)
    if counted is None:
        return None
    try:
        spent = (
            counted[0] * pricing.input_per_million + counted[1] * pricing.output_per_million
        ) / 1_000_000
    except OverflowError:  # a count too large for a float
        spent = math.inf
    if not spent <= MAX_COST:  # NaN and infinity included
        what = f"over {MAX_COST:g}" if math.isfinite(spent) else "infinite or not a number"
        raise TargetFailure(
            f"the answer's usage makes its cost {what} at the workflow's pricing (its token "
            "counts cannot be right)"
        )
    return round(spent, 12)
