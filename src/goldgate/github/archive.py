"""An artifact's zip archive, unpacked without trusting it.

The archive comes from a workflow run, so it is read as hostile: no absolute paths, no
``..``, no links or devices, a cap on entries (read from the end records before zipfile
reads the directory) and on bytes actually written. ``ArchiveRefused`` names the entry, or
the cap, that refused the whole archive; nothing of a refused archive is left behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from goldgate.github.client import describe_error, os_reason
from goldgate.github.errors import ArchiveRefused

__all__ = ["extract_zip_safely"]

_CHUNK = 64 * 1024
_ALLOWED_TYPES = (0, stat.S_IFREG, stat.S_IFDIR)  # 0: an archiver that records no type


def extract_zip_safely(
    zip_path: Path, dest_dir: Path, *, max_bytes: int, max_files: int
) -> list[Path]:
    """Unpack ``zip_path`` into ``dest_dir`` (which must not exist yet) and return the files
    written, or refuse the whole archive with ``ArchiveRefused`` and write nothing.

    Refused: absolute paths, ``..`` components, backslashes and drive letters, symbolic
    links, devices and other special entries (by their Unix mode bits), encrypted or
    duplicate entries, more than ``max_files`` entries, and more than ``max_bytes`` bytes in
    all, counted both from the headers and while writing. An entry whose header understates
    its size is refused as unreadable: zipfile stops at the stated size and the checksum
    then fails."""
    if dest_dir.exists():
        raise ArchiveRefused(f"the destination {dest_dir} already exists.")
    if not zip_path.is_file():
        raise ArchiveRefused(f"{zip_path} is not a regular file.")
    dest_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unzip-", dir=dest_dir.parent))
    try:
        written = _extract(zip_path, staging, max_bytes=max_bytes, max_files=max_files)
        staging.rename(dest_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [dest_dir / path.relative_to(staging) for path in written]


def _extract(zip_path: Path, root: Path, *, max_bytes: int, max_files: int) -> list[Path]:
    # Checked before zipfile reads the central directory: millions of tiny entries would
    # cost gigabytes of memory there before their number could be counted (and the count in
    # the end record can lie, so the directory's size is bounded too).
    end_record = _declared_entries(zip_path)
    if end_record is not None:
        count, directory = end_record
        if count > max_files:
            raise ArchiveRefused(
                f"the archive holds {count:,} entries, over the cap of {max_files:,}."
            )
        if directory > max_files * _DIRECTORY_BYTES_PER_FILE + _COMMENT_MAX:
            raise ArchiveRefused(
                f"the archive's central directory is {directory:,} bytes, more than "
                f"{max_files:,} entries need."
            )
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise ArchiveRefused(f"{zip_path.name} is not a readable zip archive.") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > max_files:
            raise ArchiveRefused(
                f"the archive holds {len(entries):,} entries, over the cap of {max_files:,}."
            )
        declared = sum(entry.file_size for entry in entries)
        if declared > max_bytes:
            raise ArchiveRefused(
                f"the archive unpacks to {declared:,} bytes, over the {max_bytes:,}-byte cap."
            )
        seen: set[str] = set()
        for entry in entries:
            parts = _safe_parts(entry)
            key = "/".join(parts)
            if key in seen:
                raise ArchiveRefused(f"the archive holds the entry {entry.filename!r} twice.")
            seen.add(key)
        written: list[Path] = []
        total = 0
        for entry in entries:
            target = root.joinpath(*_safe_parts(entry))
            if entry.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ArchiveRefused(
                    f"the archive entry {entry.filename!r} cannot be written ({os_reason(error)})."
                ) from None
            total = _write_entry(archive, entry, target, total=total, max_bytes=max_bytes)
            written.append(target)
    return written


_END = struct.Struct("<4s4H2LH")  # end of central directory: its record
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")
_COMMENT_MAX = 0xFFFF
_DIRECTORY_BYTES_PER_FILE = 1024  # 46 bytes of header, the name and extra fields


def _declared_entries(zip_path: Path) -> tuple[int, int] | None:
    """The number of entries and the size of the central directory that the archive's end
    records declare (zip64 too), read from its last 64 kB; None when they cannot be found
    (zipfile then refuses the archive)."""
    try:
        with open(zip_path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _END.size - _COMMENT_MAX - _END64_LOCATOR.size))
            tail = handle.read()
            at = tail.rfind(b"PK\x05\x06")
            if at < 0 or at + _END.size > len(tail):
                return None
            end = _END.unpack_from(tail, at)
            entries, directory = int(end[4]), int(end[5])
            locator = at - _END64_LOCATOR.size
            if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
                handle.seek(int(_END64_LOCATOR.unpack_from(tail, locator)[2]))
                record = handle.read(_END64.size)
                if len(record) == _END64.size and record[:4] == b"PK\x06\x06":
                    end64 = _END64.unpack(record)
                    entries, directory = max(entries, int(end64[7])), max(directory, int(end64[8]))
            return entries, directory
    except (OSError, struct.error):
        return None


def _safe_parts(entry: zipfile.ZipInfo) -> tuple[str, ...]:
    """The path components of ``entry``, or ``ArchiveRefused`` naming why it is unsafe."""
    name = entry.filename
    kind = stat.S_IFMT(entry.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise ArchiveRefused(f"the archive entry {name!r} is a symbolic link.")
    if kind not in _ALLOWED_TYPES:
        raise ArchiveRefused(f"the archive entry {name!r} is not a regular file or folder.")
    if entry.flag_bits & 0x1:
        raise ArchiveRefused(f"the archive entry {name!r} is encrypted.")
    if "\\" in name or "\x00" in name or (len(name) > 1 and name[1] == ":"):
        raise ArchiveRefused(f"the archive entry {name!r} has a Windows or malformed path.")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ArchiveRefused(f"the archive entry {name!r} has an absolute path.")
    parts = tuple(part for part in path.parts if part not in ("", "."))
    if ".." in parts:
        raise ArchiveRefused(f"the archive entry {name!r} climbs out with '..'.")
    if not parts:
        raise ArchiveRefused(f"the archive entry {name!r} has no name.")
    return parts


def _write_entry(
    archive: zipfile.ZipFile, entry: zipfile.ZipInfo, target: Path, *, total: int, max_bytes: int
) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        with archive.open(entry) as source, os.fdopen(os.open(target, flags, 0o600), "wb") as out:
            while chunk := source.read(_CHUNK):
                total += len(chunk)
                if total > max_bytes:
                    raise ArchiveRefused(
                        f"the archive entry {entry.filename!r} takes the archive over the "
                        f"{max_bytes:,}-byte cap."
                    )
                out.write(chunk)
    except OSError as error:  # a folder and a file of the same name, for instance
        raise ArchiveRefused(
            f"the archive entry {entry.filename!r} cannot be written ({os_reason(error)})."
        ) from None
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        # A CRC or size mismatch (a header that lies), a truncated entry, an unknown method.
        raise ArchiveRefused(
            f"the archive entry {entry.filename!r} cannot be read "
            f"({describe_error(error).rstrip('.')})."
        ) from None
    return total
