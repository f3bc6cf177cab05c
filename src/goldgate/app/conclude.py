"""TODO docstring."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from goldgate.base.errors import (
    ExitCode,
    GoldgateError,
    most_severe,
)
from goldgate.base.problems import Violation
from goldgate.base.stdio import (
    warn,
    write_commands,
    write_json,
    write_stdout,
)
from goldgate.gold.settings.load import load_settings


def emit_text(text: str) -> bool:
    """``text`` on stdout; False when stdout cannot take it (never raised: see stdio)."""
    return write_stdout(text)


def emit_json(payload: dict[str, Any]) -> bool:
    return write_json(payload)


INTERRUPTED = "interrupted before the report was written."


def emit_json_refusal(message: str, violations: Sequence[Violation] = ()) -> None:
    """A command refused, or ended without a report: the one JSON document that
    ``--format json`` prints, whatever the outcome."""
    emit_json({"ok": False, "error": message, "violations": [v.as_json() for v in violations]})


def refusal_json(error: GoldgateError | KeyboardInterrupt) -> ExitCode:
    if isinstance(error, KeyboardInterrupt):
        emit_json_refusal(INTERRUPTED)
        return ExitCode.INTERRUPTED
    emit_json_refusal(str(error).splitlines()[-1], getattr(error, "violations", ()))
    return error.exit_code


def violations_listing(
    violations: Sequence[Violation], json_output: bool, github: bool = False
) -> ExitCode:
    """Every violation, then the count: the output of a check that found problems. With
    ``github``, the violations are workflow-command annotations at their file, line and
    column (GitHub shows ten; a notice counts the rest)."""
    if json_output:
        emit_json({"ok": False, "violations": [v.as_json() for v in violations]})
        return ExitCode.INVALID_INPUT
    if github:
        from goldgate.render.annotations import violation_annotations

        write_commands(violation_annotations(violations))
    else:
        for violation in violations:
            emit_text(violation.render())
    count, files = len(violations), len({v.source for v in violations})
    emit_text(f"{count} problem{'s' * (count != 1)} in {files} file{'s' * (files != 1)}.")
    return ExitCode.INVALID_INPUT


def published(code: ExitCode, outcome: Any) -> ExitCode:
    """A file written elsewhere because its folder failed loses nothing, but it is not where
    CI looks for it: a runtime failure."""
    if outcome.fallback_reason:
        warn(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead."
        )
        return most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


def note_project_secrets() -> None:
    """Load the working folder's settings, if it has any, for the secrets they name (their
    credentials' values are redacted from what is rendered); a report alone names none."""
    from goldgate.gold.settings.load import DEFAULT_SETTINGS

    if DEFAULT_SETTINGS.is_file():
        with contextlib.suppress(GoldgateError, OSError, ValueError):
            load_settings(DEFAULT_SETTINGS)
