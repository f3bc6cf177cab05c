"""A python target: an importable callable, sync or async, that takes the request as a dict."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from goldgate.base.errors import LoopBlocked
from goldgate.base.imports import import_attribute, is_async_callable
from goldgate.base.textsafe import escape_control
from goldgate.gold.settings.models import DEFAULT_MAX_RESULT_BYTES
from goldgate.run.errors import TargetFailure, TransientFailure
from goldgate.run.targets._documents import plain_document
from goldgate.run.targets.base import TargetContext, TargetRequest, TargetResponse, response
from goldgate.run.targets.exceptions import exception_json
from goldgate.run.watchdog import call_in_daemon_thread, interruptible

_WHO = "python target"
_REASON_LIMIT = 300


def import_callable(import_path: str, search_paths: Sequence[Path] = ()) -> Callable[..., Any]:
    """The callable a python target names; ``InvalidInputError`` naming the path otherwise."""
    function: Callable[..., Any] = import_attribute(
        import_path, search_paths, f"python target {import_path!r}"
    )
    return function


class PythonTarget:
    """Calls ``module:attribute`` with the request as a fresh plain dict per call.

    Sync callables run in a daemon thread that a deadline abandons (the thread runs on in the
    background until the callable returns, Python cannot stop it, but it never keeps the
    process alive). Coroutine functions, and sync callables that return an awaitable, are
    awaited. What comes back must be a JSON object of at most ``max_result_bytes`` (compact
    UTF-8 JSON text); the response holds a plain JSON copy of it.
    """

    def __init__(
        self,
        import_path: str,
        search_paths: Sequence[Path] = (),
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        project_root: Path | None = None,
    ) -> None:
        self.import_path = import_path
        self.project_root = project_root
        self.search_paths = tuple(search_paths)
        self.max_result_bytes = max_result_bytes
        self._function: Callable[..., Any] | None = None
        self._async = False

    def load(self) -> None:
        """Import the callable now; ``InvalidInputError`` (exit 2) when that fails."""
        if self._function is None:
            function = import_callable(self.import_path, self.search_paths)
            self._async = is_async_callable(function)
            self._function = function

    def describe(self) -> dict[str, Any]:
        return {"kind": "python", "python": self.import_path}

    async def aclose(self) -> None:
        return None

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        self.load()
        function = self._function
        assert function is not None
        payload = request.as_json()
        try:
            if self._async:  # broken into by the watchdog if it ignores being cancelled
                result = await interruptible(function(payload))
            else:
                result = await call_in_daemon_thread(function, payload, name=f"goldgate {_WHO}")
                if inspect.isawaitable(result):
                    result = await result
        except anyio.get_cancelled_exc_class():
            raise  # the deadline or an interruption, not the target's outcome
        except LoopBlocked:
            raise  # the watchdog broke into a target that blocked the event loop
        except TransientFailure as failure:  # the target says: try again (retry settings)
            raise transient_again(failure) from None
        except BaseException as error:
            # SystemExit, KeyboardInterrupt, GeneratorExit... raised by the target are its
            # failure, never goldgate's exit. The cause stays attached for a private
            # traceback; str() is the safe reason.
            raise TargetFailure(
                f"{_WHO} raised {type(error).__name__}",
                exception=exception_json(error, self.project_root),
            ) from error
        # Checked and copied on the event loop: a thread hop per attempt cost more than the
        # copy itself, and the value already sits in this process's memory.
        return response(plain_document(result, who=_WHO, max_bytes=self.max_result_bytes))


def transient_again(failure: TransientFailure) -> TransientFailure:
    """A python target's ``TransientFailure`` as goldgate records it: its reason one line of
    printable text (the target wrote it), a usable ``retry_after`` or none, and no traceback
    or cause attached."""
    reason = " ".join(escape_control(str(failure.reason)).split())[:_REASON_LIMIT]
    wait = failure.retry_after
    usable = isinstance(wait, int | float) and not isinstance(wait, bool) and 0 <= wait < 1e9
    return TransientFailure(
        f"{_WHO} failed transiently: {reason or 'no reason given'}",
        retry_after=float(wait) if usable and wait is not None else None,
    )


def build(import_path: str, context: TargetContext) -> PythonTarget:
    """The python target of ``python: module:attribute`` (``factory.TARGET_KINDS``); nothing
    is imported before ``load()``."""
    return PythonTarget(
        import_path, context.search_paths, context.max_result_bytes, context.project_root
    )
