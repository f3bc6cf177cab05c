"""The ``slow`` mark, kept honest: which tests start processes or servers, and a guard that
fails any other test that does so in a run that leaves the slow tests out.

``pytest -m "not slow"`` is the quick run (see the README). A test is slow when it starts a
process (a subprocess, the real console script, a fork, git, docker) or a server. Most are
marked here: by the fixtures they use (``SLOW_FIXTURES``) and by the helpers their own code
names (``SLOW_HELPERS``); modules of nothing but such tests say so with
``pytestmark = pytest.mark.slow``; the rest carry ``@pytest.mark.slow``. In a run whose
``-m`` leaves slow tests out, starting a process or serving a socket raises ``SlowInFastRun``
and fails the test (even where the code under test catches the error), naming the mark it
lacks. The guard is installed after collection: importing a test module may still probe.
"""

from __future__ import annotations

import contextlib
import os
import socketserver
import subprocess
from collections.abc import Callable, Iterable, Iterator
from types import CodeType, ModuleType
from typing import Any

import pytest

SLOW_FIXTURES = frozenset(
    {
        # A fake GitHub on loopback (tests/helpers/fake_github.py), and what stands on it.
        "fake",
        "gh",
        "repo",
        "enterprise",
        "runner",
        # A local HTTP application (tests/run/conftest.py).
        "http_app",
        # Reports of the example, evaluated through the real console script once a session.
        "baseline_zip",
        "example_reports",
        # Adopting orphans only matters to tests whose processes leave some.
        "reaper",
        # Reports made by the real console script, once a session or a module.
        "corpus",  # tests/render/conftest.py
        "chrome",  # a headless Chromium (tests/render/conftest.py, tests/helpers/browser.py)
        "reports",  # tests/report/test_verify.py
    }
)
"""Fixtures that start a process or a server (themselves or through what they request)."""


SLOW_HELPERS = frozenset(
    {
        ("run.support", "run_cli"),  # the real console script, to completion
        ("run.support", "start_cli"),  # the real console script, started
        ("helpers.fake_github", "FakeGitHub"),
        ("compare.conftest", "evaluate"),  # the example through the console script
        ("helpers.browser", "browser"),  # a headless Chromium
        ("subprocess", ""),
        ("multiprocessing", ""),
    }
)
"""What a test's own code may name that starts a process or a server: (module, name), or
(module, "") for the module itself. Helpers of a test module that call these are not seen:
the guard finds those tests, and they carry the mark themselves."""


class SlowInFastRun(RuntimeError):
    """A test not marked ``slow`` started a process or a server."""


def mark(items: Iterable[pytest.Item]) -> None:
    """Mark ``slow`` every test that requests one of ``SLOW_FIXTURES`` (even indirectly) or
    whose code names one of ``SLOW_HELPERS``."""
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())) or _names_slow_helper(
            getattr(item, "function", None)
        ):
            item.add_marker(pytest.mark.slow)


def _names_slow_helper(function: Any) -> bool:
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    found = getattr(function, "__globals__", {})
    return any(_is_slow_helper(found[name]) for name in _global_names(code) if name in found)


def _global_names(code: CodeType) -> Iterator[str]:
    """The global names a function's code (and the functions defined in it) may load."""
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _global_names(constant)


def _is_slow_helper(value: Any) -> bool:
    if isinstance(value, ModuleType):
        return (value.__name__, "") in SLOW_HELPERS
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return False
    # A folder's modules may be imported under tests.<folder> as well as <folder>.
    return any(
        name == helper and (module == place or module.endswith("." + place))
        for place, helper in SLOW_HELPERS
    )


def leaves_slow_out(markexpr: str) -> bool:
    """Whether ``-m markexpr`` keeps an unmarked test but leaves out one marked ``slow``."""
    if not markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pytest moved it: read the expression the simple way
        return "not slow" in " ".join(markexpr.split())

    expression = Expression.compile(markexpr)

    def marks(*names: str) -> Callable[..., bool]:
        return lambda name, /, **kwargs: name in names and not kwargs

    return expression.evaluate(marks()) and not expression.evaluate(marks("slow"))


class Guard:
    """Replaces what starts a process or serves a socket with a refusal, recorded against
    the test that is running (a test's code may catch the error; its teardown will not)."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.refused: dict[str, list[str]] = {}
        self._undo: list[tuple[Any, str, Any]] = []

    def install(self) -> None:
        import _posixsubprocess

        self._replace(subprocess.Popen, "_execute_child", "a subprocess")
        self._replace(_posixsubprocess, "fork_exec", "a subprocess (multiprocessing)")
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            if hasattr(os, name):
                self._replace(os, name, f"os.{name}")
        self._replace(socketserver.TCPServer, "server_activate", "a server")

    def uninstall(self) -> None:
        while self._undo:
            owner, name, original = self._undo.pop()
            setattr(owner, name, original)

    @contextlib.contextmanager
    def running(self, nodeid: str) -> Iterator[None]:
        self.current = nodeid
        try:
            yield
        finally:
            self.current = None

    def _replace(self, owner: Any, name: str, what: str) -> None:
        original = getattr(owner, name)
        self._undo.append((owner, name, original))

        def refuse(*args: Any, **kwargs: Any) -> Any:
            if self.current is None:  # between tests (pytest's own work): allowed
                return original(*args, **kwargs)
            message = (
                f"{self.current} starts {what} but is not marked slow: mark it "
                "(@pytest.mark.slow, or see tests/helpers/slow.py)"
            )
            self.refused.setdefault(self.current, []).append(message)
            raise SlowInFastRun(message)

        setattr(owner, name, refuse)
