"""What a comparison says changed, per suite, in the terms every renderer shows: each figure
before and after (pass rates, runtime failures, latency, usage), each threshold's value and
each metric's headline figures on both sides, and McNemar's test where it can say anything.

``compared.comparison_view`` fills these from a comparison; the Markdown report and the
terminal read them. A new figure (a cost, say) is one more ``Figure`` in ``SuiteDelta.figures``:
both renderers show every figure as one row of the same table, so neither changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from goldgate.render import text

Unit = Literal["rate", "ratio", "ms", "count", "number"]
"""How a figure reads: a rate as a percentage (its change in points), a ratio as a short
decimal, milliseconds, a whole count, or any other number."""

LATENCY_NOISE_MS = 50.0
"""A latency change of at most this many milliseconds is noise, whatever the baseline."""
LATENCY_NOISE_SHARE = 0.20
"""A latency change of at most this share of the baseline is noise."""
USAGE_NOISE_SHARE = 0.10
"""A usage or cost change of at most this share of the baseline is noise (from a baseline of
0, any change is a finding)."""
NOISE_RULE = (
    "latency changes of at most max(50 ms, 20% of the baseline), usage and cost changes of "
    "at most 10% of the baseline"
)
"""The noise rule in words, as the renderers state it where they fold what it covers."""
Noise = Literal["latency", "usage"]
"""Which noise rule a figure follows; a figure without one is always shown (pass rates,
runtime failures: exact counts, never noise)."""

MCNEMAR_MINIMUM_PAIRS = 6
"""McNemar's exact two-sided test can reach p < 0.05 only with at least 6 discordant pairs
(with 5, the smallest p-value is 2 × 0.5⁵ = 0.0625): below that it says nothing, and it is
not shown. Repeats give a suite more pairs, and so a test worth reading."""


@dataclass(frozen=True)
class Figure:
    """One figure of one suite on both sides; ``note`` says why there is no change to show
    (e.g. a replay's latency is its original run's)."""

    name: str
    baseline: float | None
    candidate: float | None
    unit: Unit
    note: str | None = None
    noise: Noise | None = None

    @property
    def beyond_noise(self) -> bool:
        """Whether the change is a finding under ``NOISE_RULE`` (strictly more than the
        rule allows); a figure without a noise rule always is, a latency or usage figure
        with nothing to compare (``n/a``) never is."""
        if self.noise is None:
            return True
        before, after = self.baseline, self.candidate
        if self.note or before is None or after is None:
            return False
        if not (math.isfinite(before) and math.isfinite(after)):
            return False
        delta = abs(after - before)
        if self.noise == "latency":
            return delta > max(LATENCY_NOISE_MS, LATENCY_NOISE_SHARE * abs(before))
        return delta > USAGE_NOISE_SHARE * abs(before)

    @property
    def change(self) -> str:
        """Candidate minus baseline as it reads: ``-5.7 pts``, ``+120 ms``, ``+1``, ``±0``;
        ``n/a`` where either side is unmeasured (or ``note`` says why not)."""
        before, after = self.baseline, self.candidate
        if self.note or before is None or after is None:
            return "n/a"
        if not (math.isfinite(before) and math.isfinite(after)):
            return "n/a"
        delta = after - before
        if self.unit == "rate":
            delta *= 100
        shown = show(abs(delta), "number" if self.unit == "rate" else self.unit)
        if shown in ("0", "0 ms"):
            return "±0"
        sign = "+" if delta > 0 else "-"
        return f"{sign}{shown}{' pts' if self.unit == 'rate' else ''}"

    def before(self) -> str:
        return show(self.baseline, self.unit)

    def after(self) -> str:
        return show(self.candidate, self.unit)

    def cells(self) -> tuple[str, str, str]:
        """(baseline, candidate, change), as a row of a deltas table shows them."""
        change = self.change if self.note is None else f"n/a ({self.note})"
        return self.before(), self.after(), change


def show(value: float | None, unit: Unit) -> str:
    """A figure as it reads; ``n/a`` when unmeasured."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if unit == "rate":
        return text.percent(value)
    if unit == "ratio":
        return text.ratio(value)
    if unit == "ms":
        return f"{value:,.0f} ms"
    if unit == "count":
        return f"{round(value):,}"
    shown = f"{value:,.1f}"
    return shown[:-2] if shown.endswith(".0") else shown


@dataclass(frozen=True)
class McNemarItem:
    """A suite's paired test: attempts that passed only in the baseline (``b``) or only in
    the candidate (``c``), and the exact two-sided p-value."""

    suite: str
    baseline_only: int
    candidate_only: int
    p_value: float | None

    @property
    def meaningful(self) -> bool:
        """Whether the test can say anything (``MCNEMAR_MINIMUM_PAIRS``)."""
        return self.baseline_only + self.candidate_only >= MCNEMAR_MINIMUM_PAIRS

    @property
    def sentence(self) -> str:
        return (
            f"{self.candidate_only:,} passed only in the candidate, {self.baseline_only:,} only "
            f"in the baseline: p = {text.ratio(self.p_value)} (McNemar's exact two-sided test)"
        )


@dataclass(frozen=True)
class SuiteDelta:
    """One compared suite before and after."""

    suite: str
    pass_rate: Figure
    """The suite summary's pass rate (passed over scored checks): the suite table's."""
    figures: tuple[Figure, ...] = ()
    """Every figure of the deltas table, in order."""
    thresholds: Mapping[str, Figure] = field(default_factory=dict)
    """Each threshold's measured value, by key."""
    metrics: Mapping[str, tuple[Figure, ...]] = field(default_factory=dict)
    """Each metric's headline figures (accuracy or exact-set accuracy, macro F1), by name."""
    mcnemar: McNemarItem | None = None
