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
copies this process's memory as it stands (copy on write): ``verify_streamed_in_background``'s
is forked once the reports are scanned here, and verifies them from that scan (the helper
reads their cases again from the files this process holds open, by offset), which it does
not make again; ``scan_ahead_in_background``'s before the report is read here: it scans the
report, hands the scan here, then verifies the report from it. ``scan_in_background``'s only
scans.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from goldgate.base import accelerators
from goldgate.base.memory import single_threaded
from goldgate.report.verified import note_pending, note_verified, settled

if TYPE_CHECKING:
    from goldgate.report.scan import CaseHook
    from goldgate.report.streamread import HandedScan, StreamedReport

__all__ = [
    "Background",
    "fork_possible",
    "scan_ahead_in_background",
    "scan_in_background",
    "verify_streamed_in_background",
]

_HELD: set[int] = set()
"""This process's ends of its helpers' pipes: a helper forked later closes its copies (a
helper handing a scan ends, refused, once this process closes its end)."""
_DIGEST_BYTES: Final = 71
"""``sha256:`` and 64 hexadecimal digits."""
_SIZE_BYTES: Final = 8
"""Each piece a helper hands (``Background.made``) follows its size in bytes."""
_PIECES_BUFFER: Final = 1 << 16
YIELDING: Final = 10
"""How much a helper that verifies while the publishing step compares and renders yields the
CPU to it (``os.nice``): the step waits for its helpers only once it has rendered, so on the
CPUs they share, the step goes first."""
_PIPE_SIZE: Final = 1 << 20
"""How much a helper handing pieces may run ahead of this process (Linux's default limit for
a pipe's size)."""


class Background:
    """Reports being verified by a process forked for them (``verify_streamed_in_background``,
    ``scan_ahead_in_background``), or scanned (``scan_in_background``)."""

    def __init__(
        self,
        pid: int,
        paths: Sequence[Path],
        *,
        reader: int,
        scans: int | None = None,
        verifying: bool = True,
    ) -> None:
        self._pid: int | None = pid
        self._reader = reader
        self._paths = paths
        # A helper that only scans (``scan_in_background``) verifies nothing to wait for.
        self._verifying = paths if verifying else ()
        self._scans = scans
        self._pieces: BinaryIO | None = None
        _HELD.update(end for end in (reader, scans) if end is not None)
        note_pending(self._verifying, self.wait)  # a reader of one of them waits for it

    def handed(self) -> Any:
        """What a ``scan_ahead_in_background`` helper handed here (its scan, None where it
        read the report whole, and its copies of the hooks), waiting for it; None where the
        helper stopped first."""
        import pickle

        if self._scans is None:
            return None
        with contextlib.suppress(Exception), os.fdopen(self._scans, "rb") as scans:
            _HELD.discard(self._scans)
            self._scans = None  # closed with the file
            # The helper is this process forked: what it sends is trusted as this
            # process's own scan would be.
            return pickle.load(scans)
        return None

    def handed_scans(self) -> list[HandedScan | None]:
        """The scan of each report a ``scan_in_background`` helper handed here, in order
        (None for a report it did not hand: read whole there, or it stopped)."""
        import pickle

        found: list[HandedScan | None] = []
        if self._scans is not None:
            with contextlib.suppress(Exception), os.fdopen(self._scans, "rb") as scans:
                _HELD.discard(self._scans)
                self._scans = None  # closed with the file
                while len(found) < len(self._paths):
                    # The helper is this process forked: what it sends is trusted as this
                    # process's own scan would be.
                    found.append(pickle.load(scans))
        return found + [None] * (len(self._paths) - len(found))

    def made(self) -> Iterator[bytes]:
        """The pieces a ``verify_streamed_in_background`` helper given ``made`` hands here, in
        order, until it has handed them all or stops (it failed: the caller makes the rest)."""
        if self._scans is None:
            return
        _HELD.discard(self._scans)
        self._pieces = pieces = os.fdopen(self._scans, "rb", buffering=_PIECES_BUFFER)
        self._scans = None  # closed with the file
        with contextlib.suppress(OSError, ValueError):  # ValueError: closed by wait()
            while len(head := pieces.read(_SIZE_BYTES)) == _SIZE_BYTES:
                size = int.from_bytes(head, "little")
                piece = pieces.read(size)
                if len(piece) != size:
                    return
                yield piece

    def wait(self) -> int:
        """Wait for the helper; how many of its reports, in order, it verified (their
        digests then count as verified here). It stops at a refusal or a failure: the
        reader verifies the rest, and refuses as it would have."""
        if self._pid is None:
            return 0
        self._stop_handing()  # a helper handing a scan no one takes would never end
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

    def _stop_handing(self) -> None:
        if self._pieces is not None:
            self._pieces.close()
            self._pieces = None
        if self._scans is not None:
            _HELD.discard(self._scans)
            with contextlib.suppress(OSError):
                os.close(self._scans)
            self._scans = None

    def close(self) -> None:
        """Stop waiting: the helper is ended if it still runs, and reaped."""
        settled(self._verifying)
        if self._reader in _HELD:
            _HELD.discard(self._reader)
            with contextlib.suppress(OSError):
                os.close(self._reader)
        self._stop_handing()
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def fork_possible() -> bool:
    """Whether a helper is forked here (see the module's description)."""
    return (
        accelerators.enabled()
        and sys.platform == "linux"
        and accelerators.cpu_budget() >= 2
        and single_threaded()
    )


