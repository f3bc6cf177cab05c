"""The records of the attempts an interrupted run never started, written by two processes.

A run interrupted with many attempts to go ends each of them as cancelled (``ReportRun``),
and a large run's report process (``report.process``) writes their records: it reads each
case back, builds its record and serializes it, some 12 us a case, while the run's process
waits for it. When those attempts are a long row that ends a suite, the run's process writes
the records of the later half meanwhile, with a ``SuiteCollector`` of its own: the same code,
so the same bytes. They wait in a temporary file, since the report process is still busy
with its half (memory stays as it was), and then go over the pipe raw, a chunk at a time;
the report process reads them (``Records``) and writes them after its own. The report is on
disk in about half the time.
"""

# Annotations are objects here, not strings: nothing on this path needs them deferred.
from collections.abc import Iterator
from typing import IO, Any, Final, NamedTuple

from goldgate.gold.suites import GoldSuite
from goldgate.report.build import SuiteCollector
from goldgate.report.stream import ReportWriter

__all__ = [
    "CHUNK",
    "SHARED_BYTES",
    "SHARE_FROM",
    "Records",
    "Written",
    "later_half",
    "send_records",
    "write_records",
]

SHARE_FROM: Final = 2048
"""Attempts never started, in a row to the end of a suite, from which the run's process
writes the records of the later half."""
SHARED_BYTES: Final = 64 << 20
"""The records the run's process writes at most (some 120,000 cases of 500 bytes); the
attempts past them go back to the report process."""
CHUNK: Final = 1 << 20
"""Bytes of records sent at a time."""


def later_half(first: int, count: int, repeat: int, attempts: int) -> int | None:
    """Where the run's process takes over a row of ``count`` attempts never started from
    position ``first`` (``repeat`` attempts a case, ``attempts`` in the suite): the first
    case past the middle. ``None`` for a row too short, or one that stops short of the
    suite's end (attempts after it went another way)."""
    end = first + count
    if count < SHARE_FROM or end != attempts:
        return None
    split = -(-(first + count // 2) // repeat) * repeat
    return split if split < end else None


class Written(NamedTuple):
    """The records ``write_records`` wrote: how many cases, the attempts and checks they
    count (by status and by outcome), how many attempts in all, and their bytes."""

    cases: int
    attempts: dict[str, int]
    checks: dict[str, int]
    attempt_total: int
    size: int


def write_records(
    records: IO[bytes],
    suite: GoldSuite,
    cases: range,
    repeat: int,
    include_details: bool,
    *,
    status: str,
    reason: str,
) -> Written | None:
    """Write into the file ``records`` the records of ``cases``, none of whose attempts
    started, as the report process's ``SuiteCollector`` writes them, up to
    ``SHARED_BYTES``, and rewind it; ``None`` where the file cannot take them (a full
    disk)."""
    collector = SuiteCollector(suite, repeat, include_details, ReportWriter(records.write).case)
    written = 0
    try:
        for index in cases:
            if records.tell() >= SHARED_BYTES:
                break
            for attempt in range(1, repeat + 1):
                collector.add_unfinished(index, attempt, status, reason)
            written += 1
        size = records.tell()
        records.seek(0)
    except OSError:
        return None
    attempts, checks = dict(collector.attempts), dict(collector.checks)
    return Written(written, attempts, checks, collector.count, size)


def send_records(connection: Any, records: IO[bytes]) -> None:
    """The file ``records`` over ``connection``, raw, a ``CHUNK`` at a time."""
    while chunk := records.read(CHUNK):
        connection.send_bytes(chunk)


class Records:
    """The records the run's process sent (``send_records``), ``size`` bytes, read from
    ``connection`` a chunk at a time as they are iterated."""

    def __init__(self, connection: Any, size: int) -> None:
        self._connection = connection
        self._left = size

    def __iter__(self) -> Iterator[bytes]:
        while self._left > 0:
            chunk = self._connection.recv_bytes()
            self._left -= len(chunk)
            yield chunk

    def skip(self) -> None:
        """Read what was not iterated (after a failure), so that the pipe stays in step."""
        for _ in self:
            pass
