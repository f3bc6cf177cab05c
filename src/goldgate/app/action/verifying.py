"""The publishing step's reports verified by forked helpers while this process compares
and renders them (issue 43): both CPUs at work, nothing published before the verification.

Verifying a report (re-scoring every check of every attempt) is the costliest part of
reading it. Where a helper can be forked (``report.background``: the accelerators on, Linux,
two CPUs, no other thread), this process scans each report (unverified) and, as soon as it
has, forks a helper that verifies it from that scan
(``report.background.verify_streamed_in_background``: each report is scanned once in the
whole step), while this process compares and renders. Until the helpers have answered that
they verified the very bytes used here (their digests), nothing is published: the step's
workflow commands are held (``StepRun.out``), and every file, output, summary, comment and
check run waits for ``Deferred.settle``. Where the helpers did not verify them all (a forged
verdict, a truncated file, a helper that failed or was not forked), what was made is
dropped, the step's state is put back as it was, and the step runs again with the reports
verified here as they are read: the same refusal, in the same words, at the same point,
nothing written before it. ``GOLDGATE_ACCELERATORS=0`` is that second run alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.action.step import StepRun

if TYPE_CHECKING:
    from goldgate.report.background import Background
    from goldgate.report.scan import CaseHook
    from goldgate.report.streamread import HandedScan, StreamedReport

__all__ = ["Deferred", "Handed", "verified_meanwhile"]


@dataclass(frozen=True)
class Handed:
    """A report's scan made by a helper ahead (``Deferred.scan_ahead``): the scan, to stream
    the report from (``report.streamread.streamed_from_scan``), and the helper's copies of
    the hooks it was given, which saw every case."""

    scan: HandedScan
    hooks: tuple[CaseHook, ...]


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _Unverified(Exception):
    """The helper did not verify every report used: what was made from them is dropped."""


class Deferred:
    """Reports being verified by helpers while this process uses them: the digests of the
    bytes used, the step's output held meanwhile, and what waits for the verification."""

    def __init__(self, run: StepRun) -> None:
        self._run = run
        self._helpers: list[Background] = []
        self._out = run.out
        self._held: list[str] = []
        run.out = self._held.append
        self._state = (list(run.notes), run.failure, run.baseline, run.interrupted)
        self._digests: list[str] = []
        self._pending: Callable[[], Path] | None = None
        self._written: Path | None = None
        self.settled = False
        self._ahead: dict[str, Background] = {}
        """Helpers scanning a report before it is needed (``scan_ahead``), by real path."""
        self._adopted: dict[str, Background] = {}
        """Helpers that handed their scan, by the digest of the report they verify."""

    def scan_ahead(self, path: Path, hooks: Sequence[CaseHook]) -> None:
        """Have a helper scan the report at ``path`` now, each case handed to ``hooks``
        (``report.background.scan_ahead_in_background``), then verify it: ``handed`` takes
        the scan when it is needed. Nothing where no helper is forked."""
        from goldgate.report.background import scan_ahead_in_background

        key = os.path.realpath(path)
        if key in self._ahead:  # a report its own baseline: scanned once
            return
        helper = scan_ahead_in_background(path, hooks)
        if helper is not None:
            self._ahead[key] = helper

    def handed(self, path: Path) -> Handed | None:
        """The scan of the report at ``path`` a helper made ahead (``scan_ahead``) and its
        copies of the hooks given it, waiting for them; None where none was made (no
        helper, a report read whole, a helper that stopped): the caller scans it. The
        helper then verifies the report from that scan (adopted by ``used``)."""
        helper = self._ahead.pop(os.path.realpath(path), None)
        if helper is None:
            return None
        taken = helper.handed()
        if not isinstance(taken, tuple) or taken[0] is None:
            helper.close()
            return None
        scan, hooks = taken
        self._adopted[scan.digest] = helper
        return Handed(scan, hooks)

    def used(self, streamed: StreamedReport) -> None:
        """The report ``streamed`` (read here without ``verify``) is used: a helper forked
        now verifies it from the scan made here. Where none is forked, it is not verified
        when the step settles, which then runs again verifying as it reads."""
        from goldgate.report.background import verify_streamed_in_background

        if streamed.digest in self._digests:  # the same bytes (a report its own baseline)
            return
        self._digests.append(streamed.digest)
        adopted = self._adopted.pop(streamed.digest, None)
        if adopted is not None:  # streamed from the scan of a helper that verifies it
            self._helpers.append(adopted)
            return
        if streamed.unverified:  # else read whole, and verified as it was
            helper = verify_streamed_in_background([streamed], yielding=True)
            if helper is not None:
                self._helpers.append(helper)

    def write_later(self, write: Callable[[], Path]) -> None:
        """``write`` (a file, such as the comparison) once the reports are verified."""
        self._pending = write

    def settle(self) -> Path | None:
        """Wait for the helper; unless it verified every report used, ``_Unverified``.
        Then the output held is written, and the write left for now is made (its path)."""
        if not self.settled:
            from goldgate.report.verified import is_verified

            for helper in self._helpers:
                helper.wait()
            if not all(is_verified(digest) for digest in self._digests):
                raise _Unverified
            self.settled = True
            self._release()
            pending, self._pending = self._pending, None
            if pending is not None:
                self._written = pending()
        return self._written

    def _release(self) -> None:
        self._run.out = self._out
        held, self._held = self._held, []
        for text in held:
            self._out(text)

    def rewind(self) -> None:
        """Drop what was made: the output held, and the step's state as it was."""
        run = self._run
        run.out = self._out
        self._held.clear()
        notes, run.failure, run.baseline, run.interrupted = self._state
        run.notes[:] = notes
        self._pending = None

    def close(self) -> None:
        for helper in (*self._helpers, *self._ahead.values(), *self._adopted.values()):
            helper.close()


def verified_meanwhile(
    run: StepRun, paths: list[Path], attempt: Callable[[Deferred | None], int]
) -> int:
    """``attempt(deferred)`` with the reports it uses (among ``paths``) verified by helpers
    meanwhile (see the module's description); ``attempt(None)`` (every report verified as it
    is read) where no helper can be forked, or where the helpers did not verify every report
    used."""
    from goldgate.report.background import fork_possible

    if not paths or not fork_possible():
        return attempt(None)
    deferred = Deferred(run)
    try:
        try:
            code = attempt(deferred)
            deferred.settle()  # where nothing waited for it: what it held is written now
            return code
        except _Unverified:
            deferred.rewind()
        except BaseException:
            # Something this process did not expect: as the step would have met it with the
            # reports verified first, or not at all where one of them is refused.
            if not deferred.settled:
                try:
                    deferred.settle()
                except _Unverified:
                    deferred.rewind()
                else:
                    raise
            else:
                raise
    finally:
        deferred.close()
    return attempt(None)
