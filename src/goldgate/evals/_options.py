"""What an eval's options are and what they may hold (the decorator's, file defaults' and
cases'), and what the rest of the engine reads of an eval (``Definition``: an ``@eval``
function, without the decorator itself, so that the engine and the decorator do not import
each other).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Protocol

from goldgate.base.textsafe import starts_command
from goldgate.evals._scores import RESERVED_KEYS

__all__ = [
    "CASE_KEYS",
    "DECORATOR_PARAMS",
    "EXTRA_PARAMS",
    "PARAMS",
    "Definition",
    "case_problem",
    "param_problem",
    "threshold_problem",
]


class Definition(Protocol):
    """An eval as the engine reads it (``goldgate.evals.EvalFunction`` is one)."""

    function: Callable[..., Any]
    params: dict[str, Any]
    """The options given to the decorator (only those given)."""
    ctx_param: str | None
    ctx_keyword: bool
    is_async: bool
    file: Path | None
    line: int
    name: str
    who: str

    @property
    def takes_context(self) -> bool: ...


PARAMS: Final = (
    "input",
    "reference",
    "dataset",
    "labels",
    "metadata",
    "default_score_key",
    "timeout",
    "target",
    "evaluators",
    "trials",
)
"""What file defaults (``ezvals_defaults``) and each case may set, as in EZVals."""
EXTRA_PARAMS: Final = ("thresholds", "live")
"""goldgate's own options (the gate): on the decorator and in file defaults, not in cases."""
DECORATOR_PARAMS: Final = (*PARAMS, "cases", "input_loader", *EXTRA_PARAMS)
CASE_KEYS: Final = ("id", *PARAMS, "expect")
"""What a case may hold: its id, any of ``PARAMS``, and (goldgate's) seed 004's ``expect``."""
_CASE_KEY_SET: Final = frozenset(CASE_KEYS)
_PARAM_SET: Final = frozenset(PARAMS)

RUN_FIGURES: Final = ("pass_rate", "expect.satisfied")
UNMEASURED_FIGURES: Final = ("json.parse", "schema.requiredCoverage")
"""Run figures of gold suites that nothing in an eval measures: the ``expect`` check has no
suite text options (``json``, ``requiredKeys``), so a threshold on one could never hold."""
SCORE_FIGURES: Final = ("mean", "min")
_NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")


def _finite(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def threshold_problem(key: Any, minimum: Any) -> str | None:
    """Why ``key: minimum`` is not a threshold an eval suite can gate on, or ``None``. Run
    figures are shares from 0 to 1; a score's mean and minimum are any number, as its values."""
    if not isinstance(key, str):
        return "a threshold's key is a string"
    if key in UNMEASURED_FIGURES:
        return (
            f"threshold {key!r} is never measured in evals (only a gold suite's text options "
            "measure it), so it could never hold"
        )
    if key in RUN_FIGURES:
        if not (_finite(minimum) and 0 <= minimum <= 1):
            return f"threshold {key!r} must be a number from 0 to 1"
        return None
    score, dot, figure = key.rpartition(".")
    if not dot or not score or figure not in SCORE_FIGURES:
        return (
            f"threshold {key!r} is none of {', '.join(RUN_FIGURES)} nor '<score key>.mean' "
            "or '<score key>.min'"
        )
    if not _finite(minimum):
        return f"threshold {key!r} must be a finite number"
    return None


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(_NAME.fullmatch(value)) and not starts_command(value)


def _callables(value: Any) -> bool:
    items = value if isinstance(value, list | tuple) else [value]
    return all(callable(item) for item in items)


def param_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be the option ``name`` (of the decorator, file defaults or a
    case), or ``None``. ``None`` is always allowed: it clears the option."""
    if value is None or name in ("input", "reference"):
        return None
    if name == "dataset" and not _is_name(value):
        return "dataset must be a nonempty name without control characters, not starting with '::'"
    if name == "labels" and not (
        isinstance(value, list | tuple) and all(isinstance(label, str) for label in value)
    ):
        return "labels must be a list of strings"
    if name == "metadata" and not isinstance(value, Mapping):
        return "metadata must be a dict"
    if name == "default_score_key" and (not _is_name(value) or value in RESERVED_KEYS):
        return "default_score_key must be a nonempty score key other than 'expect'"
    if name == "timeout" and not (_finite(value) and value > 0):
        return "timeout must be a positive number of seconds"
    if name == "trials" and not (isinstance(value, int) and not isinstance(value, bool)):
        return "trials must be a positive whole number"
    if name == "trials" and value < 1:
        return "trials must be a positive whole number"
    if name in ("target", "input_loader") and not callable(value):
        return f"{name} must be a function"
    if name == "evaluators" and not _callables(value):
        return "evaluators must be functions (a list of them, or one)"
    if name == "live" and not isinstance(value, bool):
        return "live must be True or False"
    if name == "thresholds":
        if not isinstance(value, Mapping):
            return "thresholds must be a dict of figures and minimums"
        for key, minimum in value.items():
            problem = threshold_problem(key, minimum)
            if problem is not None:
                return problem
    if name == "cases":
        if isinstance(value, str | os.PathLike):
            if not os.fspath(value).endswith(".jsonl"):
                return "a cases file is a .jsonl file, one case per line"
        elif not isinstance(value, list | tuple):
            return "cases must be a list of dicts or the path of a .jsonl file"
    return None


def case_problem(fields: Any) -> str | None:
    """Why ``fields`` cannot be a case (not a dict, an unknown key, an option whose value
    cannot be one), or ``None``."""
    if not isinstance(fields, Mapping):
        return f"a case is a dict of {', '.join(CASE_KEYS)}"
    if not (type(fields) is dict and fields.keys() <= _CASE_KEY_SET):  # else: at once
        unknown = sorted(str(key) for key in fields if key not in _CASE_KEY_SET)
        if unknown:
            return f"Unknown case keys: {', '.join(unknown)} (a case has {', '.join(CASE_KEYS)})"
    for key, value in fields.items():
        if key in _PARAM_SET:
            problem = param_problem(key, value)
            if problem is not None:
                return problem
    return None
