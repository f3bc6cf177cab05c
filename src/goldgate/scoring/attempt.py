"""One attempt's outcome: what it produced and its checks, before the report records it; and
the checks of an attempt scored after it ran (the report process does that)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from goldgate.base.frozen import built
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.recorded import RecordedCase, recorded_case
from goldgate.gold.suites import GoldSuite
from goldgate.scoring.adjudication import adjudicate
from goldgate.scoring.outcomes import CheckOutcome, not_run
from goldgate.scoring.score import attempt_document, score_compiled

if TYPE_CHECKING:
    from goldgate.gold.models import Case  # Python evals run without the gold models


@dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt produced, before it is written into the report."""

    index: int
    """The case's position in its suite."""
    case: Case | RecordedCase
    """The case (as a report records it, for an attempt that never started)."""
    attempt: int
    status: str
    reason: str | None
    latency_ms: float | None
    document: Mapping[str, Any] | None
    stderr: str | None
    checks: tuple[CheckOutcome, ...]
    exception: Mapping[str, Any] | None = None
    """A failed attempt: what its in-process target raised (``ExceptionRecord``'s fields)."""
    retries: int = 0
    """Calls after the first that a live target's attempt made (retry settings)."""
    cached: bool = False
    """The answer came from the response cache (``--cache``): nothing was called."""
    cost: float | None = None
    """The attempt's usage priced by its workflow's ``pricing``; None: no pricing or usage."""
    judge_cost: float | None = None
    """What asking judges about this attempt's answers cost, apart from ``cost``."""


class Which(NamedTuple):
    """Which attempt of which case: the case's index in its suite, the case (as a report
    records it, for an attempt that never started), and the 1-based attempt."""

    case_index: int
    case: Case | RecordedCase
    attempt: int


@dataclass(frozen=True)
class AttemptExtras:
    """What some attempts add to their outcome (``AttemptOutcome``'s fields of the same
    names); most add nothing (``NO_EXTRAS``)."""

    exception: Mapping[str, Any] | None = None
    retries: int = 0
    cached: bool = False
    cost: float | None = None
    judge_cost: float | None = None


NO_EXTRAS = AttemptExtras()


def live_extras(
    retries: int, cached: bool, cost: float | None, judge_cost: float | None = None
) -> AttemptExtras:
    """A live attempt's retries, cache hit, cost and judges' cost (``NO_EXTRAS`` when it has
    none)."""
    if retries or cached or cost is not None or judge_cost is not None:
        return AttemptExtras(retries=retries, cached=cached, cost=cost, judge_cost=judge_cost)
    return NO_EXTRAS


def extras_of(outcome: AttemptOutcome) -> AttemptExtras | None:
    """What ``outcome`` adds (``AttemptExtras``); None when nothing, as for most attempts."""
    exception, retries, cost = outcome.exception, outcome.retries, outcome.cost
    judge_cost = outcome.judge_cost
    if exception is None and not (retries or outcome.cached) and cost is judge_cost is None:
        return None
    return AttemptExtras(
        exception=exception,
        retries=retries,
        cached=outcome.cached,
        cost=cost,
        judge_cost=judge_cost,
    )


def attempt_outcome(
    which: Which,
    *,
    status: str,
    reason: str | None,
    latency_ms: float | None,
    document: Mapping[str, Any] | None,
    stderr: str | None,
    checks: tuple[CheckOutcome, ...],
    extras: AttemptExtras = NO_EXTRAS,
) -> AttemptOutcome:
    """``AttemptOutcome(...)`` built without its ``__init__`` (``goldgate.base.frozen``): every
    attempt, run or not, makes one."""
    index, case, attempt = which
    return built(
        AttemptOutcome,
        {
            "index": index,
            "case": case,
            "attempt": attempt,
            "status": status,
            "reason": reason,
            "latency_ms": latency_ms,
            "document": document,
            "stderr": stderr,
            "checks": checks,
            "exception": extras.exception,
            "retries": extras.retries,
            "cached": extras.cached,
            "cost": extras.cost,
            "judge_cost": extras.judge_cost,
        },
    )


@lru_cache(maxsize=256)
def _not_run(reason: str, count: int) -> tuple[CheckOutcome, ...]:
    return (not_run(reason),) * count


def _not_run_all(case: Case | RecordedCase, reason: str) -> tuple[CheckOutcome, ...]:
    """Every check of an attempt that did not complete (shared: outcomes are frozen, and an
    interrupted run makes many of them with one reason)."""
    return _not_run(reason, len(case.expectations))


def ended(
    which: Which,
    *,
    status: str,
    reason: str,
    latency_ms: float | None = None,
    stderr: str | None = None,
    checks: tuple[CheckOutcome, ...] | None = None,
    extras: AttemptExtras = NO_EXTRAS,
) -> AttemptOutcome:
    """An attempt that did not complete (failed, timed out, cancelled, skipped): no result
    document, and every check not run for ``reason`` unless ``checks`` are given."""
    return attempt_outcome(
        which,
        status=status,
        reason=reason,
        latency_ms=latency_ms,
        document=None,
        stderr=stderr,
        checks=_not_run_all(which.case, reason) if checks is None else checks,
        extras=extras,
    )


def unfinished(
    suite: GoldSuite, *, index: int, attempt: int, status: str, reason: str
) -> AttemptOutcome:
    """An attempt that never produced a result (skipped, cancelled)."""
    which = Which(index, recorded_case(suite.cases, index), attempt)
    return ended(which, status=status, reason=reason)


INTERRUPTED_REASON = "the run was interrupted before this attempt finished"


def builtin_checks(
    suite: GoldSuite,
    case: Case | RecordedCase,
    compiled: tuple[CompiledExpectation, ...],
    document: Mapping[str, Any],
    *,
    latency_ms: float | None = None,
    cost: float | None = None,
) -> tuple[CheckOutcome, ...]:
    """Every check of a completed attempt whose expectations are all built in (no custom
    scorer), as ``run_attempt`` scores them: for a report process that scores attempts
    after they ran (``goldgate.report.process``)."""
    envelope = case.input.as_json()
    document = attempt_document(document, compiled, latency_ms=latency_ms, cost=cost)
    checks = tuple([score_compiled(item, document, envelope, suite.text) for item in compiled])
    if suite.verdicts:
        checks = adjudicate(checks, compiled, case.id, suite.verdicts)
    return checks


def completed(
    which: Which,
    *,
    latency_ms: float,
    document: Mapping[str, Any],
    stderr: str | None,
    checks: tuple[CheckOutcome, ...],
    extras: AttemptExtras = NO_EXTRAS,
) -> AttemptOutcome:
    """A completed attempt's outcome."""
    return attempt_outcome(
        which,
        status="completed",
        reason=None,
        latency_ms=latency_ms,
        document=document,
        stderr=stderr,
        checks=checks,
        extras=extras,
    )
