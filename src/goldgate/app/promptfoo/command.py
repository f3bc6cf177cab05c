"""``goldgate import promptfoo``: read the configuration, build the project, write it
(overwriting nothing), print what was written, what was not translated and what to run."""

from __future__ import annotations

import shlex
from pathlib import Path

from goldgate.app.init import write_new_files
from goldgate.app.promptfoo.project import build_project
from goldgate.app.promptfoo.source import read_config
from goldgate.base.errors import ExitCode
from goldgate.base.problems import display_path
from goldgate.base.stdio import write_stdout
from goldgate.base.textsafe import escape_control

__all__ = ["import_promptfoo"]


def import_promptfoo(config: Path, into: Path | None) -> ExitCode:
    """Import ``config`` into ``into`` (default: the configuration's folder)."""
    project = config.parent if into is None else into
    imported = build_project(read_config(config), project)
    written = write_new_files(project, imported.files, "goldgate import promptfoo")
    write_stdout(
        f"goldgate import promptfoo: wrote {len(written)} files ({imported.suites} suites, "
        f"{imported.cases} cases):"
    )
    for shown in written:
        write_stdout(f"  {shown}")
    if imported.waiting:
        write_stdout(
            f"{imported.waiting} cases hold a check that waits for a person (not translated "
            "exactly); evaluation/IMPORTED.md lists them."
        )
    for line in imported.untranslated:
        write_stdout(f"not translated: {escape_control(line)}")
    settings = shlex.quote(escape_control(display_path(project / "config" / "settings.yaml")))
    write_stdout(f"next: goldgate evaluate --config {settings} --check")
    write_stdout(f"then: goldgate evaluate --config {settings} --live")
    return ExitCode.PASSED
