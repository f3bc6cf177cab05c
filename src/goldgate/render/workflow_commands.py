"""GitHub Actions workflow commands, as text: the one place that writes them.

The runner reads a step's stdout line by line and obeys any line that starts with ``::``
(after leading whitespace), so anything that comes from data (case ids, messages, a
target's output) must be escaped inside a command, and a command's data must stay on its
own line; otherwise a gold file could mask a log, forge an annotation or stop command
processing. ``command`` writes one command of data (the annotations of
``render.annotations``), ``sentence`` one of goldgate's own sentences (the action's errors,
warnings and notices, which ``app.action.commands.WorkflowCommands`` writes), ``add_mask``
the masks of secret values, ``stop_commands`` and ``resume_commands`` the pause around user
code; text printed outside a command
goes through ``goldgate.base.textsafe.printable``. Pure functions over strings: the
environment files the runner names are written by ``goldgate.github.envfiles``.
"""

from __future__ import annotations

import re

from goldgate.render import text

# Line breaks in the log as the runner reads a step's output (.NET ReadLine): CRLF, CR or LF.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def escape_data(value: str) -> str:
    """A command's message (the part after the second ``::``), escaped as the runner
    unescapes it: ``%``, CR and LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A command's property value, escaped as the runner unescapes it: as ``escape_data``,
    plus ``:`` and ``,``, which would otherwise end the value."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: str | int | None) -> str:
    """One workflow command line; properties that are None are left out. Data is put on one
    line and bounded before it is escaped."""
    return _command(kind, text.one_line(message), properties)


def sentence(kind: str, message: str, **properties: str | int | None) -> str:
    """goldgate's own sentence as one command (the action's errors, warnings and notices):
    whole, never shortened, its known secrets redacted and its control characters shown
    (``textsafe.escape_control``) before it is escaped as data."""
    from goldgate.base.textsafe import escape_control, redact

    return _command(kind, escape_control(redact(message)), properties)


def _command(kind: str, data: str, properties: dict[str, str | int | None]) -> str:
    shown = ",".join(
        f"{key}={escape_property(text.one_line(value))}"
        for key, value in properties.items()
        if value is not None
    )
    return f"::{kind}{' ' + shown if shown else ''}::{escape_data(data)}"


def stop_commands(token: str) -> str:
    """The command that stops the runner obeying commands until ``resume_commands(token)``."""
    return f"::stop-commands::{token}"


def resume_commands(token: str) -> str:
    return f"::{token}::"


def add_mask(value: str) -> str:
    """The command(s) that mask ``value`` in the rest of the log: one per line of it, since
    the runner matches masks line by line. Empty for a blank value (nothing to hide)."""
    lines = [line for line in _LINE_BREAK.split(value) if line.strip()]
    return "\n".join(f"::add-mask::{escape_data(line)}" for line in lines)
