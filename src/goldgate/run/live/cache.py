"""The response cache of live targets (``--cache DIR``): plain files, one per answer.

An entry's name is the sha256 of everything that decides an answer: the cache's format, the
workflow's revision, the target's cache identity (its kind; an http target's URL with its
query values and each header's literal value, or for a header read from the environment the
variable's name, never its value; a model target's whole settings: URL, ``api_version``,
model, templates and parameters; a command's argv or a python target's import path with
the commit being evaluated, since the code in the checkout decides their answers), the
request (workflow, flow, step and the case's envelope) and the attempt's index, so that
``--repeat 3`` keeps three answers. That material is only hashed, never stored. An entry
lives at ``DIR/<first two hex digits>/<sha256>.json``, holding ``{"format", "key",
"document"}`` and, where a cache key is configured, ``"mac"``. Nothing else is in the folder,
so a CI cache (``actions/cache``) can save and restore it as it is.

Nothing planted answers a run:

- where the environment variable ``GOLDGATE_CACHE_KEY`` holds a secret (a repository secret,
  which a fork's pull request does not hold), each entry carries an HMAC-SHA256 of its name
  and answer under that secret, and an entry whose HMAC does not verify (or that has none)
  is a miss with a warning;
- a cache folder that git tracks entries in is refused before anything runs (``tracked``;
  the session says so, exit 2);
- a cache folder that is a symbolic link (or not a folder), or has one among its folders
  inside the working folder, is not used at all: one warning,
  every attempt a miss, nothing read or written there; a shard folder or an entry that is a
  symbolic link, a folder or anything but a regular file is a miss with a warning. Every
  open is relative to the folder's own descriptor with ``O_NOFOLLOW``, and a write goes to
  a temporary file in the entry's own folder, renamed into place: never outside the folder.

Folders are 0700 and files 0600: answers are private detail, as reports are. An entry that
cannot be read as one (cut short, edited, another format) is a miss: the target is called
and the entry written anew, and ``warnings`` says so, naming the file, never its content. A
cache that cannot be written is a warning, never the attempt's failure.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import secrets
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from goldgate.base.errors import JsonRejected
from goldgate.base.jsonvalue import canonical_bytes
from goldgate.base.problems import display_path
from goldgate.base.strictjson import finite_float, keyless_decoder
from goldgate.base.textsafe import escape_control

CACHE_FORMAT = "goldgate.cache/2"
KEY_VARIABLE = "GOLDGATE_CACHE_KEY"
"""The environment variable whose secret signs and verifies entries (unset or empty: none)."""
MAX_WARNINGS = 10
"""Corrupt entries named one by one; past this many, only counted."""
MAX_ENTRY_BYTES = 1 << 30
"""An entry larger than this is no answer goldgate wrote (a target's answer is bounded far
below it): a miss with a warning, never read into memory."""
GIT_TIMEOUT = 10.0
"""Seconds ``git ls-files`` may take to say whether the cache folder's entries are tracked."""

_STRICT = keyless_decoder(finite_float)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_LINKS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)
"""What ``O_NOFOLLOW``/``O_DIRECTORY`` answer for a symbolic link or something not a folder."""


