"""Which transient failures are retried, and how long to wait before the next call.

Pure: the wait is drawn from a random number the caller passes in, and the deadline is the
caller's to check (``target.LiveTarget``).
"""

from __future__ import annotations

from dataclasses import dataclass

from goldgate.gold.settings.live import RETRY_ON, RetrySettings
from goldgate.run.errors import TransientFailure

MODEL_ATTEMPTS = 4
"""Calls in all a ``model`` target makes when its workflow sets no ``retry``: providers
answer 429 and 5xx often enough that a run without retries would fail for no fault."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 1
    backoff: float = 0.5
    max_backoff: float = 30.0
    on: frozenset[str] = frozenset(RETRY_ON)

    @classmethod
    def of(cls, settings: RetrySettings | None, kind: str) -> RetryPolicy:
        """The workflow's policy: its ``retry`` settings, else the defaults for a model target
        and no retry for any other (an application's own 500 is not retried unasked)."""
        if settings is None:
            return cls(attempts=MODEL_ATTEMPTS if kind == "model" else 1)
        return cls(
            settings.attempts, settings.backoff, settings.max_backoff, frozenset(settings.on)
        )

    def retries(self, failure: TransientFailure) -> bool:
        """Whether ``failure`` is of a kind this policy retries (a python target's
        ``transient`` always is)."""
        return failure.kind == "transient" or failure.kind in self.on

    def wait(self, retry: int, failure: TransientFailure, draw: float) -> float:
        """Seconds before retry number ``retry`` (1 for the first): exponential backoff from
        ``backoff``, doubled each time and capped at ``max_backoff``, with equal jitter (half
        the step fixed, half drawn: ``draw`` in [0, 1)), so that concurrent attempts that
        failed together do not call again together. A longer ``Retry-After`` is waited
        instead: the server knows when it will answer."""
        step = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        wait = step / 2 + step / 2 * draw
        if failure.retry_after is not None:
            wait = max(wait, failure.retry_after)
        return wait
