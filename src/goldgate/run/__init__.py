"""Running gold against the application: targets (a registry of kinds), the runner that
drives one suite's attempts under deadlines, the watchdog, the streamed report run and its
signals (``session``, ``streaming``), importing scorers, and the Python API (``api``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "AttemptOutcome": "goldgate.run.runner",
    "AttemptRun": "goldgate.run.runner",
    "RunOptions": "goldgate.run.runner",
    "run_suite": "goldgate.run.runner",
}

__all__ = ["AttemptOutcome", "AttemptRun", "RunOptions", "run_suite"]

if TYPE_CHECKING:
    from goldgate.run.runner import AttemptRun, RunOptions, run_suite
    from goldgate.scoring.attempt import AttemptOutcome


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
