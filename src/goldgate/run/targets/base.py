"""What every target shares: the request, the response, the failure, the protocol, and the
context a target of any kind is built with (``factory.TARGET_KINDS``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

import orjson

from goldgate.base.frozen import built
from goldgate.base.jsonvalue import JsonValue, thaw

JsonObject: TypeAlias = dict[str, JsonValue]
"""A plain JSON object as ``json`` produces it."""


@dataclass(frozen=True)
class TargetRequest:
    """What a target receives for one attempt: the workflow, optional flow and step, and the
    case's envelope (``{"payload": {...}, "metadata": {...}}``, plain or frozen JSON)."""

    workflow: str
    flow: str | None
    step: str | None
    envelope: Mapping[str, Any] = field(repr=False)

    def as_json(self) -> JsonObject:
        """A fresh, plain JSON object: ``{"workflow", "flow", "step", "envelope"}``. Every call
        returns a new deep copy, so a target may change what it gets without harm."""
        return {
            "workflow": self.workflow,
            "flow": self.flow,
            "step": self.step,
            "envelope": _deep_copy(self.envelope),
        }


def _deep_copy(envelope: Mapping[str, Any]) -> JsonObject:
    """A fresh plain copy: through orjson for plain dicts (several times faster than walking
    them in Python), else by thawing (frozen input from the Python API)."""
    if type(envelope) is dict:
        try:
            copied: JsonObject = orjson.loads(orjson.dumps(envelope))
            return copied
        except (orjson.JSONEncodeError, TypeError):
            pass
    thawed: JsonObject = thaw(envelope)
    return thawed


@dataclass(frozen=True)
class TargetResponse:
    """A result document (always a JSON object) and, for commands, the tail of stderr.

    The rest is what the live layer (``goldgate.run.live``) adds or reads: ``headers``, the
    rate-limit headers of an http or model answer (``x-ratelimit-*``, never others);
    ``cached``, taken from the response cache without a call; ``cost``, the attempt's usage
    priced by the workflow's ``pricing``. (The retries an attempt took are counted where it
    runs: ``goldgate.run.inflight``.)"""

    document: JsonObject = field(repr=False)
    stderr: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] | None = field(default=None, repr=False)
    cached: bool = False
    cost: float | None = None


def response(document: JsonObject, stderr: str | None = None) -> TargetResponse:
    """``TargetResponse(document, stderr)`` built without ``__init__`` (``goldgate.base.frozen``):
    every attempt of an in-process target makes one."""
    return built(
        TargetResponse,
        {
            "document": document,
            "stderr": stderr,
            "headers": None,
            "cached": False,
            "cost": None,
        },
    )


class TargetFailure(Exception):
    """One attempt's target failed: it raised, exited non-zero, answered an HTTP error, or
    returned something that is not a result document (exit 4 for the run).

    ``reason`` (also ``str(failure)``) is one sentence that is safe for stdout: it names kinds,
    sizes, exit codes, HTTP status codes and exception type names, never the request, the
    response, header values or secrets. ``stderr`` is the bounded tail of a command's standard
    error, private detail for the report only; ``exception`` what an in-process target raised
    (``targets.exceptions.exception_json``), for the report.
    """

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


@runtime_checkable
class Target(Protocol):
    """How goldgate reaches the application for one workflow.

    ``load()`` prepares the target and raises ``InvalidInputError`` for configuration that can
    never work (a python target that does not import); call it before anything runs. Calling
    the target runs one attempt; any failure of the attempt is a ``TargetFailure``, while
    cancellation (a deadline, Ctrl-C) propagates unchanged after the target cleaned up.
    """

    def load(self) -> None:
        """Prepare the target; ``InvalidInputError`` when it cannot work at all."""
        ...

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        """Run one attempt: the result document, or ``TargetFailure``."""
        ...

    async def aclose(self) -> None:
        """Release whatever the target holds."""
        ...

    def describe(self) -> dict[str, Any]:
        """The target's identity for the report: its kind and python import path, argv or
        URL. Never header values."""
        ...


@dataclass(frozen=True)
class TargetContext:
    """What a target is built with besides its kind's own settings: the folder holding
    ``config/`` (where commands run), the folders python imports look in first, the
    environment (a command's, and where http header values are read), the result size limit,
    and the run's http timeout and kill grace (``None``: the target's own default).

    One context serves every kind, so that ``build_target`` needs no branch per kind; a new
    kind reads what it needs of it and ignores the rest.
    """

    project_root: Path
    max_result_bytes: int
    search_paths: tuple[Path, ...] = ()
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    http_timeout: float | None = None
    kill_grace: float | None = None
