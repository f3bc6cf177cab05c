"""Each case's options, layered as EZVals (0.2.0) layers them: from lowest to highest, the
builtins (``dataset`` is the file's name, ``default_score_key`` is ``pass``), the file's
``ezvals_defaults``, the decorator's options, then the case's own fields.

- A field a layer sets replaces the one below (``input`` too: a case's input does not
  combine with the decorator's); ``None`` clears it.
- ``metadata`` merges, the higher layer winning on a key clash (``None`` clears it).
- A case's ``labels`` merge with the eval's (``None`` or ``[]`` clears them); the decorator's
  labels replace those of the file defaults.

Cases come from ``cases=`` (a list of dicts, or goldgate's ``.jsonl`` file of them) or from
``input_loader=`` (a function, sync or async, called here, when the evals are collected; a
loader that raises gives one case that fails with why, as EZVals records one errored result).
A case sets ``id`` and any of ``PARAMS``; goldgate adds seed 004's ``expect``. An eval with
``trials=N`` (N > 1) runs as N cases ``name~1`` ... ``name~N``, as EZVals names its trials.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple

from goldgate.base.channel import import_deadline, signal_received
from goldgate.base.errors import InvalidInputError
from goldgate.base.problems import display_path
from goldgate.evals._options import (
    CASE_KEYS,
    EXTRA_PARAMS,
    PARAMS,
    Definition,
    case_problem,
    param_problem,
)
from goldgate.evals.failures import describe, place
from goldgate.report.verdictstore import read_lines

__all__ = ["Layered", "check_defaults", "layered_cases", "where_of"]

_DEFAULT_KEYS: Final = frozenset((*PARAMS, *EXTRA_PARAMS))
_PARAM_SET: Final = frozenset(PARAMS)


class Layered(NamedTuple):
    """One case of an eval before it is built: its raw id (``None``: the eval has no cases),
    its options after layering, where it was written, and for a case the loader could not
    give, why (the error as EZVals records it)."""

    raw_id: Any
    params: dict[str, Any]
    where: str
    given: Mapping[str, Any]
    """The case's own fields (``{}`` for an eval without cases)."""
    error: tuple[str, str] | None = None
    """(the safe reason, the error as EZVals records it)."""


def where_of(function: Definition) -> str:
    """``file:line`` of an eval's definition, as messages show it."""
    file = display_path(function.file) if function.file is not None else "<eval>"
    return f"{file}:{function.line}"


def check_defaults(defaults: Any, where: str) -> dict[str, Any]:
    """A file's ``ezvals_defaults``, checked (``InvalidInputError`` naming ``where``)."""
    if defaults is None:
        return {}
    if not isinstance(defaults, Mapping):
        raise InvalidInputError(f"{where}: ezvals_defaults must be a dict of eval options.")
    unknown = sorted(str(key) for key in defaults if key not in _DEFAULT_KEYS)
    if unknown:
        raise InvalidInputError(
            f"{where}: Unknown keys in ezvals_defaults: {', '.join(unknown)} (file defaults "
            f"set {', '.join(sorted(_DEFAULT_KEYS))})."
        )
    for key, value in defaults.items():
        problem = param_problem(key, value)
        if problem is not None:
            raise InvalidInputError(f"{where}: ezvals_defaults: {problem}.")
    return dict(defaults)


def _layer(base: Mapping[str, Any], over: Mapping[str, Any], merge_labels: bool) -> dict[str, Any]:
    out = {**base, **over}
    if over.get("metadata") is not None:
        out["metadata"] = {**(base.get("metadata") or {}), **over["metadata"]}
    if merge_labels and "labels" in over:
        below = list(base.get("labels") or ())
        labels = over["labels"]
        out["labels"] = (
            [*below, *(label for label in labels if label not in below)] if labels else []
        )
    return out


