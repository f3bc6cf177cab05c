"""The runner: one suite's cases on a bounded pool of workers, each attempt under a deadline.

Attempts are started in case-major order and handed on in that order whatever order they
finish in, each as soon as it and every attempt before it are done, so a report can be
written while the run goes on and memory holds only what is in flight. A target's failure is
data for that attempt; the run goes on. Cancellation of the surrounding scope (Ctrl-C) stops
scheduling; what was handed on is kept.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from goldgate.base.errors import LoopBlocked
from goldgate.base.holdable import unholdable
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.recorded import recorded_case
from goldgate.gold.suites import GoldSuite
from goldgate.run.errors import TargetFailure
from goldgate.run.inflight import InFlight
from goldgate.run.limits import RunOptions
from goldgate.run.targets._documents import plain_document
from goldgate.run.targets.base import TargetResponse
from goldgate.scoring import CheckOutcome, ScorerRegistry, score_compiled
from goldgate.scoring.adjudication import adjudicate
from goldgate.scoring.attempt import (
    INTERRUPTED_REASON,
    AttemptExtras,
    AttemptOutcome,
    Which,
    _not_run_all,
    completed,
    ended,
    live_extras,
)
from goldgate.scoring.score import attempt_document, score_custom

if TYPE_CHECKING:
    from goldgate.run.judges import JudgeBench
    from goldgate.run.watchdog import Watchdog

AttemptRun = Callable[[Mapping[str, Any]], Awaitable[TargetResponse | Mapping[str, Any]]]
"""Runs one attempt: the case's envelope in, a result document (or TargetResponse) out."""

ProgressCallback = Callable[[int], None]
AttemptSink = Callable[["AttemptOutcome"], None]

_NO_LIMIT = 2**63  # in-process results are not bounded: the caller's own code made them


def attempt_identities(suite: GoldSuite, repeat: int) -> Iterator[tuple[int, int]]:
    """(case index, 1-based attempt) in case-major order, produced lazily."""
    for index in range(len(suite.cases)):
        for attempt in range(1, repeat + 1):
            yield index, attempt


def _failed(
    which: Which,
    reason: str,
    latency_ms: float | None,
    *,
    stderr: str | None = None,
    current: InFlight | None = None,
    exception: Mapping[str, Any] | None = None,
) -> AttemptOutcome:
    checks = _not_run_all(which.case, f"the attempt failed: {reason}")
    retries = 0 if current is None else current.retries
    if retries:
        reason = f"{reason} (after {retries} {'retry' if retries == 1 else 'retries'})"
    extras = AttemptExtras(exception=exception, retries=retries)
    return ended(
        which,
        status="failed",
        reason=reason,
        latency_ms=latency_ms,
        stderr=stderr,
        checks=checks,
        extras=extras,
    )


def _timed_out(
    which: Which, timeout: float, latency_ms: float | None, retries: int = 0
) -> AttemptOutcome:
    if latency_ms is None:
        reason = f"no result within the {timeout:g} s deadline"
    else:  # the target answered; its custom scoring did not finish in time
        reason = f"scoring ran out of time: the {timeout:g} s deadline passed while scoring"
    extras = AttemptExtras(retries=retries)
    return ended(which, status="timed_out", reason=reason, latency_ms=latency_ms, extras=extras)


def _blocked(which: Which, blocked: LoopBlocked, latency_ms: float | None) -> AttemptOutcome:
    """An attempt whose target (or custom scorer) kept the event loop blocked until the
    watchdog broke in: past its deadline (timed out) or past a stop request (cancelled)."""
    if blocked.why == "stop":
        status, reason = "cancelled", INTERRUPTED_REASON
    else:
        status = "timed_out"
        who = "the target" if latency_ms is None else "a custom scorer"
        if blocked.why == "ignored":
            reason = f"{who} ignored being cancelled at the attempt's deadline"
        else:
            reason = f"{who} blocked the event loop past the attempt's deadline"
    return ended(which, status=status, reason=reason, latency_ms=latency_ms)


