"""Scoring and writing a large run's report in a process forked for it, while this process
runs the targets.

A run's own work splits in two: calling the target (which must stay in this process, where
the user's code was loaded and where the deadlines and the watchdog hold), and everything
after an attempt's result is in: scoring it against its gold, building its record, writing
it. The second part is most of the run's time when targets answer quickly. So once a run is
large (``REPORT_PROCESS_FROM`` attempts), a second CPU is there and the gold held in memory
is not too large to share (``REPORT_PROCESS_MAX_RSS``), a process forked after
the gold check takes it over: it inherits the checked gold, the open report file and the
settings, and this process sends it, in order and in batches, the bytes ``ReportWriter``
writes around the suites and each attempt as the runner finished it. An attempt that started
while the report process kept up (``ReportProcess.has_room``: it says how many batches it has
read) comes unscored, and it scores it exactly as ``runner.run_attempt`` would
(``builtin_checks``); the others were scored here and come with their checks, so the scoring
shares itself out however fast each side is. It hands each attempt to an ordinary
``SuiteCollector`` and answers when asked: a suite's record, or where the finished report was
published. When a run is interrupted with many attempts never started, each process writes
the records of half of them (``report.unstarted``), so the incomplete report is on disk in
about half the time.

Only gold whose checks are all built in is scored there: a custom scorer is user code, run
with its attempt under its deadline. Python evals keep their own collector. The fork needs a
process with no other thread (a fork copies only the calling thread). It is an accelerator:
with ``GOLDGATE_ACCELERATORS=0`` the run scores and writes its report itself. A run that
stops for any reason ends exactly as before: ``ReportRun`` writes every unfinished attempt as
cancelled through the same calls, and the report process publishes what it wrote. If the
report process fails, the run fails with one sentence (exit 4).
"""

# Annotations are objects here, not strings: nothing on this path needs them deferred.
import contextlib
import os
import select
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from goldgate.base import accelerators
from goldgate.base.errors import GoldgateError, RuntimeFailureError
from goldgate.base.memory import resident_bytes, single_threaded
from goldgate.gold.recorded import recorded_case
from goldgate.gold.suites import GoldSuite
from goldgate.report import unstarted
from goldgate.report.build import SuiteCollector
from goldgate.report.io import ReportFile
from goldgate.report.records import SuiteRecord, TargetRecord
from goldgate.report.stream import ReportWriter
from goldgate.scoring.attempt import (
    NO_EXTRAS,
    AttemptOutcome,
    Which,
    attempt_outcome,
    builtin_checks,
    extras_of,
)
from goldgate.scoring.outcomes import check_of_values, check_values

__all__ = [
    "REPORT_PROCESS_FROM",
    "REPORT_PROCESS_MAX_RSS",
    "RemoteCollector",
    "ReportProcess",
    "report_process_wanted",
    "start_report_process",
]

REPORT_PROCESS_FROM: Final = 1024
"""Attempts from which a run's report is scored and written in a process of its own: below
that the fork (a few milliseconds) is not repaid."""
REPORT_PROCESS_MAX_RSS: Final = 128 << 20
"""Resident bytes past which this process forks no report process. A forked process shares
this one's memory and copies what both touch (pages of the gold, the cases and patterns the
check kept): for gold that holds this much (benchmarks/run.py's lean workload holds 62 MiB
at 10,000 cases and 113 MiB at 100,000) a second copy would cost more memory than the second
CPU saves time, and a run's memory would no longer stay flat as its gold grows."""
_BATCH: Final = 256
"""Messages sent together (each send is a system call and a pickle)."""
_AHEAD: Final = 2
"""Batches the report process may have unread before this process scores the attempts it
starts itself (sending their checks)."""
_PATIENCE: Final = 600.0
"""Seconds to wait for an answer before the report process counts as stuck."""

# Messages, this process to the report process: (kind, ...) tuples, sent in lists.
_BYTES: Final = 0  # (_BYTES, data): bytes ReportWriter wrote around the suites
_SUITE: Final = 1  # (_SUITE, suite number, repeat, include_details): a suite's cases begin
_ADD: Final = 2  # (_ADD, index, attempt, status, reason, latency, ..., checks, extras)
_UNFINISHED: Final = 3  # (_UNFINISHED, first position, count, status, reason): in a row
_RECORD: Final = 4  # (_RECORD, target, skip_reason, started): answered with the SuiteRecord
_PUBLISH: Final = 5  # (_PUBLISH,): answered with (path, fallback reason); then it ends
_DISCARD: Final = 6  # (_DISCARD,): the report is dropped; it ends
_RENDERED: Final = 7  # (_RENDERED, cases, attempts, checks, count, size): records follow, raw


