"""Custom scorers: async ``(actual, expected) -> bool`` functions registered by name and revision.

Datasets only name a scorer. Code reaches goldgate through the Python API (a
``RegisteredScorer`` built in memory) or through an import path in the settings, never
through gold. The revision is recorded in reports: change it when the scorer's meaning changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeAlias

from goldgate.base.errors import InvalidInputError
from goldgate.base.imports import import_attribute, is_async_callable
from goldgate.base.jsonvalue import FrozenJson

if TYPE_CHECKING:
    from goldgate.gold.settings.load import LoadedSettings
    from goldgate.gold.suites import GoldSuite

__all__ = [
    "RegisteredScorer",
    "ScorerFunction",
    "ScorerRegistry",
    "import_scorer",
    "is_async_callable",
]

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


def import_scorer(
    import_path: str, name: str, revision: str, search_paths: Sequence[Path] = ()
) -> RegisteredScorer:
    """Import ``module:attribute`` (the attribute may be dotted) with ``search_paths`` first on
    ``sys.path``, and register it as ``name`` at ``revision``.

    Anything that goes wrong (a malformed path, an import that raises, a missing attribute, an
    attribute that is not an async callable) raises ``InvalidInputError`` with one sentence
    naming the import path, never a traceback.
    """
    target = import_attribute(import_path, search_paths, f"scorer {name!r} ({import_path!r})")
    if not is_async_callable(target):
        raise InvalidInputError(
            f"scorer {name!r} ({import_path!r}) is not an async function "
            "(scorers are 'async def (actual, expected) -> bool')."
        )
    return RegisteredScorer(name, revision, target)


def settings_registry(settings: LoadedSettings, suites: Iterable[GoldSuite]) -> ScorerRegistry:
    """The custom scorers ``suites`` name, imported as the settings register them (a run and
    a replay import them the same way)."""
    needed = sorted(set().union(*(suite.scorer_names() for suite in suites)))
    scorers = []
    for name in needed:
        registered = settings.settings.scorers.get(name)
        if registered is None:  # pragma: no cover - the gold check refuses this first
            raise InvalidInputError(f"scorer {name!r} is not registered in the settings.")
        scorers.append(
            import_scorer(registered.import_path, name, registered.revision, settings.python_paths)
        )
    return ScorerRegistry(scorers)
