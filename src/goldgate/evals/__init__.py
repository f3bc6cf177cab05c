"""Python evals: functions marked ``@eval`` that run the application and score what it said.

    from goldgate.evals import eval, EvalContext

    @eval(input="What is the capital of France?", dataset="qa")
    async def test_answer_quality(ctx: EvalContext):
        ctx.output = await my_agent(ctx.input)
        assert "paris" in ctx.output.lower(), "Should mention Paris"

``goldgate evals run PATH...`` finds them (files named ``eval_*.py`` or ``*_eval.py`` in
folders, any file named) and writes the same report as ``goldgate evaluate``: a suite per
dataset, a case per function and case, a check per score key. ``run_evals`` does the same in
this process and returns the report. See docs/evals.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.evals._context import EvalContext, EvalResult
from goldgate.evals._decorator import EvalDefinitionError, EvalFunction, eval

__all__ = ["EvalContext", "EvalDefinitionError", "EvalFunction", "EvalResult", "eval", "run_evals"]

if TYPE_CHECKING:
    from goldgate.evals.session import run_evals


def __getattr__(name: str) -> Any:
    if name == "run_evals":  # loads the engine: only when asked for
        from goldgate.evals.session import run_evals

        return run_evals
    raise AttributeError(f"module 'goldgate.evals' has no attribute {name!r}")
