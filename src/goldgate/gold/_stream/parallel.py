"""Checking a large case file on several cores: helper processes forked from this one check
batches of cases while this process reads the file and checks the other batches.

Checking a case does not depend on the other cases (duplicate ids aside, which this process
looks for). So once a case file proves large, this process only finds where the cases of
some batches are (``ElementReader.next(strict=False)``, several times cheaper than parsing
them strictly) and sends their places to a helper forked from it, which inherits the models,
the settings and the open file. The helper reads each case's bytes back with ``pread``, makes
sure they are the bytes this process read (their checksum), parses them strictly, checks the
case and answers with its id and canonical bytes (for the fingerprint) and whether every case
was good gold, compares text or names custom scorers. A batch goes to a helper only while it
has fewer than ``_AHEAD`` batches unanswered, so the work shares itself out however fast
each side is.

Helpers are forked only on Linux, one per CPU this process may keep busy beyond its own
(its CPU affinity and its container's CPU quota both count: ``accelerators.cpu_budget``),
at most ``MAX_HELPERS``; only while this process runs no other thread (a fork copies only
the calling thread: a lock another thread held would stay held in the copy); and only after
``PARALLEL_FROM`` cases, so small gold never pays for them (from the first case in a file of
``PARALLEL_BYTES``). The outcome is the same
either way, since a helper runs the same checks (``check_spans``); if one fails in any way,
this process checks the batches it did not answer. A helper answers with the programs of the
patterns it compiled (``patterns.PatternCode``), which this process rebuilds in a microsecond
each for the run (``gold._stream.store``) instead of compiling them again. Like the whole
streamed check, helpers are an accelerator: none with ``GOLDGATE_ACCELERATORS=0``.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a
# named tuple's string annotations are each compiled as a forward reference when the class is
# made, at some 60 us a field.
import contextlib
import os
import select
import signal
import sys
import threading
import zlib
from collections.abc import Callable
from typing import Any, Final, NamedTuple

from goldgate.base.accelerators import cpu_budget, note
from goldgate.base.jsonvalue import canonical_bytes
from goldgate.gold._stream.casefile import strict_value
from goldgate.gold.patterns import PatternCode, record_patterns, take_recorded

__all__ = [
    "BATCH",
    "PARALLEL_BYTES",
    "PARALLEL_FROM",
    "Answer",
    "CaseCheck",
    "Helper",
    "Span",
    "check_spans",
    "cpu_budget",
    "parallel_possible",
    "start_helper",
    "start_helpers",
]

PARALLEL_FROM: Final = 256
"""Cases checked in this process before a helper is worth forking: about 25 ms of work, which
a fork (a few milliseconds) repays within the next batches."""
PARALLEL_BYTES: Final = 1 << 20
"""A case file at least this large has cases enough to repay a helper (256 cases of 4 KiB):
it is forked before the first case, not after ``PARALLEL_FROM``."""
BATCH: Final = 128
"""Cases per batch."""
_AHEAD: Final = 3
"""Batches the helper may have unanswered before this process checks the next one itself."""
_PATIENCE: Final = 600.0
"""Seconds to wait for one answer before the helper counts as failed (it checks a batch in
milliseconds: only a stopped or starved machine takes longer)."""

Span = tuple[int, int, int, int]
"""A case's byte offset, length, crc32 and position in the file."""
CaseCheck = Callable[[Any, int], tuple[bool, frozenset[str], frozenset[str]]]
"""Checks one parsed case at its position: (compares text, custom scorers named, judges
named). Raises when the case is not good gold."""


class Answer(NamedTuple):
    """What checking a batch found: ``good`` when every case is good gold (and then each
    case's id and canonical bytes, in order), whether any compares text, the scorers named,
    the patterns compiled for it (in a helper: not those it had compiled before), and the
    judges named."""

    good: bool
    has_text: bool = False
    scorers: frozenset[str] = frozenset()
    ids: tuple[str, ...] = ()
    canonical: tuple[bytes, ...] = ()
    patterns: tuple[PatternCode, ...] = ()
    judges: frozenset[str] = frozenset()


_BAD: Final = Answer(False)


def check_spans(fd: int, spans: list[Span], check: CaseCheck) -> Answer:
    """The cases at ``spans`` of the file open as ``fd``, checked by ``check``."""
    ids: list[str] = []
    canonical: list[bytes] = []
    has_text = False
    scorers: set[str] = set()
    judges: set[str] = set()
    try:
        for offset, length, checksum, position in spans:
            data = os.pread(fd, length, offset)
            if zlib.crc32(data) != checksum:  # not the bytes that were read: the file changed
                return _BAD
            value, has_floats = strict_value(data)
            text, named, judged = check(value, position)
            has_text = has_text or text
            scorers.update(named)
            judges.update(judged)
            ids.append(value["id"])
            canonical.append(canonical_bytes(value, has_floats=has_floats))
    except Exception:  # not strict JSON, not good gold, unreadable: the whole-file path says why
        take_recorded()
        return _BAD
    found = (frozenset(scorers), tuple(ids), tuple(canonical), take_recorded(), frozenset(judges))
    return Answer(True, has_text, *found)


