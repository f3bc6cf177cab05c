"""Execution: targets (python, command, http), the runner that drives them, the session of a
CLI run and the Python API (``run.api``). Callers import the module they need by name."""
