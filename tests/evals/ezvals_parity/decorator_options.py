"""Parity: the decorator's options (input, reference, dataset, labels, metadata,
default_score_key, timeout, target, evaluators, cases, trials) and how cases layer over them."""

import asyncio

from _agents import classify, support_agent
from ezvals import EvalContext, EvalResult, eval


@eval(input="I want a refund", reference="refund", dataset="support", labels=["prod"])
def refund_is_acknowledged(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)
    assert ctx.reference in ctx.output, "Should acknowledge the refund"


@eval(input="Cancel my plan", dataset="support", default_score_key="polite")
def cancel_is_polite(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)
    assert "sorry" in ctx.output.lower(), "Should apologize"


@eval(metadata={"model": "stub-1", "tier": "free"}, dataset="support")
def metadata_starts_on_the_context(ctx: EvalContext):
    ctx.output = ctx.metadata["model"]
    assert ctx.metadata == {"model": "stub-1", "tier": "free"}


@eval(
    dataset="sentiment",
    labels=["nlp"],
    metadata={"model": "stub-1", "lang": "en"},
    default_score_key="correct",
    cases=[
        {"id": "pos", "input": "I love it", "reference": "positive"},
        {"id": "neg", "input": "Terrible", "reference": "negative", "labels": ["edge"]},
        {"input": "It is fine", "reference": "positive", "metadata": {"lang": "de"}},
        {
            "id": "cleared",
            "input": "Great",
            "reference": "positive",
            "metadata": None,
            "labels": None,
        },
        {
            "id": "moved",
            "input": "awful",
            "reference": "negative",
            "dataset": "sentiment_edge",
            "default_score_key": "edge_correct",
        },
    ],
)
def sentiment(ctx: EvalContext):
    ctx.output = classify(ctx.input)
    ctx.store(metadata={"seen": True})
    assert ctx.output == ctx.reference, f"expected {ctx.reference}"


@eval(dataset="sentiment", cases=[])
def no_cases_no_evals(ctx: EvalContext):
    raise AssertionError("never runs")


@eval(dataset="timing", timeout=0.2)
async def past_its_timeout(ctx: EvalContext):
    ctx.output = "before"
    await asyncio.sleep(3)


@eval(dataset="timing", timeout=2)
async def within_its_timeout(ctx: EvalContext):
    await asyncio.sleep(0)
    ctx.output = "in time"


def agent_target(ctx: EvalContext):
    ctx.store(output=support_agent(ctx.input), metadata={"via": "target"})


def returning_target(ctx: EvalContext):
    return support_agent(ctx.input)


def result_target(ctx: EvalContext):
    return EvalResult(
        input=ctx.input,
        output="from a result",
        latency=0.5,
        trace_data={"hop": 1},
        metadata={"via": "result"},
    )


@eval(input="Where is my parcel?", target=agent_target, dataset="targets")
def target_stores(ctx: EvalContext):
    assert ctx.metadata["via"] == "target"
    assert "warehouse" in ctx.output, "Should say where"


@eval(input="Where is my parcel?", target=returning_target, dataset="targets")
def target_returns_the_output(ctx: EvalContext):
    assert ctx.output.startswith("It left"), "Should say it left"


@eval(input="x", target=result_target, dataset="targets")
def target_returns_a_result(ctx: EvalContext):
    assert ctx.output == "from a result"
    assert ctx.trace_data["hop"] == 1
    assert ctx.metadata == {"via": "result"}


@eval(
    dataset="targets",
    target=returning_target,
    cases=[{"input": "I want a refund"}, {"input": "Cancel my plan", "target": agent_target}],
)
def per_case_target(ctx: EvalContext):
    assert len(ctx.output) > 3, "Too short"


def length_check(result):
    return {"key": "short", "passed": len(str(result.output)) < 30, "notes": "under 30 characters"}


async def async_judge(result):
    return [{"key": "judge", "value": 0.75, "notes": "stub judge"}, True]


@eval(input="I want a refund", dataset="evaluated", evaluators=[length_check, async_judge])
def evaluated(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)


@eval(
    dataset="evaluated",
    evaluators=[length_check],
    cases=[
        {"id": "long", "input": "I want a refund"},
        {"id": "none", "input": "Cancel my plan", "evaluators": None},
    ],
)
def evaluators_per_case(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)


@eval(dataset="trials", trials=3)
def tried_three_times(ctx: EvalContext):
    ctx.output = "same"


@eval(dataset="trials", cases=[{"id": "once"}, {"id": "twice", "trials": 2}])
def trials_per_case(ctx: EvalContext):
    ctx.output = "same"
