"""A test dependency imported when a test first uses it, not when pytest collects its module:
scipy.stats and sklearn.metrics cost each pytest worker about two CPU-seconds to import, and
every worker collects every module while few run the tests that need them."""

from __future__ import annotations

import types
from typing import Any

import pytest


class LazyModule:
    """``name``, imported by ``pytest.importorskip`` on first use: where it is missing, the
    test using it skips and says ``reason``; the module's other tests still run."""

    def __init__(self, name: str, reason: str | None = None) -> None:
        self._name = name
        self._reason = reason
        self._module: types.ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            # What pytest's collection asks of every module-level object (``__test__``,
            # ``_mock_name``...): none of the module's public names, and no reason to import it.
            raise AttributeError(attribute)
        if self._module is None:
            self._module = pytest.importorskip(self._name, reason=self._reason)
        return getattr(self._module, attribute)
