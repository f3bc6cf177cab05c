"""Values a lower stage needs and only a higher one can make (dependency inversion).

``gold`` checks and compiles expectations by their comparison kind, but the kinds live in
``scoring``, above it: gold may not import them. So gold reads them from a slot here, and the
one place above every stage (the package's ``__init__``, which Python runs before any of its
modules) names the function that makes them. Nothing is made until the first use, so naming
the provider costs an import nothing; it does not depend on which module is imported first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["COMPARISON_KINDS", "Provided"]

_T = TypeVar("_T")


class Provided(Generic[_T]):
    """One value, made on first use by the provider an entry point named."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._provider: Callable[[], _T] | None = None
        self._value: _T | None = None

    def provide(self, provider: Callable[[], _T]) -> None:
        """Name the function that makes the value (again: the value is made afresh)."""
        self._provider = provider
        self._value = None

    def get(self) -> _T:
        value = self._value
        if value is None:
            if self._provider is None:
                raise RuntimeError(f"goldgate's {self.what} were not provided (goldgate/__init__)")
            value = self._value = self._provider()
        return value


COMPARISON_KINDS: Provided[Any] = Provided("comparison kinds")
"""The registry of comparison kinds (``goldgate.scoring.kinds.KINDS``), read through
``goldgate.gold.kinds.comparison_kinds``."""
