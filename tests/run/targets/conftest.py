"""Shared fixtures for the target tests."""

from __future__ import annotations

import pytest

from goldgate.run.targets import TargetRequest

SECRET = "s3cr3t-PAYLOAD-value-7731"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def secret() -> str:
    """Text that the request carries and that no failure reason may ever show."""
    return SECRET


@pytest.fixture
def request_() -> TargetRequest:
    """A request whose payload holds a secret that must never show up in a reason."""
    return TargetRequest(
        workflow="triage",
        flow="main",
        step=None,
        envelope={"payload": {"text": SECRET, "n": 1}, "metadata": {"case": "c1"}},
    )
