"""Custom scorers, registered by import path and revision in config/settings.yaml."""

from __future__ import annotations

from typing import Any


async def same_casefolded(actual: Any, expected: Any) -> bool:
    """The category matches ignoring case (revision 1)."""
    return (
        isinstance(actual, str)
        and isinstance(expected, str)
        and actual.casefold() == expected.casefold()
    )
