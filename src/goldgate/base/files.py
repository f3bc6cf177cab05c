"""Reading input files: regular files only, and none larger than a cap.

Every file goldgate reads (settings, workflow files, manifests, case files, reports) comes
through ``read_regular_file``. The file is ``stat``ed before it is opened, so a named pipe, a
device such as ``/dev/zero`` or a folder is refused at once instead of blocking or filling
memory, and a file over the cap is refused without reading it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, Final

from goldgate.base.errors import InvalidInputError, MissingFileError
from goldgate.base.textsafe import escape_control, quote

MAX_FILE_BYTES_VARIABLE: Final = "GOLDGATE_MAX_FILE_BYTES"
DEFAULT_MAX_FILE_BYTES: Final = 256 * 1024 * 1024
"""No gold or settings file is larger; a larger one is a mistake or an attack."""


def max_file_bytes(environ: Mapping[str, str] = os.environ) -> int:
    """The largest file goldgate reads: ``GOLDGATE_MAX_FILE_BYTES`` when set, else 256 MiB."""
    text = environ.get(MAX_FILE_BYTES_VARIABLE)
    if text is None or not text.strip():
        return DEFAULT_MAX_FILE_BYTES
    if not text.strip().isdecimal() or int(text) <= 0:
        raise InvalidInputError(
            f"{MAX_FILE_BYTES_VARIABLE} must be a positive whole number of bytes, "
            f"found {quote(text.strip())}."
        )
    return int(text)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refuse_unless_regular(source: str, status: os.stat_result, what: str, cap: int) -> None:
    if stat.S_ISDIR(status.st_mode):
        raise InvalidInputError(f"{source}: is a folder, not {what}.")
    if not stat.S_ISREG(status.st_mode):
        raise InvalidInputError(
            f"{source}: is {_kind(status.st_mode)}; only regular files are read."
        )
    if status.st_size > cap:
        raise _too_large(source, status.st_size, cap)


def _too_large(source: str, size: int | None, cap: int) -> InvalidInputError:
    found = "" if size is None else f"{size:,} bytes, "
    return InvalidInputError(
        f"{source}: is {found}over the limit of {cap:,} bytes "
        f"(set {MAX_FILE_BYTES_VARIABLE} to change it)."
    )


def open_regular_file(path: Path, source: str, *, what: str = "a file") -> BinaryIO:
    """The regular file at ``path``, open for reading (see ``read_regular_file``); the caller
    reads it in pieces and must not read past ``max_file_bytes()``."""
    cap = max_file_bytes()
    source = escape_control(source)  # a file name is data too: it must not break a line
    try:
        _refuse_unless_regular(source, os.stat(path), what, cap)
        # Non-blocking, so that a file swapped for a named pipe since the stat cannot block
        # the open; fstat then checks what was actually opened.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise MissingFileError(f"{source}: file not found.") from None
    except OSError as error:
        raise InvalidInputError(f"{source}: cannot be read ({error.strerror}).") from None
    except ValueError as error:  # a name no file can have, such as one with a NUL byte
        raise InvalidInputError(f"{source}: cannot be read ({error}).") from None
    handle = os.fdopen(descriptor, "rb")
    try:
        _refuse_unless_regular(source, os.fstat(handle.fileno()), what, cap)
    except BaseException:
        handle.close()
        raise
    return handle


def read_regular_file(
    path: Path, source: str, *, what: str = "a file", admit: Callable[[int], None] | None = None
) -> bytes:
    """The bytes of the regular file at ``path`` (``source`` names it in messages, ``what``
    says what it should be, e.g. "a JSON file"). Anything else, or a file over the cap, is an
    ``InvalidInputError`` naming ``source``; nothing is read from it. ``admit`` is handed the
    file's size before anything is read, to refuse it by raising."""
    cap = max_file_bytes()
    with open_regular_file(path, source, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if admit is not None:
            admit(size)
        try:
            # As much as the file holds, not the cap: read(n) sets n bytes aside first, and
            # a 256 MiB buffer for every small file fails under a memory limit.
            data = handle.read(min(size, cap) + 1)
            if len(data) > size:  # it grew after the stat: the rest, up to the cap
                data += handle.read(cap + 1 - len(data))
        except OSError as error:
            source = escape_control(source)
            raise InvalidInputError(f"{source}: cannot be read ({error.strerror}).") from None
    if len(data) > cap:  # it grew after the stat
        raise _too_large(escape_control(source), None, cap)
    return data


@contextlib.contextmanager
def kept_working_folder() -> Iterator[None]:
    """Around user code run in this process (custom scorers of a replay): the working folder
    it had before, back when the body ends, however user code changed it (``os.chdir``)."""
    try:
        folder: int | None = os.open(".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        folder = None
    try:
        yield
    finally:
        if folder is not None:
            with contextlib.suppress(OSError):
                os.fchdir(folder)
            os.close(folder)


def replace_committed_file(path: Path, data: bytes, what: str) -> None:
    """Replace ``path`` (a file the team commits and reviews, like gold: mode 0644) with
    ``data`` atomically: a temporary file in its folder, synced and renamed into place.
    ``InvalidInputError`` naming the file and ``what`` it is when that cannot be done."""
    import tempfile

    from goldgate.base.problems import display_path

    display = escape_control(display_path(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-")
    except OSError as error:
        raise InvalidInputError(
            f"{display}: cannot write the {what} ({error.strerror or error})."
        ) from None
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise InvalidInputError(
            f"{display}: cannot write the {what} ({error.strerror or error})."
        ) from None
