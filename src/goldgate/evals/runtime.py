"""One attempt of an eval: call the function with a fresh context, then its evaluators, and
return the result document ``{"output", "scores"}`` the checks are scored on.

This is the eval suite's target: the runner gives it the case's envelope under the attempt's
deadline, exactly as it calls a python target, so deadlines, Ctrl-C, the watchdog and the
report behave as for any suite.

- A failing ``assert`` is a score, ``{key: pass, passed: false, notes, at}``: the message (or
  the assertion's source line) as notes, where it failed as ``at``; the output is kept and
  the evaluators still run. When no assertion failed, ``{key: pass, passed: true}`` is added.
- Any other exception is a runtime failure of the attempt (exit 4), as for a target: its
  reason names the exception's type and where it was raised, never its message.
- An eval that passes its own ``timeout`` is ``timed_out`` (exit 4), as a target that passes
  the run's deadline is: the runner knows only the run's deadline, so the attempt's result
  is an ``EvalTimedOut`` document, which ``collector.EvalCollector`` records as timed out.
- Each evaluator (sync or async) reads an ``EvalResult`` and returns a score, a list of
  scores or ``None``; its scores are marked ``by`` it. An evaluator that raises is an error
  score of its own name: a check that could not run, never a pass.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.from_thread
import anyio.lowlevel
import orjson

from goldgate.base.errors import LoopBlocked
from goldgate.base.imports import is_async_callable
from goldgate.evals._context import DEFAULT_KEY, EvalContext, EvalResult, normalize_scores
from goldgate.evals._decorator import EvalFunction
from goldgate.evals.cases import EvalCase
from goldgate.run.targets.base import TargetFailure, TargetResponse, response
from goldgate.run.watchdog import call_in_daemon_thread, interruptible

__all__ = ["EvalTimedOut", "SuiteRuntime", "evaluate_output", "json_output", "run_case"]


class EvalTimedOut(dict[str, Any]):
    """The result of an attempt whose eval gave no result within its own ``timeout``: no
    output, no scores, just why. The collector turns the attempt into a ``timed_out`` one."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


async def _call(function: Callable[..., Any], *args: Any, is_async: bool | None = None) -> Any:
    """Await an async callable; run a sync one in a thread (and await what it returns, if
    that is awaitable)."""
    if is_async_callable(function) if is_async is None else is_async:
        return await interruptible(function(*args))  # the watchdog's, if it ignores cancelling
    result = await call_in_daemon_thread(function, *args, name="goldgate eval")
    if inspect.isawaitable(result):
        result = await result
    return result


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
    """An output as a report can hold it: JSON values as they are (tuples as arrays, NaN and
    infinities as null), pydantic models dumped, dataclasses as objects, anything else as its
    ``str``. An output is what the application answered: it is recorded, never refused."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if kind is dict:
        flat = _flat_copy(value)
        if flat is not None:
            return flat
    try:
        return orjson.loads(orjson.dumps(value, default=_default, option=orjson.OPT_NON_STR_KEYS))
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        return str(value)


def _place(error: BaseException, root: Path) -> str | None:
    """``file:line`` of the innermost frame of ``error``'s traceback outside goldgate."""
    frames = traceback.extract_tb(error.__traceback__)
    own = str(Path(__file__).resolve().parent.parent)
    for frame in reversed(frames):
        if frame.filename.startswith(own) or frame.filename.startswith("<"):
            continue
        path = Path(frame.filename)
        try:
            shown = path.resolve().relative_to(root).as_posix()
        except ValueError:
            shown = path.name
        return f"{shown}:{frame.lineno}"
    return None


def _assertion_notes(error: AssertionError) -> str:
    message = str(error)
    if message:
        return message
    frames = traceback.extract_tb(error.__traceback__)
    line = frames[-1].line if frames else None
    return line or "Assertion failed"


