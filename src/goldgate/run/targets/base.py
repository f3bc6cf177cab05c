"""What every target shares: the request, the response, the failure, the protocol, and the
context a target of any kind is built with (``factory.TARGET_KINDS``)."""

from __future__ import annotations

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
