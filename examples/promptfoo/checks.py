"""A promptfoo python assertion: promptfoo calls it with the output and a context."""


def answer_mentions_ticket(output, context):
    ticket = context["vars"]["message"]
    return {"pass": "ticket" in output and ticket in output, "score": 1.0, "reason": "ticket"}
