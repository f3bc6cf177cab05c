"""Counts in English: the one pluralisation every message, rendering and summary uses
("1 runtime failure", "2 runtime failures"; never "1 runtime failures")."""

from __future__ import annotations

__all__ = ["count"]


def count(value: int, noun: str, plural: str | None = None) -> str:
    """``value`` and ``noun`` as English says them, thousands separated: ``1 case``,
    ``2 cases``, ``1,000 cases``; ``plural`` where adding an s is wrong (``1 awaits review``,
    ``2 await review``)."""
    return f"{value:,} {noun if value == 1 else (plural or noun + 's')}"
