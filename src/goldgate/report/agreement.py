"""Where a report's stored value is not what reading it recomputes: the refusal, naming the
innermost field that differs by JSON pointer (never showing a private value), and the typed
reads of a stored check's fields that ``report.verify`` tallies.

Split from ``report.verify``, which recomputes the figures; this module only compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from goldgate.base.errors import ReportRefusedError
from goldgate.base.jsonvalue import MISSING, json_equal
from goldgate.base.pointers import format_pointer
from goldgate.scoring.adjudication import decided

if TYPE_CHECKING:
    from goldgate.report.verdicts import CheckFigures
    from goldgate.scoring.outcomes import CheckOutcome

__all__ = [
    "agree",
    "check_disagreement",
    "same_check",
    "stored_count",
    "stored_flag",
    "stored_optional_flag",
]

_TEXT_FIELDS = ("assertions_declared", "assertions_held", "json_parsed")
_PRIVATE = frozenset({"note", "digest"})
"""Queue fields whose values a message never shows (a note is private, a digest is noise)."""


def same_check(view: CheckFigures, check: Mapping[str, Any], fresh: CheckOutcome) -> bool:
    """Whether a stored check (its fields' types checked in ``view``) is what scoring it
    again gave; a check a person decided is left to ``_disagreement``."""
    return (
        view.outcome == fresh.outcome
        and view.adjudication is fresh.adjudication
        and view.assertions_declared == fresh.assertions_declared
        and view.assertions_held == fresh.assertions_held
        and view.json_parsed == fresh.json_parsed
        and "adjudicated" not in check
        and "judge" not in check
    )


def check_disagreement(
    check: Mapping[str, Any], fresh: CheckOutcome, where: tuple[str | int, ...], path: str
) -> None:
    """Refuse the stored check where it is not ``fresh`` (the check scored again from the
    stored result and gold), naming the field; a check a person decided (``adjudicated``)
    must be what one of the two verdicts makes of ``fresh``."""
    if check.get("adjudicated", False) is True:
        if not fresh.adjudication:
            agree(path, (*where, "adjudicated"), True, False)
        passing, failing = decided(fresh, True), decided(fresh, False)
        fresh = failing if check.get("outcome") == failing.outcome.value else passing
    else:
        agree(path, (*where, "adjudicated"), check.get("adjudicated", False), False)
    said = check.get("judge")
    if said is not None:
        fresh = _as_judged(said, fresh, (*where, "judge"), path)
    agree(path, (*where, "outcome"), check.get("outcome"), fresh.outcome.value)
    agree(path, (*where, "adjudication"), check.get("adjudication", False), fresh.adjudication)
    for name in _TEXT_FIELDS:
        agree(path, (*where, name), check.get(name), getattr(fresh, name))


def _as_judged(
    said: Any, fresh: CheckOutcome, where: tuple[str | int, ...], path: str
) -> CheckOutcome:
    """``fresh`` as the stored judge's verdict makes it (``scoring.judges.judged``): a
    judge reviews only a check that waits for a person, and decides it only when
    ``decided``."""
    from goldgate.scoring.judges import JudgeOutcome, judged

    if not isinstance(said, Mapping):
        agree(path, where, said, {})
    verdict, made = said.get("verdict"), said.get("decided", False)
    if verdict not in ("pass", "fail", None):
        agree(path, (*where, "verdict"), verdict, None)
    if type(made) is not bool:
        agree(path, (*where, "decided"), made, False)
    if not fresh.adjudication:
        agree(path, where, said, None)
    outcome = JudgeOutcome(str(said.get("name")), str(said.get("revision")), verdict, made)
    return judged(fresh, outcome)


def stored_count(check: Mapping[str, Any], name: str) -> int | None:
    value = check.get(name)
    if value is None or (type(value) is int and value >= 0):
        return value
    raise ValueError(f"a check's {name} must be a non-negative integer")


def stored_flag(check: Mapping[str, Any], name: str) -> bool:
    value = check.get(name, False)
    if type(value) is not bool:
        raise ValueError(f"a check's {name} must be a boolean")
    return value


def stored_optional_flag(check: Mapping[str, Any], name: str) -> bool | None:
    value = check.get(name)
    if value is not None and type(value) is not bool:
        raise ValueError(f"a check's {name} must be a boolean")
    return value


def agree(path: str, where: tuple[str | int, ...], stored: Any, computed: Any) -> None:
    """Refuse ``stored`` (the report's value at ``where``) unless it is ``computed``."""
    if json_equal(stored, computed):
        return
    tokens, stored, computed = _first_difference(where, stored, computed)
    pointer = format_pointer(tokens)
    private = bool(_PRIVATE.intersection(str(token) for token in tokens[-1:]))
    if private:
        raise ReportRefusedError(
            f"{path}: stored {pointer} is not what its attempts and gold give; the report was "
            "altered or is corrupt."
        )
    raise ReportRefusedError(
        f"{path}: stored {pointer} is {_shown(stored)} but its attempts and gold give "
        f"{_shown(computed)}; the report was altered or is corrupt."
    )


def _first_difference(
    where: tuple[str | int, ...], stored: Any, computed: Any
) -> tuple[tuple[str | int, ...], Any, Any]:
    """The innermost place where ``stored`` and ``computed`` differ, and both values there."""
    if isinstance(stored, Mapping) and isinstance(computed, Mapping):
        for key, value in computed.items():
            if key not in stored:
                return (*where, key), MISSING, value
            if not json_equal(stored[key], value):
                return _first_difference((*where, key), stored[key], value)
        extra = next(key for key in stored if key not in computed)
        return (*where, extra), stored[extra], MISSING
    if isinstance(stored, list) and isinstance(computed, list) and len(stored) == len(computed):
        for position, (left, right) in enumerate(zip(stored, computed, strict=True)):
            if not json_equal(left, right):
                return _first_difference((*where, position), left, right)
    return where, stored, computed


def _shown(value: Any) -> str:
    """A stored or computed value in a message: short, and never a whole private value."""
    if value is MISSING:
        return "absent"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = orjson.dumps(value).decode("utf-8")
        except (TypeError, orjson.JSONEncodeError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
