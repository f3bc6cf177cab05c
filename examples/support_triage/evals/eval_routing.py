"""Python evals of the support triage's routing: assertions, cases and an evaluator.

Run from the repository root:  .venv/bin/goldgate evals run examples/support_triage/evals
"""

from __future__ import annotations

from typing import Any

from support_triage_app.triage import triage

from goldgate.evals import EvalContext, EvalResult, eval


def route(message: str, language: str = "en") -> dict[str, Any]:
    """What the application decides for one message: its public payload."""
    payload: dict[str, Any] = triage({"message": message}, {"language": language})["payload"]
    return payload


def account_kept(result: EvalResult) -> dict[str, Any]:
    """An evaluator: an account number in the message must come back in the payload."""
    mentioned = any(part[:2] in ("A-", "B-", "C-") for part in str(result.input).split())
    if not mentioned:
        return {"key": "account", "value": 1.0, "notes": "no account mentioned"}
    found = isinstance(result.output, dict) and bool(result.output.get("account"))
    return {"key": "account", "passed": found, "value": 1.0 if found else 0.0}


@eval(input="Cancel renewal for account C-1049.", reference="cancellation", dataset="routing")
def routes_a_cancellation(ctx: EvalContext) -> None:
    ctx.output = route(ctx.input)
    assert ctx.output["category"] == ctx.reference, "routed to the wrong queue"
    assert ctx.output["account"] == "C-1049", "the account was not extracted"


@eval(
    dataset="routing",
    metadata={"language": "en"},
    cases=[
        {"id": "refund_en", "input": "I was charged twice, please refund A-17.",
         "reference": "billing_dispute"},
        {"id": "plan_de", "input": "Bitte Tarif wechseln für Konto B-22.",
         "reference": "service_change", "metadata": {"language": "de"}},
        {"id": "withdrawn", "input": "Disregard my cancellation.", "reference": None},
        {"id": "two_requests", "input": "Cancel my plan. Also refund the double charge.",
         "reference": None},
    ],
    evaluators=[account_kept],
)
async def routes_each_case(ctx: EvalContext) -> None:
    ctx.output = route(ctx.input, ctx.metadata["language"])
    assert ctx.output["category"] == ctx.reference, "routed to the wrong queue"
