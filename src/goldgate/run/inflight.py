"""The attempt a runner's worker is on, as code running inside it may see it.

The runner keeps one ``InFlight`` per worker, in a context variable of the worker's task, so
that the live layer (``goldgate.run.live``), which wraps a target and knows nothing of the
runner, can tell it two things about the attempt it is running: how many retries it took
(``note_retry``, recorded in the report), and that a wait is the run's own doing, not the
target's (``outside_deadline``: waiting for the run's rate limit neither counts against the
attempt's ``--timeout`` nor in its latency). Outside a runner both do nothing.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from goldgate.run.watchdog import Watchdog

__all__ = ["InFlight", "note_retry", "outside_deadline"]


class InFlight:
    """The attempt a worker is on, so that its deadline can be recorded against it."""

    __slots__ = (
        "attempt",
        "index",
        "latency_ms",
        "moved",
        "paused",
        "retries",
        "scope",
        "watchdog",
    )

    def __init__(self) -> None:
        self.index = -1
        self.attempt = 0
        self.latency_ms: float | None = None
        self.retries = 0
        """Calls after the first that the attempt made (``note_retry``)."""
        self.paused = 0.0
        """Seconds of the attempt spent ``outside_deadline``: not its latency."""
        self.scope: anyio.CancelScope | None = None
        """The worker's cancel scope, whose deadline is the attempt's."""
        self.moved = False
        """The scope's deadline was moved (``outside_deadline``): the worker sets it anew."""
        self.watchdog: Watchdog | None = None

    @classmethod
    def entered(cls, watchdog: Watchdog | None) -> InFlight:
        """A worker's own, set in its task's context (``CURRENT``): only that task sees it."""
        current = cls()
        current.watchdog = watchdog
        CURRENT.set(current)
        return current

    def begin(self, index: int, attempt: int) -> None:
        """A new attempt starts on this worker (its deadline is already armed)."""
        self.index, self.attempt, self.latency_ms = index, attempt, None
        self.retries, self.paused, self.moved = 0, 0.0, False


CURRENT: ContextVar[InFlight | None] = ContextVar("goldgate attempt in flight", default=None)
"""Set once by each worker of ``runner.run_suite`` for its own task."""


def note_retry() -> None:
    """The attempt in flight makes one more call than the first."""
    current = CURRENT.get()
    if current is not None:
        current.retries += 1


@asynccontextmanager
async def outside_deadline() -> AsyncIterator[None]:
    """Time spent in this block is not the attempt's: its deadline moves later by as much
    (the watchdog's with it), and its latency leaves it out. Cancellation from outside (a
    stop, Ctrl-C) still ends the block at once."""
    current = CURRENT.get()
    scope = None if current is None else current.scope
    if current is None or scope is None or math.isinf(scope.deadline):
        yield
        return
    began = anyio.current_time()
    left = scope.deadline - began
    scope.deadline = math.inf
    watchdog = current.watchdog
    if watchdog is not None:
        watchdog.end(current)
    try:
        yield
    finally:
        ended = anyio.current_time()
        scope.deadline = ended + left
        current.moved = True
        current.paused += ended - began
        if watchdog is not None:
            watchdog.begin(current, left)
