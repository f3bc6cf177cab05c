"""``goldgate init``: write the starter project of ``goldgate.app.starter`` into a folder,
overwriting nothing.

Every path is looked at before anything is written, so an existing file (or a symlink, or a
file where a folder must go, or a folder on the way that is a symlink: ``config/``,
``evaluation/``, ``.github/`` or ``.github/workflows/`` pointing elsewhere) refuses the whole
command with nothing written (exit 2). Folders are made and opened without following links
and files created with ``O_NOFOLLOW`` inside them, so a symlink that appears meanwhile is not
written through either. Each
file is then created with ``O_EXCL``: one that appears in between is not overwritten either,
and the refusal names it and what was already written. There is no ``--force``: a starter
has nothing to add to a project that has begun, and deleting a file first is an explicit
choice.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
from collections.abc import Sequence
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
    file exists, or one of its folders is something else, or a symlink (looked at without
    following it: a symlinked ``config/`` would have the starter written wherever it
    points)."""
    path = root / relative
    folder = root
    for part in Path(relative).parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            return f"{_shown(folder)} is a symlink"
        if os.path.lexists(folder) and not folder.is_dir():
            return f"{_shown(folder)} exists and is not a folder"
    if os.path.lexists(path):
        return f"{_shown(path)} already exists"
    return None


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _write_new(root: Path, relative: str, text: str) -> None:
    """Create ``root/relative`` holding ``text``, its missing folders made on the way, each
    opened without following a symlink (``O_NOFOLLOW``) and the file created with
    ``O_EXCL | O_NOFOLLOW`` in the folder so opened: a symlink put there meanwhile is never
    written through. FileExistsError when anything is at the file's place already; OSError
    (ELOOP, ENOTDIR) for a symlink on the way."""
    *folders, name = Path(relative).parts
    descriptor = os.open(root, _FOLDER)
    try:
        for part in folders:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o777, dir_fd=descriptor)
            inner = os.open(part, _FOLDER, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        handle = os.open(name, flags, 0o666, dir_fd=descriptor)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
                file.write(text)
        except BaseException:
            os.unlink(name, dir_fd=descriptor)  # this call created it: never half a file
            raise
    finally:
        os.close(descriptor)


def write_new_files(root: Path, files: Sequence[tuple[str, str]], command: str) -> list[str]:
    """Write ``files`` (relative path, text) under ``root`` (created if missing), overwriting
    nothing and writing through no symlink: every path is looked at first, so one refusal
    leaves nothing written (exit 2 naming the file). The paths written, as shown."""
    if root.is_symlink():
        raise InvalidInputError(
            f"{_shown(root)} is a symlink; {command} writes through none, so nothing was written."
        )
    if os.path.lexists(root) and not root.is_dir():
        raise InvalidInputError(f"{_shown(root)} is not a folder; nothing was written.")
    for relative, _ in files:
        refusal = _refusal(root, relative)
        if refusal is not None:
            rule = (
                "writes through no symlink"
                if refusal.endswith("symlink")
                else ("overwrites nothing")
            )
            raise InvalidInputError(f"{refusal}; {command} {rule}, so nothing was written.")
    written: list[str] = []
    for relative, text in files:
        path = root / relative
        try:
            root.mkdir(parents=True, exist_ok=True)
            _write_new(root, relative, text)
        except FileExistsError:
            before = f" (written before it: {', '.join(written)})" if written else ""
            raise InvalidInputError(
                f"{_shown(path)} appeared while {command} was writing and was left alone{before}."
            ) from None
        except OSError as error:
            before = f" (written before it: {', '.join(written)})" if written else ""
            why = error.strerror or "failed"
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                why = "a folder on its way became a symlink or a file"
            raise InvalidInputError(
                f"cannot write {_shown(path)}: {escape_control(why)}{before}."
            ) from None
        written.append(_shown(path))
    return written


def init_project(root: Path, *, github: bool) -> ExitCode:
    """Write the starter into ``root`` (created if missing) and print what was written and
    the command to run next."""
    written = write_new_files(root, starter_files(github=github), "goldgate init")
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