async def _score(
    compiled: tuple[CompiledExpectation, ...],
    *,
    document: Mapping[str, Any],
    envelope: Mapping[str, Any],
    registry: ScorerRegistry,
    suite: GoldSuite,
) -> tuple[CheckOutcome, ...]:
    checks = []
    for expectation in compiled:
        if expectation.comparison == "custom":
            checks.append(await score_custom(expectation, document, registry))
        else:
            checks.append(score_compiled(expectation, document, envelope, suite.text))
    return tuple(checks)


def _unholdable_result(
    document: Mapping[str, Any], stderr: str | None, cost: float | None
) -> str | None:
    """Why a report cannot hold what the target gave (one sentence naming what and where,
    never the value), or None."""
    problem = unholdable(document)
    if problem is not None:
        return problem.sentence("the result")
    if stderr is not None and unholdable(stderr) is not None:
        return "the target's stderr holds a string that is not UTF-8, which a report cannot hold"
    if cost is not None and not math.isfinite(cost):
        return "the attempt's cost is NaN or infinite, which a report cannot hold"
    return None


def _holdable_failure(
    failure: TargetFailure,
) -> tuple[str, str | None, Mapping[str, Any] | None]:
    """A failure's reason, stderr and exception record as a report can hold them: one that
    holds a value it cannot (a lone surrogate in the exception's message, say) is left out,
    and the reason says what and where."""
    reason, stderr, exception = failure.reason, failure.stderr, failure.exception
    if unholdable(reason) is not None:
        reason = "the target failed (its reason holds a string that is not UTF-8)"
    if stderr is not None and unholdable(stderr) is not None:
        stderr = None
        reason = f"{reason}; its stderr is not UTF-8, which a report cannot hold"
    if exception is not None:
        problem = unholdable(exception)
        if problem is not None:
            exception = None
            reason = f"{reason}; {problem.sentence('the exception record')}"
    return reason, stderr, exception


async def run_attempt(
    suite: GoldSuite,
    identity: tuple[int, int],
    run: AttemptRun,
    registry: ScorerRegistry,
    current: InFlight,
    leave_unscored: Callable[[], bool] | None = None,
    *,
    judges: JudgeBench | None = None,
) -> AttemptOutcome:
    """One attempt: the target call and every check. ``leave_unscored``, asked as the
    attempt starts: whether a completed attempt is handed on unscored (no checks), for a
    collector that scores such attempts itself (``identity``: the case's index and the
    1-based attempt). The caller's scope holds the deadline."""
    index, attempt = identity
    compiled: tuple[CompiledExpectation, ...] | None
    if leave_unscored is not None and leave_unscored():  # the input is all it reads here
        case, compiled = recorded_case(suite.cases, index), None
    else:
        case, compiled = suite.attempt_gold(index)
    envelope = case.input.as_json()
    which = Which(index, case, attempt)
    current.begin(index, attempt)
    started = time.perf_counter()
    stderr: str | None = None
    try:
        response = await run(envelope)
    except LoopBlocked as blocked:
        return _blocked(which, blocked, None)
    except TargetFailure as failure:
        latency = (time.perf_counter() - started - current.paused) * 1000
        reason, failed_stderr, exception = _holdable_failure(failure)
        return _failed(
            which,
            reason,
            latency,
            stderr=failed_stderr,
            current=current,
            exception=exception,
        )
    except anyio.get_cancelled_exc_class():
        raise
    except BaseException as error:  # SystemExit, KeyboardInterrupt ... from the target
        latency = (time.perf_counter() - started) * 1000
        return _failed(
            which,
            f"the target raised {type(error).__name__}",
            latency,
        )
    latency_ms = current.latency_ms = (time.perf_counter() - started - current.paused) * 1000
    document: Mapping[str, Any]
    cached, cost = False, None
    if isinstance(response, TargetResponse):
        document, stderr = response.document, response.stderr
        cached, cost = response.cached, response.cost
    else:  # a Python API run callable: check and copy what it returned
        try:
            document = plain_document(response, who="the run callable", max_bytes=_NO_LIMIT)
        except TargetFailure as failure:
            return _failed(which, failure.reason, latency_ms)
    problem = _unholdable_result(document, stderr, cost)
    if problem is not None:  # the attempt's error; the run and every other attempt go on
        return _failed(which, problem, latency_ms, current=current)
    retries = current.retries
    checks: tuple[CheckOutcome, ...] = ()
    judge_cost: float | None = None
    if compiled is not None:
        try:
            scored = attempt_document(document, compiled, latency_ms=latency_ms, cost=cost)
            checks = await _score(
                compiled, document=scored, envelope=envelope, registry=registry, suite=suite
            )
        except LoopBlocked as blocked:
            return _blocked(which, blocked, latency_ms)
        if suite.verdicts:
            checks = adjudicate(checks, compiled, case.id, suite.verdicts)
        if judges is not None:
            checks, judge_cost = await judges.review(checks, compiled, envelope)
    return completed(
        which,
        latency_ms=latency_ms,
        document=document,
        stderr=stderr,
        checks=checks,
        extras=live_extras(retries, cached, cost, judge_cost),
    )


