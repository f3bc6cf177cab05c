"""Importing user code named in settings (python targets, scorers) by ``module:attribute``.

One place decides how user folders reach ``sys.path`` and how an import that fails becomes
one sentence (exit 2) instead of a traceback.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from goldgate.base.channel import import_deadline, signal_received
from goldgate.base.errors import InvalidInputError


def is_async_callable(function: object) -> bool:
    """Whether calling ``function`` returns a coroutine: an ``async def`` function or method,
    a ``functools.partial`` of one, or an object with an ``async def __call__``."""
    if inspect.iscoroutinefunction(function):
        return True
    # Look __call__ up on the type: a class's own __call__ attribute is its instances'.
    return callable(function) and inspect.iscoroutinefunction(type(function).__call__)


def import_attribute(import_path: str, search_paths: Sequence[Path], who: str) -> Any:
    """The callable at ``module:attribute`` (the attribute may be dotted).

    ``search_paths`` go first on ``sys.path`` and stay there, so user modules that import
    lazily keep working. Every problem is ``InvalidInputError`` starting with ``who`` (e.g.
    "python target 'app:run'") and naming the kind of problem, never a traceback.
    """
    module_name, colon, attribute = import_path.partition(":")
    if not colon or not module_name or not attribute or ":" in attribute:
        raise InvalidInputError(f"{who} is not of the form 'package.module:attribute'.")
    for folder in reversed(search_paths):
        entry = str(folder)
        if entry not in sys.path:
            sys.path.insert(0, entry)
    importlib.invalidate_caches()
    try:
        with import_deadline(who):
            value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = f"module {error.name!r}" if error.name else "a module"
        raise InvalidInputError(f"{who} could not be imported: {missing} was not found.") from None
    except KeyboardInterrupt:
        if signal_received():
            raise  # Ctrl-C or SIGTERM while importing: interrupted, not a broken module
        raise InvalidInputError(
            f"{who} could not be imported: importing {module_name!r} raised KeyboardInterrupt."
        ) from None
    except (Exception, SystemExit) as error:
        raise InvalidInputError(
            f"{who} could not be imported: importing {module_name!r} raised {type(error).__name__}."
        ) from None
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise InvalidInputError(
                f"{who} could not be loaded: {module_name!r} has no attribute {attribute!r}."
            ) from None
        except Exception as error:
            raise InvalidInputError(
                f"{who} could not be loaded: reading {attribute!r} raised {type(error).__name__}."
            ) from None
    if not callable(value):
        raise InvalidInputError(f"{who} is not callable (its type is {type(value).__name__}).")
    return value
