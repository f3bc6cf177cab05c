"""Parity: ``input_loader`` (sync, async, objects, one that raises)."""

from _agents import classify
from ezvals import EvalContext, eval


def rows():
    return [
        {"id": "happy", "input": "I love it", "reference": "positive"},
        {"input": "Terrible", "reference": "negative", "metadata": {"source": "db"}},
    ]


async def async_rows():
    return [{"input": "It is fine", "reference": "neutral"}]


class Example:
    def __init__(self, slug, text, expected):
        self.id = slug
        self.input = text
        self.reference = expected


def objects():
    return [Example("obj", "Great", "positive"), Example("wrong", "awful", "positive")]


def broken():
    raise ConnectionError("dataset service down")


@eval(dataset="loaded", input_loader=rows, metadata={"loader": "rows"})
def from_rows(ctx: EvalContext):
    ctx.output = classify(ctx.input)
    assert ctx.output == ctx.reference, "wrong sentiment"


@eval(dataset="loaded", input_loader=async_rows)
def from_async_rows(ctx: EvalContext):
    ctx.output = classify(ctx.input)
    assert ctx.output == ctx.reference, "wrong sentiment"


@eval(dataset="loaded", input_loader=objects)
def from_objects(ctx: EvalContext):
    ctx.output = classify(ctx.input)
    assert ctx.output == ctx.reference, "wrong sentiment"


@eval(dataset="loaded", input_loader=broken)
def from_a_broken_loader(ctx: EvalContext):
    raise AssertionError("never runs")