async def run_case(case: EvalCase, root: Path, timeout: float | None = None) -> dict[str, Any]:
    """Run the eval function for ``case`` once and its evaluators; the result document
    (``EvalTimedOut`` when the function passed ``timeout``). ``TargetFailure`` for a runtime
    failure; the run's deadline or an interruption propagates."""
    function = case.function
    name = function.name
    input_value, reference, metadata = case.context_values()
    context = EvalContext(input_value, reference, metadata, function_name=name)
    args = (context,) if function.takes_context else ()
    assertion: AssertionError | None = None
    scope = anyio.move_on_after(timeout) if timeout is not None else _NO_SCOPE
    with scope:
        try:
            if function.is_async:  # the watchdog breaks in if it ignores being cancelled
                returned = await interruptible(function.function(*args))
            else:
                returned = await _call(function.function, *args, is_async=False)
        except AssertionError as error:
            assertion, returned = error, None
        except (anyio.get_cancelled_exc_class(), LoopBlocked):
            raise  # the attempt's deadline or an interruption, not the eval's outcome
        except BaseException as error:  # SystemExit, KeyboardInterrupt... are the eval's too
            where = _place(error, root)
            at = f" at {where}" if where else ""
            raise TargetFailure(f"eval '{name}' raised {type(error).__name__}{at}") from error
    if isinstance(scope, anyio.CancelScope) and scope.cancelled_caught:
        return EvalTimedOut(f"eval '{name}' gave no result within its {timeout:g} s timeout")
    if inspect.iscoroutine(context.output):
        context.output.close()
        raise TargetFailure(f"eval '{name}' left a coroutine in ctx.output: await it")
    if returned is not None and returned is not context:
        raise TargetFailure(
            f"eval '{name}' returned a {type(returned).__name__}: set ctx.output or call "
            "ctx.store(output=...) instead"
        )
    scores = list(context.scores)
    if assertion is not None:
        failed: dict[str, Any] = {
            "key": DEFAULT_KEY,
            "passed": False,
            "notes": _assertion_notes(assertion),
        }
        where = _place(assertion, root)
        if where is not None:
            failed["at"] = where
        scores.append(failed)
    else:
        scores.append({"key": DEFAULT_KEY, "passed": True})
    output = json_output(context.output)
    if not function.options.evaluators:
        return {"output": output, "scores": scores}
    return await evaluate_output(
        function, output, scores, context.input, context.reference, case.metadata
    )


_NO_SCOPE: Final = contextlib.nullcontext()
"""The scope of an eval without a timeout of its own (reusable: it holds nothing)."""


async def evaluate_output(
    function: EvalFunction,
    output: Any,
    scores: list[dict[str, Any]],
    input_value: Any,
    reference: Any,
    metadata: Mapping[str, Any],
) -> dict[str, Any]:
    """``{"output", "scores"}`` with every evaluator of ``function`` run on it, in order
    (a run calls it after the eval; regrade with a stored output)."""
    for evaluator in function.options.evaluators:
        label = getattr(evaluator, "__name__", type(evaluator).__name__)
        result = EvalResult(
            input=input_value,
            output=output,
            reference=reference,
            metadata=dict(metadata),
            scores=[dict(score) for score in scores],
        )
        try:
            returned = await _call(evaluator, result)
        except (anyio.get_cancelled_exc_class(), LoopBlocked):
            raise
        except BaseException as error:
            scores.append(
                {"key": label, "error": f"evaluator '{label}' raised {type(error).__name__}"}
            )
            continue
        if isinstance(returned, EvalResult | EvalContext):
            scores.append(
                {
                    "key": label,
                    "error": f"evaluator '{label}' returned a {type(returned).__name__}; an "
                    "evaluator returns a score, a list of scores or None",
                }
            )
            continue
        who = f"evaluator '{label}' of eval '{function.name}'"
        scores.extend(normalize_scores(returned, who, by=label))
    return {"output": output, "scores": scores}


@dataclass(frozen=True)
class SuiteRuntime:
    """The target of one eval suite: the envelope's case id picks the case to run."""

    cases: Mapping[str, EvalCase]
    root: Path

    async def __call__(self, envelope: Mapping[str, Any]) -> TargetResponse:
        case = self.cases[envelope["payload"]["case"]]
        document = await run_case(case, self.root, case.function.options.timeout)
        return response(document)
