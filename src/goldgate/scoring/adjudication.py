"""Recorded verdicts applied to checks: pure functions over frozen data.

A verdict is about one answer judged against one gold: it is keyed by the suite, the case,
the check and the sha256 of the answer text, and bound to the sha256 of the expectation's
gold (``gold_digest``: its prose, note and assertions). An answer that changes in any way, or
a criterion that does, goes back to the queue; one that does not keeps its verdict in every
later run (JSON gold and Python evals alike). A verdict bound to no gold (recorded before
verdicts were bound) decides nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol

from goldgate.base.jsonvalue import canonical_bytes
from goldgate.gold.shapes import note_of
from goldgate.gold.suites import RecordedVerdict
from goldgate.scoring.outcomes import CheckOutcome, Outcome

__all__ = [
    "REVIEWER_FAILED",
    "VerdictKey",
    "adjudicate",
    "decided",
    "gold_digest",
    "is_digest",
    "note_of",
    "output_digest",
]

VerdictKey = tuple[str, str, str]
"""(case id, check name, output digest): a verdict's key within one suite."""

REVIEWER_FAILED: Final = "a reviewer's recorded verdict fails this answer"
_DIGEST_PREFIX = "sha256:"
_HEX = frozenset("0123456789abcdef")


class _Gold(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def expected(self) -> Any: ...


def output_digest(text: str) -> str:
    """The digest an answer is known by: ``sha256:`` and 64 lowercase hex digits of its
    UTF-8 bytes (no normalization: a changed character is a changed answer)."""
    return _DIGEST_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def gold_digest(expected: Any) -> str:
    """The digest of an expectation's gold, as a verdict is bound to it: ``sha256:`` and 64
    lowercase hex digits of ``expected`` as canonical JSON (the prose, or the assertions and
    the note), so that a changed criterion is a changed gold and formatting is not."""
    return _DIGEST_PREFIX + hashlib.sha256(canonical_bytes(expected)).hexdigest()


def is_digest(value: Any) -> bool:
    """Whether ``value`` is a digest as ``output_digest`` writes it."""
    return (
        isinstance(value, str)
        and value.startswith(_DIGEST_PREFIX)
        and len(value) == len(_DIGEST_PREFIX) + 64
        and set(value[len(_DIGEST_PREFIX) :]) <= _HEX
    )


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
    # What the check found stays; it waits no more, and no judge's word stands beside the
    # person's.
    return replace(
        check, outcome=outcome, reason=reason, adjudication=False, adjudicated=True, judge=None
    )


def adjudicate(
    checks: Sequence[CheckOutcome],
    expectations: Sequence[_Gold],
    case_id: str,
    verdicts: Mapping[VerdictKey, RecordedVerdict],
) -> tuple[CheckOutcome, ...]:
    """``checks`` with every check that waits for a person and has a verdict recorded for
    this very answer against this very gold decided by it (``adjudicated``); the rest
    unchanged."""
    found = []
    for expectation, check in zip(expectations, checks, strict=True):
        recorded = None
        if check.adjudication and isinstance(check.actual, str):
            recorded = verdicts.get((case_id, expectation.name, output_digest(check.actual)))
        if recorded is not None and recorded.gold == gold_digest(expectation.expected):
            found.append(decided(check, recorded.passed))
        else:
            found.append(check)
    return tuple(found)
