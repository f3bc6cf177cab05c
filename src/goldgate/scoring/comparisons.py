"""What the comparison kinds share (``goldgate.scoring.kinds``): a comparison's verdict, the
words of its reasons, and the check outcome a verdict makes.

Comparisons are pure and synchronous. An absent actual (``MISSING``) is never compared as
``null``: it fails every comparison with ``ABSENT_REASON``. Reasons describe differences by
JSON type, length, count, index and path only, never by content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from goldgate.base.jsonvalue import MISSING, thaw
from goldgate.scoring.outcomes import ABSENT_REASON, CheckOutcome, Outcome, scored

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import Envelope

__all__ = [
    "ABSENT",
    "PASSED",
    "Verdict",
    "article",
    "envelope_document",
    "error",
    "failed",
    "plural",
    "with_actual",
]


@dataclass(frozen=True)
class Verdict:
    """A comparison's result: passed, failed or error, with a safe reason unless passed."""

    outcome: Outcome
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.outcome is Outcome.NOT_RUN:
            raise ValueError("a comparison verdict is passed, failed or error")
        if self.outcome is not Outcome.PASSED and not self.reason:
            raise ValueError("a verdict other than passed needs a reason")


PASSED = Verdict(Outcome.PASSED)
ABSENT = Verdict(Outcome.FAILED, ABSENT_REASON)


def failed(reason: str) -> Verdict:
    return Verdict(Outcome.FAILED, reason)


def error(reason: str) -> Verdict:
    return Verdict(Outcome.ERROR, reason)


def article(type_name: str) -> str:
    """``a string``, ``an array``, ``null``, ``nothing``."""
    if type_name in ("null", "nothing"):
        return type_name
    return ("an " if type_name[0] in "aeiou" else "a ") + type_name


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def with_actual(verdict: Verdict, actual: Any) -> CheckOutcome:
    """The check outcome of ``verdict`` on ``actual`` (recorded when present)."""
    present = actual is not MISSING
    return scored(
        verdict.outcome,
        verdict.reason,
        actual_present=present,
        actual=thaw(actual) if present else None,
    )


def envelope_document(envelope: Envelope | Mapping[str, Any]) -> Mapping[str, Any]:
    """The case input as a JSON document ``{"payload": ..., "metadata": ...}``."""
    if type(envelope) is dict or isinstance(envelope, Mapping):  # a dict spares the ABC check
        return envelope
    return {"payload": envelope.payload, "metadata": envelope.metadata}
