"""One attempt of an eval as the runner sees it: the eval suite's target, which runs the case
(``goldgate.evals.execute``) and returns the result document its checks are scored on.

The runner gives it the case's envelope under the attempt's deadline, exactly as it calls a
python target, so deadlines, Ctrl-C, the watchdog and the report behave as for any suite.

The result document holds what the eval set, as the report records it: ``output``,
``scores`` (each as made, with ``at``, the ``file:line`` of a failed assertion, or ``by``,
the evaluator that made it), ``input``, ``reference`` and ``metadata`` where the eval left
them other than its case declares them (a report holds a case's values once: a reader takes
the case's where the result has none), ``trace_data`` where the eval set some, ``latency``
(seconds) where the eval or its target set one, and ``error`` (type, message, traceback)
where it failed. An eval that returned a
list of results has their outputs as ``output``, all their scores in ``scores`` (each with
``result``, its position) and each result in ``results``.

An attempt whose eval failed is an ``EvalFailed`` document: the collector records it as a
failed (or timed-out) attempt with the document kept, the reason being the safe sentence.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from goldgate.evals._context import EvalResult
from goldgate.evals.cases import EvalCase
from goldgate.evals.execute import Ran, run_eval
from goldgate.run.targets.base import TargetResponse, response

__all__ = ["EvalFailed", "SuiteRuntime", "document", "json_output", "run_case"]

_SCORE_FIELDS: Final = ("key", "value", "passed", "notes")


class EvalFailed(dict[str, Any]):
    """The result document of an attempt whose eval failed (``status`` ``failed`` or
    ``timed_out``, ``reason`` the safe sentence): the collector records the attempt so."""

    __slots__ = ("reason", "status")

    def __init__(self, document: Mapping[str, Any], status: str, reason: str) -> None:
        super().__init__(document)
        self.status = status
        self.reason = reason


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        with contextlib.suppress(Exception):
            return dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted((json_output(item) for item in value), key=repr)
    return str(value)


def _flat_copy(value: dict[Any, Any]) -> dict[str, Any] | None:
    """A copy of an object of scalars that the orjson round trip below would give back
    unchanged (the common output: a label, an answer, a score), made without it; None for
    anything else. Text is taken only when ASCII (the round trip refuses lone surrogates),
    integers only within 64 bits, floats only finite (the round trip writes null)."""
    for key, item in value.items():
        if type(key) is not str or not key.isascii():
            return None
        kind = type(item)
        if kind is str:
            if not item.isascii():
                return None
        elif kind is int:
            if not _INT_LOW <= item <= _INT_HIGH:
                return None
        elif kind is float:
            if not math.isfinite(item):
                return None
        elif kind is not bool and item is not None:
            return None
    return dict(value)


_INT_LOW: Final = -(2**63)
_INT_HIGH: Final = 2**64 - 1


def json_output(value: Any) -> Any:
    """An output as a report holds it: JSON values as they are (tuples as arrays), pydantic
    models dumped, dataclasses as objects, sets as sorted arrays, anything else as its
    ``str``. A value the report cannot hold whatever it is converted to (a string with a lone
    surrogate, an integer past Python's limit on digits, NaN or an infinity) is kept as it is:
    the runner makes it the attempt's error, naming where it is."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or kind is float or value is None:
        return value
    if kind is dict:
        flat = _flat_copy(value)
        if flat is not None:
            return flat
    try:
        data = orjson.dumps(value, default=_default, option=orjson.OPT_NON_STR_KEYS)
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        data = None
    if data is not None and (b"null" not in data or not _lost_a_number(value)):
        return orjson.loads(data)
    try:
        return _converted(value, 0)
    except (_Unconvertible, RecursionError):
        try:
            return str(value)
        except ValueError:  # an integer past the limit on digits, somewhere in it
            return value


def _lost_a_number(value: Any) -> bool:
    """Whether orjson, which writes NaN and infinities as ``null``, may have lost one in
    writing ``value`` (told in C by ``json``, which refuses them)."""
    try:
        json.dumps(value, allow_nan=False, default=_default, skipkeys=True)
    except ValueError:
        return True
    except (TypeError, RecursionError):
        return False
    return False


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _Unconvertible(Exception):
    """orjson would refuse the value as a whole (a key of a type it does not write)."""


_KEY_SCALARS: Final = (str, int, float, bool, type(None))


def _converted(value: Any, depth: int) -> Any:
    """``value`` converted as orjson converts it (``json_output``), its scalars kept as they
    are, even those JSON has no place for."""
    if depth > 500:
        raise _Unconvertible
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                if not isinstance(key, _KEY_SCALARS):
                    raise _Unconvertible
                try:
                    [converted] = orjson.loads(
                        orjson.dumps({key: 0}, option=orjson.OPT_NON_STR_KEYS)
                    )
                except (orjson.JSONEncodeError, TypeError):
                    raise _Unconvertible from None
            copied[converted if not isinstance(key, str) else key] = _converted(item, depth + 1)
        return copied
    if isinstance(value, list | tuple):
        return [_converted(item, depth + 1) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return {field.name: _converted(getattr(value, field.name), depth + 1) for field in fields}
    try:
        return orjson.loads(orjson.dumps(value, default=_default))
    except (orjson.JSONEncodeError, TypeError):
        return _converted(_default(value), depth + 1)


_SCORE_TYPES: Final = {"key": (str,), "passed": (bool,), "notes": (str,), "value": (int, float)}


def _plain_score(score: dict[Any, Any]) -> dict[str, Any] | None:
    """``score`` as the report holds it when it is as ``store`` makes them (the common case:
    no conversion needed), else ``None``."""
    for name, item in score.items():
        kinds = _SCORE_TYPES.get(name)
        if kinds is None or type(item) not in kinds:
            return None
    value = score.get("value")
    if value is not None and not math.isfinite(value):
        return None
    return dict(score)


def _score(score: Any, ran: Ran, at: str | None, index: int | None) -> dict[str, Any]:
    entry = _plain_score(score) if type(score) is dict else None
    if entry is None:  # put into a result's scores by hand, or a saved one (regrade)
        if type(score) is dict:
            fields = {name: score[name] for name in _SCORE_FIELDS if name in score}
        else:
            fields = {"key": None, "notes": str(score)}
        entry = dict(json_output(fields))
        kept = score.get("at") if type(score) is dict else None
        if at is None and isinstance(kept, str):
            at = kept
    if at is not None:
        entry["at"] = at
    if ran.by:
        by = ran.by.get(id(score))
        if by is not None:
            entry["by"] = by
    if index is not None:
        entry["result"] = index
    return entry


def _scores(result: EvalResult, ran: Ran, default_key: str, index: int | None) -> list[Any]:
    found: list[Any] = []
    at = ran.at
    for score in result.scores:
        failed = at is not None and type(score) is dict and score.get("key") == default_key
        found.append(_score(score, ran, at if failed else None, index))
        if failed:
            at = None  # the assertion made one score only
    return found


_ABSENT: Final = object()


_EXACT: Final = frozenset({str, int, bool, float, type(None)})


def _unchanged(value: Any, declared: Any, depth: int = 0) -> bool:
    """Whether ``value`` (what the eval left) is ``declared`` (plain JSON) exactly: the
    same types all through (``1`` is not ``1.0`` nor ``True``), told without converting it."""
    if value is declared:
        return True
    kind = type(value)
    if kind is not type(declared) or depth > 50:
        return False
    if kind in _EXACT:
        return bool(value == declared)
    if kind is dict:
        if len(value) != len(declared):
            return False
        get = declared.get
        for key, item in value.items():
            other = get(key, _ABSENT)
            if item is other:
                continue
            if type(item) is not type(other):
                return False
            if type(item) in _EXACT:
                if item != other:
                    return False
            elif not _unchanged(item, other, depth + 1):
                return False
        return True
    if kind is list:
        if len(value) != len(declared):
            return False
        for item, other in zip(value, declared, strict=True):
            if item is not other and not _unchanged(item, other, depth + 1):
                return False
        return True
    return False


def _result(result: EvalResult, ran: Ran, case: EvalCase) -> dict[str, Any]:
    """A result's own fields, as the report holds them: ``input``, ``reference`` and
    ``metadata`` only where the eval left them other than the case declares them (the
    case's record holds those once), ``latency`` only where the eval or its target set it
    (the attempt's ``latency_ms`` is the measured one)."""
    envelope = case.envelope
    payload = envelope["payload"]
    fields: dict[str, Any] = {"output": json_output(result.output)}
    for name, value, declared in (
        ("input", result.input, payload.get("input")),
        ("reference", result.reference, payload.get("reference", _ABSENT)),
        ("metadata", result.metadata, envelope.get("metadata")),
    ):
        if declared is _ABSENT and value is None:
            continue
        if declared is _ABSENT or not _unchanged(value, declared):
            fields[name] = json_output(value)
    if result.trace_data:
        fields["trace_data"] = json_output(dict(result.trace_data))
    latency = result.latency
    if latency is not None and id(result) not in ran.measured:
        fine = type(latency) is float and math.isfinite(latency)
        fields["latency"] = latency if fine else json_output(latency)
    if result.error is not None:
        fields["error"] = str(result.error)
    return fields


def document(ran: Ran, case: EvalCase) -> dict[str, Any]:
    """The result document of what ``ran`` gave for ``case`` (the module's docstring)."""
    key = case.default_key or "pass"
    if ran.single:
        [result] = ran.results
        fields = _result(result, ran, case)
        found: dict[str, Any] = {
            "output": fields.pop("output"),
            "scores": _scores(result, ran, key, None),
        }
        found.update(fields)
    else:
        results = [_result(result, ran, case) for result in ran.results]
        found = {
            "output": [fields["output"] for fields in results],
            "scores": [
                score
                for index, result in enumerate(ran.results)
                for score in _scores(result, ran, key, index)
            ],
            "results": results,
        }
    if ran.status != "completed":
        return EvalFailed(found, ran.status, ran.reason or "the eval failed")
    return found


async def run_case(case: EvalCase, root: Path) -> dict[str, Any]:
    """Run the eval for ``case`` once (its target, function and evaluators): the result
    document (an ``EvalFailed`` one when it failed). The run's deadline or an interruption
    propagates."""
    return document(await run_eval(case, root), case)


@dataclass(frozen=True)
class SuiteRuntime:
    """The target of one eval suite: the envelope's case id picks the case to run."""

    cases: Mapping[str, EvalCase]
    root: Path

    async def __call__(self, envelope: Mapping[str, Any]) -> TargetResponse:
        case = self.cases[envelope["payload"]["case"]]
        return response(await run_case(case, self.root))
