"""Stand-ins for the application the parity evals call (a file whose name starts with ``_``:
a helper, never searched for evals, by EZVals and goldgate alike)."""

from __future__ import annotations

from typing import Any

REPLIES = {
    "I want a refund": "Sorry to hear that: your refund is on its way.",
    "Where is my parcel?": "It left the warehouse today.",
    "Cancel my plan": "Done.",
}


def support_agent(message: str) -> str:
    return REPLIES.get(message, "I can't help with that.")


def classify(text: str) -> str:
    lowered = text.lower()
    if "love" in lowered or "great" in lowered:
        return "positive"
    if "terrible" in lowered or "awful" in lowered:
        return "negative"
    return "neutral"


def traced_agent(message: str) -> dict[str, Any]:
    """A result an eval spreads into ``ctx.store(**...)``."""
    return {
        "output": support_agent(message),
        "latency": 0.25,
        "trace_data": {"model": "stub-1", "tokens": len(message)},
    }


def divide(a: float, b: float) -> float:
    return a / b
