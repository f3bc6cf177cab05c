"""Reports verified by a process forked from this one while this one goes on (issue 43):
``report merge``'s shards while it writes the merged report from them, or the publishing step's
candidate and baseline while it compares and renders them (``app.action.verifying``).

The helper verifies each report as ``report.streamread.streamed_report`` does and answers
with the digest of each one that passed; ``Background.wait`` notes them in
``report.verified``, so that reading the same bytes here skips verifying them again. A report
the helper refuses, or a helper that fails in any way, leaves the rest unknown: the reader
verifies them, and refuses, as it would have, at its own point and in its own words.

The fork is an accelerator (``base.accelerators``): none with ``GOLDGATE_ACCELERATORS=0``,
and none where a fork is not safe or gains nothing (not Linux, another thread running, a
single CPU: ``accelerators.cpu_budget``); the reader then verifies as it reads. The helper
copies this process's memory as it stands (copy on write): ``verify_in_background``'s is
forked before the reports are read here; ``verify_streamed_in_background``'s once they are
scanned here, and verifies them from that scan (the helper reads their cases again from the
files this process holds open, by offset), which it does not make again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from goldgate.base import accelerators
from goldgate.base.memory import single_threaded
from goldgate.report.verified import note_pending, note_verified, settled

if TYPE_CHECKING:
    from goldgate.report.streamread import StreamedReport

__all__ = [
    "Background",
    "fork_possible",
    "verify_in_background",
    "verify_streamed_in_background",
]

_DIGEST_BYTES: Final = 71
"""``sha256:`` and 64 hexadecimal digits."""


class Background:
    """A report being verified by a process forked for it (``verify_in_background``)."""

    def __init__(self, pid: int, reader: int, paths: Sequence[Path]) -> None:
        self._pid: int | None = pid
        self._reader = reader
        self._paths = paths
        note_pending(paths, self.wait)  # a reader of one of them waits for it

    def wait(self) -> int:
        """Wait for the helper; how many of its reports, in order, it verified (their
        digests then count as verified here). It stops at a refusal or a failure: the
        reader verifies the rest, and refuses as it would have."""
        if self._pid is None:
            return 0
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := os.read(self._reader, 4096):
                answer += chunk
        self.close()
        verified = 0
        for line in answer.split(b"\n"):
            digest = line.decode("ascii", "replace")
            if len(digest) != _DIGEST_BYTES or not digest.startswith("sha256:"):
                break
            note_verified(digest)
            verified += 1
        return verified

    def close(self) -> None:
        """Stop waiting: the helper is ended if it still runs, and reaped."""
        settled(self._paths)
        with contextlib.suppress(OSError):
            os.close(self._reader)
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def fork_possible() -> bool:
    """Whether ``verify_in_background`` forks a helper here (see the module's description)."""
    return (
        accelerators.enabled()
        and sys.platform == "linux"
        and accelerators.cpu_budget() >= 2
        and single_threaded()
    )


def verify_in_background(paths: Sequence[Path]) -> Background | None:
    """The reports at ``paths`` verified in turn, as ``report.streamread.streamed_report``
    verifies them, by a process forked from this one, while this one goes on; None where no
    helper is forked (see the module's description). ``Background.wait`` gathers them."""

    def verified() -> Iterator[str]:
        from goldgate.report.streamread import streamed_report

        for path in paths:
            with streamed_report(path) as streamed:
                yield streamed.digest

    return _forked(paths, verified)


def verify_streamed_in_background(reports: Sequence[StreamedReport]) -> Background | None:
    """``verify_in_background`` of reports this process streamed without verifying them
    (``streamed_report(..., verify=False)``, still open): the helper verifies each from the
    scan made here (``report.streamread.verify_streamed``), not scanning it again, reading
    the very bytes scanned. ``report merge`` forks one once it has scanned its shards."""

    def verified() -> Iterator[str]:
        from goldgate.report.streamread import verify_streamed

        for report in reports:
            verify_streamed(report)
            yield report.digest

    return _forked([Path(report.path) for report in reports], verified)


def _forked(paths: Sequence[Path], verified: Callable[[], Iterator[str]]) -> Background | None:
    """A helper forked to run ``verified`` (the digest of each report it verified, in turn),
    or None."""
    if not paths or not fork_possible():
        return None
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:  # no memory or no process left for a fork: the reader verifies
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # pragma: no cover - the helper (measured in the parent's tests)
        _serve(verified, reader, writer)
    os.close(writer)
    accelerators.note("report verify helper")
    return Background(pid, reader, paths)


def _serve(
    verified: Callable[[], Iterator[str]], reader: int, writer: int
) -> None:  # pragma: no cover
    """The helper: verify each report in turn, answer with the digest of each verified (a
    line each, none past a refusal), end without running anything of the parent's (no exit
    handlers, no flushed buffers)."""
    code = 1
    try:
        os.close(reader)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for digest in verified():
            os.write(writer, digest.encode("ascii") + b"\n")
        code = 0
    except BaseException:  # a refusal or anything else: the parent verifies and says why
        pass
    finally:
        os._exit(code)
