"""One run of one eval case, as EZVals (0.2.0) runs it: its results, and how it ended.

1. A fresh ``EvalContext`` (for an eval with a context parameter) holding the case's input,
   reference and metadata; the ``target`` (if any) runs first with it, and what it returns
   becomes the output (an ``EvalResult``'s output, latency, trace data and metadata).
2. The function runs within its ``timeout``. It returns nothing (the context becomes the
   result), the context, an ``EvalResult`` or a list of them; anything else is an error.
3. A failed ``assert`` stores a failing score of the default key, its message (or the
   assertion's source line) as notes, and the result goes on; without a context it is an
   error. Any other exception is the result's error (type, message, traceback), and what the
   context held so far is kept.
4. Evaluators run on each result that has no error: a returned ``EvalResult`` replaces it,
   returned scores are added (key ``pass`` by default; a key already there is not
   replaced). One that raises makes the eval an error.
5. A result with no score and no error gets the passing score of the default key; one
   without a latency gets the time the eval took (seconds, shared among its results).

A result with an error fails the attempt (``status`` ``failed``, or ``timed_out`` past the
eval's own timeout) with a safe sentence naming the exception's type and place, never its
message. The run's deadline and interruptions are not the eval's outcome: they propagate.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio

from goldgate.base.errors import LoopBlocked
from goldgate.base.imports import is_async_callable
from goldgate.evals._context import EvalContext, EvalResult
from goldgate.evals._scores import DEFAULT_KEY, normalize_scores
from goldgate.evals.cases import EvalCase
from goldgate.evals.failures import describe, place
from goldgate.run.watchdog import call_in_daemon_thread, interruptible

__all__ = ["Ran", "call", "run_eval"]

_RETURNS: Final = (
    "Evaluation function must return EvalResult, List[EvalResult], EvalContext, or None "
    "(with a context parameter), got {}"
)
_NO_SCOPE: Final = contextlib.nullcontext()
"""The scope of an eval without a timeout of its own (reusable: it holds nothing)."""


@dataclass
class Ran:
    """What one run of an eval case gave."""

    results: list[EvalResult]
    single: bool = True
    """The eval gave one result (not a list of them)."""
    status: str = "completed"
    """``completed``, ``failed`` (a result holds an error) or ``timed_out``."""
    reason: str | None = None
    """Why it did not complete: one safe sentence (types and places, never messages)."""
    at: str | None = None
    """``file:line`` of the assertion that failed, if one did."""
    by: dict[int, str] = field(default_factory=dict)
    """The evaluator that made each score (by the score's ``id``)."""
    measured: set[int] = field(default_factory=set)
    """The results (by ``id``) whose latency was measured here, not set by the eval."""

    def fail(self, results: list[EvalResult], reason: str, status: str = "failed") -> None:
        self.results, self.reason, self.status, self.single = results, reason, status, True


async def call(function: Callable[..., Any], *args: Any, is_async: bool | None = None) -> Any:
    """Await an async callable; run a sync one in a daemon thread (and await what it
    returns, if that is awaitable)."""
    if is_async_callable(function) if is_async is None else is_async:
        return await interruptible(function(*args))  # the watchdog's, if it ignores cancelling
    result = await call_in_daemon_thread(function, *args, name="goldgate eval")
    if inspect.isawaitable(result):
        result = await result
    return result


def _errored(ctx: EvalContext | None, error: str) -> EvalResult:
    return ctx.build_with_error(error) if ctx is not None else EvalResult(None, None, error=error)


def _raised(who: str, error: BaseException, root: Path) -> str:
    where = place(error, root)
    return f"{who} raised {type(error).__name__}" + (f" at {where}" if where else "")


def _name(function: Any) -> str:
    return str(getattr(function, "__name__", type(function).__name__))


async def _body(case: EvalCase, ctx: EvalContext | None) -> Any:
    """The target (if any), then the function."""
    function = case.function
    if case.target is not None and ctx is not None:
        out = await call(case.target, ctx)
        if isinstance(out, EvalResult):
            ctx.store(
                output=out.output,
                latency=out.latency,
                trace_data=out.trace_data,
                metadata=out.metadata,
            )
        elif out is not None and not isinstance(out, EvalContext):
            ctx.store(output=out)
    if ctx is None:
        return await call(function.function, is_async=function.is_async)
    if function.ctx_keyword:
        bound = functools.partial(function.function, **{function.ctx_param or "ctx": ctx})
        return await call(bound, is_async=function.is_async)
    if function.is_async:  # the common case, one await less
        return await interruptible(function.function(ctx))
    return await call(function.function, ctx, is_async=False)


def _assertion_notes(error: AssertionError) -> str:
    message = str(error)
    if message:
        return message
    frames = traceback.extract_tb(error.__traceback__)
    line = frames[-1].line if frames else None
    return line or "Assertion failed"


def _context(case: EvalCase) -> EvalContext | None:
    if not case.function.takes_context:
        return None
    input_value, reference, metadata = case.context_values()
    return EvalContext(
        input=input_value,
        output=None,
        reference=reference,
        default_score_key=case.default_key,
        metadata=metadata,
        function_name=case.function.name,
        dataset=case.dataset,
        labels=list(case.labels),
    )


async def _function(case: EvalCase, ctx: EvalContext | None, ran: Ran, root: Path) -> None:
    """Steps 1 to 3 (module docstring), within the eval's timeout."""
    who = case.function.who
    timeout = case.timeout
    scope = anyio.move_on_after(timeout) if timeout is not None else _NO_SCOPE
    with scope:
        try:
            returned = await _body(case, ctx)
            if returned is None and ctx is not None:
                returned = ctx
            if isinstance(returned, EvalContext):
                returned = returned.build()
            if type(returned) is EvalResult:  # the common case, at once
                results = [returned]
            else:
                results = returned if isinstance(returned, list) else [returned]
            if type(returned) is not EvalResult and not all(
                isinstance(result, EvalResult) for result in results
            ):
                kind = type(returned).__name__
                ran.fail(
                    [_errored(ctx, f"ValueError: {_RETURNS.format(kind)}\n")],
                    f"{who} returned a {kind}: return nothing, an EvalResult or a list of them",
                )
            else:
                ran.results, ran.single = results, not isinstance(returned, list)
        except AssertionError as error:
            if ctx is None:  # nowhere to store a score: an error, as in EZVals
                ran.fail([_errored(None, describe(error, root=root))], _raised(who, error, root))
            else:
                try:
                    ctx.store(scores={"passed": False, "notes": _assertion_notes(error)})
                except ValueError as invalid:  # no default key to store it under
                    ran.fail(
                        [_errored(ctx, describe(invalid, root=root))], _raised(who, error, root)
                    )
                else:
                    ran.results, ran.at = [ctx.build()], place(error, root)
        except (anyio.get_cancelled_exc_class(), LoopBlocked):
            raise  # the attempt's deadline or an interruption, not the eval's outcome
        except BaseException as error:  # SystemExit, KeyboardInterrupt... are the eval's too
            ran.fail([_errored(ctx, describe(error, root=root))], _raised(who, error, root))
    if isinstance(scope, anyio.CancelScope) and scope.cancelled_caught:
        ran.fail(
            [_errored(ctx, f"TimeoutError: Evaluation timed out after {float(timeout or 0)}s")],
            f"{who} gave no result within its {timeout:g} s timeout",
            "timed_out",
        )
    if ctx is not None and inspect.iscoroutine(ctx.output):
        ctx.output.close()
        ctx.output = None
        ran.fail(
            [
                ctx.build_with_error(
                    "TypeError: ctx.output was never awaited. Did you forget await?"
                )
            ],
            f"{who} left a coroutine in ctx.output: await it",
        )


async def evaluate(case: EvalCase, ran: Ran, ctx: EvalContext | None, root: Path) -> None:
    """Step 4 (module docstring): every evaluator on every result without an error."""
    results = ran.results
    label = ""
    try:
        for index in range(len(results)):
            for evaluator in () if results[index].error else case.evaluators:
                label = _name(evaluator)
                scored = await call(evaluator, results[index])
                if isinstance(scored, EvalResult):
                    results[index] = scored
                elif scored is not None:
                    added = normalize_scores(scored, DEFAULT_KEY)
                    for score in added:
                        ran.by[id(score)] = label
                    results[index].scores += added
    except (anyio.get_cancelled_exc_class(), LoopBlocked):
        raise
    except BaseException as error:
        who = f"evaluator '{label}' of {case.function.who}"
        ran.fail([_errored(ctx, describe(error, root=root))], _raised(who, error, root))


async def run_eval(case: EvalCase, root: Path) -> Ran:
    """Run ``case`` once: its results and how it ended (module docstring)."""
    if case.error is not None:  # its input loader raised: one errored result, as in EZVals
        reason, text = case.error
        return Ran([EvalResult(None, None, error=text)], status="failed", reason=reason)
    ctx = _context(case)
    ran = Ran([])
    started = time.perf_counter()
    await _function(case, ctx, ran, root)
    if case.evaluators and ran.status == "completed":
        await evaluate(case, ran, ctx, root)
    default_key = case.default_key or DEFAULT_KEY
    took = (time.perf_counter() - started) / max(len(ran.results), 1)
    errored = False
    for result in ran.results:
        if not result.scores and not result.error:
            result.scores = [{"key": default_key, "passed": True}]
        if result.latency is None:  # seconds, as EZVals measures it (its own when it set one)
            result.latency = took
            ran.measured.add(id(result))
        errored = errored or bool(result.error)
    if errored and ran.status == "completed":
        ran.status = "failed"
        ran.reason = f"{case.function.who} returned a result with an error"
    return ran
