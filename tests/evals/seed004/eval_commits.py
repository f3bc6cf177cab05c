"""Seed 004's dataset line (``commits.jsonl``, verbatim) feeding a Python eval: each line's
``expect`` is scored against ``ctx.output`` as the text engine scores it, and its ``note``
puts the answer in the adjudication queue beside the checks. ``SEED_AGENTS=bad`` makes the
stub write a subject with a body."""

import os

from goldgate.evals import EvalContext, eval

SUBJECTS = {
    "good": "fix(parser): keep the last token of a one-file change",
    "bad": "fix: parser\n\nThe last token was dropped when the file ended early.",
}


async def commit_agent(diff: str) -> str:
    return SUBJECTS[os.environ.get("SEED_AGENTS", "good")]


@eval(dataset="commit_subjects", cases="commits.jsonl")
async def write_subject(ctx: EvalContext) -> None:
    ctx.output = await commit_agent(ctx.input)
