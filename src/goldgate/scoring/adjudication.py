"""Recorded verdicts applied to checks: pure functions over frozen data.

A verdict is about one answer: it is keyed by the suite, the case, the check and the sha256
of the answer text, so an answer that changes in any way goes back to the queue, and one that
does not keeps its verdict in every later run (JSON gold and Python evals alike).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from goldgate.scoring.outcomes import CheckOutcome, Outcome

__all__ = [
    "REVIEWER_FAILED",
    "VerdictKey",
    "adjudicate",
    "decided",
    "is_digest",
    "note_of",
    "output_digest",
]

VerdictKey = tuple[str, str, str]
"""(case id, check name, output digest): a verdict's key within one suite."""

REVIEWER_FAILED: Final = "a reviewer's recorded verdict fails this answer"
_DIGEST_PREFIX = "sha256:"
_HEX = frozenset("0123456789abcdef")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def output_digest(text: str) -> str:
    """The digest an answer is known by: ``sha256:`` and 64 lowercase hex digits of its
    UTF-8 bytes (no normalization: a changed character is a changed answer)."""
    return _DIGEST_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def is_digest(value: Any) -> bool:
    """Whether ``value`` is a digest as ``output_digest`` writes it."""
    return (
        isinstance(value, str)
        and value.startswith(_DIGEST_PREFIX)
        and len(value) == len(_DIGEST_PREFIX) + 64
        and set(value[len(_DIGEST_PREFIX) :]) <= _HEX
    )


def note_of(expected: Any) -> str | None:
    """The sentence an adjudicator reads: the prose of an expectation that declares nothing,
    or the ``note`` beside its assertions."""
    if isinstance(expected, str):
        return expected
    if isinstance(expected, Mapping) and isinstance(expected.get("note"), str):
        note: str = expected["note"]
        return note
    return None


def decided(check: CheckOutcome, passed: bool) -> CheckOutcome:
    """``check`` decided by a verdict: prose takes it whole; beside assertions a failing
    verdict fails the check and a passing one leaves the assertions' outcome standing."""
    if not passed:
        outcome, reason = Outcome.FAILED, REVIEWER_FAILED
        if check.outcome is Outcome.FAILED and check.reason:
            reason = check.reason  # the first failure stays the one named
    elif check.outcome is Outcome.NOT_RUN:
        outcome, reason = Outcome.PASSED, None
    else:
        outcome, reason = check.outcome, check.reason
    return CheckOutcome(
        outcome,
        reason,
        actual_present=check.actual_present,
        actual=check.actual,
        assertions_declared=check.assertions_declared,
        assertions_held=check.assertions_held,
        adjudication=False,
        json_parsed=check.json_parsed,
        required_keys_found=check.required_keys_found,
        required_keys_declared=check.required_keys_declared,
        adjudicated=True,
    )


def adjudicate(
    checks: Sequence[CheckOutcome],
    expectations: Sequence[_Named],
    case_id: str,
    verdicts: Mapping[VerdictKey, bool],
) -> tuple[CheckOutcome, ...]:
    """``checks`` with every check that waits for a person and has a verdict recorded for
    this very answer decided by it (``adjudicated``); the rest unchanged."""
    found = []
    for expectation, check in zip(expectations, checks, strict=True):
        passed = None
        if check.adjudication and isinstance(check.actual, str):
            passed = verdicts.get((case_id, expectation.name, output_digest(check.actual)))
        found.append(check if passed is None else decided(check, passed))
    return tuple(found)
