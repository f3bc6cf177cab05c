"""``LiveTarget`` through the real runner, in process: retries counted in the report,
transient failures of a python target retried, waits kept inside the attempt's deadline,
the rate limit's wait inside it (a slot past it fails the attempt at once, whatever a
provider asks for) but out of the latency, the cache answering without a call, and costs."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.gold import Case
from goldgate.gold.settings.live import PricingSettings
from goldgate.report.models import Report
from goldgate.run.api import EvaluationSuite, EvaluationVariant, Expectation, evaluate
from goldgate.run.errors import TargetFailure, TransientFailure
from goldgate.run.limits import RunOptions
from goldgate.run.live.cache import ResponseCache
from goldgate.run.live.ratelimit import RateLimiter
from goldgate.run.live.retry import RetryPolicy
from goldgate.run.live.target import LiveTarget
from goldgate.run.targets.base import TargetRequest, TargetResponse
from goldgate.run.targets.python_target import PythonTarget

pytestmark = pytest.mark.anyio

PRICING = PricingSettings(input_per_million=1.0, output_per_million=2.0, currency="EUR")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Flaky:
    """A target failing ``failures`` times per case (with ``kind``), then answering."""

    def __init__(self, failures: int, kind: str = "429", retry_after: float | None = None):
        self.failures = failures
        self.kind = kind
        self.retry_after = retry_after
        self.calls: dict[str, int] = {}

    def load(self) -> None:
        pass

    async def aclose(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"kind": "flaky"}

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        message = request.envelope["payload"]["message"]
        self.calls[message] = self.calls.get(message, 0) + 1
        if self.calls[message] <= self.failures:
            raise TransientFailure(
                f"flaky answered {self.kind}", kind=self.kind, retry_after=self.retry_after
            )
        document = {"payload": {"answer": message.upper()},
                    "usage": {"input_tokens": 1_000, "output_tokens": 500}}  # fmt: skip
        return TargetResponse(document)


def suite(count: int = 3) -> EvaluationSuite:
    cases = [
        Case(
            id=f"c{n}",
            input={"payload": {"message": f"hi {n}"}, "metadata": {}},
            expectations=[Expectation("answer", "/payload/answer", f"HI {n}")],
        )
        for n in range(count)
    ]
    return EvaluationSuite("live", cases)


def variant(target: Any) -> EvaluationVariant:
    async def run(envelope: Mapping[str, Any]) -> Any:
        return await target(TargetRequest("live", None, None, envelope))

    return EvaluationVariant("candidate", "r1", run)


def live(inner: Any, **kwargs: Any) -> LiveTarget:
    kwargs.setdefault("policy", RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.05))
    return LiveTarget(inner, workflow_revision="w1", draw=lambda: 0.5, **kwargs)


async def test_retries_are_counted_per_attempt_and_costs_add_up() -> None:
    inner = Flaky(failures=2)
    report = await evaluate(
        suite(), variant(live(inner, pricing=PRICING)), options=RunOptions(max_concurrency=3)
    )

    [record] = report.suites
    assert record.verdict == "passed"
    attempts = [case.attempts[0] for case in record.cases]
    assert [(a.status, a.retries, a.cached, a.cost) for a in attempts] == [
        ("completed", 2, False, 0.002)
    ] * 3
    assert record.live is not None
    assert (record.live.retries, record.live.cached) == (6, 0)
    assert (record.live.cost, record.live.spent) == (pytest.approx(0.006), pytest.approx(0.006))
    assert report.live is not None
    assert report.live.retries == 6


async def test_spent_retries_fail_the_attempt_with_the_last_reason() -> None:
    report = await evaluate(suite(1), variant(live(Flaky(failures=9, kind="5xx"))))
    attempt = report.suites[0].cases[0].attempts[0]
    assert (attempt.status, attempt.retries) == ("failed", 3)
    assert attempt.reason == "flaky answered 5xx (after 3 retries)"


async def test_a_kind_the_policy_does_not_retry_fails_at_once() -> None:
    policy = RetryPolicy(attempts=4, backoff=0.01, on=frozenset({"429"}))
    report = await evaluate(suite(1), variant(live(Flaky(1, kind="5xx"), policy=policy)))
    attempt = report.suites[0].cases[0].attempts[0]
    assert (attempt.status, attempt.retries, attempt.reason) == ("failed", 0, "flaky answered 5xx")


async def test_a_wait_past_the_deadline_is_not_waited() -> None:
    inner = Flaky(failures=1, retry_after=30.0)
    started = anyio.current_time()
    report = await evaluate(suite(1), variant(live(inner)), options=RunOptions(timeout=2.0))
    attempt = report.suites[0].cases[0].attempts[0]
    assert anyio.current_time() - started < 1.0
    assert attempt.status == "failed"
    assert attempt.reason == (
        "flaky answered 429; a retry's wait would pass the attempt's deadline"
    )


async def test_a_stop_while_a_call_is_failing_cancels_the_attempt() -> None:
    """The run stops (its scope cancelled) while a call is answering a retryable failure:
    the cancelled scope's deadline reads as passed, and the attempt is cancelled, not failed
    for a retry's wait past its deadline (the report of an interrupted run said so)."""
    stopped = anyio.CancelScope()

    class StoppedWhileFailing(Flaky):
        async def __call__(self, request: TargetRequest) -> TargetResponse:
            stopped.cancel()  # the stop arrives while this call is in flight
            return await super().__call__(request)

    inner = StoppedWhileFailing(failures=1, retry_after=30.0)
    outcome: list[str] = []
    with stopped:
        try:
            await live(inner)(TargetRequest("live", None, None, {"payload": {"message": "x"}}))
        except TargetFailure as failure:
            outcome.append(f"failed: {failure.reason}")
        except anyio.get_cancelled_exc_class():
            outcome.append("cancelled")
            raise
    assert outcome == ["cancelled"]
    assert inner.calls == {"x": 1}  # and not called again


