"""Parity: how scores are made, replaced and judged; assertions; errors."""

from _agents import divide, support_agent
from ezvals import EvalContext, eval


@eval(dataset="scoring", input="I want a refund")
def all_assertions_pass(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)
    assert ctx.output is not None
    assert "refund" in ctx.output


@eval(dataset="scoring", input="Where is my parcel?")
def first_failing_assertion_is_the_reason(ctx: EvalContext):
    ctx.output = support_agent(ctx.input)
    assert len(ctx.output) > 5, "Too short"
    assert "refund" in ctx.output, "Should mention a refund"
    assert ctx.output == "never", "never reached"


@eval(dataset="scoring", input="2 + 2", reference="4")
def bare_assert_is_its_source_line(ctx: EvalContext):
    ctx.output = "5"
    assert ctx.output == ctx.reference


@eval(dataset="scoring")
def same_key_replaces(ctx: EvalContext):
    ctx.store(scores={"key": "tone", "passed": False, "notes": "first try"})
    ctx.store(scores={"key": "tone", "passed": True, "notes": "second try"})
    ctx.store(scores=[{"key": "length", "value": 0.2}, {"key": "length", "value": 0.9}])


@eval(dataset="scoring")
def assertion_replaces_a_stored_default_score(ctx: EvalContext):
    ctx.store(scores=True)
    ctx.store(scores={"key": "other", "passed": True})
    assert ctx.output, "no output"


@eval(dataset="scoring")
def stored_scores_mean_no_automatic_pass(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "relevance", "passed": True})


@eval(dataset="scoring")
def numeric_only_neither_passes_nor_fails(ctx: EvalContext):
    ctx.store(output="x", scores=[0.4, {"key": "latency_s", "value": 12.5}])


@eval(dataset="scoring")
def value_and_passed_together(ctx: EvalContext):
    ctx.store(scores={"key": "quality", "value": 0.72, "passed": False, "notes": "Judge: too long"})


@eval(dataset="scoring", input=[3, 0])
def raising_keeps_type_message_and_output(ctx: EvalContext):
    ctx.output = "computed so far"
    ctx.store(scores={"key": "before", "passed": True})
    ctx.output = divide(*ctx.input)


@eval(dataset="scoring")
def raises_a_custom_error(ctx: EvalContext):
    raise LookupError("no such customer")


@eval(dataset="scoring")
def assert_without_context():
    assert support_agent("?") == "", "no context to score"


@eval(dataset="scoring")
def score_not_a_score(ctx: EvalContext):
    ctx.store(scores="high")


@eval(dataset="scoring")
def score_without_value_or_passed(ctx: EvalContext):
    ctx.store(scores={"key": "q", "notes": "forgot"})


@eval(dataset="scoring")
def two_scores_without_a_key(ctx: EvalContext):
    ctx.store(scores=[True, 0.5])


@eval(dataset="scoring")
def passed_that_is_not_a_bool(ctx: EvalContext):
    ctx.store(scores={"key": "q", "passed": "yes"})


@eval(dataset="scoring")
def notes_that_are_not_text(ctx: EvalContext):
    ctx.store(scores={"key": "q", "passed": True, "notes": 3})


@eval(dataset="scoring")
def extra_score_fields_are_dropped(ctx: EvalContext):
    ctx.store(scores={"key": "q", "passed": True, "weight": 2})


@eval(dataset="scoring")
def value_that_is_not_a_number(ctx: EvalContext):
    ctx.store(scores={"key": "q", "value": "high"})


@eval(dataset="scoring")
def forgot_to_await(ctx: EvalContext):
    async def agent():
        return "late"

    ctx.output = agent()


@eval(dataset="scoring")
def returns_something_else(ctx: EvalContext):
    return "an answer"


@eval(dataset="scoring", default_score_key="verdict")
def default_key_for_shorthand_and_assertions(ctx: EvalContext):
    ctx.store(scores=0.5)
    assert ctx.output, "the default key takes it"


@eval(dataset="scoring")
def unannotated_parameter(ctx):
    ctx.output = "goldgate gives it the context"
