"""The run step's goldgate starts again without the tokens in its environment
(``isolation.hold_tokens_apart``): the new program keeps the flags that keep what user code
could plant out of it (action.yml starts it ``-I -X pycache_prefix=/dev/null``, or ``-I -B``
when its seal step trusted the bytecode)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from goldgate.app.action import isolation


def _interpreter(
    monkeypatch: pytest.MonkeyPatch, isolated: int, prefix: str | None, unwritten: int = 0
) -> None:
    """The interpreter as ``isolation`` sees it, started with or without ``-I``, a prefix
    and ``-B``."""
    seen = SimpleNamespace(
        flags=SimpleNamespace(isolated=isolated, dont_write_bytecode=unwritten),
        pycache_prefix=prefix,
        executable=sys.executable,
        stdout=sys.stdout,
        stderr=sys.stderr,
    )
    monkeypatch.setattr(isolation, "sys", seen)


@pytest.mark.parametrize(
    ("prefix", "unwritten", "flags"),
    [
        ("/dev/null", 0, ["-I", "-X", "pycache_prefix=/dev/null"]),
        (None, 1, ["-I", "-B"]),
    ],
    ids=["no-bytecode", "sealed-bytecode"],
)
def test_goldgate_started_again_keeps_isolation_and_its_pycache_prefix(
    monkeypatch: pytest.MonkeyPatch, prefix: str | None, unwritten: int, flags: list[str]
) -> None:
    started: list[list[str]] = []
    _interpreter(monkeypatch, isolated=1, prefix=prefix, unwritten=unwritten)
    monkeypatch.setattr(isolation.os, "execve", lambda path, argv, env: started.append(argv))
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", "")
    monkeypatch.delenv(isolation.TOKENS_FD, raising=False)

    isolation.hold_tokens_apart(["action", "--run-only"])

    [argv] = started
    assert argv[1:] == [*flags, "-m", "goldgate", "action", "--run-only"]


def test_without_them_it_starts_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    _interpreter(monkeypatch, isolated=0, prefix=None)
    assert isolation._own_flags() == ["-P"]