def parallel_possible() -> bool:
    """Whether helper processes may be forked here (see the module's description)."""
    return sys.platform == "linux" and threading.active_count() == 1 and cpu_budget() >= 2


class Helper:
    """The forked helper, the batches sent to it and its answers."""

    def __init__(self, process: Any, connection: Any, fd: int, check: CaseCheck) -> None:
        self.process = process
        self.connection = connection
        # One poll object for every look: Connection.poll builds a selector at each call,
        # which cost more than the check of a case.
        self._poll = select.poll()
        self._poll.register(connection.fileno(), select.POLLIN)
        self.fd = fd
        self.check = check
        self.sent = 0
        self.failed = False
        self._answers: dict[int, Answer] = {}
        self._unanswered: dict[int, list[Span]] = {}

    def send(self, spans: list[Span]) -> int:
        """Hand a batch to the helper; its number."""
        number = self.sent
        self.sent += 1
        self._unanswered[number] = spans
        if not self.failed:
            try:
                self.connection.send((number, spans))
            except (OSError, ValueError):
                self.failed = True
        return number

    def has_room(self) -> bool:
        """Whether the next batch may go to the helper (the answers ready are taken)."""
        self._collect(block=False)
        return not self.failed and len(self._unanswered) < _AHEAD

    def answered(self, number: int) -> bool:
        """Whether batch ``number`` is answered (taking the answers ready)."""
        self._collect(block=False)
        return number in self._answers or self.failed

    def answer(self, number: int) -> Answer:
        """Batch ``number``'s answer, waited for; checked here if the helper failed."""
        while number not in self._answers and not self.failed:
            self._collect(block=True)
        if number in self._answers:
            return self._answers.pop(number)
        return check_spans(self.fd, self._unanswered.pop(number), self.check)

    def _collect(self, *, block: bool) -> None:
        while self._unanswered and not self.failed:
            try:
                if not self._poll.poll(_PATIENCE * 1000 if block else 0):
                    if block:
                        raise TimeoutError
                    return
                number, answer = self.connection.recv()
            except (OSError, EOFError, ValueError, TimeoutError):
                self.failed = True
                return
            self._unanswered.pop(number)
            self._answers[number] = answer
            if block:
                return

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.connection.send(None)
        self.connection.close()
        self.process.join(1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


MAX_HELPERS: Final = 3
"""Helpers at most: past three, reading the file here is what the check waits for."""


def start_helpers(fd: int, check: CaseCheck, send_patterns: bool = True) -> list[Helper]:
    """One helper per CPU this process may keep busy beyond its own (``cpu_budget``), at
    most ``MAX_HELPERS``; fewer when a fork fails. ``send_patterns``: whether each answer
    brings the programs of the patterns the helper compiled (for a run that follows)."""
    wanted = min(int(cpu_budget()) - 1, MAX_HELPERS)
    helpers = []
    for _ in range(wanted):
        helper = start_helper(fd, check, send_patterns)
        if helper is None:
            break
        helpers.append(helper)
    if helpers:
        note("check helpers")
    return helpers


def start_helper(fd: int, check: CaseCheck, send_patterns: bool = True) -> Helper | None:
    """A helper forked from this process, checking cases of the file open as ``fd`` with
    ``check``; ``None`` when none can be started."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    process = context.Process(
        target=_serve,
        kwargs={
            "connection": theirs,
            "fd": fd,
            "check": check,
            "send_patterns": send_patterns,
            "parents_end": mine,
        },
        daemon=True,
    )
    try:
        process.start()
    except OSError:  # no memory or no process left for a fork: everything is checked here
        mine.close()
        theirs.close()
        return None
    theirs.close()
    return Helper(process, mine, fd, check)


def _serve(
    *, connection: Any, fd: int, check: CaseCheck, send_patterns: bool, parents_end: Any
) -> None:
    """The helper's loop: a batch in, its answer out, until told to stop or orphaned."""
    # The fork left a copy of the parent's end here: held open, it would keep this end from
    # ever reading EOF, and a helper whose parent was killed would wait for it forever.
    parents_end.close()
    # Ctrl-C reaches the whole process group: the parent handles it and stops the helper.
    # A SIGTERM meant for the helper ends it, not a handler inherited from the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if send_patterns:
        record_patterns()
    try:
        while (message := connection.recv()) is not None:
            number, spans = message
            connection.send((number, check_spans(fd, spans, check)))
    except BaseException:  # EOF (the parent is gone) or anything else: end quietly
        pass
    finally:
        os._exit(0)
