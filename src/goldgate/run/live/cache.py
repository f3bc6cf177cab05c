"""The response cache of live targets (``--cache DIR``): plain files, one per answer.

An entry's name is the sha256 of what decides an answer: the cache's format, the workflow's
revision, the target's identity (``describe()``: its kind, URL, model, templates and
parameters; never a secret), the request (workflow, flow, step and the case's envelope) and
the attempt's index, so that ``--repeat 3`` keeps three answers. It lives at
``DIR/<first two hex digits>/<sha256>.json``, holding ``{"format", "key", "document"}``.
Nothing else is in the folder, so a CI cache (``actions/cache``) can save and restore it as
it is, under any key the workflow computes; an entry no run asks for again is never read.

Writing is atomic (a temporary file in the entry's folder, renamed into place) with folders
0700 and files 0600: answers are private detail, as reports are. An entry that cannot be
read as one (cut short, edited, another format) is a miss: the target is called and the
entry written anew, and ``warnings`` says so, naming the file, never its content.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from goldgate.base.jsonvalue import canonical_bytes
from goldgate.base.problems import display_path
from goldgate.base.textsafe import escape_control

CACHE_FORMAT = "goldgate.cache/1"
MAX_WARNINGS = 10
"""Corrupt entries named one by one; past this many, only counted."""


class ResponseCache:
    """Stored answers under ``folder`` (made on the first write)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hits = 0
        self.misses = 0
        self.written = 0
        self.corrupt = 0
        self.warnings: list[str] = []

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
        """The stored result document, or None: never stored, or unreadable (a warning)."""
        path = self.path(key)
        try:
            # One open for a hit (a re-run takes every answer from here); non-blocking, so
            # a FIFO in its place cannot block the run, and only a regular file is read.
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError as error:
            return self._corrupt(path, f"it cannot be read ({type(error).__name__})")
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return self._corrupt(path, "it is not a regular file")
            try:
                data = handle.read()
            except OSError as error:
                return self._corrupt(path, f"it cannot be read ({type(error).__name__})")
        try:
            entry = orjson.loads(data)
        except orjson.JSONDecodeError:
            return self._corrupt(path, "it is not JSON")
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT:
            return self._corrupt(path, f"it is not a {CACHE_FORMAT} entry")
        document = entry.get("document")
        if entry.get("key") != key or not isinstance(document, dict):
            return self._corrupt(path, "it does not hold this entry's answer")
        self.hits += 1
        return document

    def _corrupt(self, path: Path, why: str) -> dict[str, Any] | None:
        """A miss, with a warning naming the entry's file."""
        self.misses += 1
        self.corrupt += 1
        if self.corrupt <= MAX_WARNINGS:
            where = escape_control(display_path(path))
            self.warnings.append(
                f"cache entry {where} was ignored: {why}; the target was called instead"
            )
        return None

    def store(self, key: str, document: Mapping[str, Any]) -> None:
        """Write an answer atomically; a folder that cannot be written is a warning, never
        the attempt's failure (the answer is in hand)."""
        path = self.path(key)
        data = orjson.dumps({"format": CACHE_FORMAT, "key": key, "document": document})
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as error:
            if len(self.warnings) < MAX_WARNINGS:
                where = escape_control(display_path(self.folder))
                self.warnings.append(
                    f"the cache folder {where} cannot be written ({type(error).__name__}); "
                    "answers are not kept"
                )
            return
        self.written += 1

    def summary_warnings(self) -> list[str]:
        """The warnings to show after a run, the count of those left out included."""
        left_out = self.corrupt - MAX_WARNINGS
        more = [f"{left_out} more cache entries were ignored as unreadable"] if left_out > 0 else []
        return [*self.warnings, *more]