def _base(function: Definition, defaults: Mapping[str, Any]) -> dict[str, Any]:
    stem = function.file.stem if function.file is not None else function.name
    builtins = {"dataset": stem, "labels": [], "metadata": {}, "default_score_key": "pass"}
    from_file = {key: value for key, value in defaults.items() if key in _PARAM_SET}
    own = {key: value for key, value in function.params.items() if key in _PARAM_SET}
    return _layer(_layer(builtins, from_file, False), own, False)


def _await_now(awaitable: Any) -> Any:
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    from concurrent.futures import ThreadPoolExecutor  # rare: not at start-up

    with ThreadPoolExecutor(1) as pool:  # inside a running loop (the Python API): its own
        return pool.submit(asyncio.run, wait()).result()


def _load(function: Definition, loader: Callable[..., Any]) -> Any:
    shown = display_path(function.file) if function.file is not None else "<eval>"
    with import_deadline(f"eval file {shown} (the input_loader of {function.who})"):
        result = loader()
        if inspect.isawaitable(result):
            result = _await_now(result)
    return result


def _from_loader(function: Definition, where: str) -> list[tuple[str, Any]] | Layered:
    try:
        examples = _load(function, function.params["input_loader"])
    except BaseException as error:  # a loader's failure is its eval's, as in EZVals
        if isinstance(error, KeyboardInterrupt) and signal_received():
            raise  # Ctrl-C or SIGTERM while loading: interrupted
        at = place(error, Path.cwd())
        reason = f"{function.who}: its input_loader raised {type(error).__name__}" + (
            f" at {at}" if at else ""
        )
        return Layered(
            None, {}, where, {}, (reason, describe(error, f"Input loader failed: {error}"))
        )
    if isinstance(examples, str | bytes | Mapping) or not isinstance(examples, Iterable):
        raise InvalidInputError(
            f"{where}: {function.who}: its input_loader returned a {type(examples).__name__}, "
            "not a list of cases."
        )
    found: list[tuple[str, Any]] = []
    for index, example in enumerate(examples):
        fields = example
        if not isinstance(example, Mapping):  # an object (a LangSmith example...): its fields
            keys = [key for key in CASE_KEYS if hasattr(example, key)]
            fields = {key: getattr(example, key) for key in keys}
        found.append((f"{where} (input_loader case {index})", fields))
    return found


def _case_file(function: Definition, path: str | os.PathLike[str]) -> list[tuple[str, Any]]:
    file = Path(path)
    if not file.is_absolute() and function.file is not None:
        file = function.file.parent / file
    if not file.is_file():
        raise InvalidInputError(
            f"{where_of(function)}: {function.who}: the cases file {display_path(file)} "
            "does not exist."
        )
    return list(read_lines(file))


def _check_case(fields: Any, where: str, who: str) -> Mapping[str, Any]:
    problem = case_problem(fields)
    if problem is not None:
        raise InvalidInputError(f"{where}: {who}: {problem}.")
    checked: Mapping[str, Any] = fields
    return checked


def layered_cases(function: Definition, defaults: Mapping[str, Any]) -> list[Layered]:
    """Every case of ``function`` with its options layered, in order (``[]`` for
    ``cases=[]``). ``InvalidInputError`` for a case that cannot be one."""
    where = where_of(function)
    base = _base(function, defaults)
    params = function.params
    if "input_loader" in params:
        loaded = _from_loader(function, where)
        if isinstance(loaded, Layered):
            return [loaded._replace(params=base)]
        lines = loaded
    elif "cases" not in params:
        return [Layered(None, base, where, {})]
    elif isinstance(params["cases"], str | os.PathLike):
        lines = _case_file(function, params["cases"])
    else:  # checked when the decorator ran
        lines = [(f"{where} (case {index})", case) for index, case in enumerate(params["cases"])]
    checked = "cases" in params and not isinstance(params["cases"], str | os.PathLike)
    found: list[Layered] = []
    for index, (written, raw) in enumerate(lines):
        fields = raw if checked else _check_case(raw, written, function.who)
        overrides = {key: value for key, value in fields.items() if key in _PARAM_SET}
        layered = _layer(base, overrides, True)
        found.append(Layered(fields.get("id", index), layered, written, fields))
    return found