async def test_a_429_holds_every_concurrent_attempt_for_its_retry_after() -> None:
    limiter = RateLimiter(None, None)
    inner = Flaky(failures=1, retry_after=0.3)
    started = anyio.current_time()
    report = await evaluate(
        suite(4), variant(live(inner, limiter=limiter)), options=RunOptions(max_concurrency=4)
    )
    assert report.suites[0].verdict == "passed"
    assert anyio.current_time() - started >= 0.3


async def test_waiting_for_the_rate_limit_is_inside_the_deadline_but_not_the_latency() -> None:
    # 6 attempts at 4 a second wait up to 1.25 s for their slots, inside a 5 s timeout; none's
    # latency holds the wait.
    limiter = RateLimiter(240, None)
    report = await evaluate(
        suite(6),
        variant(live(Flaky(0), limiter=limiter)),
        options=RunOptions(max_concurrency=6, timeout=5.0),
    )
    [record] = report.suites
    assert record.counts.attempts["completed"] == 6
    latencies = [case.attempts[0].latency_ms for case in record.cases]
    assert max(latency or 0 for latency in latencies) < 500


async def test_a_rate_limit_slot_past_the_deadline_fails_the_attempt_without_waiting() -> None:
    # 12 attempts at 4 a second under a 1 s timeout: the first four get their slots (0 to
    # 0.75 s), the other eight fail at once rather than wait past their deadlines.
    limiter = RateLimiter(240, None)
    report = await evaluate(
        suite(12),
        variant(live(Flaky(0), limiter=limiter)),
        options=RunOptions(max_concurrency=12, timeout=1.0),
    )
    attempts = [case.attempts[0] for case in report.suites[0].cases]
    assert [a.status for a in attempts] == ["completed"] * 4 + ["failed"] * 8
    for attempt in attempts[4:]:
        assert attempt.reason is not None
        assert attempt.reason.startswith("the workflow's rate limit holds its next request for ")
        assert attempt.reason.endswith(" s, past the attempt's deadline")


