"""The ``eval`` decorator: marks a function as an eval and checks what it was given.

Everything that can be wrong with the definition itself is refused when the decorator runs
(an ``EvalDefinitionError``, exit 2 when ``goldgate evals run`` imports the file, naming the
file and line), so that a run never starts on an eval that cannot work.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar, overload

from goldgate.base.errors import InvalidInputError
from goldgate.base.imports import is_async_callable
from goldgate.base.textsafe import starts_command

__all__ = ["EvalDefinitionError", "EvalFunction", "EvalOptions", "eval"]

_F = TypeVar("_F", bound=Callable[..., Any])

RUN_FIGURES: Final = ("pass_rate", "expect.satisfied")
UNMEASURED_FIGURES: Final = ("json.parse", "schema.requiredCoverage")
"""Run figures of gold suites that nothing in an eval measures: the ``expect`` check has no
suite text options (``json``, ``requiredKeys``), so a threshold on one could never hold."""
SCORE_FIGURES: Final = ("mean", "min")
_NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")


class EvalDefinitionError(InvalidInputError):
    """An eval defined in a way that cannot run (exit 2)."""


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


@dataclass(frozen=True)
class EvalOptions:
    """What ``@eval(...)`` was given, checked."""

    input: Any = UNSET
    reference: Any = UNSET
    metadata: Mapping[str, Any] = field(default_factory=dict)
    dataset: str | None = None
    cases: Sequence[Mapping[str, Any]] | str | os.PathLike[str] | None = None
    evaluators: tuple[Callable[..., Any], ...] = ()
    timeout: float | None = None
    thresholds: Mapping[str, float] = field(default_factory=dict)
    live: bool = False


def threshold_problem(key: Any, minimum: Any) -> str | None:
    """Why ``key: minimum`` is not a threshold an eval suite can gate on, or ``None``."""
    if not isinstance(key, str):
        return "a threshold's key is a string"
    if key in UNMEASURED_FIGURES:
        return (
            f"threshold {key!r} is never measured in evals (only a gold suite's text options "
            "measure it), so it could never hold"
        )
    if key not in RUN_FIGURES:
        score, dot, figure = key.rpartition(".")
        if not dot or not score or figure not in SCORE_FIGURES:
            return (
                f"threshold {key!r} is none of {', '.join(RUN_FIGURES)} nor '<score key>.mean' "
                "or '<score key>.min'"
            )
    if isinstance(minimum, bool) or not isinstance(minimum, int | float):
        return f"threshold {key!r} must be a number from 0 to 1"
    if not (math.isfinite(minimum) and 0 <= minimum <= 1):
        return f"threshold {key!r} must be a number from 0 to 1"
    return None


def _parameters(function: Callable[..., Any]) -> int:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return 1
    required = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(required)


def _check(function: Callable[..., Any], options: EvalOptions) -> None:
    name = getattr(function, "__name__", type(function).__name__)

    def refuse(why: str) -> EvalDefinitionError:
        return EvalDefinitionError(f"eval {name!r}: {why}.")

    if not callable(function):
        raise refuse("an eval is a function")
    count = _parameters(function)
    if count > 1:
        raise refuse("an eval function takes one parameter, its EvalContext, or none")
    if options.cases is not None and count == 0:
        raise refuse("an eval with cases takes an EvalContext parameter to read them")
    if options.dataset is not None and (
        not isinstance(options.dataset, str)
        or not _NAME.fullmatch(options.dataset)
        or starts_command(options.dataset)
    ):
        raise refuse(
            "dataset must be a nonempty name without control characters, not starting with '::'"
        )
    cases = options.cases
    if cases is not None and not isinstance(cases, str | os.PathLike | list | tuple):
        raise refuse("cases must be a list of dicts or the path of a .jsonl file")
    if isinstance(cases, str | os.PathLike) and not os.fspath(cases).endswith(".jsonl"):
        raise refuse("a cases file is a .jsonl file, one case per line")
    if not isinstance(options.metadata, Mapping):
        raise refuse("metadata must be a dict")
    for evaluator in options.evaluators:
        if not callable(evaluator):
            raise refuse(f"evaluator {evaluator!r} is not callable")
    timeout = options.timeout
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not (timeout > 0 and math.isfinite(timeout))
    ):
        raise refuse("timeout must be a positive number of seconds")
    if not isinstance(options.live, bool):
        raise refuse("live must be True or False")
    if not isinstance(options.thresholds, Mapping):
        raise refuse("thresholds must be a dict of figures and minimums")
    for key, minimum in options.thresholds.items():
        problem = threshold_problem(key, minimum)
        if problem is not None:
            raise refuse(problem)


class EvalFunction:
    """A function marked with ``@eval``: calling it calls the function itself (handy in a
    unit test); ``goldgate evals run`` runs it once per case with a fresh ``EvalContext``."""

    def __init__(self, function: Callable[..., Any], options: EvalOptions) -> None:
        _check(function, options)
        self.function = function
        self.options = options
        self.takes_context = _parameters(function) == 1
        self.is_async = is_async_callable(function)
        code = getattr(function, "__code__", None)
        self.file = Path(code.co_filename) if code is not None else None
        self.line = code.co_firstlineno if code is not None else 0
        self.name: str = getattr(function, "__name__", "eval")
        self.who = f"eval {self.name!r}"
        """How messages name this eval."""
        functools.update_wrapper(self, function)

    @property
    def dataset(self) -> str:
        """The dataset named in ``@eval``, else the file's name without ``.py``."""
        if self.options.dataset is not None:
            return self.options.dataset
        return self.file.stem if self.file is not None else self.name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<eval {self.name} dataset={self.dataset!r}>"


