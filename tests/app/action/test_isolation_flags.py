"""The run step's goldgate starts again without the tokens in its environment
(``isolation.hold_tokens_apart``): the new program keeps the flags that keep what user code
could plant out of it (action.yml starts it ``-I -X pycache_prefix=/dev/null``)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from goldgate.app.action import isolation


def _interpreter(monkeypatch: pytest.MonkeyPatch, isolated: int, prefix: str | None) -> None:
    """The interpreter as ``isolation`` sees it, started with or without ``-I`` and a prefix."""
    seen = SimpleNamespace(
        flags=SimpleNamespace(isolated=isolated),
        pycache_prefix=prefix,
        executable=sys.executable,
        stdout=sys.stdout,
        stderr=sys.stderr,
    )
    monkeypatch.setattr(isolation, "sys", seen)


def test_goldgate_started_again_keeps_isolation_and_its_pycache_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[list[str]] = []
    _interpreter(monkeypatch, isolated=1, prefix="/dev/null")
    monkeypatch.setattr(isolation.os, "execve", lambda path, argv, env: started.append(argv))
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", "")
    monkeypatch.delenv(isolation.TOKENS_FD, raising=False)

    isolation.hold_tokens_apart(["action", "--run-only"])

    [argv] = started
    assert argv[1:] == [
        "-I", "-X", "pycache_prefix=/dev/null", "-m", "goldgate", "action", "--run-only"
    ]  # fmt: skip


def test_without_them_it_starts_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    _interpreter(monkeypatch, isolated=0, prefix=None)
    assert isolation._own_flags() == ["-P"]