def report_process_wanted(suites: Sequence[GoldSuite], attempts: int) -> bool:
    """Whether a run of ``attempts`` over ``suites`` gains from a report process and may fork
    one (see the module's description)."""
    if not accelerators.enabled() or sys.platform != "linux" or attempts < REPORT_PROCESS_FROM:
        return False
    if any(suite.scorer_names() for suite in suites) or resident_bytes() > REPORT_PROCESS_MAX_RSS:
        return False
    return accelerators.cpu_budget() >= 2 and single_threaded()


class ReportProcess:
    """This side of the report process: ``write`` for ``ReportWriter``, ``collector`` as
    each suite's ``CollectorFactory``, then ``publish`` or ``discard``."""

    def __init__(
        self, process: Any, connection: Any, suites: Sequence[GoldSuite], report_file: ReportFile
    ) -> None:
        self._process = process
        self._connection = connection
        self._suites = suites
        self._report_file = report_file
        """This process's copy, handed over: only to remove the temporary file if the report
        process cannot."""
        self._batch: list[tuple[Any, ...]] = []
        self._ended = False
        self._sent = 0
        self._read = 0
        """Batches sent, and read by the report process as far as its last word says."""
        self._answer: tuple[bool, Any] | None = None
        """An answer that arrived while ``_flush`` was reading the report process's counts:
        it belongs to the ``call`` that sent its question, which takes it from here."""
        # One poll object for every look (Connection.poll builds a selector at each call).
        self._poll = select.poll()
        self._poll.register(connection.fileno(), select.POLLIN)

    def has_room(self) -> bool:
        """Whether the report process keeps up: then an attempt starting now may be left to
        it to score (``RemoteCollector.leave_unscored``)."""
        return self._sent - self._read < _AHEAD

    def write(self, data: bytes) -> None:
        self.post((_BYTES, data))

    def collector(
        self,
        suite: GoldSuite,
        repeat: int,
        include_details: bool,
        write_case: Callable[[dict[str, Any]], None],
    ) -> "RemoteCollector":
        """The collector of ``suite``'s attempts (``write_case`` is not used here: the report
        process writes the cases)."""
        number = next(n for n, known in enumerate(self._suites) if known is suite)
        self.post((_SUITE, number, repeat, include_details))
        metrics = bool(suite.metrics)
        return RemoteCollector(
            self, repeat, has_metrics=metrics, suite=suite, include_details=include_details
        )

    def post(self, message: tuple[Any, ...]) -> None:
        self._batch.append(message)
        if len(self._batch) >= _BATCH:
            self._flush()

    def post_in_row(self, message: tuple[int, int, int, str, str]) -> None:
        """Post an ``_UNFINISHED`` message, or count it into the one before when that ends
        at the position before with the same status and reason."""
        last = self._batch[-1] if self._batch else None
        _, position, _, status, reason = message
        if (
            last is not None
            and last[0] == _UNFINISHED
            and last[1] + last[2] == position
            and last[3:] == (status, reason)
        ):
            self._batch[-1] = (_UNFINISHED, last[1], last[2] + 1, status, reason)
        else:
            self.post(message)

    def share_unfinished(self, suite: GoldSuite, repeat: int, include_details: bool) -> None:
        """Where the last message waiting is a long row of attempts never started that ends
        the suite, leave its first half to the report process and write the records of the
        rest here meanwhile (``report.unstarted``)."""
        last = self._batch[-1] if self._batch else None
        if last is None or last[0] != _UNFINISHED:
            return
        _, first, count, status, reason = last
        split = unstarted.later_half(first, count, repeat, len(suite.cases) * repeat)
        if split is None:
            return
        with contextlib.ExitStack() as open_files:
            try:
                records = open_files.enter_context(tempfile.TemporaryFile())
            except OSError:  # nowhere to keep them: the report process writes them all
                return
            self._batch[-1] = (_UNFINISHED, first, split - first, status, reason)
            self._flush()  # the report process starts on its half
            start, end = split // repeat, (first + count) // repeat
            rows = range(start, end)
            written = unstarted.write_records(
                records, suite, rows, repeat, include_details, status=status, reason=reason
            )
            cases = written.cases if written is not None else 0
            if written is not None and cases:
                self.post((_RENDERED, *written))
                self._flush()
                try:
                    unstarted.send_records(self._connection, records)
                except (OSError, ValueError):
                    raise self._lost() from None
        if start + cases < end:
            rest = (start + cases) * repeat
            self.post((_UNFINISHED, rest, first + count - rest, status, reason))

    def call(self, message: tuple[Any, ...]) -> Any:
        """Send ``message`` with everything before it and wait for its answer."""
        self.post(message)
        self._flush()
        try:
            while self._answer is None:
                if not self._poll.poll(_PATIENCE * 1000):
                    raise TimeoutError
                self._take_word()
        except (OSError, EOFError, ValueError, TimeoutError):
            raise self._lost() from None
        (failed, value), self._answer = self._answer, None
        if failed:
            raise value
        return value

    def publish(self) -> tuple[Path, str | None]:
        """The report, finished, linked into place by the report process (``ReportFile``):
        where it is and, on fallback, why."""
        try:
            published: tuple[Path, str | None] = self.call((_PUBLISH,))
        except BaseException:
            self.discard()
            raise
        self._end()
        return published

    def discard(self) -> None:
        """Drop the report (a run that failed); the report process ends."""
        if not self._ended:
            try:
                self.post((_DISCARD,))
                self._flush()
            except RuntimeFailureError:
                pass  # gone already: its temporary file is removed below
            finally:
                self._end()
        self._report_file.discard()

    def _flush(self) -> None:
        if self._batch:
            batch, self._batch = self._batch, []
            try:
                self._connection.send(batch)
                self._sent += 1
                while self._poll.poll(0):  # the report process's words so far
                    self._take_word()
            except (OSError, EOFError, ValueError):
                raise self._lost() from None

    def _take_word(self) -> None:
        """Read one message of the report process: a count of the batches it has read, or
        the answer to a ``call``. The answer can come as soon as its question is sent, so
        ``_flush`` may be the one to read it: it is kept, never taken for a count."""
        word = self._connection.recv()
        if type(word) is int:
            self._read = word
        else:
            self._answer = word

    def _lost(self) -> RuntimeFailureError:
        self._process.join(1.0)
        code = self._process.exitcode
        how = "is not answering" if code is None else f"ended (exit {code})"
        return RuntimeFailureError(
            f"the process writing the report {how}, so the report could not be finished"
        )

    def _end(self) -> None:
        self._ended = True
        self._connection.close()
        self._process.join(5.0)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


