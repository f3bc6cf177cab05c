"""Parity: what an eval may return (an EvalResult, a list of them) and evaluators that
replace a result, score after a failed assertion, repeat a key, or raise."""

from _agents import support_agent
from ezvals import EvalContext, EvalResult, eval


@eval(dataset="returns")
def one_result():
    return EvalResult(
        input="I want a refund",
        output=support_agent("I want a refund"),
        reference="refund",
        scores={"key": "mentions", "passed": True},
        metadata={"from": "result"},
        trace_data={"t": 1},
        latency=0.1,
    )


@eval(dataset="returns")
def one_result_without_scores(ctx: EvalContext):
    return EvalResult(input=1, output=2)


@eval(dataset="returns")
def one_result_with_an_error():
    return EvalResult(input=1, output=None, error="the agent gave up")


@eval(dataset="returns")
def many_results():
    return [
        EvalResult(input=p, output=support_agent(p), scores={"key": "answered", "passed": p != "?"})
        for p in ("I want a refund", "?", "Cancel my plan")
    ]


@eval(dataset="returns")
def many_results_all_passing():
    return [EvalResult(input=n, output=n * 2) for n in range(3)]


def replacing(result):
    return EvalResult(input=result.input, output="replaced", scores=[{"key": "r", "passed": True}])


def saw_the_failure(result):
    failed = [s for s in result.scores if s.get("passed") is False]
    return {"key": "saw", "passed": bool(failed), "notes": f"{len(failed)} failed"}


def repeats_the_key(result):
    return {"key": "pass", "passed": False, "notes": "the evaluator disagrees"}


def raising(result):
    raise RuntimeError("judge unavailable")


def nothing(result):
    return None


@eval(dataset="evaluators", evaluators=[replacing])
def evaluator_replaces_the_result(ctx: EvalContext):
    ctx.output = "original"


@eval(dataset="evaluators", evaluators=[saw_the_failure, nothing])
def evaluators_run_after_a_failed_assertion(ctx: EvalContext):
    ctx.output = "x"
    assert ctx.output == "y", "not y"


@eval(dataset="evaluators", evaluators=[repeats_the_key])
def evaluator_keys_add_not_replace(ctx: EvalContext):
    ctx.store(scores=True)


@eval(dataset="evaluators", evaluators=[raising])
def evaluator_that_raises(ctx: EvalContext):
    ctx.output = "kept"


@eval(dataset="evaluators", evaluators=[saw_the_failure])
def evaluators_skip_errors(ctx: EvalContext):
    raise ValueError("broken before scoring")
