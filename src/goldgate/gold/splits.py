"""Which cases are held out (no pydantic here: renderers ask it for every attempt)."""

from __future__ import annotations

HOLDOUT = "holdout"


def is_holdout(split: str | None) -> bool:
    """Whether a case's ``split`` holds it out: ``holdout`` in any letter case and spacing
    (``Holdout``, ``HOLDOUT``, `` holdout ``), so that no spelling of it shows held-out gold
    where ``--details values`` shows other values."""
    return split is not None and split.strip().casefold() == HOLDOUT
