"""The one exception hierarchy for whole-run failures, and the exit codes they map to.

Per-case failures are data in the report, never exceptions. Everything that stops a whole
run is a ``GoldgateError``; the CLI maps it to an exit code here and nowhere else.
"""

from __future__ import annotations

from enum import IntEnum


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


class MissingDependencyError(GoldgateError):
    """An optional dependency the run needs is not installed (exit 3); the message names
    the command that installs it."""

    exit_code = ExitCode.MISSING_DEPENDENCY


class RuntimeFailureError(GoldgateError):
    """The run itself could not go on: a report that cannot be written, for instance (exit 4)."""

    exit_code = ExitCode.RUNTIME_FAILURE


# Control flow, not a failure: a BaseException, and so outside GoldgateError on purpose.
class LoopBlocked(BaseException):
    """Raised inside code that kept the event loop blocked past an attempt's deadline or a
    stop request (see ``goldgate.run.watchdog``). A BaseException, so that the target's own
    ``except Exception`` cannot swallow it. ``why`` is ``deadline``, ``ignored`` (the code
    caught the deadline's cancellation and went on) or ``stop``."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class PlacedSyntaxError(InvalidInputError):
    """Text that does not parse as its format, with the place it went wrong (1-based line and
    column): ``message`` says what, ``str()`` where and what, ended by ``full_stop``."""

    full_stop = ""

    def __init__(self, source: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {message}{self.full_stop}")
        self.source = source
        self.line = line
        self.column = column
        self.message = message


class JsonSyntaxError(PlacedSyntaxError):
    """Text that is not strict JSON, with the place it went wrong (1-based line and column)."""


class PointerSyntaxError(GoldgateError, ValueError):
    """A string that is not an RFC 6901 JSON pointer (exit 2; a ``ValueError`` too)."""

    exit_code = ExitCode.INVALID_INPUT


class TemplateError(GoldgateError, ValueError):
    """A template that cannot be parsed, or filled from this envelope; one safe sentence
    that names places, never values (exit 2; a ``ValueError`` too)."""

    exit_code = ExitCode.INVALID_INPUT


class JsonRejected(GoldgateError):
    """Raised from a json hook; the scanner then finds and describes the exact place (it
    never leaves ``base.strictjson`` and the case-file stream, which turn it into a
    ``JsonSyntaxError`` or a whole-file read)."""

    exit_code = ExitCode.INVALID_INPUT


class MissingFileError(InvalidInputError):
    """A file that does not exist, so that a caller can say where the path came from."""


class OutputFileError(InvalidInputError):
    """A rendered file that cannot be written where it was asked for (exit 2 on the command
    line; a warning in the action, which keeps its other outputs)."""
