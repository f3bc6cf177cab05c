"""``goldgate init``: write the starter project of ``goldgate.app.starter`` into a folder,
overwriting nothing.

Every path is looked at before anything is written, so an existing file (or a symlink, or a
file where a folder must go) refuses the whole command with nothing written (exit 2). Each
file is then created with ``O_EXCL``: one that appears in between is not overwritten either,
and the refusal names it and what was already written. There is no ``--force``: a starter
has nothing to add to a project that has begun, and deleting a file first is an explicit
choice.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from goldgate.app.starter import starter_files
from goldgate.base.errors import ExitCode, InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.stdio import write_stdout
from goldgate.base.textsafe import escape_control


def _shown(path: Path) -> str:
    return escape_control(display_path(path))


def _refusal(root: Path, relative: str) -> str | None:
    """Why ``relative`` cannot be written under ``root`` without touching what is there: the
    file exists, or one of its folders is something else."""
    path = root / relative
    if os.path.lexists(path):
        return f"{_shown(path)} already exists"
    folder = root
    for part in Path(relative).parts[:-1]:
        folder = folder / part
        if os.path.lexists(folder) and not folder.is_dir():
            return f"{_shown(folder)} exists and is not a folder"
    return None


def _write_new(path: Path, text: str) -> None:
    """Create ``path`` holding ``text``; FileExistsError when anything is at ``path`` already
    (a symlink included: O_EXCL does not follow it)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
    except BaseException:
        path.unlink(missing_ok=True)  # this call created it: never leave half a file
        raise


def init_project(root: Path, *, github: bool) -> ExitCode:
    """Write the starter into ``root`` (created if missing) and print what was written and
    the command to run next."""
    if os.path.lexists(root) and not root.is_dir():
        raise InvalidInputError(f"{_shown(root)} is not a folder; nothing was written.")
    files = starter_files(github=github)
    for relative, _ in files:
        refusal = _refusal(root, relative)
        if refusal is not None:
            raise InvalidInputError(
                f"{refusal}; goldgate init overwrites nothing, so nothing was written."
            )
    written: list[str] = []
    for relative, text in files:
        path = root / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_new(path, text)
        except FileExistsError:
            before = f" (written before it: {', '.join(written)})" if written else ""
            raise InvalidInputError(
                f"{_shown(path)} appeared while goldgate init was writing and was left "
                f"alone{before}."
            ) from None
        except OSError as error:
            before = f" (written before it: {', '.join(written)})" if written else ""
            raise InvalidInputError(
                f"cannot write {_shown(path)}: {escape_control(error.strerror or 'failed')}"
                f"{before}."
            ) from None
        written.append(_shown(path))
    write_stdout(f"goldgate init: wrote {len(written)} files:")
    for shown in written:
        write_stdout(f"  {shown}")
    config = shlex.quote(_shown(root / "config" / "settings.yaml"))
    write_stdout(f"next: goldgate evaluate --config {config}")
    if github:
        write_stdout(
            "then, in both workflows, replace <owner>/goldgate@000... with your goldgate "
            "repository and the commit sha of its release."
        )
    return ExitCode.PASSED
