"""What an eval function works with: ``EvalContext`` (its input, reference, metadata, output
and scores), ``EvalResult`` (what evaluators read) and the rules a score follows.

A score is ``{key, value?, passed?, notes?}``: ``key`` defaults to ``pass``, at least one of
``value`` (a number from 0 to 1) and ``passed`` (a bool) is given. ``scores`` may be one
score, a bare number (a ``value``), a bool (a ``passed``) or a list of them. A score that
breaks these rules is not dropped and does not stop the eval: it is kept as
``{key, error}``, ``error`` being one sentence naming the eval and the score, and the check
of its key cannot pass (``goldgate.scoring.evalscores``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["DEFAULT_KEY", "RESERVED_KEYS", "EvalContext", "EvalResult", "normalize_scores"]

DEFAULT_KEY: Final = "pass"
RESERVED_KEYS: Final = frozenset({"expect"})
"""Score keys an eval may not use: ``expect`` names the check of a case's ``expect``."""
_FIELDS: Final = ("key", "value", "passed", "notes")
_MAX_KEY = 200


def _key_problem(key: Any) -> str | None:
    if not isinstance(key, str) or not key:
        return "a key that is not a nonempty string"
    if len(key) > _MAX_KEY:
        return f"a key longer than {_MAX_KEY} characters"
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in key):
        return "a key holding control characters"
    if key in RESERVED_KEYS:
        return f"the key {key!r}, which names the check of a case's expect"
    return None


def _invalid(key: Any, who: str, why: str, notes: Any = None) -> dict[str, Any]:
    shown = key if isinstance(key, str) and _key_problem(key) is None else DEFAULT_KEY
    entry: dict[str, Any] = {"key": shown, "error": f"{who} stored score '{shown}' with {why}"}
    if isinstance(notes, str):
        entry["notes"] = notes
    return entry


def _one(score: Any, who: str) -> dict[str, Any]:
    if isinstance(score, bool):
        return {"key": DEFAULT_KEY, "passed": score}
    if isinstance(score, int | float):
        score = {"value": score}
    if not isinstance(score, Mapping):
        return {
            "key": DEFAULT_KEY,
            "error": f"{who} stored a score of type {type(score).__name__}; a score is a "
            "number, a bool, a dict or a list of them",
        }
    key = score.get("key", DEFAULT_KEY)
    notes = score.get("notes")
    unknown = [name for name in score if name not in _FIELDS]
    if unknown:
        return _invalid(
            key, who, f"the unknown field {str(unknown[0])!r} (a score has key, value, passed "
            "and notes)", notes,
        )  # fmt: skip
    problem = _key_problem(key)
    if problem is not None:
        return _invalid(key, who, problem, notes)
    entry: dict[str, Any] = {"key": key}
    value = score.get("value")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _invalid(
                key, who, f"a value of type {type(value).__name__}, not a number", notes
            )
        if not math.isfinite(value) or not 0 <= value <= 1:
            return _invalid(key, who, "a value outside 0 to 1", notes)
        entry["value"] = value
    passed = score.get("passed")
    if passed is not None:
        if not isinstance(passed, bool):
            return _invalid(key, who, f"passed of type {type(passed).__name__}, not a bool", notes)
        entry["passed"] = passed
    if "value" not in entry and "passed" not in entry:
        return _invalid(key, who, "neither value nor passed", notes)
    if notes is not None:
        entry["notes"] = notes if isinstance(notes, str) else str(notes)
    return entry


def normalize_scores(scores: Any, who: str, *, by: str | None = None) -> list[dict[str, Any]]:
    """``scores`` as score entries, in order: valid ones as ``{key, value?, passed?, notes?}``,
    the others as ``{key, error}``. ``who`` names the eval (or evaluator) in errors; ``by``
    marks the entries an evaluator made."""
    if scores is None:
        return []
    items = list(scores) if isinstance(scores, list | tuple) else [scores]
    entries = [_one(item, who) for item in items]
    if by is not None:
        for entry in entries:
            entry["by"] = by
    return entries


class EvalContext:
    """What one run of an eval function sees and records.

    ``input``, ``reference`` and ``metadata`` come from the eval (or its case); set
    ``output`` (or ``store(output=...)``) to what the application answered, and add scores
    with ``store(scores=...)``. A failing ``assert`` adds ``{key: pass, passed: false,
    notes: <message>}``; when no assertion failed a passing ``pass`` score is added after the
    function returns.
    """

    def __init__(
        self,
        input: Any = None,
        reference: Any = None,
        metadata: Mapping[str, Any] | None = None,
        output: Any = None,
        *,
        function_name: str | None = None,
    ) -> None:
        self.input = input
        self.reference = reference
        self.metadata: dict[str, Any] = metadata if type(metadata) is dict else dict(metadata or {})
        self.output = output
        self.function_name = function_name
        self.scores: list[dict[str, Any]] = []

    def store(self, output: Any = None, scores: Any = None) -> EvalContext:
        """Set ``output`` (when given) and add ``scores``: a number, a bool, a score dict or a
        list of them. A score that breaks the rules is kept as an error of its key."""
        if output is not None:
            self.output = output
        who = f"eval '{self.function_name}'" if self.function_name else "the eval"
        self.scores.extend(normalize_scores(scores, who))
        return self

    def __repr__(self) -> str:
        return f"EvalContext(function_name={self.function_name!r}, scores={len(self.scores)})"


@dataclass(frozen=True)
class EvalResult:
    """What an evaluator reads: the eval's input, output, reference, metadata and the scores
    made so far (copies: an evaluator adds scores by returning them)."""

    input: Any
    output: Any
    reference: Any = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    scores: Sequence[Mapping[str, Any]] = ()
