"""The errors of the commands, each a ``GoldgateError`` with its exit code."""

from __future__ import annotations

from goldgate.base.errors import InvalidInputError

__all__ = ["HandoffError", "Unrenderable"]


class HandoffError(InvalidInputError):
    """A hand-off that is missing, not one, or not the one the run step recorded."""


class Unrenderable(InvalidInputError):
    """A promptfoo template jinja2 cannot render exactly (``goldgate import promptfoo``): the
    importer catches it and lists the case as waiting for a person."""
