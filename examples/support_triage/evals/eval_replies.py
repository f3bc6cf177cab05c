"""Python evals of the triage's drafted replies: ``ctx.store`` with named and numeric scores,
a threshold on a numeric score, and seed 004's dataset lines (``replies.jsonl``), whose
``expect`` is scored against each reply as the ``text`` comparison scores it."""

from __future__ import annotations

from support_triage_app.triage import triage

from goldgate.evals import EvalContext, EvalResult, eval


def draft(message: str, language: str = "en") -> str:
    document = triage({"message": message}, {"language": language})
    text: str = document["flows"]["triage"]["steps"]["draft"]["result"]["text"]
    return text


def one_line(result: EvalResult) -> dict[str, object]:
    """An evaluator: replies are a single line."""
    return {"key": "one_line", "passed": "\n" not in str(result.output)}


@eval(dataset="reply_drafts", cases="replies.jsonl", evaluators=[one_line])
def drafts_a_reply(ctx: EvalContext) -> None:
    ctx.output = draft(ctx.input, ctx.metadata.get("language", "en"))
    assert ctx.output.strip(), "the reply is empty"


@eval(
    dataset="reply_quality",
    cases=[
        {"id": "cancel", "input": "Cancel renewal for account C-1049."},
        {"id": "refund", "input": "I was overcharged, please refund A-17."},
        {"id": "unclear", "input": "Please help."},
    ],
    thresholds={"brevity.mean": 0.4},
)
def reply_quality(ctx: EvalContext) -> None:
    reply = draft(ctx.input)
    ctx.store(
        output=reply,
        scores=[
            {"key": "thanks", "passed": reply.startswith("Thanks"), "notes": "opens with thanks"},
            {"key": "brevity", "value": max(0.0, 1 - len(reply) / 200),
             "notes": f"{len(reply)} characters"},
        ],
    )
