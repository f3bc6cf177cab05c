"""The attempt a runner's worker is on, as code running inside it may see it.

The runner keeps one ``InFlight`` per worker, in a context variable of the worker's task, so
that the live layer (``goldgate.run.live``), which wraps a target and knows nothing of the
runner, can tell it two things about the attempt it is running: how many retries it took
(``note_retry``, recorded in the report), and how long it waited for the run's own rate
limit (``note_paused``: not the target's latency). Every wait stays inside the attempt's
deadline: the deadline never moves, so that no attempt outlives ``--timeout``. Outside a
runner both do nothing.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from goldgate.run.watchdog import Watchdog

__all__ = ["InFlight", "note_paused", "note_retry"]


class InFlight:
    """The attempt a worker is on, so that its deadline can be recorded against it."""

    __slots__ = (
        "attempt",
        "index",
        "latency_ms",
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
        """Seconds of the attempt spent waiting for the rate limit (``note_paused``): not
        its latency."""
        self.scope: anyio.CancelScope | None = None
        """The worker's cancel scope, whose deadline is the attempt's."""
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
        self.retries, self.paused = 0, 0.0


CURRENT: ContextVar[InFlight | None] = ContextVar("goldgate attempt in flight", default=None)
"""Set once by each worker of ``runner.run_suite`` for its own task."""


def note_retry() -> None:
    """The attempt in flight makes one more call than the first."""
    current = CURRENT.get()
    if current is not None:
        current.retries += 1


def note_paused(seconds: float) -> None:
    """The attempt in flight spent ``seconds`` waiting for the run's rate limit: inside its
    deadline, but not its target's latency."""
    current = CURRENT.get()
    if current is not None:
        current.paused += seconds
