"""One rate limiter per live workflow and run, shared by every attempt in flight.

Requests are paced, not burst: each one is given the next free slot, ``60 / requests per
minute`` seconds after the one before it (stretched by ``SAFETY``), so that no 60-second
window, wherever it starts, holds more requests than the limit, and a provider that also
counts per second (most do) sees a steady stream. Tokens are paced the same way by what
each request is expected to use (``reserve``), settled against what its answer's usage says
it used; a request is sent once the tokens before it are paid for. Slots are handed out in
the order attempts ask, so none waits forever.

The limiter also learns from the provider: ``x-ratelimit-limit-*`` below the configured
limit lowers it, ``x-ratelimit-remaining-*`` at 0 holds every request until the matching
``x-ratelimit-reset-*``, and a 429's ``Retry-After`` holds them likewise (``hold``).

No wait outlives the attempt that asks: each caller names its own deadline, and a slot that
would come after it is not taken and not waited for (``acquire`` answers False at once), so
a provider that teaches a limit of 0.0001 requests a minute, or asks for a wait of years,
fails the attempts that cannot be served in time instead of holding them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Mapping

import anyio

SAFETY = 0.01
"""How much slower than the limit requests are paced: a request that reaches the server a
few milliseconds late must not put two into the server's window where it counts one."""

_DURATION = re.compile(
    r"(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m(?!s))?"
    r"(?:(?P<s>\d+(?:\.\d+)?)s)?(?:(?P<ms>\d+(?:\.\d+)?)ms)?"
)


def duration(text: str) -> float | None:
    """Seconds of a reset header: ``1s``, ``6m0s``, ``120ms``, ``1h2m``, or a plain number of
    seconds (one too large for a float is infinite: a wait no deadline holds); None for
    anything else, NaN and negative numbers included."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        match = _DURATION.fullmatch(text)
        if not text or match is None:
            return None
        parts = match.groupdict()
        value = sum(
            float(parts[name] or 0) * scale
            for name, scale in (("h", 3600), ("m", 60), ("s", 1), ("ms", 0.001))
        )
    return value if value >= 0 else None


def for_seconds(seconds: float) -> str:
    """A wait as a sentence says it: ``for 2.5 s``, ``for 6.06e+05 s``, ``indefinitely``."""
    if not math.isfinite(seconds):
        return "indefinitely"
    return f"for {max(seconds, 0.0):.3g} s"


class RateLimiter:
    """Paces requests and tokens under per-minute limits (either may be None: unlimited
    until the provider's headers say otherwise)."""

    def __init__(
        self,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        *,
        clock: Callable[[], float] = anyio.current_time,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._sleep = sleep
        self._next_request = -math.inf
        self._next_token = -math.inf
        self._held_until = -math.inf

    def _gap(self, per_minute: float | None) -> float:
        return 0.0 if per_minute is None else 60.0 / per_minute * (1 + SAFETY)

    def _tokens_gap(self, tokens: int) -> float:
        """Seconds ``tokens`` take at the token limit; infinite for a count no float holds
        (a ``max_tokens`` of 10**400 reserves a wait no deadline holds, not an error)."""
        try:
            return float(tokens) * self._gap(self.tokens_per_minute)
        except OverflowError:
            return math.inf

    def due(self) -> float:
        """When the next request slot is free (on ``clock``'s scale)."""
        return max(self._clock(), self._next_request, self._next_token, self._held_until)

    async def acquire(self, reserve: int = 0, deadline: float = math.inf) -> bool:
        """Wait for the next request slot with ``reserve`` tokens paid for; False, at once
        and with nothing taken, when that slot (or, after a hold came in, the next one) is
        not free now and starts after ``deadline``. The slot is taken before waiting, in the
        order callers ask (all of this runs on one event loop: no lock is needed between
        reading and taking it)."""
        while True:
            now = self._clock()
            start = self.due()
            if start > now and not start <= deadline:  # a free slot is always taken
                return False
            self._next_request = start + self._gap(self.requests_per_minute)
            if self.tokens_per_minute is not None:
                self._next_token = start + self._tokens_gap(reserve)
            if start > now:
                await self._sleep(start - now)
            if self._held_until <= self._clock():
                return True
            # A hold came in while this request waited for its slot: take a later one.

    def settle(self, reserved: int, used: int | None) -> None:
        """An answer used ``used`` tokens where ``reserved`` were paid for: later requests
        pay the difference (None: the answer did not say, or said a count no float holds;
        the reservation stands)."""
        if used is not None and self.tokens_per_minute is not None:
            extra = self._tokens_gap(used - reserved)
            if math.isfinite(extra):
                self._next_token += extra

    def hold(self, seconds: float) -> None:
        """No request is sent for ``seconds`` (a 429's Retry-After, a limit at 0); a wait
        that is not a positive number (negative, NaN) holds nothing."""
        if seconds > 0:
            self._held_until = max(self._held_until, self._clock() + seconds)

    def observe(self, headers: Mapping[str, str] | None) -> None:
        """Learn from an answer's ``x-ratelimit-*`` headers (see the module docstring)."""
        if not headers:
            return
        found = {name.lower(): value for name, value in headers.items()}
        for kind in ("requests", "tokens"):
            limit = _count(found.get(f"x-ratelimit-limit-{kind}"))
            attribute = f"{kind}_per_minute"
            current = getattr(self, attribute)
            if limit is not None and limit > 0 and (current is None or limit < current):
                setattr(self, attribute, float(limit))
            remaining = _count(found.get(f"x-ratelimit-remaining-{kind}"))
            reset = duration(found.get(f"x-ratelimit-reset-{kind}", ""))
            if remaining is not None and remaining <= 0 and reset is not None:
                # The provider refills as time passes: the next request is due once one
                # request's share of the minute has passed, or at the reset if sooner.
                per_minute = self.requests_per_minute if kind == "requests" else None
                self.hold(reset if per_minute is None else min(reset, 60.0 / per_minute))


def _count(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None
