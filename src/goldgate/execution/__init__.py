"""Execution: targets (python, command, http) and the runner that drives them."""

from goldgate.execution.runner import AttemptOutcome, AttemptRun, RunOptions, run_suite

__all__ = ["AttemptOutcome", "AttemptRun", "RunOptions", "run_suite"]
