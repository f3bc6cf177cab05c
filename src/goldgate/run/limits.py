"""The bounds of a run's options, in a module of their own: the command line and the action's
inputs check them without importing the runner (asyncio, anyio and the scoring stack)."""

MAX_REPEAT = 10_000
"""More attempts per case than any gate needs; a typo such as --repeat 1000000 is refused."""
MAX_TIMEOUT = 86_400.0
"""One day per attempt: a longer deadline is a typo, and a deadline must end."""
MAX_CONCURRENCY = 64
"""Attempts in flight at once."""
