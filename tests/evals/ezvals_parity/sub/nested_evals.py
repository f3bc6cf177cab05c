"""Parity: a subfolder is searched; the dataset defaults to the file's name."""

from ezvals import EvalContext, eval


@eval
def found_in_a_subfolder(ctx: EvalContext):
    ctx.output = "found"


@eval(cases=[{"id": "a", "input": 1}, {"id": "b", "input": 2}])
def selected_cases(ctx: EvalContext):
    assert ctx.input == 1, "only a"
