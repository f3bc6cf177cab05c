"""The ``eval`` decorator, as EZVals (0.2.0) has it: marks a function as an eval and checks
what it was given.

The function may be sync or async; its parameter annotated ``EvalContext`` receives the
context (an eval without one runs without it). Everything that can be wrong with the
definition itself, an argument the decorator does not know among it, is refused when the
decorator runs (an ``EvalDefinitionError``: ``goldgate evals run`` names the file and line
and runs the other files), so that a run never starts on an eval that cannot work.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, overload

from goldgate.base.imports import is_async_callable
from goldgate.evals._context import EvalContext
from goldgate.evals._options import DECORATOR_PARAMS, case_problem, param_problem
from goldgate.evals.errors import EvalDefinitionError, UnknownArgumentError

__all__ = ["EvalFunction", "eval"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _is_context(hint: Any) -> bool:
    """Whether an annotation names an ``EvalContext`` (goldgate's, or any class of that
    name, as a string or forward reference too, or inside a union or ``Optional``)."""
    if hint is EvalContext:
        return True
    if isinstance(hint, str | typing.ForwardRef):
        text = str(getattr(hint, "__forward_arg__", hint))
        return text.rsplit(".", maxsplit=1)[-1].split("[", maxsplit=1)[0].strip() == "EvalContext"
    if isinstance(hint, type):
        return hint.__name__ == "EvalContext"
    return any(_is_context(arg) for arg in typing.get_args(hint))


def _context_parameter(function: Callable[..., Any]) -> tuple[str | None, int, bool]:
    """The name of the parameter that receives the context (``None``: none does), how many
    other parameters the call would leave without a value, and whether the context must be
    passed by keyword (it is not the first parameter)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None, 0, False
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # annotations that do not resolve: read them as written
        hints = {}
    parameters = list(signature.parameters.values())
    found = next((p.name for p in parameters if _is_context(hints.get(p.name, p.annotation))), None)
    required = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.default is p.empty
        and p.name != found
    ]
    if found is None and len(required) == 1 and required[0].annotation is required[0].empty:
        # One parameter without annotation: goldgate gives it the context (EZVals gives it
        # nothing, and the call fails with TypeError).
        found, required = required[0].name, []
    first = parameters[0] if parameters else None
    keyword = found is not None and (
        first is None or first.name != found or first.kind is first.KEYWORD_ONLY
    )
    return found, len(required), keyword


