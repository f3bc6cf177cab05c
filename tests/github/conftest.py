"""A fake GitHub on loopback and a goldgate client pointed at it, with retry waits kept short."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from goldgate.github.client import RetryPolicy, connect, repository
from helpers.fake_github import TOKEN, FakeGitHub

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

# Backoff in hundredths of a second; a Retry-After from the fake is still obeyed as sent.
FAST = RetryPolicy(retries=3, backoff=0.01, max_backoff=0.05, max_wait=5.0, secondary_wait=0.2)


@pytest.fixture(autouse=True)
def _loopback_without_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may leave the machine, not even through a proxy the environment names."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def gh(fake: FakeGitHub) -> Github:
    return connect(TOKEN, base_url=fake.base_url, policy=FAST, paced=False)


@pytest.fixture
def repo(gh: Github, fake: FakeGitHub) -> Repository:
    return repository(gh, fake.repository)


@pytest.fixture
def enterprise() -> Iterator[tuple[FakeGitHub, Github, Repository]]:
    """A fake Enterprise Server: the API under /api/v3, as GITHUB_API_URL says there."""
    with FakeGitHub(prefix="/api/v3") as server:
        gh = connect(TOKEN, base_url=server.base_url, policy=FAST, paced=False)
        yield server, gh, repository(gh, server.repository)
