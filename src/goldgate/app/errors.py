"""The errors of the commands, each a ``GoldgateError`` with its exit code."""

from __future__ import annotations

from goldgate.base.errors import InvalidInputError

__all__ = ["HandoffError"]


class HandoffError(InvalidInputError):
    """A hand-off that is missing, not one, or not the one the run step recorded."""