class RemoteCollector:
    """A suite's ``SuiteCollector``, in the report process: attempts go there, those that
    started while it kept up unscored (``ReportProcess.has_room``), the others with their
    checks."""

    def __init__(
        self,
        process: ReportProcess,
        repeat: int,
        *,
        has_metrics: bool,
        suite: GoldSuite | None = None,
        include_details: bool = True,
    ) -> None:
        self._process = process
        self._repeat = repeat
        self._has_metrics = has_metrics
        self._suite = suite
        """The suite, for writing half of a long row of attempts never started here."""
        self._include_details = include_details
        self.leave_unscored: Callable[[], bool] | None = process.has_room

    def add(self, outcome: AttemptOutcome) -> None:
        # No checks: a completed attempt left unscored (gold declares at least one check).
        checks = [check_values(check) for check in outcome.checks] if outcome.checks else None
        head = (_ADD, outcome.index, outcome.attempt, outcome.status, outcome.reason)
        tail = (outcome.latency_ms, outcome.document, outcome.stderr, checks, extras_of(outcome))
        self._process.post(head + tail)

    def add_unfinished(self, index: int, attempt: int, status: str, reason: str) -> bool:
        if self._has_metrics:  # as SuiteCollector: a metric observes every attempt
            return False
        # An interrupted run ends every attempt it never started this way (100,000 of them
        # within the time CI allows after its signal): one message for those in a row.
        position = index * self._repeat + attempt - 1
        self._process.post_in_row((_UNFINISHED, position, 1, status, reason))
        return True

    def record(
        self, target: TargetRecord, *, skip_reason: str | None = None, started: bool = True
    ) -> SuiteRecord:
        if self._suite is not None:  # every attempt is in: the last row is whole
            self._process.share_unfinished(self._suite, self._repeat, self._include_details)
        record: SuiteRecord = self._process.call((_RECORD, target, skip_reason, started))
        return record


