"""Parity: file defaults (``ezvals_defaults``) under the decorator and the cases."""

from _agents import support_agent
from ezvals import EvalContext, eval


def shared_target(ctx: EvalContext):
    return support_agent(ctx.input)


ezvals_defaults = {
    "dataset": "from_defaults",
    "labels": ["file"],
    "metadata": {"team": "support", "tier": "free"},
    "default_score_key": "answered",
    "target": shared_target,
}


@eval(input="I want a refund")
def inherits_everything(ctx: EvalContext):
    assert ctx.metadata == {"team": "support", "tier": "free"}
    assert "refund" in ctx.output, "Should mention the refund"


@eval(input="Cancel my plan", labels=["own"], metadata={"tier": "paid"})
def overrides_labels_merges_metadata(ctx: EvalContext):
    assert ctx.metadata == {"team": "support", "tier": "paid"}
    assert "refund" in ctx.output, "Should mention the refund"


@eval(input="x", dataset="own_dataset", metadata=None, default_score_key="mine")
def clears_metadata(ctx: EvalContext):
    assert ctx.metadata == {}, "metadata cleared"
    ctx.store(scores=True)


@eval(cases=[{"id": "a", "input": "I want a refund"}, {"id": "b", "input": "?", "labels": ["c"]}])
def cases_inherit_too(ctx: EvalContext):
    assert "refund" in ctx.output, "no refund"
