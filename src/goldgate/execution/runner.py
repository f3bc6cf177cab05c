"""The runner: one suite's cases on a bounded pool of workers, each attempt under a deadline.

Attempts are started in case-major order and recorded in that order whatever order they
finish in. A target's failure is data for that attempt; the run goes on. Cancellation of the
surrounding scope (Ctrl-C) stops scheduling and leaves unfinished slots empty.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from goldgate.dataset.gold import GoldSuite
from goldgate.dataset.models import Case
from goldgate.execution.targets._documents import plain_document
from goldgate.execution.targets.base import TargetFailure, TargetResponse
from goldgate.scoring import CheckOutcome, ScorerRegistry, not_run, score_expectation

AttemptRun = Callable[[Mapping[str, Any]], Awaitable[TargetResponse | Mapping[str, Any]]]
"""Runs one attempt: the case's envelope in, a result document (or TargetResponse) out."""

ProgressCallback = Callable[[int], None]

_NO_LIMIT = 2**63  # in-process results are not bounded: the caller's own code made them


@dataclass(frozen=True)
class RunOptions:
    max_concurrency: int = 1
    timeout: float = 300.0
    repeat: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.max_concurrency <= 64:
            raise ValueError("max_concurrency must be between 1 and 64")
        if not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise ValueError("timeout must be a positive number of seconds")
        if self.repeat < 1:
            raise ValueError("repeat must be at least 1")


@dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt produced, before it becomes a report record."""

    case: Case
    attempt: int
    status: str
    reason: str | None
    latency_ms: float | None
    document: Mapping[str, Any] | None
    stderr: str | None
    checks: tuple[CheckOutcome, ...]


def attempt_identities(suite: GoldSuite, repeat: int) -> Iterator[tuple[Case, int]]:
    """(case, 1-based attempt) in case-major order."""
    for case in suite.cases:
        for attempt in range(1, repeat + 1):
            yield case, attempt


def _not_run_all(case: Case, reason: str) -> tuple[CheckOutcome, ...]:
    return tuple(not_run(reason) for _ in case.expectations)


def unfinished(case: Case, attempt: int, status: str, reason: str) -> AttemptOutcome:
    """An attempt that never produced a result (skipped, cancelled)."""
    return AttemptOutcome(
        case, attempt, status, reason, None, None, None, _not_run_all(case, reason)
    )


def _failed(
    case: Case, attempt: int, reason: str, latency_ms: float | None, stderr: str | None = None
) -> AttemptOutcome:
    checks = _not_run_all(case, f"the attempt failed: {reason}")
    return AttemptOutcome(case, attempt, "failed", reason, latency_ms, None, stderr, checks)


async def run_attempt(
    suite: GoldSuite,
    case: Case,
    attempt: int,
    run: AttemptRun,
    registry: ScorerRegistry,
    timeout: float,
) -> AttemptOutcome:
    """One attempt: the target call and every check, together under one deadline."""
    envelope = case.input.as_json()
    started = time.perf_counter()
    latency_ms: float | None = None
    stderr: str | None = None
    try:
        with anyio.fail_after(timeout):
            response = await run(envelope)
            latency_ms = (time.perf_counter() - started) * 1000
            document: Mapping[str, Any]
            if isinstance(response, TargetResponse):
                document, stderr = response.document, response.stderr
            else:  # a Python API run callable: check and copy what it returned
                document = plain_document(response, who="the run callable", max_bytes=_NO_LIMIT)
            checks = tuple(
                [
                    await score_expectation(expectation, document, envelope, registry, suite.text)
                    for expectation in case.expectations
                ]
            )
    except TimeoutError:
        reason = f"no result within the {timeout:g} s deadline"
        return AttemptOutcome(
            case, attempt, "timed_out", reason, latency_ms, None, stderr, _not_run_all(case, reason)
        )
    except TargetFailure as failure:
        return _failed(case, attempt, failure.reason, latency_ms, failure.stderr)
    except Exception as error:
        return _failed(case, attempt, f"the target raised {type(error).__name__}", latency_ms)
    return AttemptOutcome(case, attempt, "completed", None, latency_ms, document, stderr, checks)


async def run_suite(
    suite: GoldSuite,
    run: AttemptRun,
    registry: ScorerRegistry,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
    stop: anyio.Event | None = None,
) -> list[AttemptOutcome | None]:
    """Every attempt of ``suite``, in case-major order; ``None`` where ``stop`` came first.

    Workers take the next attempt in order, so at most ``max_concurrency`` run at once and
    the earliest cases start first. Setting ``stop`` stops scheduling and cancels what is in
    flight; what finished is returned.
    """
    identities = list(attempt_identities(suite, options.repeat))
    slots: list[AttemptOutcome | None] = [None] * len(identities)
    # Sync python and http targets run in worker threads: let every worker have one.
    threads = anyio.to_thread.current_default_thread_limiter()
    threads.total_tokens = max(threads.total_tokens, options.max_concurrency)
    pending = iter(range(len(identities)))
    done = 0

    async def worker() -> None:
        nonlocal done
        for index in pending:
            case, attempt = identities[index]
            slots[index] = await run_attempt(suite, case, attempt, run, registry, options.timeout)
            done += 1
            if progress is not None:
                progress(done)

    async def cancel_when_stopped(event: anyio.Event, scope: anyio.CancelScope) -> None:
        await event.wait()
        scope.cancel()

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as outer:
            if stop is not None:
                outer.start_soon(cancel_when_stopped, stop, scope)
            async with anyio.create_task_group() as workers:
                for _ in range(min(options.max_concurrency, len(identities))):
                    workers.start_soon(worker)
            scope.cancel()  # the workers are done: end the watcher too
    return slots