def verify_streamed_in_background(
    reports: Sequence[StreamedReport],
    made: Callable[[Callable[[bytes], object]], None] | None = None,
    *,
    yielding: bool = False,
) -> Background | None:
    """Reports this process streamed without verifying them (``streamed_report(...,
    verify=False)``, still open) verified in turn by a process forked from this one, while
    this one goes on: the helper verifies each from the
    scan made here (``report.streamread.verify_streamed``), not scanning it again, reading
    the very bytes scanned. ``report merge`` forks one once it has scanned its shards, the
    publishing step one for each report once it has scanned it (``app.action.verifying``). With
    ``made``, the helper first calls it with a function that hands here each piece given
    to it (``Background.made``: this process takes them as they come), which may verify
    reports as it goes (they are not verified again), then verifies the rest. A
    ``yielding`` helper gives this process the CPU first (``YIELDING``)."""

    def verified(handing: int | None) -> Iterator[str]:
        from goldgate.report.streamread import verify_streamed
        from goldgate.report.verified import is_verified

        if yielding:
            _yield_cpu()
        if made is not None:
            assert handing is not None
            with os.fdopen(handing, "wb", buffering=_PIECES_BUFFER) as pieces:

                def hand(piece: bytes) -> None:
                    pieces.write(len(piece).to_bytes(_SIZE_BYTES, "little"))
                    pieces.write(piece)

                made(hand)
        for report in reports:
            if not is_verified(report.digest):
                verify_streamed(report)
            yield report.digest

    paths = [Path(report.path) for report in reports]
    return _forked(paths, verified, handing=made is not None)


def scan_in_background(paths: Sequence[Path]) -> Background | None:
    """The reports at ``paths`` scanned by a process forked from this one, which hands each
    scan here (``Background.handed_scans``; ``report.streamread.streamed_from_scan`` streams
    the report from it) and ends, while this one goes on: ``report merge``'s shards scanned
    while it builds what reading and verifying them need (the scan needs none of it: the
    helper imports nothing more). None where no helper is forked."""

    def handed(scans: int | None) -> Iterator[str]:
        import pickle

        assert scans is not None
        with os.fdopen(scans, "wb") as handing:
            for path in paths:
                pickle.dump(_scanned(path), handing, pickle.HIGHEST_PROTOCOL)
                handing.flush()
        yield from ()  # it verifies nothing

    return _forked(paths, handed, handing=True, verifying=False)


