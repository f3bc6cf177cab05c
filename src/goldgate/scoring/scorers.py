"""Custom scorers: async ``(actual, expected) -> bool`` functions registered by name and revision.

Datasets only name a scorer. Code reaches goldgate through the Python API (a
``RegisteredScorer`` built in memory) or through an import path in the settings
(``goldgate.run.scorers`` imports it), never through gold. The revision is recorded in
reports: change it when the scorer's meaning changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeAlias

from goldgate.base.imports import is_async_callable
from goldgate.base.jsonvalue import FrozenJson

__all__ = ["RegisteredScorer", "ScorerFunction", "ScorerRegistry"]

ScorerFunction: TypeAlias = Callable[[FrozenJson, FrozenJson], Awaitable[bool]]
"""An async scorer: gets frozen copies of the actual and expected values, returns a bool."""


@dataclass(frozen=True)
class RegisteredScorer:
    """A custom scorer under the name datasets use, with the revision reports record."""

    name: str
    revision: str
    function: ScorerFunction

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a scorer needs a nonempty name")
        if not isinstance(self.revision, str) or not self.revision:
            raise ValueError(f"scorer '{self.name}' needs a nonempty revision")
        if not is_async_callable(self.function):
            raise TypeError(
                f"scorer '{self.name}' must be an async function (actual, expected) -> bool"
            )


class ScorerRegistry(Mapping[str, RegisteredScorer]):
    """An immutable mapping of scorer name to ``RegisteredScorer``; duplicate names are refused."""

    __slots__ = ("_scorers",)

    def __init__(self, scorers: Iterable[RegisteredScorer] = ()) -> None:
        table: dict[str, RegisteredScorer] = {}
        for scorer in scorers:
            if not isinstance(scorer, RegisteredScorer):
                raise TypeError(
                    f"a scorer registry holds RegisteredScorer values, not {type(scorer).__name__}"
                )
            if scorer.name in table:
                raise ValueError(f"scorer '{scorer.name}' is registered more than once")
            table[scorer.name] = scorer
        self._scorers: Mapping[str, RegisteredScorer] = MappingProxyType(table)

    def __getitem__(self, name: str) -> RegisteredScorer:
        return self._scorers[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scorers)

    def __len__(self) -> int:
        return len(self._scorers)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name!r}@{s.revision!r}" for name, s in self._scorers.items())
        return f"ScorerRegistry({inner})"

    def revisions(self) -> dict[str, str]:
        """Each scorer's revision by name, as reports record them."""
        return {name: scorer.revision for name, scorer in self._scorers.items()}