DEADLINE_SLACK = 0.001
"""How much later than its own deadline an attempt may be stopped, at least (the event loop
itself wakes to the millisecond); ``DEADLINE_SHARE`` of the timeout where that is more. A
worker's deadline is set this much past its attempt's, and kept for the attempts that start
within this time after: moving it reschedules a timer, which cost more than an attempt."""
DEADLINE_SHARE = 0.001
"""The slack as a share of the timeout: 0.3 s of the default 300 s, so that a worker moves
its deadline a few times a second at most, however quick its attempts."""

RUN_AHEAD = 4096
"""How far past the earliest unfinished attempt a worker may start one. Finished attempts
wait in ``InOrder`` until every earlier one is in: without a bound, one slow attempt early
in a large run would keep every later outcome in memory."""
_ROOM_POLL = 0.01
"""Seconds between looks for room (only while one slow attempt holds the others back)."""


class InOrder:
    """Hands outcomes to ``sink`` in identity order (0 .. ``total`` - 1), holding those that
    finished early until every one before them is in."""

    def __init__(self, sink: AttemptSink, total: int) -> None:
        self.sink = sink
        self.total = total
        self.held: dict[int, AttemptOutcome] = {}
        self.next = 0
        self.done = 0

    def deliver(self, position: int, outcome: AttemptOutcome) -> None:
        self.done += 1
        if position != self.next:
            self.held[position] = outcome
            return
        self.sink(outcome)
        self.next += 1
        while self.next in self.held:
            self.sink(self.held.pop(self.next))
            self.next += 1

    def drain(
        self,
        missing: Callable[[int], AttemptOutcome],
        add_missing: Callable[[int], bool] | None = None,
    ) -> None:
        """Hand on everything left: what finished early as it is, the rest as ``missing``
        makes it (a run that stopped: cancelled). ``add_missing``, when given, takes a
        missing position itself first, in order with the sink (False: it did not)."""
        while self.next < self.total:
            outcome = self.held.pop(self.next, None)
            if outcome is not None:
                self.sink(outcome)
            elif add_missing is None or not add_missing(self.next):
                self.sink(missing(self.next))
            self.next += 1


def asyncio_clock() -> Callable[[], float]:
    """The running event loop's clock, which ``anyio.current_time`` reads (on asyncio) at
    some cost per call: the time each attempt's deadline is counted from."""
    try:
        return asyncio.get_running_loop().time
    except RuntimeError:  # another backend than asyncio (trio, through the Python API)
        return anyio.current_time


