"""Python evals: functions marked ``@eval`` that run the application and score what it said.

    from goldgate.evals import eval, EvalContext

    @eval(input="What is the capital of France?", dataset="qa")
    async def test_answer_quality(ctx: EvalContext):
        ctx.output = await my_agent(ctx.input)
        assert "paris" in ctx.output.lower(), "Should mention Paris"

This is EZVals' evaluation API (version 0.2.0's behaviour: the decorator, the context, the
results, file defaults, cases, targets, evaluators, trials): a file written for EZVals runs
with only its import line changed. ``goldgate evals run PATH...`` finds evals as ``ezvals
run`` does (any file named; in folders, every ``.py`` file not starting with ``_``) and
writes the same report as ``goldgate evaluate``: a suite per dataset, a case per function
and case, a check per score key, and the gate's exit codes. ``run_evals`` does the same in
this process and returns the report; calling an eval (``fn()``) returns its results, as in
EZVals. See docs/evals.md, and its table of where goldgate differs on purpose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.evals._context import EvalCase, EvalContext, EvalResult, TraceData
from goldgate.evals._decorator import EvalFunction, eval
from goldgate.evals.errors import EvalDefinitionError

__all__ = [
    "EvalCase",
    "EvalContext",
    "EvalDefinitionError",
    "EvalFunction",
    "EvalResult",
    "TraceData",
    "eval",
    "run_evals",
]

if TYPE_CHECKING:
    from goldgate.evals.session import run_evals


def __getattr__(name: str) -> Any:
    if name == "run_evals":  # loads the engine: only when asked for
        from goldgate.evals.session import run_evals

        return run_evals
    raise AttributeError(f"module 'goldgate.evals' has no attribute {name!r}")
