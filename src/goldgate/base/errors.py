"""The one exception hierarchy for whole-run failures, and the exit codes they map to.

Per-case failures are data in the report, never exceptions. Everything that stops a whole
run is a ``GoldgateError``; the CLI maps it to an exit code here and nowhere else.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldgate.base.problems import Violation


class ExitCode(IntEnum):
    PASSED = 0
    GOLD_DISAGREEMENT = 1
    INVALID_INPUT = 2
    MISSING_DEPENDENCY = 3
    RUNTIME_FAILURE = 4
    INTERRUPTED = 130


EXIT_CODE_MEANINGS: dict[ExitCode, str] = {
    ExitCode.PASSED: "passed",
    ExitCode.GOLD_DISAGREEMENT: "gold disagreement",
    ExitCode.INVALID_INPUT: "invalid input or configuration",
    ExitCode.MISSING_DEPENDENCY: "missing optional dependency",
    ExitCode.RUNTIME_FAILURE: "runtime failure",
    ExitCode.INTERRUPTED: "interrupted",
}

# Several outcomes at once: the most severe wins (130 > 4 > 1 > 0); 2 and 3 stop a run before
# it starts, so they never compete with the others.
_SEVERITY = [
    ExitCode.PASSED,
    ExitCode.GOLD_DISAGREEMENT,
    ExitCode.RUNTIME_FAILURE,
    ExitCode.MISSING_DEPENDENCY,
    ExitCode.INVALID_INPUT,
    ExitCode.INTERRUPTED,
]


def most_severe(*codes: ExitCode) -> ExitCode:
    """The exit code that wins when several outcomes hold at once."""
    return max(codes, key=_SEVERITY.index, default=ExitCode.PASSED)


class GoldgateError(Exception):
    """A failure of the whole run. ``str(error)`` is one sentence, safe for stdout."""

    exit_code: ExitCode = ExitCode.RUNTIME_FAILURE


class InvalidInputError(GoldgateError):
    """Bad settings, gold or command-line input (exit 2)."""

    exit_code = ExitCode.INVALID_INPUT


class ReportRefusedError(InvalidInputError):
    """A report or comparison file that cannot be read as one, or whose stored verdicts,
    counts or figures its own attempts and gold contradict (exit 2): never trusted."""


class GoldCheckError(InvalidInputError):
    """The gold check found violations; they travel with the error for rendering."""

    def __init__(self, violations: tuple[Violation, ...], message: str) -> None:
        super().__init__(message)
        self.violations = violations


class MissingDependencyError(GoldgateError):
    """An optional dependency the run needs is not installed (exit 3); the message names
    the command that installs it."""

    exit_code = ExitCode.MISSING_DEPENDENCY


class RuntimeFailureError(GoldgateError):
    """The run itself could not go on: a report that cannot be written, for instance (exit 4)."""

    exit_code = ExitCode.RUNTIME_FAILURE


class LoopBlocked(BaseException):
    """Raised inside code that kept the event loop blocked past an attempt's deadline or a
    stop request (see ``goldgate.run.watchdog``). A BaseException, so that the target's own
    ``except Exception`` cannot swallow it. ``why`` is ``deadline``, ``ignored`` (the code
    caught the deadline's cancellation and went on) or ``stop``."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class JsonSyntaxError(InvalidInputError):
    """Text that is not strict JSON, with the place it went wrong (1-based line and column)."""

    def __init__(self, source: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {message}")
        self.source = source
        self.line = line
        self.column = column
        self.message = message