class Teaching(Flaky):
    """Answers at once, with rate-limit headers that teach an absurd limit or reset."""

    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__(0)
        self.headers = headers

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        answer = await super().__call__(request)
        return TargetResponse(answer.document, headers=self.headers)


@pytest.mark.parametrize(
    "headers",
    [
        {"x-ratelimit-limit-requests": "0.0001"},
        {"x-ratelimit-limit-requests": "1e-320"},  # 60 / it is no float
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "99999999h"},
        {"x-ratelimit-limit-tokens": "0.0001"},
        {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "9999h0m0s"},
    ],
)  # fmt: skip
async def test_a_learned_limit_fails_later_attempts_at_once_instead_of_holding_them(
    headers: dict[str, str],
) -> None:
    # The first answer teaches a wait of days or more (paced from the slot after it): later
    # attempts, with an hour each, fail now (a wait would outlive this test).
    inner = Teaching(headers)
    report = await evaluate(
        suite(4),
        variant(live(inner, limiter=RateLimiter(None, None))),
        options=RunOptions(timeout=3600.0),
    )
    attempts = [case.attempts[0] for case in report.suites[0].cases]
    assert attempts[0].status == "completed"
    assert {a.status for a in attempts[2:]} == {"failed"}
    assert all("past the attempt's deadline" in (a.reason or "") for a in attempts[2:])


@pytest.mark.parametrize("retry_after", [1e9, math.inf, 10**400])
async def test_a_retry_after_past_the_deadline_fails_now_and_holds_no_later_attempt(
    retry_after: float,
) -> None:
    inner = Flaky(failures=1, retry_after=retry_after)
    report = await evaluate(
        suite(3),
        variant(live(inner, limiter=RateLimiter(None, None))),
        options=RunOptions(timeout=3600.0),
    )
    attempts = [case.attempts[0] for case in report.suites[0].cases]
    assert attempts[0].reason == (
        "flaky answered 429; a retry's wait would pass the attempt's deadline"
    )
    # The 429's hold stands for every attempt: the later ones fail at once too.
    for attempt in attempts[1:]:
        assert attempt.status == "failed"
        assert attempt.reason is not None
        assert "rate limit holds its next request" in attempt.reason
    assert inner.calls == {"hi 0": 1}


@pytest.mark.parametrize("retry_after", [math.nan, -5.0, "soon"])
async def test_a_retry_after_that_is_no_wait_is_the_policy_s_own_wait(retry_after: Any) -> None:
    inner = Flaky(failures=1, retry_after=retry_after)
    report = await evaluate(
        suite(2),
        variant(live(inner, limiter=RateLimiter(None, None))),
        options=RunOptions(timeout=5.0),
    )
    attempts = [case.attempts[0] for case in report.suites[0].cases]
    assert [(a.status, a.retries) for a in attempts] == [("completed", 1)] * 2


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": 10**400, "output_tokens": 0},  # no float holds it
        {"prompt_tokens": 10**300, "completion_tokens": 10**300},  # its cost is infinite
        {"input_tokens": 2 * 10**21, "output_tokens": 0},  # finite, past any real cost
    ],
)
async def test_a_usage_whose_cost_is_no_finite_number_fails_that_attempt(
    usage: dict[str, int], tmp_path: Path
) -> None:
    class Greedy(Flaky):
        async def __call__(self, request: TargetRequest) -> TargetResponse:
            if request.envelope["payload"]["message"] == "hi 1":
                return TargetResponse({"payload": {"answer": "HI 1"}, "usage": usage})
            return await super().__call__(request)

    cache = ResponseCache(tmp_path / "cache")
    target = live(Greedy(0), pricing=PRICING, cache=cache)
    report = await evaluate(suite(3), variant(target))
    [record] = report.suites
    attempts = [case.attempts[0] for case in record.cases]
    assert [a.status for a in attempts] == ["completed", "failed", "completed"]
    assert attempts[1].reason is not None
    assert attempts[1].reason.startswith("the answer's usage makes its cost ")
    assert attempts[1].reason.endswith(
        " at the workflow's pricing (its token counts cannot be right)"
    )
    assert record.live is not None
    assert record.live.cost == pytest.approx(0.004)
    assert cache.written == 2  # the refused answer is not kept


