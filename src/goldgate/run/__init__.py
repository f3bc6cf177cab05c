"""Running gold against the application: targets (a registry of kinds), the runner that
drives one suite's attempts under deadlines, the watchdog, the streamed report run and its
signals (``session``, ``streaming``), importing scorers, and the Python API (``api``).
Callers import the module they need by name."""

__all__ = [
    "api",
    "errors",
    "identity",
    "inflight",
    "leftovers",
    "limits",
    "live",
    "runner",
    "scorers",
    "session",
    "streaming",
    "targets",
    "watchdog",
]
