"""``LiveTarget``: a workflow's target with its retries, rate limit, pricing and cache.

One attempt, as ``__call__`` makes it: the cache first (a stored answer is the attempt's,
``cached``, and nothing is called or waited for); then, for each call, a slot from the
workflow's rate limiter, the call, and what its answer teaches the limiter. Every wait is
inside the attempt's deadline, which never moves: a slot that would come after it is not
waited for, and the attempt fails at once as a transient failure that says so (the wait for
a slot is left out of the attempt's latency: ``inflight.note_paused``). A
``TransientFailure`` the policy retries is retried after its wait unless the retries are
spent or the wait would pass the attempt's deadline; the attempt then fails with the last
failure's reason. A completed answer is priced (a cost that is not a finite number, or past
``cost.MAX_COST``, fails the attempt) and stored in the cache.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anyio

from goldgate.gold.settings.live import PricingSettings
from goldgate.run.errors import TargetFailure, TransientFailure
from goldgate.run.inflight import CURRENT, note_paused, note_retry
from goldgate.run.live.cache import ResponseCache
from goldgate.run.live.cost import priced, tokens
from goldgate.run.live.ratelimit import RateLimiter, for_seconds
from goldgate.run.live.retry import RetryPolicy
from goldgate.run.targets.base import Target, TargetRequest, TargetResponse

DEADLINE_MARGIN = 0.05
"""Seconds a retry must leave before the attempt's deadline to be worth making."""


class LiveTarget:
    """``inner`` with what its workflow's live settings ask for (see the module docstring)."""

    def __init__(
        self,
        inner: Target,
        *,
        workflow_revision: str,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        pricing: PricingSettings | None = None,
        cache: ResponseCache | None = None,
        draw: Callable[[], float] = random.random,
    ) -> None:
        self.inner = inner
        self.workflow_revision = workflow_revision
        self.policy = policy
        self.limiter = limiter
        self.pricing = pricing
        self.cache = cache
        self._draw = draw
        self._identity: dict[str, Any] | None = None

    def load(self) -> None:
        self.inner.load()

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _priced(self, document: dict[str, Any]) -> float | None:
        return None if self.pricing is None else priced(document.get("usage"), self.pricing)

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        key = None
        if self.cache is not None:
            if self._identity is None:
                self._identity = cache_identity(self.inner, self.cache.code)
            current = CURRENT.get()
            attempt = 1 if current is None else current.attempt
            key = self.cache.key(self.workflow_revision, self._identity, request.as_json(), attempt)
            stored = self.cache.load(key)
            if stored is not None:
                return TargetResponse(stored, cached=True, cost=self._priced(stored))
        answer = await self._call(request)
        cost = self._priced(answer.document)  # before storing: a cost refused is no answer
        if key is not None and self.cache is not None:
            self.cache.store(key, answer.document)
        return replace(answer, cost=cost)

    async def _call(self, request: TargetRequest) -> TargetResponse:
        reserve = _reserve(self.inner, request)
        retries = 0
        while True:
            if self.limiter is not None:
                await self._slot(self.limiter, reserve)
            try:
                answer = await self.inner(request)
            except TransientFailure as failure:
                self._learn(reserve, None, failure.headers)
                if failure.kind == "429" and failure.retry_after and self.limiter is not None:
                    self.limiter.hold(failure.retry_after)
                wait = self._next_wait(retries, failure)
                if wait is None:
                    raise
                # A stopped run cancels the attempt's scope, whose deadline then reads as
                # passed: the attempt is cancelled, not failed for a wait past its deadline.
                await anyio.lowlevel.checkpoint_if_cancelled()
                if wait < 0:  # a retry was due, but its wait would pass the deadline
                    reason = f"{failure.reason}; a retry's wait would pass the attempt's deadline"
                    raise TransientFailure(reason, kind=failure.kind) from None
            else:
                usage = tokens(answer.document.get("usage"))
                self._learn(reserve, None if usage is None else sum(usage), answer.headers)
                return answer
            retries += 1
            note_retry()
            await anyio.sleep(wait)

    async def _slot(self, limiter: RateLimiter, reserve: int) -> None:
        """The rate limiter's next slot, waited for inside the attempt's deadline; a slot
        past it is a ``TransientFailure`` now, not after waiting."""
        began = anyio.current_time()
        deadline = anyio.current_effective_deadline() - DEADLINE_MARGIN
        if await limiter.acquire(reserve, deadline):
            note_paused(anyio.current_time() - began)
            return
        # A stopped run cancels the attempt's scope, whose deadline then reads as passed.
        await anyio.lowlevel.checkpoint_if_cancelled()
        wait = limiter.due() - began
        raise TransientFailure(
            f"the workflow's rate limit holds its next request {for_seconds(wait)}, past the "
            "attempt's deadline",
            kind="rate_limit",
        )

    def _learn(self, reserve: int, used: int | None, headers: Any) -> None:
        if self.limiter is not None:
            self.limiter.settle(reserve, used)
            self.limiter.observe(headers)

    def _next_wait(self, retries: int, failure: TransientFailure) -> float | None:
        """Seconds before the next call; None: no retry (not a kind retried, or the retries
        are spent); -1: a retry, whose wait would pass the attempt's deadline."""
        if not self.policy.retries(failure) or retries + 1 >= self.policy.attempts:
            return None
        wait = self.policy.wait(retries + 1, failure, self._draw())
        left = anyio.current_effective_deadline() - anyio.current_time()
        return -1.0 if wait + DEADLINE_MARGIN >= left else wait


def cache_identity(inner: Target, code: str | None = None) -> dict[str, Any]:
    """What decides the target's answers, for the cache's key: a target's own
    ``cache_identity()`` where it has one (http and model targets: values ``describe()``
    leaves out, such as query values and literal header values), else ``describe()`` with
    ``code``, the commit being evaluated: a python or command target's answers come from the
    code in the checkout, so a pull request that changes it must not take the answers of
    the code before it."""
    identity = getattr(inner, "cache_identity", None)
    if identity is not None:
        own: dict[str, Any] = identity()
        return own
    return {**inner.describe(), "code": code}


def _reserve(inner: Target, request: TargetRequest) -> int:
    """Tokens a call is expected to use, paid for before it is sent: the model target's
    estimate; 0 for others (their usage is settled after the answer)."""
    estimate = getattr(inner, "estimate_tokens", None)
    if estimate is None:
        return 0
    try:
        return int(estimate(request))
    except TargetFailure:
        return 0  # the call itself will fail and say why


__all__ = ["LiveTarget"]
