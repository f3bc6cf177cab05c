"""The custom scorers settings name, imported by ``module:attribute`` for a run or a replay."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.base.errors import InvalidInputError
from goldgate.base.imports import import_attribute, is_async_callable
from goldgate.scoring.scorers import RegisteredScorer, ScorerRegistry

if TYPE_CHECKING:
    from goldgate.gold.settings.load import LoadedSettings
    from goldgate.gold.suites import GoldSuite


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
