"""Parity: the context (``ctx.store`` with every keyword, ``ctx.trace_data``, the context as
a context manager, its run fields) and what the report records of what an eval set."""

from _agents import support_agent, traced_agent
from ezvals import EvalContext, TraceData, eval


@eval(dataset="context")
def store_takes_every_keyword(ctx: EvalContext):
    returned = ctx.store(
        input="I want a refund",
        output="partial",
        reference="refund",
        latency=1.5,
        messages=[{"role": "user", "content": "I want a refund"}],
        trace_url="https://traces.example/1",
        metadata={"step": 1},
        trace_data={"tool": "lookup"},
    )
    assert returned is ctx
    ctx.store(output=support_agent(ctx.input), metadata={"step": 2}, trace_data={"hits": 3})
    assert ctx.metadata == {"step": 2}
    assert ctx.trace_data.messages[0]["role"] == "user"
    assert ctx.trace_data.trace_url == "https://traces.example/1"
    assert ctx.trace_data["tool"] == "lookup"
    assert ctx.trace_data.hits == 3
    ctx.store(scores={"key": "refund", "passed": ctx.reference in ctx.output})


@eval(dataset="context", input="Where is my parcel?")
def spread_agent_result(ctx: EvalContext):
    ctx.store(**traced_agent(ctx.input))
    assert ctx.latency == 0.25
    assert ctx.trace_data["model"] == "stub-1"


@eval(dataset="context")
def trace_data_attributes(ctx: EvalContext):
    ctx.trace_data.add_messages([{"role": "assistant", "content": "hi"}])
    ctx.trace_data.note = "set as an attribute"
    ctx.trace_data["debug"] = {"echo": True}
    assert isinstance(ctx.trace_data, TraceData)
    assert ctx.trace_data.note == "set as an attribute"


@eval(dataset="context")
def fields_assigned_directly(ctx: EvalContext):
    ctx.input = "Hi there"
    ctx.reference = "Hello"
    ctx.metadata = {"replaced": True}
    ctx.metadata["added"] = 1
    ctx.output = "Hello! How can I help?"
    assert ctx.output.startswith(ctx.reference)


@eval(dataset="context", input="Cancel my plan", labels=["x"])
def run_fields(ctx: EvalContext):
    assert ctx.function_name == "run_fields"
    assert ctx.dataset == "context"
    assert ctx.labels == ["x"]
    assert ctx.config == {}
    ctx.output = support_agent(ctx.input)


@eval(dataset="context", default_score_key="correctness")
def context_manager_returned():
    with EvalContext(
        input="I want a refund", default_score_key="correctness", metadata={"model": "stub-1"}
    ) as ctx:
        ctx.output = support_agent(ctx.input)
        ctx.store(scores="refund" in ctx.output)
        return ctx


@eval(dataset="context")
def returns_its_own_context(ctx: EvalContext):
    ctx.store(output="explicit", scores=True)
    return ctx


@eval(dataset="context")
def returns_build(ctx: EvalContext):
    ctx.output = "built"
    return ctx.build()