class EvalFunction:
    """A function marked with ``@eval``. Calling it (no arguments) runs the eval in this
    process, every case, and returns its ``EvalResult`` (a list when there are several), as
    EZVals does; ``await fn.call_async()`` does the same in a running event loop.
    ``goldgate evals run`` runs it once per case with a fresh ``EvalContext``."""

    def __init__(self, function: Callable[..., Any], params: Mapping[str, Any]) -> None:
        name = getattr(function, "__name__", type(function).__name__)
        self.who = f"eval {name!r}"
        """How messages name this eval."""
        if not callable(function):
            raise self.refuse("an eval is a function")
        self.function = function
        self.params: dict[str, Any] = {
            key: value
            for key, value in params.items()
            if value is not None or key not in ("cases", "input_loader")  # None: not given
        }
        """The options given to the decorator (only those given)."""
        self.ctx_param, missing, self.ctx_keyword = _context_parameter(function)
        if missing:
            raise self.refuse(
                "an eval function takes its EvalContext parameter and nothing else it needs"
            )
        for option, value in self.params.items():
            problem = param_problem(option, value)
            if problem is not None:
                raise self.refuse(problem)
        needs = sorted({"target", "input_loader", "cases"} & self.params.keys())
        if needs and self.ctx_param is None:
            raise self.refuse(
                f"{needs[0]} requires the evaluation function to accept a context parameter "
                "(one annotated EvalContext)"
            )
        if "input_loader" in self.params and {"input", "reference", "cases"} & self.params.keys():
            raise self.refuse("input_loader cannot be used with input=, reference= or cases=")
        cases = self.params.get("cases")
        for index, case in enumerate(cases if isinstance(cases, list | tuple) else ()):
            problem = case_problem(case)
            if problem is not None:
                raise self.refuse(f"case {index}: {problem}")
        self.is_async = is_async_callable(function)
        code = getattr(function, "__code__", None)
        self.file = Path(code.co_filename) if code is not None else None
        self.line: int = code.co_firstlineno if code is not None else 0
        self.name: str = name
        functools.update_wrapper(self, function)

    def refuse(self, why: str) -> EvalDefinitionError:
        return EvalDefinitionError(f"{self.who}: {why}.")

    @property
    def takes_context(self) -> bool:
        return self.ctx_param is not None

    @property
    def dataset(self) -> str:
        """The dataset named in ``@eval``, else the file's name without ``.py`` (file
        defaults and cases may name another: see ``goldgate.evals.layering``)."""
        dataset = self.params.get("dataset")
        if isinstance(dataset, str):
            return dataset
        return self.file.stem if self.file is not None else self.name

    @property
    def func(self) -> Callable[..., Any]:
        """The function itself (EZVals' name for it)."""
        return self.function

    @property
    def labels(self) -> list[str]:
        """The labels named in ``@eval`` (file defaults and cases may add others)."""
        return list(self.params.get("labels") or ())

    @property
    def thresholds(self) -> Mapping[str, float]:
        thresholds: Mapping[str, float] = self.params.get("thresholds") or {}
        return thresholds

    @property
    def live(self) -> bool:
        return bool(self.params.get("live"))

    def __call__(self) -> Any:
        from goldgate.evals.inprocess import call_eval  # the engine: only when called

        return call_eval(self)

    async def call_async(self) -> Any:
        from goldgate.evals.inprocess import call_eval_async

        return await call_eval_async(self)

    def __repr__(self) -> str:
        return f"<eval {self.name} dataset={self.dataset!r}>"


def _unknown(names: list[str]) -> UnknownArgumentError:
    known = ", ".join(DECORATOR_PARAMS)
    return UnknownArgumentError(
        f"@eval does not take the argument {names[0]!r} (goldgate's @eval takes {known})."
    )


@overload
def eval(function: _F, /) -> EvalFunction: ...


@overload
def eval(
    *,
    input: Any = ...,
    reference: Any = ...,
    dataset: str | None = ...,
    labels: list[str] | None = ...,
    metadata: Mapping[str, Any] | None = ...,
    default_score_key: str | None = ...,
    timeout: float | None = ...,
    target: Callable[..., Any] | None = ...,
    evaluators: Any = ...,
    input_loader: Callable[..., Any] | None = ...,
    cases: Any = ...,
    trials: int | None = ...,
    thresholds: Mapping[str, float] | None = ...,
    live: bool = ...,
) -> Callable[[Callable[..., Any]], EvalFunction]: ...


def eval(  # EZVals' name: `from goldgate.evals import eval` shadows the builtin
    function: Callable[..., Any] | None = None, /, **options: Any
) -> EvalFunction | Callable[[Callable[..., Any]], EvalFunction]:
    """Mark a function (sync or async) as an eval. Usable bare (``@eval``) or with options:

    ``input``, ``reference``, ``metadata`` start out on the context; ``dataset`` (default:
    the file's name) and ``labels`` group it; ``default_score_key`` (``pass``) keys scores
    given without one, failed assertions among them; ``timeout`` (seconds) stops it;
    ``trials`` runs it several times; ``target`` runs before it with the context;
    ``evaluators`` score its result after it; ``cases`` (a list of dicts, or a ``.jsonl``
    file) or ``input_loader`` (a function returning them) run it once per case. goldgate
    adds the gate's options: ``thresholds`` (``pass_rate``, ``<score key>.mean`` ...) and
    ``live=True`` (run only with ``--live``). Anything else is refused, naming it.
    """
    unknown = [name for name in options if name not in DECORATOR_PARAMS]
    if unknown:
        raise _unknown(unknown)
    if function is not None:
        return EvalFunction(function, options)
    return lambda decorated: EvalFunction(decorated, options)