@overload
def eval(function: _F, /) -> EvalFunction: ...


@overload
def eval(
    *,
    input: Any = ...,
    reference: Any = ...,
    dataset: str | None = ...,
    cases: Sequence[Mapping[str, Any]] | str | os.PathLike[str] | None = ...,
    evaluators: Sequence[Callable[..., Any]] = ...,
    timeout: float | None = ...,
    thresholds: Mapping[str, float] | None = ...,
    metadata: Mapping[str, Any] | None = ...,
    live: bool = ...,
) -> Callable[[Callable[..., Any]], EvalFunction]: ...


def eval(  # the seed's name: `from goldgate.evals import eval` shadows the builtin
    function: Callable[..., Any] | None = None,
    /,
    *,
    input: Any = UNSET,
    reference: Any = UNSET,
    dataset: str | None = None,
    cases: Sequence[Mapping[str, Any]] | str | os.PathLike[str] | None = None,
    evaluators: Sequence[Callable[..., Any]] = (),
    timeout: float | None = None,
    thresholds: Mapping[str, float] | None = None,
    metadata: Mapping[str, Any] | None = None,
    live: bool = False,
) -> EvalFunction | Callable[[Callable[..., Any]], EvalFunction]:
    """Mark a function (sync or async, taking an ``EvalContext`` or nothing) as an eval.

    ``input``, ``reference`` and ``metadata`` are what the context carries; ``cases`` (a list
    of ``{input, reference, id?, metadata?, expect?}`` dicts, or the path of a ``.jsonl``
    file of them, relative to this file) runs the function once per case, each case's fields
    over the decorator's. ``dataset`` (default: the file's name) is the suite it reports in;
    ``evaluators`` (sync or async, taking an ``EvalResult``) add scores after the function;
    ``timeout`` bounds one run of the function in seconds; ``thresholds`` gate the suite
    (``pass_rate``, ``expect.satisfied``, ``<score key>.mean`` ...); ``live=True`` runs it only
    with ``--live``.
    """
    if callable(evaluators):  # one evaluator given bare
        evaluators = (evaluators,)
    options = EvalOptions(
        input=input,
        reference=reference,
        metadata=dict(metadata) if isinstance(metadata, Mapping) else (metadata or {}),
        dataset=dataset,
        cases=cases,
        evaluators=tuple(evaluators),
        timeout=timeout,
        thresholds=dict(thresholds or {}),
        live=live,
    )
    if function is not None:
        return EvalFunction(function, options)
    return lambda decorated: EvalFunction(decorated, options)
