"""Fixtures for the ``goldgate evaluate`` tests: a project factory, a local HTTP
application, a port nobody listens on, and a subreaper. Helpers live in ``support``."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import HttpApp, HttpServer, Project, new_project


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
