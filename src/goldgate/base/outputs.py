"""Writing rendered files (JUnit, Markdown, HTML, the fork hand-off): created like reports.

A pull request controls its checkout, so a path goldgate writes may hold a symlink planted
there (``goldgate-junit.xml -> ~/.bashrc``, ``.goldgate -> ~/.ssh``). A rendered file is
written to a new temporary file beside its name and renamed into place: a rename replaces
whatever has the name, a symlink included, and never writes through it. A folder on the way
that is a symlink inside the working folder is refused, and so is a name that is the very
file being rendered (``report junit r.json -o r.json`` would destroy the report).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from goldgate.base.errors import OutputFileError
from goldgate.base.textsafe import escape_control

__all__ = ["linked_folder", "write_output_file", "write_output_stream"]


def _refuse(path: Path, why: str) -> OutputFileError:
    return OutputFileError(f"{escape_control(str(path))}: cannot be written ({why}).")


def linked_folder(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that is a symlink, among those inside the
    working folder (above it, a symlinked home or workspace is the machine's business)."""
    here = Path.cwd()
    absolute = Path(os.path.abspath(path))
    try:
        inside = absolute.parent.relative_to(here)
    except ValueError:
        return None
    folder = here
    for part in inside.parts:
        folder = folder / part
        if folder.is_symlink():
            return folder
    return None


def _same_file(path: Path, protected: Sequence[Path]) -> bool:
    try:
        status = os.lstat(path)
    except OSError:
        return False
    for kept in protected:
        try:
            other = os.stat(kept)
        except OSError:
            continue
        if (status.st_dev, status.st_ino) == (other.st_dev, other.st_ino):
            return True
    return False


def write_output_file(
    path: Path, text: str | bytes, *, protected: Sequence[Path] = (), mode: int = 0o644
) -> None:
    """Write ``text`` (UTF-8 when a string) to ``path`` through a new temporary file renamed
    into place, making missing folders. Refused with an ``OutputFileError`` naming ``path``
    and why: a symlinked folder on the way, the name of a file in ``protected`` (the report
    or comparison being rendered), a folder of that name, or an error of the system."""
    data = text.encode("utf-8") if isinstance(text, str) else text

    def produce(write: Callable[[bytes], object]) -> None:
        write(data)

    write_output_stream(path, produce, protected=protected, mode=mode)


def write_output_stream(
    path: Path,
    produce: Callable[[Callable[[bytes], object]], None],
    *,
    protected: Sequence[Path] = (),
    mode: int = 0o644,
) -> None:
    """``write_output_file`` for a file written as it is made: ``produce`` is given the
    temporary file's write and writes the bytes in order; the file is renamed into place
    once it returns (an exception it raises leaves nothing behind and goes on)."""
    linked = linked_folder(path)
    if linked is not None:
        raise _refuse(path, f"{escape_control(str(linked))} is a symlink")
    if _same_file(path, protected):
        raise _refuse(path, "it is the file being rendered")
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            raise _refuse(path, "it is a folder")
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=".goldgate-", suffix=".tmp"
        )
        with os.fdopen(descriptor, "wb") as out:
            produce(out.write)
            os.fchmod(out.fileno(), mode)
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
