"""An eval's cases: from ``@eval(cases=[...])``, a ``.jsonl`` file, or the decorator alone.

Each case becomes an ``EvalCase``: its id in the suite (``name``, or ``name[id]`` for a case,
as ezvals names them), what its context carries and, for seed 004's dataset lines
(``{"id", "input", "expect"}``), the ``expect`` its output is scored against. Everything is
checked before a run starts: unknown keys, a case file that is not strict JSON Lines, an
``expect`` that is malformed or holds a broken pattern, an input a report cannot hold; each
is ``InvalidInputError`` naming the file and line, or the eval and the case.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple

import orjson

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import JSON_SCALARS
from goldgate.base.problems import display_path
from goldgate.base.textsafe import starts_command
from goldgate.evals._decorator import UNSET, EvalFunction
from goldgate.gold.compiled import compile_text
from goldgate.report.verdictstore import read_lines
from goldgate.scoring.text import text_expected_problem

__all__ = ["CASE_KEYS", "EvalCase", "expand"]

CASE_KEYS: Final = ("id", "input", "reference", "metadata", "expect")
_CASE_KEY_SET: Final = frozenset(CASE_KEYS)
_ID = re.compile(r"[^\x00-\x1f\x7f-\x9f\s](?:[^\x00-\x1f\x7f-\x9f]*[^\x00-\x1f\x7f-\x9f\s])?")
_MAX_DEPTH = 200


FLAT: Final = 0
"""Input, reference and metadata are each a scalar or an object or array of scalars."""
PLAIN: Final = 1
"""They are plain JSON (dicts, lists and JSON scalars) nested deeper."""
DEEP: Final = 2
"""They hold other values (tuples, models...), kept as the eval gave them."""
_CONTAINERS: Final = frozenset({dict, list})


class EvalCase(NamedTuple):
    """One run of an eval function, before it runs (a named tuple: 10,000 cases are built
    for 10,000 attempts, several times faster than a frozen dataclass, and as immutable)."""

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
    copying: int = DEEP
    """How ``context_values`` copies: ``FLAT``, ``PLAIN`` or ``DEEP`` (see there)."""

    @property
    def has_expect(self) -> bool:
        return self.expect is not UNSET

    def context_values(self) -> tuple[Any, Any, dict[str, Any]]:
        """Fresh copies of input, reference and metadata for one attempt: an eval that
        changes them changes neither the next attempt nor the report. Scalars and flat
        objects and arrays of scalars (``FLAT``, the common case) are copied one level, which
        is all they have; other plain JSON (``PLAIN``) goes through orjson; anything else is
        copied deeply."""
        reference: Any = None if self.reference is UNSET else self.reference
        copying = self.copying
        if copying == FLAT:
            input_value, metadata = self.input, self.metadata
            return (
                input_value.copy() if type(input_value) in _CONTAINERS else input_value,
                reference.copy() if type(reference) in _CONTAINERS else reference,
                dict(metadata),
            )
        if copying == PLAIN:
            with contextlib.suppress(orjson.JSONEncodeError):  # integers beyond 64 bits
                copied = orjson.loads(orjson.dumps((self.input, reference, self.metadata)))
                return copied[0], copied[1], copied[2]
        return fresh(self.input), fresh(reference), fresh(dict(self.metadata))


def _is_flat(value: Any) -> bool:
    """Whether plain JSON ``value`` is a scalar, or an object or array of scalars only (plain
    JSON: its floats are finite, so a scalar here is one the orjson round trip keeps)."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return kind in JSON_SCALARS
    return set(map(type, items)) <= JSON_SCALARS  # in C: no generator a case


