"""Parity: an eval of the same name and dataset as one in another file (EZVals' ids are
``file::name``; goldgate qualifies the two case ids by file)."""

from _agents import support_agent
from ezvals import EvalContext, eval


@eval(input="I want a refund", reference="refund", dataset="support")
def refund_is_acknowledged(ctx: EvalContext):
    ctx.output = support_agent(ctx.input).upper()
    assert ctx.reference in ctx.output, "Should acknowledge the refund"
