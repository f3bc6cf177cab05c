"""The errors of defining Python evals, each a ``GoldgateError`` (exit 2).

They are a ``ValueError`` and a ``TypeError`` too, as EZVals raises those.
"""

from __future__ import annotations

from goldgate.base.errors import InvalidInputError

__all__ = ["EvalDefinitionError", "UnknownArgumentError"]


class EvalDefinitionError(InvalidInputError, ValueError):
    """An eval defined in a way that cannot run (exit 2). A ``ValueError`` too, as EZVals
    raises one."""


class UnknownArgumentError(EvalDefinitionError, TypeError):
    """An ``@eval`` argument goldgate does not know (exit 2; a ``TypeError`` too, as Python
    raises one for EZVals). Unlike other definition errors it does not stop the other files
    of a run: the file may be written for a newer EZVals."""
