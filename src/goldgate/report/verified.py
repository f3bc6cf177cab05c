"""Each report verified once per process (issue 43): the digests of report bytes already
verified here, so that a second reader of the same bytes (a report rendered, then compared;
a shard merged and read again) does not verify them again.

The digest is the sha256 of the exact bytes read (``report.digests``): a file changed in
between has another digest and is verified again. Only a verification that passed is
remembered; a refusal is made again by the next reader, in its own words and at its own
point. Nothing else is remembered, so memory does not grow with the reports: 71 bytes a
report. ``report.background`` verifies reports in a forked helper and notes here what it
verified.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = [
    "forget_verified",
    "is_verified",
    "note_pending",
    "note_verified",
    "settled",
    "verified_once",
]

_VERIFIED: set[str] = set()


_PENDING: dict[str, Callable[[], object]] = {}
"""Reports a forked helper is verifying (``report.background``), by path: how to wait."""


def is_verified(digest: str, path: str | Path | None = None) -> bool:
    """Whether the report bytes of ``digest`` were verified in this process; a helper
    verifying the report at ``path`` is waited for first."""
    if path is not None and _PENDING:
        wait = _PENDING.get(_key(path))
        if wait is not None:
            wait()
    return digest in _VERIFIED


def note_pending(paths: Sequence[Path], wait: Callable[[], object]) -> None:
    """A helper is verifying the reports at ``paths``: ``wait`` gathers it."""
    _PENDING.update(dict.fromkeys(map(_key, paths), wait))


def settled(paths: Sequence[Path]) -> None:
    """The helper verifying ``paths`` is done (or given up)."""
    for path in paths:
        _PENDING.pop(_key(path), None)


def _key(path: str | Path) -> str:
    return os.path.realpath(path)


def note_verified(digest: str) -> None:
    """The report bytes of ``digest`` passed verification in this process."""
    _VERIFIED.add(digest)


def forget_verified() -> None:
    """Forget every report verified so far (tests)."""
    _VERIFIED.clear()
    _PENDING.clear()


def verified_once(digest: str, verify: Callable[[], None]) -> None:
    """``verify()`` (which raises where the report is refused) unless the report bytes of
    ``digest`` were verified in this process already; remembered once it passes."""
    if digest in _VERIFIED:
        return
    verify()
    _VERIFIED.add(digest)
