"""An eval's cases: from ``@eval(cases=[...])``, a ``.jsonl`` file, or the decorator alone.

Each case becomes an ``EvalCase``: its id in the suite (``name``, or ``name[id]`` for a case,
as ezvals names them), what its context carries and, for seed 004's dataset lines
(``{"id", "input", "expect"}``), the ``expect`` its output is scored against. Everything is
checked before a run starts: unknown keys, a case file that is not strict JSON Lines, an
``expect`` that is malformed or holds a broken pattern, an input a report cannot hold; each
is ``InvalidInputError`` naming the file and line, or the eval and the case.
"""

from __future__ import annotations

import copy
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from goldgate.adjudication.store import read_lines
from goldgate.dataset.compiled import compile_text
from goldgate.errors import InvalidInputError
from goldgate.evals._decorator import UNSET, EvalFunction
from goldgate.problems import display_path
from goldgate.scoring.text import text_expected_problem

__all__ = ["CASE_KEYS", "EvalCase", "expand"]

CASE_KEYS: Final = ("id", "input", "reference", "metadata", "expect")
_ID = re.compile(r"[^\x00-\x1f\x7f-\x9f\s](?:[^\x00-\x1f\x7f-\x9f]*[^\x00-\x1f\x7f-\x9f\s])?")
_MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One run of an eval function, before it runs."""

    function: EvalFunction
    case_id: str
    input: Any
    reference: Any
    metadata: Mapping[str, Any]
    expect: Any
    """Seed 004's ``expect`` (an assertion object or prose), or ``UNSET``."""
    envelope: dict[str, Any]
    """The case as the report stores it: ``{"payload": {"case", "input", "reference"?},
    "metadata"}`` (plain JSON)."""
    origin: str
    """``file:line`` of the case (its line in a case file, else the eval's definition)."""

    @property
    def has_expect(self) -> bool:
        return self.expect is not UNSET

    def context_values(self) -> tuple[Any, Any, dict[str, Any]]:
        """Fresh copies of input, reference and metadata for one attempt: an eval that
        changes them changes neither the next attempt nor the report."""
        reference = None if self.reference is UNSET else self.reference
        return (
            copy.deepcopy(self.input),
            copy.deepcopy(reference),
            copy.deepcopy(dict(self.metadata)),
        )


class _NotJson(Exception):
    pass


def _plain(value: Any, depth: int = 0) -> Any:
    """A strict JSON copy: what a report can hold, or ``_NotJson`` saying what it cannot."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotJson("a number that is NaN or infinite")
        return float(value)
    if depth > _MAX_DEPTH:
        raise _NotJson(f"values nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotJson(f"an object key of type {type(key).__name__}")
            copied[key] = _plain(item, depth + 1)
        return copied
    if isinstance(value, list | tuple):
        return [_plain(item, depth + 1) for item in value]
    raise _NotJson(f"a value of type {type(value).__name__}")


def _json(value: Any, where: str, what: str) -> Any:
    try:
        return _plain(value)
    except _NotJson as error:
        raise InvalidInputError(
            f"{where}: {what} holds {error}, which a report cannot hold."
        ) from None


def _expect_problem(expect: Any) -> str | None:
    problem = text_expected_problem(expect)
    if problem is not None:
        return problem
    patterns = compile_text(expect).pattern_problems()
    return patterns[0][1] if patterns else None


def _case_id(function: EvalFunction, raw: Any, index: int, where: str) -> str:
    if raw is UNSET:
        raw = index
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise InvalidInputError(f"{where}: a case 'id' is a string or an integer.")
    text = str(raw)
    if not _ID.fullmatch(text):
        raise InvalidInputError(
            f"{where}: case id {text!r} must be nonempty, without control characters or "
            "surrounding whitespace."
        )
    return f"{function.name}[{text}]"


def _where(function: EvalFunction) -> str:
    file = display_path(function.file) if function.file is not None else "<eval>"
    return f"{file}:{function.line}"


def _build(function: EvalFunction, case_id: str, fields: Mapping[str, Any], where: str) -> EvalCase:
    options = function.options
    who = f"eval {function.name!r}"
    input_value = fields.get("input", options.input)
    if input_value is UNSET:
        input_value = None
    reference = fields.get("reference", options.reference)
    metadata_value = fields.get("metadata")
    if metadata_value is not None and not isinstance(metadata_value, Mapping):
        raise InvalidInputError(f"{where}: {who}: a case's 'metadata' is an object.")
    metadata = {**options.metadata, **(metadata_value or {})}
    expect = fields.get("expect", UNSET)
    if expect is not UNSET:
        problem = _expect_problem(expect)
        if problem is not None:
            raise InvalidInputError(f"{where}: {who}: expect: {problem}.")
    payload: dict[str, Any] = {
        "case": case_id,
        "input": _json(input_value, where, f"{who}'s input"),
    }
    if reference is not UNSET:
        payload["reference"] = _json(reference, where, f"{who}'s reference")
    envelope = {"payload": payload, "metadata": _json(metadata, where, f"{who}'s metadata")}
    return EvalCase(function, case_id, input_value, reference, metadata, expect, envelope, where)


def _check_keys(fields: Any, where: str, who: str) -> Mapping[str, Any]:
    if not isinstance(fields, Mapping):
        raise InvalidInputError(f"{where}: {who}: a case is an object with {', '.join(CASE_KEYS)}.")
    for key in fields:
        if key not in CASE_KEYS:
            raise InvalidInputError(
                f"{where}: {who}: unknown case key {key!r}; a case has {', '.join(CASE_KEYS)}."
            )
    return fields


def _case_file(function: EvalFunction, path: str | os.PathLike[str]) -> list[tuple[str, Any]]:
    file = Path(path)
    if not file.is_absolute() and function.file is not None:
        file = function.file.parent / file
    if not file.is_file():
        raise InvalidInputError(
            f"{_where(function)}: eval {function.name!r}: the cases file "
            f"{display_path(file)} does not exist."
        )
    return list(read_lines(file))


def expand(function: EvalFunction) -> list[EvalCase]:
    """Every case of ``function`` in order, checked."""
    options = function.options
    who = f"eval {function.name!r}"
    if options.cases is None:
        return [_build(function, function.name, {}, _where(function))]
    if isinstance(options.cases, str | os.PathLike):
        lines = _case_file(function, options.cases)
    else:
        origin = _where(function)
        lines = [(f"{origin} (case {index})", case) for index, case in enumerate(options.cases)]
    cases: list[EvalCase] = []
    seen: dict[str, str] = {}
    for index, (where, raw) in enumerate(lines):
        fields = _check_keys(raw, where, who)
        case_id = _case_id(function, fields.get("id", UNSET), index, where)
        if case_id in seen:
            raise InvalidInputError(f"{where}: {who}: case id {case_id!r} repeats {seen[case_id]}.")
        seen[case_id] = where
        cases.append(_build(function, case_id, fields, where))
    if not cases:
        raise InvalidInputError(f"{_where(function)}: {who} has no cases.")
    return cases
