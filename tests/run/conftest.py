"""Fixtures for the ``goldgate evaluate`` tests: a project factory, a local HTTP
application, a port nobody listens on, and a subreaper. Helpers live in ``support``."""

from __future__ import annotations

import contextlib
import ctypes
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import HttpApp, HttpServer, Project, new_project

_PR_SET_CHILD_SUBREAPER = 36


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project (no suites yet) with the fixture targets copied in."""
    return new_project(tmp_path / "project")


@pytest.fixture
def http_app() -> Iterator[HttpApp]:
    """A real ThreadingHTTPServer on 127.0.0.1; ``payload.mode``: ok, 500, slow (silent for
    3 s) or trickle (a byte every 0.2 s)."""
    server = HttpServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield HttpApp(f"http://{host}:{port}/triage", server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def closed_port() -> int:
    """A local port with nothing listening on it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def reaper() -> Iterator[bool]:
    """Make this process the subreaper of orphans (Linux), so that a killed grandchild is
    reparented here, reaped by ``assert_gone`` and then really gone: the sandbox's PID 1 may
    never reap orphans. Yields whether that worked."""
    libc = None
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            libc = ctypes.CDLL(None, use_errno=True)
    enabled = libc is not None and libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield enabled
    finally:
        if enabled and libc is not None:
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
