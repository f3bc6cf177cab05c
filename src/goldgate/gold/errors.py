"""The errors of reading and checking gold, each a ``GoldgateError`` with its exit code.

``PatternProblem`` is a ``ValueError`` too, as it was before it had a home here.
``NotStreamable`` and ``PatternTimeout`` never reach the user: the loader then reads the
file whole and says what is wrong with it, and a search past its deadline fails its check.
"""

from __future__ import annotations

from goldgate.base import english
from goldgate.base.errors import ExitCode, GoldgateError, InvalidInputError, PlacedSyntaxError
from goldgate.base.problems import Violation, sort_violations

__all__ = [
    "GoldChangedError",
    "GoldCheckError",
    "NotStreamable",
    "PatternProblem",
    "PatternTimeout",
    "SettingsError",
    "YamlSyntaxError",
]


class PatternProblem(GoldgateError, ValueError):
    """A pattern that does not compile; ``str()`` is a safe summary (no pattern text)."""

    exit_code = ExitCode.INVALID_INPUT


class PatternTimeout(GoldgateError):
    """A search ran past its deadline."""

    exit_code = ExitCode.RUNTIME_FAILURE


class NotStreamable(GoldgateError):
    """The file needs the whole-file parser, which describes what is wrong with it."""

    exit_code = ExitCode.INVALID_INPUT


class SettingsError(InvalidInputError):
    """Settings that cannot be used; every violation found is listed."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = sort_violations(violations)
        count = len(self.violations)
        summary = "\n".join(v.render() for v in self.violations)
        super().__init__(f"{summary}\n{english.count(count, 'problem')} in the settings.")


class YamlSyntaxError(PlacedSyntaxError):
    """Text that is not (safe, duplicate-free) YAML, with the place it went wrong. Its
    messages (PyYAML's problems, ours alike) carry no full stop: ``str()`` adds one."""

    full_stop = "."


class GoldChangedError(InvalidInputError):
    """A case file was rewritten in place while goldgate was running from it."""


class GoldCheckError(InvalidInputError):
    """The gold check found violations; they travel with the error for rendering."""

    def __init__(self, violations: tuple[Violation, ...], message: str) -> None:
        super().__init__(message)
        self.violations = violations
