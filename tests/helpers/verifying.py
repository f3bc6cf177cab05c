"""What the tests of reports verified by a forked helper share (``report.background``,
``app.action.verifying``): an honest report's bytes, the same report with a forged figure,
the accelerators switched on or off, and a skip where no helper can be forked."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from goldgate.base import accelerators

FIXTURES = Path(__file__).parents[1] / "report" / "fixtures"


def honest_bytes() -> bytes:
    """A current-format report as goldgate writes it (40 cases), its bytes."""
    from goldgate.report.io import read_report, report_bytes

    return report_bytes(read_report(FIXTURES / "report_v1_generated.json"))


def forged(data: bytes) -> bytes:
    """The report ``data`` stating one attempt more than its first suite holds."""
    value = json.loads(data)
    value["suites"][0]["attempt_count"] += 1
    return json.dumps(value).encode()


def fork_possible() -> None:
    """Skip, saying why, where no helper is forked."""
    from goldgate.report import background

    if not background.fork_possible():
        pytest.skip("a helper is forked only on Linux, with two CPUs and no other thread running")


def switched(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """A fixture's body: ``GOLDGATE_ACCELERATORS`` set to a value, restored when it ends."""

    def set_to(value: str) -> None:
        monkeypatch.setenv(accelerators.VARIABLE, value)
        accelerators.refresh()

    yield set_to
    monkeypatch.delenv(accelerators.VARIABLE, raising=False)
    accelerators.refresh()
