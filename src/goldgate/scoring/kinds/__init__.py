"""The comparison kinds, by name: one module each, one line each in ``KINDS``.

A kind's module holds its offline rules, its compiling and its scoring (``ScoringKind``, the
contract gold states in ``gold.kinds``). Everything that depends on which kinds exist reads
this registry: the names the ``comparison`` field accepts and the JSON Schema's enum (in
the registry's order), the offline check, compiling, scoring (``scoring.score``) and which
stored outcomes a report's reader scores again. Gold, below scoring, reaches it through
``goldgate.base.provided``, wired by the package's ``__init__``. docs/extending.md shows
how to add a kind.
"""

from __future__ import annotations

from typing import Final

from goldgate.scoring.kinds import custom, exact, maximum, score, set_, source_span, text
from goldgate.scoring.kinds.kind import Score, ScoringKind

__all__ = ["KINDS", "Score", "ScoringKind", "rescored_kinds"]

KINDS: Final[dict[str, ScoringKind]] = {
    kind.name: kind
    for kind in (
        exact.KIND,
        set_.KIND,
        source_span.KIND,
        custom.KIND,
        text.KIND,
        maximum.KIND,
        score.KIND,
    )
}
"""Every comparison kind by name, in the order gold's messages and schema list them."""


def rescored_kinds() -> frozenset[str]:
    """The kinds whose stored outcomes a report's reader scores again (pure, no user code)."""
    return frozenset(name for name, kind in KINDS.items() if kind.rescored)
