"""What gold needs of a comparison kind, and where it finds the kinds.

A comparison kind (``exact``, ``set``, ``source_span``, ``custom``, ``text``, a Python eval's
``score``) is one module in ``goldgate.scoring.kinds`` plus one line in its registry. Gold
checks and compiles expectations by kind but sits below scoring, so it never imports the
kinds: it states here what it needs of one (``ComparisonKind``: a name, offline rules, a
compiler) and reads the registry through ``comparison_kinds``, which the package's entry
point wires to scoring's (``goldgate.base.provided``). Which names the ``comparison`` field
accepts, and the JSON Schema's enum, come from that registry too (``gold.models``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from goldgate.base.provided import COMPARISON_KINDS
from goldgate.gold.shapes import Problem

__all__ = [
    "ComparisonKind",
    "Compiler",
    "Kinds",
    "Rules",
    "comparison_kinds",
    "gold_file_names",
    "named_in_gold",
    "no_rules",
    "unknown_comparison",
]

Rules = Callable[[Any, Any, Mapping[str, Any]], Sequence[Problem]]
"""(expected, its compiled form, the case's input) -> every problem, each at its place
(``("expected", key)``...): the offline rules, run by ``evaluate --check``."""
Compiler = Callable[[Any, MutableMapping[str, re.Pattern[str]] | None, bool], Any]
"""(expected, patterns compiled before or None, check only) -> the compiled form kept on the
``CompiledExpectation`` (``form``): done once per expectation, never per attempt."""


def no_rules(expected: Any, form: Any, envelope: Mapping[str, Any]) -> Sequence[Problem]:
    """The rules of a kind that takes any JSON value as ``expected``."""
    return ()


@dataclass(frozen=True, kw_only=True)
class ComparisonKind:
    """What gold needs of a comparison kind (scoring's kinds add how to score)."""

    name: str
    rules: Rules = no_rules
    compile: Compiler | None = None
    """None: nothing to compile (``form`` stays None)."""
    in_gold_files: bool = True
    """False for a kind only code builds (a Python eval's ``score``): gold refuses it."""
    uses_scorer: bool = False
    """Scored by the registered scorer the expectation names (``custom``)."""


Kinds = Mapping[str, ComparisonKind]


def comparison_kinds() -> Kinds:
    """The registry of comparison kinds, by name."""
    kinds: Kinds = COMPARISON_KINDS.get()
    return kinds


def gold_file_names(kinds: Kinds) -> list[str]:
    """The names gold files may use, in the registry's order."""
    return [name for name, kind in kinds.items() if kind.in_gold_files]


def named_in_gold(name: str, kinds: Kinds) -> bool:
    kind = kinds.get(name)
    return kind is not None and kind.in_gold_files


def unknown_comparison(kinds: Kinds) -> str:
    """The allowed names as pydantic words a literal's (``'a', 'b' or 'c'``): what
    ``base.problems`` turns into 'must be one of "a", "b" or "c", found ...'."""
    names = [f"'{name}'" for name in gold_file_names(kinds)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
