"""The errors of a run, each a ``GoldgateError`` with its exit code.

A target's failure ends one attempt, not the run: the runner records it in the report
(``reason``, and the private ``stderr`` or ``exception``), and it is exit 4 only if it
escapes. ``Refused`` is an answer an exchange will not take (too large, or an encoding it
does not undo); the exchange turns it into a ``TargetFailure``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from goldgate.base.errors import ExitCode, GoldgateError

__all__ = ["Refused", "TargetFailure", "TransientFailure"]


class TargetFailure(GoldgateError):
    """One attempt's target failed: it raised, exited non-zero, answered an HTTP error, or
    returned something that is not a result document (exit 4 for the run).

    ``reason`` (also ``str(failure)``) is one sentence that is safe for stdout: it names kinds,
    sizes, exit codes, HTTP status codes and exception type names, never the request, the
    response, header values or secrets. ``stderr`` is the bounded tail of a command's standard
    error, private detail for the report only; ``exception`` what an in-process target raised
    (``targets.exceptions.exception_json``), for the report.
    """

    exit_code = ExitCode.RUNTIME_FAILURE

    def __init__(
        self,
        reason: str,
        *,
        stderr: str | None = None,
        exception: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stderr = stderr
        self.exception = exception

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r})"


class TransientFailure(TargetFailure):
    """A failure that may pass if the call is made again: raise it from a python target (it
    is ``goldgate.TransientFailure``) for a provider's rate limit or outage, and the
    workflow's ``retry`` settings retry the attempt, as they retry an http or model target's
    429, 5xx, timeout or failed connection. Once the retries are spent (or the next wait
    would pass the attempt's deadline), the attempt fails with ``reason``.

    ``reason`` is one sentence safe for stdout (never a secret, a request or an answer).
    ``retry_after``: seconds the provider asked to wait (``Retry-After``), if it said so (a
    negative number, NaN or anything not a number asks for no wait; one too large for a
    float is infinite). A wait past the attempt's deadline is never waited: the attempt fails
    at once.
    ``kind``: ``429``, ``5xx``, ``timeout``, ``connect`` (what ``retry.on`` names) or
    ``transient`` (a python target's: always retried). ``headers``: the answer's rate-limit
    headers, which the run's rate limiter learns from.
    """

    def __init__(
        self,
        reason: str,
        *,
        retry_after: float | None = None,
        kind: str = "transient",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(reason)
        self.retry_after = _wait(retry_after)
        self.kind = kind
        self.headers = headers


def _wait(seconds: object) -> float | None:
    """A ``retry_after`` as a wait: a number of seconds at least 0 (too large for a float:
    infinite); None for anything else (NaN, a negative number, not a number), which asks
    for no particular wait."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    try:
        wait = float(seconds)
    except OverflowError:
        return math.inf
    return wait if wait >= 0 else None


class Refused(GoldgateError):
    """The answer cannot be taken: ``reason`` completes "the answer ..." (one sentence,
    no data from the answer but a coding's name)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
