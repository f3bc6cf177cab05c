"""The rate limiter on a clock of its own: requests paced under the limit in every 60-second
window, tokens paid for, holds honoured, and limits learnt from a provider's headers."""

from __future__ import annotations

import bisect
import math

import anyio
import pytest

from goldgate.run.live.ratelimit import SAFETY, RateLimiter, duration

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Clock:
    """Time that passes only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def most_in_a_minute(times: list[float]) -> int:
    ordered = sorted(times)
    return max(
        bisect.bisect_left(ordered, start + 60.0) - index for index, start in enumerate(ordered)
    )


async def sent(limiter: RateLimiter, clock: Clock, count: int, reserve: int = 0) -> list[float]:
    times = []
    for _ in range(count):
        await limiter.acquire(reserve)
        times.append(clock.now)
    return times


async def test_requests_never_exceed_the_limit_in_any_minute_and_take_what_it_imposes() -> None:
    clock = Clock()
    limiter = RateLimiter(600, None, clock=clock, sleep=clock.sleep)

    times = await sent(limiter, clock, 1_000)

    assert most_in_a_minute(times) <= 600
    imposed = (1_000 - 1) / 600 * 60  # the first request at 0, one every tenth of a second
    assert imposed <= times[-1] <= imposed * (1 + SAFETY) + 1e-9


async def test_slots_are_taken_in_the_order_attempts_ask_even_concurrently() -> None:
    limiter = RateLimiter(60 * 50, None)  # 50 a second, on the real loop clock
    order: list[int] = []

    async def one(number: int) -> None:
        await limiter.acquire()
        order.append(number)

    started = anyio.current_time()
    async with anyio.create_task_group() as group:
        for number in range(20):
            group.start_soon(one, number)
    assert order == list(range(20))
    assert anyio.current_time() - started >= 19 / 50


async def test_tokens_are_paid_for_and_settled_against_the_usage() -> None:
    clock = Clock()
    limiter = RateLimiter(None, 6_000, clock=clock, sleep=clock.sleep)  # 100 a second

    first = await sent(limiter, clock, 3, reserve=100)
    assert first == pytest.approx([0.0, 1.01, 2.02])
    limiter.settle(100, 300)  # the last answer used 200 more than it reserved
    await limiter.acquire(100)
    assert clock.now == pytest.approx(3.03 + 2.02)


async def test_a_hold_stops_every_request_until_it_ends() -> None:
    clock = Clock()
    limiter = RateLimiter(None, None, clock=clock, sleep=clock.sleep)
    await limiter.acquire()
    assert clock.now == 0.0
    assert limiter.due() == 0.0

    limiter.hold(5.0)
    assert limiter.due() == 5.0
    await limiter.acquire()
    assert clock.now == 5.0


@pytest.mark.parametrize("seconds", [-1.0, math.nan, 0.0])
def test_a_hold_that_is_no_positive_number_holds_nothing(seconds: float) -> None:
    clock = Clock()
    limiter = RateLimiter(None, None, clock=clock, sleep=clock.sleep)
    limiter.hold(seconds)
    assert limiter.due() == 0.0


async def test_a_slot_past_the_caller_s_deadline_is_neither_taken_nor_waited_for() -> None:
    clock = Clock()
    limiter = RateLimiter(60, None, clock=clock, sleep=clock.sleep)
    assert await limiter.acquire(deadline=10.0)
    # A provider taught a limit of 0.0001 requests a minute: the next slot is 7 days away.
    limiter.observe({"x-ratelimit-limit-requests": "0.0001"})
    assert await limiter.acquire(deadline=10.0)  # the slot paced at 60 a minute: 1.01 s
    assert clock.now == pytest.approx(1.01)
    assert not await limiter.acquire(deadline=1e5)
    assert clock.now == pytest.approx(1.01)  # not slept
    assert limiter.due() == pytest.approx(1.01 + 60 / 0.0001 * 1.01)  # nothing taken
    limiter.hold(math.inf)  # Retry-After of years, or too large for a float
    assert not await limiter.acquire(deadline=1e300)
    assert clock.now == pytest.approx(1.01)
    fresh = RateLimiter(60, None, clock=clock, sleep=clock.sleep)
    assert await fresh.acquire(deadline=clock.now - 1)  # a free slot, whatever the deadline


async def test_a_usage_no_float_holds_settles_nothing() -> None:
    clock = Clock()
    limiter = RateLimiter(None, 1_000, clock=clock, sleep=clock.sleep)
    await limiter.acquire(10)
    assert limiter.due() == pytest.approx(0.606)
    limiter.settle(10, 10**400)  # no OverflowError, and the reservation stands
    assert limiter.due() == pytest.approx(0.606)
    limiter.settle(10, 20)
    assert limiter.due() == pytest.approx(1.212)
    # A reservation no float holds (a max_tokens of 10**400) is a wait no deadline holds.
    assert await limiter.acquire(10**400)  # its own slot is free: no OverflowError
    assert limiter.due() == math.inf
    assert not await limiter.acquire(deadline=1e300)


async def test_it_learns_lower_limits_and_an_exhausted_window_from_headers() -> None:
    clock = Clock()
    limiter = RateLimiter(1_000, None, clock=clock, sleep=clock.sleep)

    limiter.observe({"X-RateLimit-Limit-Requests": "120", "x-ratelimit-limit-tokens": "9000"})
    assert (limiter.requests_per_minute, limiter.tokens_per_minute) == (120.0, 9000.0)
    limiter.observe({"x-ratelimit-limit-requests": "500"})  # never raised above what it knows
    assert limiter.requests_per_minute == 120.0

    # Out of requests: the provider refills as time goes, so one request's share of the
    # minute (0.5 s at 120 a minute), or the reset if that is sooner.
    limiter.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"})
    await limiter.acquire()
    assert clock.now == 0.5
    unknown = RateLimiter(None, None, clock=clock, sleep=clock.sleep)
    unknown.observe({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "2s"})
    await unknown.acquire()
    assert clock.now == 2.5
    limiter.observe({"x-ratelimit-remaining-tokens": "x", "x-ratelimit-reset-tokens": "?"})
    limiter.observe(None)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1s", 1.0), ("6m0s", 360.0), ("120ms", 0.12), ("1h2m3.5s", 3723.5), ("2.5", 2.5),
     ("", None), ("soon", None), ("-1", None), ("nan", None), ("-2s", None),
     ("9" * 400 + "s", math.inf), ("1" + "0" * 400, math.inf)],
)  # fmt: skip
def test_reset_durations(text: str, seconds: float | None) -> None:
    assert duration(text) == (None if seconds is None else pytest.approx(seconds))