def start_report_process(
    suites: Sequence[GoldSuite], report_file: ReportFile
) -> ReportProcess | None:
    """A report process forked from this one, writing into ``report_file`` (which this
    process must no longer write); ``None`` when none can be started."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, suites, report_file, mine), daemon=True)
    try:
        process.start()
    except OSError:  # no memory or no process left for a fork: the run writes its report
        mine.close()
        theirs.close()
        return None
    theirs.close()
    report_file.hand_over()
    accelerators.note("report process")
    return ReportProcess(process, mine, suites, report_file)


class _Writing:
    """The report process's state: the report file and the suite being written."""

    def __init__(self, suites: Sequence[GoldSuite], report_file: ReportFile) -> None:
        self.suites = suites
        self.report_file = report_file
        self.suite: GoldSuite | None = None
        self.collector: SuiteCollector | None = None
        self.cases: ReportWriter | None = None
        """The suite's cases' writer (it knows whether a comma goes before the next)."""
        self.failure: BaseException | None = None

    def take(self, message: tuple[Any, ...]) -> tuple[bool, Any] | None:
        """Act on ``message``; its answer, for a message that wants one."""
        kind = message[0]
        wants_answer = kind in (_RECORD, _PUBLISH)
        if self.failure is not None:
            return (True, self.failure) if wants_answer else None
        try:
            value = self._act(kind, message)
        except BaseException as error:  # answered at the next question
            self.failure = _transportable(error)
            return (True, self.failure) if wants_answer else None
        return (False, value) if wants_answer else None

    def _act(self, kind: int, message: tuple[Any, ...]) -> Any:
        if kind == _ADD:
            self._add(message)
        elif kind == _BYTES:
            self.report_file.write(message[1])
        elif kind == _UNFINISHED:
            _, first, count, status, reason = message
            collector = self.collector
            assert collector is not None
            for position in range(first, first + count):
                index, attempt = divmod(position, collector.repeat)
                collector.add_unfinished(index, attempt + 1, status, reason)
        elif kind == _SUITE:
            _, number, repeat, include_details = message
            self.suite = self.suites[number]
            self.cases = ReportWriter(self.report_file.write)
            self.collector = SuiteCollector(self.suite, repeat, include_details, self.cases.case)
        elif kind == _RENDERED:
            _, cases, attempts, checks, count, _size, records = message
            assert self.collector is not None
            assert self.cases is not None
            self.collector.add_written(attempts, checks, count)
            self.cases.rendered_cases(records, cases)
        elif kind == _RECORD:
            _, target, skip_reason, started = message
            assert self.collector is not None
            return self.collector.record(target, skip_reason=skip_reason, started=started)
        elif kind == _PUBLISH:
            return self.report_file.publish()
        elif kind == _DISCARD:
            self.report_file.discard()
        return None

    def _add(self, message: tuple[Any, ...]) -> None:
        """An attempt as ``RemoteCollector.add`` posts it (``_ADD``), scored if it is not."""
        index, attempt, status, reason, latency_ms = message[1:6]
        document, stderr, checks, extras = message[6:]
        suite, collector = self.suite, self.collector
        assert suite is not None
        assert collector is not None
        extras = extras or NO_EXTRAS
        if checks is None:  # left to this process to score (runner's leave_unscored)
            case, compiled = suite.attempt_gold(index)
            checks = builtin_checks(
                suite, case, compiled, document, latency_ms=latency_ms, cost=extras.cost
            )
        else:
            case = recorded_case(suite.cases, index)
            checks = tuple([check_of_values(values) for values in checks])
        collector.add(
            attempt_outcome(
                Which(index, case, attempt),
                status=status,
                reason=reason,
                latency_ms=latency_ms,
                document=document,
                stderr=stderr,
                checks=checks,
                extras=extras,
            )
        )


def _transportable(error: BaseException) -> BaseException:
    """``error`` as this process may raise it: goldgate's own errors as they are (the gold
    changed under the run, a report that cannot be written), anything else as one sentence
    that names only its type."""
    if isinstance(error, GoldgateError):
        return error
    return RuntimeFailureError(
        f"the process writing the report failed ({type(error).__name__}), so the report "
        "could not be finished"
    )


def _serve(
    connection: Any, suites: Sequence[GoldSuite], report_file: ReportFile, parents_end: Any
) -> None:
    """The report process's loop: batches in, answers out, until it publishes or discards
    the report, or the run's process is gone (then the report is discarded: the run's
    process could not finish it)."""
    # The copy of the run's process's end that the fork left here: held open, it would keep
    # this end from ever reading EOF, and a report process whose run was killed would wait
    # for it forever.
    parents_end.close()
    # Ctrl-C, and a CI runner's SIGTERM, may reach the whole process group: the run's
    # process handles them and finishes the report through this one, which must outlive
    # them. It ends when the run's process says so or is gone (its end of the pipe closes).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    writing = _Writing(suites, report_file)
    batches = 0
    try:
        while True:
            batch = connection.recv()
            batches += 1
            connection.send(batches)  # read: the run's process may leave it more to score
            for message in batch:
                if message[0] == _RENDERED:  # its records come next, raw
                    records = unstarted.Records(connection, message[-1])
                    answer = writing.take((*message, records))
                    records.skip()  # what a failure left unread, to stay in step
                else:
                    answer = writing.take(message)
                if answer is not None:
                    connection.send(answer)
                if message[0] in (_PUBLISH, _DISCARD):
                    return
    except BaseException:  # EOF (the run's process is gone): end quietly, leaving nothing
        report_file.discard()
    finally:
        os._exit(0)