class ResponseCache:
    """Stored answers under ``folder`` (made on the first write); ``secret``: the cache key
    that signs and verifies entries (see the module docstring)."""

    def __init__(
        self, folder: Path, secret: bytes | None = None, *, code: str | None = None
    ) -> None:
        self.folder = folder
        self.secret = secret or None
        self.code = code
        """The commit being evaluated (the run's variant revision), which keys the answers
        of targets whose own code decides them (``target.cache_identity``)."""
        self.hits = 0
        self.misses = 0
        self.written = 0
        self.corrupt = 0
        self.warnings: list[str] = []
        self._unusable = False
        self._trusted, self._names = _trusted_and_names(folder)

    def key(
        self,
        workflow_revision: str,
        identity: Mapping[str, Any],
        request: Mapping[str, Any],
        attempt: int,
    ) -> str:
        """The entry's name for one attempt (see the module docstring)."""
        material = {
            "format": CACHE_FORMAT,
            "workflow_revision": workflow_revision,
            "target": dict(identity),
            "request": dict(request),
            "attempt": attempt,
        }
        return hashlib.sha256(canonical_bytes(material)).hexdigest()

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        """The stored result document, or None: never stored, or unusable (a warning)."""
        folder = self._open_folder(create=False)
        if folder is None:
            self.misses += 1
            return None
        try:
            data = self._read(folder, key)
        finally:
            os.close(folder)
        if not isinstance(data, bytes):
            return self._miss(key, data)
        try:
            # Exactly as written: an integer past 64 bits stays that integer (orjson would
            # read it as a float, and the cached answer would differ from the live one); no
            # NaN, no infinity.
            entry = _STRICT.decode(data.decode("utf-8"))
        except (ValueError, RecursionError, JsonRejected):  # not JSON, not UTF-8, too deep
            return self._miss(key, "it is not JSON")
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT:
            return self._miss(key, f"it is not a {CACHE_FORMAT} entry")
        document = entry.get("document")
        if entry.get("key") != key or not isinstance(document, dict):
            return self._miss(key, "it does not hold this entry's answer")
        if self.secret is not None:
            mac = entry.get("mac")
            if not isinstance(mac, str) or not hmac.compare_digest(mac, self._mac(key, document)):
                return self._miss(
                    key,
                    f"it is not signed with this job's {KEY_VARIABLE} (written without it, "
                    "or altered)",
                )
        self.hits += 1
        return document

    def _read(self, folder: int, key: str) -> bytes | str | None:
        """The entry's bytes; None: there is none; a string: why it cannot be read."""
        try:
            shard = os.open(key[:2], _FOLDER_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            return None
        except OSError as error:
            return _unreadable(error, "its folder is a symbolic link or not a folder")
        try:
            # Non-blocking, so a FIFO in its place cannot block the run; not following a
            # symbolic link; and only a regular file is read.
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC
            descriptor = os.open(f"{key}.json", flags, dir_fd=shard)
        except FileNotFoundError:
            return None
        except OSError as error:
            return _unreadable(error, "it is a symbolic link")
        finally:
            os.close(shard)
        try:
            status = os.fstat(descriptor)
        except OSError as error:
            os.close(descriptor)
            return f"it cannot be read ({type(error).__name__})"
        if not stat.S_ISREG(status.st_mode):  # a folder, a FIFO, a device: never read
            os.close(descriptor)
            return "it is not a regular file"
        if status.st_size > MAX_ENTRY_BYTES:
            os.close(descriptor)
            return "it is larger than any answer"
        with os.fdopen(descriptor, "rb") as handle:
            try:
                return handle.read()
            except OSError as error:
                return f"it cannot be read ({type(error).__name__})"

    def _miss(self, key: str, why: str | None) -> dict[str, Any] | None:
        """A miss; with a warning naming the entry's file when there is a ``why``."""
        self.misses += 1
        if why is None:
            return None
        self.corrupt += 1
        if self.corrupt <= MAX_WARNINGS:
            where = escape_control(display_path(self.path(key)))
            self.warnings.append(
                f"cache entry {where} was ignored: {why}; the target was called instead"
            )
        return None

    def _mac(self, key: str, document: Mapping[str, Any]) -> str:
        assert self.secret is not None
        message = b"\n".join((CACHE_FORMAT.encode(), key.encode(), canonical_bytes(document)))
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def _open_folder(self, *, create: bool) -> int | None:
        """The cache folder's descriptor, not following a symbolic link; None when there is
        no folder yet or it cannot be used (the first time, a warning says why)."""
        if self._unusable:
            return None
        try:
            return _open_folder(self._trusted, self._names, create)
        except FileNotFoundError:
            if create:
                self._warn_folder("cannot be written (FileNotFoundError); answers are not kept")
            return None
        except OSError as error:
            self._unusable = error.errno in _LINKS
            self._warn_folder(
                "is a symbolic link or not a folder; the cache was not used (nothing read "
                "or written there)"
                if self._unusable
                else f"cannot be used ({type(error).__name__}); answers are not kept"
            )
            return None

    def refuse(self, why: str) -> None:
        """Use nothing in the folder this run: every attempt a miss, one warning (``why``)."""
        self._unusable = True
        self._warn_folder(why)

    def _warn_folder(self, why: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            where = escape_control(display_path(self.folder))
            self.warnings.append(f"the cache folder {where} {why}")

    def store(self, key: str, document: Mapping[str, Any]) -> None:
        """Write an answer atomically inside the folder; a folder or an entry that cannot
        be written is a warning, never the attempt's failure (the answer is in hand)."""
        entry: dict[str, Any] = {"format": CACHE_FORMAT, "key": key, "document": document}
        if self.secret is not None:
            entry["mac"] = self._mac(key, document)
        try:
            data = orjson.dumps(entry)
        except TypeError:  # an integer past 64 bits, which the standard library writes
            data = canonical_bytes(entry)
        folder = self._open_folder(create=True)
        if folder is None:
            return
        try:
            _write(folder, key, data)
        except OSError as error:
            if len(self.warnings) < MAX_WARNINGS:
                where = escape_control(display_path(self.path(key)))
                self.warnings.append(
                    f"cache entry {where} cannot be written ({type(error).__name__}); "
                    "this answer is not kept"
                )
            return
        finally:
            os.close(folder)
        self.written += 1

    def summary_warnings(self) -> list[str]:
        """The warnings to show after a run, the count of those left out included."""
        left_out = self.corrupt - MAX_WARNINGS
        more = [f"{left_out} more cache entries were ignored as unreadable"] if left_out > 0 else []
        return [*self.warnings, *more]


def _trusted_and_names(folder: Path) -> tuple[Path, tuple[str, ...]]:
    """Where opening ``folder`` starts, trusted, and the names opened from there without
    following a symbolic link: from the working folder (the checkout, where a pull request
    could commit a link) each component of a path inside it, relative or absolute as the
    command line makes every path before user code runs; else the last component only (a
    system folder such as ``/tmp`` may be a link). Decided once, before user code can move
    the working folder."""
    here = Path.cwd()
    inside = folder if not folder.is_absolute() else None
    if inside is None:
        with contextlib.suppress(ValueError):
            inside = folder.relative_to(here)
    if inside is not None and inside.parts:
        return here, inside.parts
    return folder.parent, (folder.name,)


def _open_folder(trusted: Path, names: tuple[str, ...], create: bool) -> int:
    """The descriptor of the folder ``names`` (made first when ``create``) below
    ``trusted``, through no symbolic link."""
    if create:
        with contextlib.suppress(OSError):  # opening it says what is wrong
            trusted.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(trusted, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for name in names:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=descriptor)
            inner = os.open(name, _FOLDER_FLAGS, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _unreadable(error: OSError, link: str) -> str:
    return link if error.errno in _LINKS else f"it cannot be read ({type(error).__name__})"


def _write(folder: int, key: str, data: bytes) -> None:
    """``data`` into the entry's file: a temporary file in the entry's own folder (opened
    relative to ``folder``, following no link), renamed into place."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(key[:2], 0o700, dir_fd=folder)
    shard = os.open(key[:2], _FOLDER_FLAGS, dir_fd=folder)
    try:
        temporary = f".{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
        descriptor = os.open(temporary, flags, 0o600, dir_fd=shard)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.replace(temporary, f"{key}.json", src_dir_fd=shard, dst_dir_fd=shard)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=shard)
            raise
    finally:
        os.close(shard)


def tracked(folder: Path) -> bool | None:
    """Whether git tracks any file in ``folder`` (a pull request could have committed
    answers there): ``git ls-files`` as a plain program with a timeout. Not a folder, not in
    a git repository, or no git: False; no answer within ``GIT_TIMEOUT``: None."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    environ = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    try:
        found = subprocess.run(
            ["git", "-c", "safe.directory=*", "ls-files", "-z", "--", "."],
            cwd=folder,
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    except OSError:
        return False
    return found.returncode == 0 and bool(found.stdout)
