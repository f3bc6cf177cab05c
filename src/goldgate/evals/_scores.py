"""What a score is, as EZVals (0.2.0) takes it: ``True``/``False`` (a ``passed``), a number (a
``value``), or a dict with a ``key`` and at least one of ``passed`` and ``value``, plus
``notes``. A score without a key takes the default key (the eval's ``default_score_key``).

A score that breaks the rules raises ``ValueError`` where it is stored, as in EZVals, so the
eval errors with the sentence saying why (its attempt fails, exit 4). goldgate refuses a few
scores EZVals lets through, each with one clear sentence: a ``value`` that is not a finite
number (EZVals keeps ``"high"`` or ``True`` as they are), a key that is empty, holds control
characters or is ``expect`` (the check of a case's seed 004 ``expect``). Fields other than
``key``, ``value``, ``passed`` and ``notes`` are dropped, as EZVals' run files drop them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["DEFAULT_KEY", "RESERVED_KEYS", "normalize_score", "normalize_scores"]

DEFAULT_KEY: Final = "pass"
RESERVED_KEYS: Final = frozenset({"expect"})
"""Score keys an eval may not use: ``expect`` names the check of a case's ``expect``."""
_MAX_KEY = 200
_SHAPE: Final = "use True/False, a number, or {'key': ..., 'passed'/'value': ..., 'notes': ...}"


_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_GOOD_KEYS: set[str] = set()
"""Keys found good already: most evals store a few keys, thousands of times."""
_GOOD_KEYS_KEPT = 4096


def _key_problem(key: Any) -> str | None:
    if type(key) is str and key in _GOOD_KEYS:
        return None
    if not isinstance(key, str) or not key:
        return "its key is not a nonempty string"
    if len(key) > _MAX_KEY:
        return f"its key is longer than {_MAX_KEY} characters"
    if _CONTROL.search(key):
        return "its key holds control characters"
    if key in RESERVED_KEYS:
        return f"the key {key!r} names the check of a case's expect"
    if type(key) is str and len(_GOOD_KEYS) < _GOOD_KEYS_KEPT:
        _GOOD_KEYS.add(key)
    return None


def _kind(value: Any) -> str:
    """``a str``, ``an int``: what ``value`` is, for a sentence."""
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _invalid(score: Any, why: str) -> ValueError:
    shown = repr(score)
    if len(shown) > 300:
        shown = shown[:297] + "..."
    return ValueError(f"Invalid score {shown}: {why}")


def normalize_score(score: Any, default_key: str | None) -> dict[str, Any]:
    """One score as ``{key, value?, passed?, notes?}``; ``ValueError`` saying what is wrong."""
    if type(score) is dict and _is_plain_pass(score):  # the common case, at once
        return {"key": score["key"], "passed": score["passed"]}
    if isinstance(score, bool):
        score = {"passed": score}
    elif isinstance(score, int | float):
        score = {"value": score}
    elif not isinstance(score, Mapping) or (
        score.get("value") is None and score.get("passed") is None
    ):
        raise _invalid(score, _SHAPE)
    if "key" in score:
        key = score["key"]
    elif default_key is None:
        raise ValueError("Must specify score key or set default_score_key")
    else:
        key = default_key
    problem = _key_problem(key)
    if problem is not None:
        raise _invalid(score, problem)
    entry: dict[str, Any] = {"key": key}
    value = score.get("value")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(score, f"its value is {_kind(value)}, not a number")
        if not math.isfinite(value):
            raise _invalid(score, "its value is not a finite number")
        entry["value"] = value
    passed = score.get("passed")
    if passed is not None:
        if not isinstance(passed, bool):
            raise _invalid(score, f"its passed is {_kind(passed)}, not True or False")
        entry["passed"] = passed
    notes = score.get("notes")
    if notes is not None:
        if not isinstance(notes, str):
            raise _invalid(score, f"its notes are {_kind(notes)}, not a string")
        entry["notes"] = notes
    return entry


def _is_plain_pass(score: dict[Any, Any]) -> bool:
    """Whether ``score`` is ``{key, passed}`` of a good key already: what an assertion, a
    bool and the automatic pass score make."""
    return (
        len(score) == 2
        and type(score.get("passed")) is bool
        and type(score.get("key")) is str
        and score["key"] in _GOOD_KEYS
    )


def normalize_scores(scores: Any, default_key: str | None) -> list[dict[str, Any]]:
    """A score, a list of scores or ``None`` as a list of score dicts. Two scores without a
    key in one list would share the default key: ``ValueError``, as in EZVals."""
    items = scores if isinstance(scores, list) else [] if scores is None else [scores]
    normalized = [normalize_score(item, default_key) for item in items]
    if len(items) > 1 and sum(not (isinstance(i, Mapping) and "key" in i) for i in items) > 1:
        shown = repr(items) if len(repr(items)) <= 300 else repr(items)[:297] + "..."
        raise ValueError(f"Scores {shown} would share the key {default_key!r}: give each a 'key'")
    return normalized
