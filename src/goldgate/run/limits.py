"""A run's options, their defaults and their bounds, in one module of their own: the command
line, the Python API, evals, regrade and the action's inputs build ``RunOptions`` here
without importing the runner (asyncio, anyio and the scoring stack)."""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_REPEAT = 10_000
"""More attempts per case than any gate needs; a typo such as --repeat 1000000 is refused."""
MAX_TIMEOUT = 86_400.0
"""One day per attempt: a longer deadline is a typo, and a deadline must end."""
MAX_CONCURRENCY = 64
"""Attempts in flight at once."""

DEFAULT_CONCURRENCY = 1
DEFAULT_TIMEOUT = 300.0
"""Seconds per attempt when no --timeout is given."""
DEFAULT_REPEAT = 1
HTTP_MARGIN = 5.0
"""Seconds an http target's own request timeout runs past the attempt's deadline, so that
the deadline decides and an unanswered request is always 'timed_out'."""


@dataclass(frozen=True)
class RunOptions:
    """How a run runs: workers per suite, seconds per attempt, attempts per case."""

    max_concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    repeat: int = DEFAULT_REPEAT

    def __post_init__(self) -> None:
        if not 1 <= self.max_concurrency <= MAX_CONCURRENCY:
            raise ValueError(f"max_concurrency must be between 1 and {MAX_CONCURRENCY}")
        if not (0 < self.timeout <= MAX_TIMEOUT and math.isfinite(self.timeout)):
            raise ValueError(
                f"timeout must be a positive number of seconds, at most {MAX_TIMEOUT:g}"
            )
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise ValueError(f"repeat must be between 1 and {MAX_REPEAT}")

    @property
    def http_timeout(self) -> float:
        """The request timeout of the run's http targets: the attempt's deadline decides."""
        return self.timeout + HTTP_MARGIN


DEFAULT_OPTIONS = RunOptions()
"""The options of a run that names none."""