def fresh(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable with it: plain JSON containers copied
    directly (several times faster than ``copy.deepcopy``), anything else deep-copied."""
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if kind is dict:
        return {key: fresh(item) for key, item in value.items()}
    if kind is list:
        return [fresh(item) for item in value]
    if kind is tuple:
        return tuple(fresh(item) for item in value)
    return copy.deepcopy(value)


class _NotJson(Exception):
    pass


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as strict JSON (what a report can hold), or ``_NotJson`` saying what it
    cannot hold. A value that is plain JSON already is returned as it is, not copied."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _NotJson("a number that is NaN or infinite")
        return value
    if isinstance(value, bool | str):
        return bool(value) if isinstance(value, bool) else str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _plain(float(value), depth)
    if depth > _MAX_DEPTH:
        raise _NotJson(f"values nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        changed = kind is not dict
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotJson(f"an object key of type {type(key).__name__}")
            plain = _plain(item, depth + 1)
            changed = changed or plain is not item
            copied[key] = plain
        return copied if changed else value
    if isinstance(value, list | tuple):
        items = [_plain(item, depth + 1) for item in value]
        if kind is list and all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items
    raise _NotJson(f"a value of type {type(value).__name__}")


_EXACT_SCALARS: Final = frozenset({str, int, bool, type(None)})
"""Types whose every value is plain JSON (not float: NaN and infinities are not)."""


def _is_plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is strict JSON made of plain dicts, lists and scalars (checked
    without copying anything: the common case)."""
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth > _MAX_DEPTH:
        return False
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            if type(item) not in _EXACT_SCALARS and not _is_plain(item, depth + 1):
                return False
        return True
    if kind is list:
        return all(type(item) in _EXACT_SCALARS or _is_plain(item, depth + 1) for item in value)
    return False


def _json(value: Any, where: str, who: str, what: str) -> Any:
    if _is_plain(value):
        return value
    try:
        return _plain(value)
    except _NotJson as error:
        raise InvalidInputError(
            f"{where}: {who}'s {what} holds {error}, which a report cannot hold."
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
    # An integer's digits always match.
    if type(raw) is not int and (not _ID.fullmatch(text) or starts_command(text)):
        raise InvalidInputError(
            f"{where}: case id {text!r} must be nonempty, without control characters or "
            "surrounding whitespace, and must not start with '::'."
        )
    return f"{function.name}[{text}]"


def _where(function: EvalFunction) -> str:
    file = display_path(function.file) if function.file is not None else "<eval>"
    return f"{file}:{function.line}"


def _build(
    function: EvalFunction,
    case_id: str,
    fields: Mapping[str, Any],
    where: str,
    shared_metadata: Any = UNSET,
) -> EvalCase:
    """One case; ``shared_metadata``: the eval's own metadata as a report holds it, checked
    once for all of its cases that add none."""
    options = function.options
    who = function.who
    input_value = fields.get("input", options.input)
    if input_value is UNSET:
        input_value = None
    reference = fields.get("reference", options.reference)
    metadata_value = fields.get("metadata")
    if metadata_value is not None and not isinstance(metadata_value, Mapping):
        raise InvalidInputError(f"{where}: {who}: a case's 'metadata' is an object.")
    metadata = {**options.metadata, **metadata_value} if metadata_value else options.metadata
    expect = fields.get("expect", UNSET)
    if expect is not UNSET:
        problem = _expect_problem(expect)
        if problem is not None:
            raise InvalidInputError(f"{where}: {who}: expect: {problem}.")
    payload: dict[str, Any] = {
        "case": case_id,
        "input": _json(input_value, where, who, "input"),
    }
    if reference is not UNSET:
        payload["reference"] = _json(reference, where, who, "reference")
    if metadata is options.metadata and shared_metadata is not UNSET:
        plain_metadata = shared_metadata
    else:
        plain_metadata = _json(metadata, where, who, "metadata")
    envelope = {"payload": payload, "metadata": plain_metadata}
    copying = DEEP
    if (
        payload["input"] is input_value
        and payload.get("reference", reference) is reference
        and plain_metadata is metadata
    ):
        flat = _is_flat(input_value) and _is_flat(metadata)
        copying = FLAT if flat and (reference is UNSET or _is_flat(reference)) else PLAIN
    return EvalCase(
        function, case_id, input_value, reference, metadata, expect, envelope, where, copying
    )


def _check_keys(fields: Any, where: str, who: str) -> Mapping[str, Any]:
    if type(fields) is dict and fields.keys() <= _CASE_KEY_SET:  # the common case, at once
        return fields
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
    shared = _json(options.metadata, _where(function), who, "metadata")
    for index, (where, raw) in enumerate(lines):
        fields = _check_keys(raw, where, who)
        case_id = _case_id(function, fields.get("id", UNSET), index, where)
        if case_id in seen:
            raise InvalidInputError(f"{where}: {who}: case id {case_id!r} repeats {seen[case_id]}.")
        seen[case_id] = where
        cases.append(_build(function, case_id, fields, where, shared))
    if not cases:
        raise InvalidInputError(f"{_where(function)}: {who} has no cases.")
    return cases