def scan_ahead_in_background(path: Path, hooks: Sequence[CaseHook]) -> Background | None:
    """The report at ``path`` scanned by a process forked from this one, each case handed
    to every one of ``hooks`` as it is parsed; the helper hands here the scan and its copies
    of ``hooks`` (``Background.handed``: ``report.streamread.streamed_from_scan`` streams the
    report from that scan), then verifies the report from it, as
    ``verify_streamed_in_background``'s helper does, and answers with its digest. The
    publishing step forks one for each report before it needs them, so that both are
    scanned while it loads what comparing and rendering them takes. None where no helper
    is forked; a report read whole hands no scan (None) and is not verified there."""

    def scanned_then_verified(handing: int | None) -> Iterator[str]:
        import pickle

        from goldgate.base.memory import collections_paused
        from goldgate.report.streamread import streamed_from_scan, verify_streamed

        assert handing is not None
        # A short life of plain values and modules (the scan's cases, the verification's
        # imports and validators), no cycles made a case: nothing for a collection to find.
        with collections_paused():
            scan = _scanned(path, _each(hooks))
            with os.fdopen(handing, "wb") as handed:
                pickle.dump((scan, tuple(hooks)), handed, pickle.HIGHEST_PROTOCOL)
            _yield_cpu()  # the scan was waited for; the verification is not, yet
            if scan is not None:
                with streamed_from_scan(path, scan) as streamed:
                    verify_streamed(streamed)
                    yield streamed.digest

    return _forked([path], scanned_then_verified, handing=True)


def _yield_cpu() -> None:
    with contextlib.suppress(OSError):  # not allowed here: it runs as it is
        os.nice(YIELDING)


def _each(hooks: Sequence[CaseHook]) -> CaseHook | None:
    """One hook that hands each case to every one of ``hooks`` in turn (None for none)."""
    if not hooks:
        return None
    if len(hooks) == 1:
        return hooks[0]

    def each(suite: int, position: int, raw: Any) -> None:
        for hook in hooks:
            hook(suite, position, raw)

    return each


def _scanned(path: Path, on_case: CaseHook | None = None) -> HandedScan | None:
    """The report at ``path`` scanned, as ``report.streamread.streamed_report`` scans it
    (each case handed to ``on_case``), to hand to this process's parent; None where it is
    read whole. A refusal ends the helper:
    the parent reads the rest and refuses in its own words."""
    from goldgate.base.files import open_regular_file
    from goldgate.report.readbound import memory_bounded
    from goldgate.report.scan import scan_report
    from goldgate.report.streamread import hand_scan

    source = str(path)
    with open_regular_file(path, source, what="a report") as handle, memory_bounded(source):
        scanned = scan_report(handle, source, on_case)
    return None if scanned is None else hand_scan(scanned)


def _forked(
    paths: Sequence[Path],
    verified: Callable[[int | None], Iterator[str]],
    *,
    handing: bool = False,
    verifying: bool = True,
) -> Background | None:
    """A helper forked to run ``verified`` (the digest of each report it verified, in turn;
    given the end of a pipe to hand scans or pieces through where ``handing``), or None."""
    if not paths or not fork_possible():
        return None
    pipes: list[tuple[int, int]] = []
    try:
        for _ in range(2 if handing else 1):
            pipes.append(os.pipe())
        if handing:
            import fcntl  # Linux's (fork_possible)

            with contextlib.suppress(OSError):  # past the limit: the pipe as it is
                fcntl.fcntl(pipes[1][1], fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except OSError:
        _close_all(pipes)
        return None
    try:
        pid = os.fork()
    except OSError:  # no memory or no process left for a fork: the reader verifies
        _close_all(pipes)
        return None
    (reader, writer), *scans = pipes
    if pid == 0:  # pragma: no cover - the helper (measured in the parent's tests)
        for end in (*_HELD, *(scan_reader for scan_reader, _ in scans)):
            os.close(end)
        _serve(partial(verified, scans[0][1] if scans else None), reader, writer)
    os.close(writer)
    for _, scan_writer in scans:
        os.close(scan_writer)
    accelerators.note("report verify helper")
    handed = scans[0][0] if scans else None
    return Background(pid, paths, reader=reader, scans=handed, verifying=verifying)


def _close_all(pipes: Sequence[tuple[int, int]]) -> None:
    for pipe in pipes:
        for end in pipe:
            os.close(end)


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
