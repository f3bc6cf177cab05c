"""The one writer of the action's workflow commands: errors, warnings, notices, masks, the
step's outputs and its job summary.

``WorkflowCommands`` writes over the step's ``out`` callable (stdout, where the runner reads
commands) and the files the runner names (``GITHUB_OUTPUT``, with a random heredoc delimiter,
and ``GITHUB_STEP_SUMMARY``). Every sentence goes through ``render.workflow_commands.sentence``,
one escaping for all: secrets redacted, control characters shown, the runner's data escaping.
A file that cannot be written is a warning, never a crash. ``refuse`` is the action's one way
to stop on a bad input: the error, the ``exit_code`` output, exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from goldgate.base.errors import ExitCode
from goldgate.render import workflow_commands as wc

TITLE = "goldgate"
"""The title of every error, warning and notice goldgate itself writes."""


@dataclass(frozen=True)
class WorkflowCommands:
    env: Mapping[str, str]
    out: Callable[[str], None]

    def line(self, text: str) -> None:
        """Text already made of commands (a renderer's annotations), one line each."""
        self.out(text if text.endswith("\n") else text + "\n")

    def error(
        self, message: str, *, title: str = TITLE, file: str | None = None, line: int | None = None
    ) -> None:
        self.line(wc.sentence("error", message, title=title, file=file, line=line))

    def warning(
        self, message: str, *, title: str = TITLE, file: str | None = None, line: int | None = None
    ) -> None:
        self.line(wc.sentence("warning", message, title=title, file=file, line=line))

    def notice(
        self, message: str, *, title: str = TITLE, file: str | None = None, line: int | None = None
    ) -> None:
        self.line(wc.sentence("notice", message, title=title, file=file, line=line))

    def mask(self, value: str) -> None:
        """Mask ``value`` in the rest of the log (one command per line of it)."""
        commands = wc.add_mask(value)
        if commands:
            self.line(commands)

    def resume(self, token: str) -> None:
        """Resume the commands that ``wc.stop_commands(token)`` stopped."""
        self.line(wc.resume_commands(token))

    def output(self, outputs: Mapping[str, str]) -> None:
        """The step's outputs, to ``GITHUB_OUTPUT`` (nothing where it is not set)."""
        from goldgate.github.client import os_reason
        from goldgate.github.envfiles import write_outputs

        path = self.env.get("GITHUB_OUTPUT", "").strip()
        if not path:
            return
        try:
            write_outputs(path, outputs)
        except OSError as error:
            self.warning(f"the step's outputs could not be written: {os_reason(error)}.")

    def summary(self, markdown: str) -> None:
        """Markdown appended to the job summary (nothing where it is not set)."""
        from goldgate.github.client import os_reason
        from goldgate.github.envfiles import append_summary

        path = self.env.get("GITHUB_STEP_SUMMARY", "").strip()
        if not path:
            return
        try:
            append_summary(path, markdown, rest_in="the report file")
        except OSError as error:
            self.warning(f"the job summary could not be written: {os_reason(error)}.")

    def refuse(self, sentence: str) -> int:
        """Stop the step on a bad input: the error, the output ``exit_code`` 2, and 2."""
        self.error(sentence)
        self.output({"exit_code": str(int(ExitCode.INVALID_INPUT))})
        return int(ExitCode.INVALID_INPUT)
