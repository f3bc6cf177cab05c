"""Custom scorers: async ``(actual, expected) -> bool`` functions registered by name and revision.

Datasets only name a scorer. Code reaches goldgate through the Python API (a
``RegisteredScorer`` built in memory) or through an import path in the settings, never
through gold. The revision is recorded in reports: change it when the scorer's meaning changes.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

from goldgate.errors import InvalidInputError
from goldgate.jsonvalue import FrozenJson

__all__ = [
    "RegisteredScorer",
    "ScorerFunction",
    "ScorerRegistry",
    "import_scorer",
    "is_async_callable",
]

ScorerFunction: TypeAlias = Callable[[FrozenJson, FrozenJson], Awaitable[bool]]
"""An async scorer: gets frozen copies of the actual and expected values, returns a bool."""


def is_async_callable(function: object) -> bool:
    """Whether calling ``function`` returns an awaitable coroutine: an ``async def`` function
    or method, a ``functools.partial`` of one, or an object with an ``async def __call__``."""
    if inspect.iscoroutinefunction(function):
        return True
    # Look __call__ up on the type: a class's own __call__ attribute is its instances'.
    return callable(function) and inspect.iscoroutinefunction(type(function).__call__)


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
    ``sys.path`` for the duration of the import, and register it as ``name`` at ``revision``.

    Anything that goes wrong (a malformed path, an import that raises, a missing attribute, an
    attribute that is not an async callable) raises ``InvalidInputError`` with one sentence
    naming the import path, never a traceback.
    """
    module_name, colon, attribute = import_path.partition(":")
    if not colon or not module_name or not attribute or ":" in attribute:
        raise InvalidInputError(
            f"scorer '{name}': '{import_path}' is not an import path of the form "
            "'package.module:attribute'."
        )
    module = _import_module(module_name, import_path, name, search_paths)
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise InvalidInputError(
                f"scorer '{name}': '{import_path}' names nothing ('{part}' is not there)."
            ) from None
    if not callable(target):
        raise InvalidInputError(f"scorer '{name}': '{import_path}' is not callable.")
    if not is_async_callable(target):
        raise InvalidInputError(
            f"scorer '{name}': '{import_path}' is not an async function "
            "(scorers are 'async def (actual, expected) -> bool')."
        )
    return RegisteredScorer(name, revision, target)


def _import_module(
    module_name: str, import_path: str, name: str, search_paths: Sequence[Path]
) -> Any:
    added = [str(path) for path in search_paths]
    sys.path[:0] = added
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = f" (module '{error.name}' not found)" if error.name else ""
        raise InvalidInputError(
            f"scorer '{name}': cannot import '{import_path}'{missing}."
        ) from None
    except (Exception, SystemExit) as error:
        raise InvalidInputError(
            f"scorer '{name}': importing '{import_path}' raised {type(error).__name__}."
        ) from None
    finally:
        for entry in added:
            with contextlib.suppress(ValueError):  # the imported code removed it itself
                sys.path.remove(entry)
