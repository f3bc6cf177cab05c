"""One run of the action's step: what it has seen so far, and the step's own files.

``StepRun`` carries the environment, where goldgate's workflow commands go, the notes the
comment and summary open with, and whether a signal or an error ended part of the run. Its
``commands`` (``app.action.commands.WorkflowCommands``) write every workflow command, the
step's outputs (``GITHUB_OUTPUT``) and its job summary (``GITHUB_STEP_SUMMARY``); a file that
cannot be written is a warning, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from goldgate.app.action.commands import WorkflowCommands

WORK_FOLDER = Path(".goldgate") / "action"
"""Where the action writes its reports, comparisons, baseline copy and Markdown."""


@dataclass
class StepRun:
    env: Mapping[str, str]
    out: Callable[[str], None]
    outputs: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False
    failure: str | None = None
    """The sentence of the error that ended goldgate's own run, if one did."""
    baseline: str | None = None
    """How the comment names the baseline compared with: ``main@abc1234`` for the artifact
    of a commit, the file's name for a report file."""
    check_run: int | None = None
    """The id of this step's check run, created before the run (None: none)."""

    @property
    def commands(self) -> WorkflowCommands:
        """The step's one writer of workflow commands, outputs and summary."""
        return WorkflowCommands(self.env, self.out)

    def warning(self, message: str) -> None:
        self.commands.warning(message)


def run_url(env: Mapping[str, str]) -> str | None:
    """The workflow run's page (``GITHUB_SERVER_URL``, ``GITHUB_REPOSITORY``,
    ``GITHUB_RUN_ID``), or None where the environment does not say."""
    from goldgate.render.escape import check_link_base

    server = env.get("GITHUB_SERVER_URL", "https://github.com").strip().rstrip("/")
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    run_id = env.get("GITHUB_RUN_ID", "").strip()
    if not repository or not run_id.isdigit():
        return None
    try:
        return check_link_base(f"{server}/{repository}/actions/runs/{run_id}")
    except ValueError:
        return None


def print_commands(text: str) -> None:
    from goldgate.base.stdio import write_commands

    write_commands(text)  # goldgate's own commands only, their data escaped (see StepRun)


def note_interrupted(run: StepRun, when: str) -> None:
    """Note a SIGINT or SIGTERM that stopped a step of the action; later ones are held (a
    cancelled job gets SIGINT, then SIGTERM), so the outputs are still written."""
    import signal
    import threading

    from goldgate.base.stdio import warn

    if not run.interrupted and threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, lambda *_: None)
    run.interrupted = True
    run.notes.append(f"Interrupted {when}.")
    warn(f"goldgate: interrupted {when}.")


def append_step_summary(run: StepRun, markdown: str) -> None:
    run.commands.summary(markdown)


def write_step_outputs(run: StepRun, outputs: Mapping[str, str]) -> None:
    run.commands.output(outputs)
