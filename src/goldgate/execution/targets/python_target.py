"""A python target: an importable callable, sync or async, that takes the request as a dict."""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from goldgate.errors import InvalidInputError
from goldgate.execution.targets._documents import plain_document
from goldgate.execution.targets.base import TargetFailure, TargetRequest, TargetResponse
from goldgate.settings.models import DEFAULT_MAX_RESULT_BYTES

_WHO = "python target"


def _is_async(function: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    # An instance whose class defines ``async def __call__``.
    return inspect.iscoroutinefunction(type(function).__call__)


def import_callable(import_path: str, search_paths: Sequence[Path] = ()) -> Callable[..., Any]:
    """The callable at ``module:attribute`` (the attribute may be dotted), importing the module
    with ``search_paths`` first on ``sys.path``. Problems are ``InvalidInputError`` naming the
    import path and the kind of problem, never a traceback."""
    module_name, _, attribute = import_path.partition(":")
    if not module_name or not attribute:
        raise InvalidInputError(
            f"python target {import_path!r} is not of the form 'package.module:attribute'."
        )
    for folder in reversed(search_paths):
        entry = str(folder)
        if entry not in sys.path:
            sys.path.insert(0, entry)
    importlib.invalidate_caches()
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = f"module {error.name!r}" if error.name else "a module"
        raise InvalidInputError(
            f"python target {import_path!r} could not be imported: {missing} was not found."
        ) from error
    except (Exception, SystemExit) as error:
        raise InvalidInputError(
            f"python target {import_path!r} could not be imported: importing "
            f"{module_name!r} raised {type(error).__name__}."
        ) from error
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise InvalidInputError(
                f"python target {import_path!r} could not be loaded: "
                f"{module_name!r} has no attribute {attribute!r}."
            ) from None
        except Exception as error:
            raise InvalidInputError(
                f"python target {import_path!r} could not be loaded: reading "
                f"{attribute!r} raised {type(error).__name__}."
            ) from error
    if not callable(value):
        raise InvalidInputError(
            f"python target {import_path!r} is not callable (its type is {type(value).__name__})."
        )
    return value  # type: ignore[no-any-return]


class PythonTarget:
    """Calls ``module:attribute`` with the request as a fresh plain dict per call.

    Sync callables run in a worker thread that a deadline abandons (the thread runs on in the
    background until the callable returns; Python cannot stop it). Coroutine functions, and
    sync callables that return an awaitable, are awaited. What comes back must be a JSON
    object of at most ``max_result_bytes`` (compact UTF-8 JSON text); the response holds a
    plain JSON copy of it.
    """

    def __init__(
        self,
        import_path: str,
        search_paths: Sequence[Path] = (),
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
    ) -> None:
        self.import_path = import_path
        self.search_paths = tuple(search_paths)
        self.max_result_bytes = max_result_bytes
        self._function: Callable[..., Any] | None = None
        self._async = False

    def load(self) -> None:
        """Import the callable now; ``InvalidInputError`` (exit 2) when that fails."""
        if self._function is None:
            function = import_callable(self.import_path, self.search_paths)
            self._async = _is_async(function)
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
            if self._async:
                result = await function(payload)
            else:
                result = await anyio.to_thread.run_sync(function, payload, abandon_on_cancel=True)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as error:
            # The cause stays attached for a private traceback; str() is the safe reason.
            raise TargetFailure(f"{_WHO} raised {type(error).__name__}") from error
        document = await anyio.to_thread.run_sync(
            lambda: plain_document(result, who=_WHO, max_bytes=self.max_result_bytes),
            abandon_on_cancel=True,
        )
        return TargetResponse(document)