async def test_a_python_target_s_transient_failure_is_retried(tmp_path: Path) -> None:
    (tmp_path / "shaky_app.py").write_text(
        "import goldgate\n"
        "SEEN = {}\n"
        "def handle(request):\n"
        "    message = request['envelope']['payload']['message']\n"
        "    SEEN[message] = SEEN.get(message, 0) + 1\n"
        "    if SEEN[message] == 1:\n"
        "        raise goldgate.TransientFailure('provider busy\\n(503)', retry_after=0.01)\n"
        "    return {'payload': {'answer': message.upper()}}\n"
    )
    target = PythonTarget("shaky_app:handle", [tmp_path])
    target.load()
    report = await evaluate(suite(2), variant(live(target)))
    attempts = [case.attempts[0] for case in report.suites[0].cases]
    assert [(a.status, a.retries) for a in attempts] == [("completed", 1)] * 2

    once = RetryPolicy(attempts=1)
    target = PythonTarget("shaky_app:handle", [tmp_path])
    with pytest.raises(TransientFailure) as caught:
        await live(target, policy=once)(
            TargetRequest("w", None, None, {"payload": {"message": "new"}})
        )
    assert caught.value.reason == "python target failed transiently: provider busy\\n(503)"


async def test_the_cache_answers_without_a_call_and_marks_it(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    first = await evaluate(suite(), variant(live(Flaky(0), cache=cache, pricing=PRICING)))
    inner = Flaky(0)
    second = await evaluate(suite(), variant(live(inner, cache=cache, pricing=PRICING)))

    assert inner.calls == {}
    assert [c.attempts[0].cached for c in first.suites[0].cases] == [False] * 3
    assert [c.attempts[0].cached for c in second.suites[0].cases] == [True] * 3
    live_figures = second.suites[0].live
    assert live_figures is not None
    assert (live_figures.cached, live_figures.cost, live_figures.spent) == (
        3, pytest.approx(0.006), 0.0,
    )  # fmt: skip
    assert _results(first) == _results(second)
    assert (cache.hits, cache.written) == (3, 3)


def _results(report: Report) -> list[Any]:
    return [case.attempts[0].result for case in report.suites[0].cases]


async def test_a_failure_that_is_not_transient_is_never_retried() -> None:
    class Broken(Flaky):
        async def __call__(self, request: TargetRequest) -> TargetResponse:
            self.calls["x"] = self.calls.get("x", 0) + 1
            raise TargetFailure("broken answered 404")

    inner = Broken(0)
    report = await evaluate(suite(1), variant(live(inner)))
    assert report.suites[0].cases[0].attempts[0].reason == "broken answered 404"
    assert inner.calls == {"x": 1}


@pytest.mark.parametrize(("bound", "held"), [(0.006, True), (0.005, False)])
async def test_a_cost_threshold_is_a_maximum(bound: float, held: bool) -> None:
    gated = EvaluationSuite(
        "live", suite().cases, thresholds={"cost.total": bound, "latency.p95_ms": 60_000}
    )
    report = await evaluate(gated, variant(live(Flaky(0), pricing=PRICING)))

    [record] = report.suites
    cost, latency = record.thresholds
    assert (cost.key, cost.minimum, cost.maximum, cost.held) == ("cost.total", None, bound, held)
    assert cost.actual == pytest.approx(0.006)
    assert latency.held
    assert latency.actual is not None
    assert latency.actual < 60_000
    assert record.verdict == ("passed" if held else "failed")