async def _cancel_when_stopped(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


@dataclass(frozen=True)
class SuiteControls:
    """How the caller follows and steers one suite's run (``run_suite``): each optional."""

    progress: ProgressCallback | None = None
    """Called with how many attempts are done, after each."""
    stop: anyio.Event | None = None
    """Set: nothing more starts, and what is in flight is cancelled."""
    watchdog: Watchdog | None = None
    """Breaks into a target that blocks the event loop past its deadline."""
    leave_unscored: Callable[[], bool] | None = None
    """See ``run_attempt``."""
    run_ahead: int = RUN_AHEAD
    """No attempt starts this many places or more after the earliest unfinished one."""
    judges: JudgeBench | None = None
    """Reviews what a person would decide, as each attempt is scored (``--live`` runs)."""


async def run_suite(
    suite: GoldSuite,
    run: AttemptRun,
    registry: ScorerRegistry,
    options: RunOptions,
    ordered: InOrder,
    controls: SuiteControls = SuiteControls(),
) -> None:
    """Run every attempt of ``suite``, handing each to ``ordered`` (in case-major order
    whatever order they finish in). After ``controls.stop`` is set fewer than all may have
    been handed on.

    Workers take the next attempt in order, so at most ``max_concurrency`` run at once and
    the earliest cases start first; no attempt starts ``run_ahead`` or more places after the
    earliest unfinished one. Each worker keeps one cancel scope whose deadline moves per
    attempt. Setting ``stop`` stops scheduling and cancels what is in flight.
    """
    identities = enumerate(attempt_identities(suite, options.repeat))
    stop, watchdog, run_ahead = controls.stop, controls.watchdog, controls.run_ahead

    def deliver(position: int, outcome: AttemptOutcome) -> None:
        ordered.deliver(position, outcome)
        if controls.progress is not None:
            controls.progress(ordered.done)

    # Sync python and http targets run in worker threads: let every worker have one.
    threads = anyio.to_thread.current_default_thread_limiter()
    threads.total_tokens = max(threads.total_tokens, options.max_concurrency)
    timeout, slack = options.timeout, max(DEADLINE_SLACK, options.timeout * DEADLINE_SHARE)

    async def worker() -> None:
        current = InFlight.entered(watchdog)  # what the live layer sees of this worker
        item = next(identities, None)
        clock = asyncio_clock()
        while item is not None:
            with anyio.CancelScope() as scope:
                current.scope = scope
                armed = math.inf  # the scope's deadline (its property costs a call to read)
                while item is not None:
                    position, (index, attempt) = item
                    if position - ordered.next >= run_ahead:
                        armed = scope.deadline = math.inf  # waiting for room is not its time
                        while position - ordered.next >= run_ahead:
                            await anyio.sleep(_ROOM_POLL)
                    deadline = clock() + timeout
                    if not deadline <= armed <= deadline + slack:
                        armed = scope.deadline = deadline + slack  # kept for what follows
                    if watchdog is not None:
                        watchdog.begin(current, timeout)
                    outcome = await run_attempt(
                        suite,
                        (index, attempt),
                        run,
                        registry,
                        current,
                        controls.leave_unscored,
                        judges=controls.judges,
                    )
                    if watchdog is not None:
                        watchdog.end(current)
                    deliver(position, outcome)
                    # Nothing starts after a stop, even when the attempt came back from it.
                    item = None if stop is not None and stop.is_set() else next(identities, None)
                    if scope.cancel_called:
                        # The attempt outlived its deadline without ending cancelled (it
                        # ignored the cancellation): the next one gets a scope of its own.
                        break
            if watchdog is not None:
                watchdog.end(current)
            if scope.cancelled_caught and item is not None:
                position, (index, attempt) = item
                case = suite.attempt_gold(index)[0]  # read for the attempt already
                deliver(
                    position,
                    _timed_out(
                        Which(index, case, attempt), timeout, current.latency_ms, current.retries
                    ),
                )
                item = next(identities, None)

    with anyio.CancelScope() as outer_scope:
        async with anyio.create_task_group() as outer:
            if stop is not None:
                outer.start_soon(_cancel_when_stopped, stop, outer_scope)
            async with anyio.create_task_group() as workers:
                for _ in range(min(options.max_concurrency, len(suite.cases) * options.repeat)):
                    workers.start_soon(worker)
            outer_scope.cancel()  # the workers are done: end the watcher too
