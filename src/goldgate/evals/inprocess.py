"""Calling an eval as EZVals lets one (``fn()``, ``await fn.call_async()``): every case of it
run in this process, one after the other, and its ``EvalResult`` returned (a list when
there are several). No report, no checks, no deadline but the eval's own ``timeout``: this
is for notebooks and unit tests; ``goldgate evals run`` is the gate.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio

from goldgate.evals._context import EvalResult
from goldgate.evals._options import Definition
from goldgate.evals.cases import expand
from goldgate.evals.execute import run_eval

__all__ = ["call_eval", "call_eval_async"]


async def call_eval_async(function: Definition) -> EvalResult | list[EvalResult]:
    """Run every case of ``function`` (without file defaults or trials, as EZVals does)."""
    root = Path.cwd()
    results: list[EvalResult] = []
    for case in expand(function, trials=False):
        results.extend((await run_eval(case, root)).results)
    return results[0] if len(results) == 1 else results


def call_eval(function: Definition) -> Any:
    """``call_eval_async`` to its end, from synchronous code (in a thread of its own when
    this one already runs an event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(call_eval_async, function)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, call_eval_async, function).result()
