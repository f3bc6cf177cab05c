"""A run streamed into a report: suites in order, each case written as soon as its attempts
are done, and an ending that always writes what finished.

``ReportRun`` is shared by the CLI (writing into the report's temporary file) and the Python
API (writing into memory). Whatever stops a run, a Ctrl-C, SIGTERM or a watchdog whose event
loop cannot be recovered, ``finish_remaining`` writes every attempt that did not finish as
cancelled, keeping every one that did, and ``finish`` writes the figures and the verdict.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import anyio

from goldgate._version import __version__
from goldgate.gold.suites import GoldSuite
from goldgate.report.build import Collector, SuiteCollector, suite_tail
from goldgate.report.livefigures import run_live, written
from goldgate.report.plain import record_json
from goldgate.report.records import (
    REPORT_FORMAT,
    DatasetRecord,
    JudgeStandingRecord,
    OptionsRecord,
    ReplayRecord,
    Report,
    ScorerRecord,
    SuiteRecord,
    TargetRecord,
    VariantRecord,
)
from goldgate.report.stream import ReportWriter
from goldgate.report.verdicts import run_verdict
from goldgate.run.limits import RunOptions
from goldgate.run.runner import AttemptRun, InOrder, ProgressCallback, SuiteControls, run_suite
from goldgate.scoring import ScorerRegistry
from goldgate.scoring.attempt import INTERRUPTED_REASON, unfinished

if TYPE_CHECKING:
    from goldgate.run.judges import JudgeBench
    from goldgate.run.watchdog import Watchdog

__all__ = [
    "CollectorFactory",
    "ReportRun",
    "RunHeader",
    "SuiteJob",
    "finish_report",
    "now",
]

CollectorFactory = Callable[[GoldSuite, int, bool, Callable[[dict[str, Any]], None]], Collector]
"""(suite, repeat, include_details, write_case) -> the collector a suite's attempts go to."""


SuiteProgress = Callable[[GoldSuite, int], ProgressCallback | None]
"""Told each suite as it starts (and its repeat), what to call with its attempts done: the
progress display, which the command that runs (``goldgate.app``) passes in."""


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class SuiteJob:
    """One suite to run (or to report as skipped) and how to reach its target."""

    suite: GoldSuite
    target: TargetRecord
    run: AttemptRun | None
    skip_reason: str | None = None
    collector: CollectorFactory | None = None
    """``SuiteCollector`` unless given (Python evals decide their score checks per case)."""
    judges: JudgeBench | None = None
    """The judges an authorized run asks about answers waiting for a person (``run.judges``)."""


def options_record(
    options: RunOptions,
    suites: Sequence[str],
    *,
    live: bool,
    include_details: bool = True,
    shard: tuple[int, int] | None = None,
) -> OptionsRecord:
    """What a report says of the options it ran with: every way into a run writes them so."""
    return OptionsRecord(
        max_concurrency=options.max_concurrency,
        timeout=float(options.timeout),
        repeat=options.repeat,
        suites=tuple(suites),
        live=live,
        include_details=include_details,
        shard=None if shard is None else f"{shard[0]}/{shard[1]}",
    )


@dataclass(frozen=True)
class RunHeader:
    """What a report says before its first suite."""

    dataset: DatasetRecord
    variant: VariantRecord
    options: OptionsRecord
    registry: ScorerRegistry
    started: datetime
    replay_of: ReplayRecord | None = None
    judges: tuple[JudgeStandingRecord, ...] = ()
    """The judges a --live run asks, as it found them (``run.judges``)."""

    def as_json(self) -> dict[str, Any]:
        replay: dict[str, Any] = {}
        if self.judges:
            replay["judges"] = [record_json(judge) for judge in self.judges]
        if self.replay_of is not None:
            replay["replay_of"] = record_json(self.replay_of)
        return {
            "format": REPORT_FORMAT,
            "goldgate_version": __version__,
            "started_at": self.started.isoformat(),
            "dataset": record_json(self.dataset),
            "variant": record_json(self.variant),
            "options": record_json(self.options),
            "scorers": [record_json(scorer) for scorer in self.scorers()],
            **replay,
        }

    def scorers(self) -> tuple[ScorerRecord, ...]:
        """The custom scorers registered, by name."""
        return tuple(
            ScorerRecord(name, revision)
            for name, revision in sorted(self.registry.revisions().items())
        )


class ReportRun:
    """Runs ``jobs`` in order and streams them through ``writer``.

    Every write happens under ``lock``, so that a watchdog thread can take over the ending
    when the event loop is stuck in a target (see ``run.watchdog``)."""

    def __init__(
        self,
        header: RunHeader,
        jobs: Sequence[SuiteJob],
        options: RunOptions,
        writer: ReportWriter,
        *,
        include_details: bool = True,
        collector: CollectorFactory | None = None,
    ) -> None:
        self.header = header
        self.jobs = tuple(jobs)
        self.options = options
        self.writer = writer
        self.include_details = include_details
        self.collector = collector
        """The collector of every suite whose job names none (``SuiteCollector`` unless
        given: a report process's, ``goldgate.report.process``)."""
        self.lock = threading.RLock()
        self.records: list[SuiteRecord] = []
        self._current: tuple[SuiteJob, Collector, InOrder] | None = None
        self._next_job = 0
        self._finished = False
        with self.lock:
            writer.head(header.as_json())

    def _begin(self, job: SuiteJob, status: str) -> tuple[Collector, InOrder]:
        suite = job.suite
        self.writer.begin_suite(
            {
                "name": suite.name,
                "fingerprint": suite.fingerprint,
                "workflow": suite.workflow,
                "flow": suite.flow,
                "step": suite.step,
                "target": written(record_json(job.target), ("pricing",)),
                "cases_source": suite.cases_source,
                "status": status,
                "skip_reason": job.skip_reason,
                "repeat": self.options.repeat,
                "case_count": len(suite.cases),
                "whole_case_count": suite.whole_case_count,
                "metric_definitions": [
                    record_json(metric, by_alias=True) for metric in suite.metrics
                ],
            }
        )
        make = job.collector or self.collector or SuiteCollector
        collector = make(suite, self.options.repeat, self.include_details, self.writer.case)

        def add(outcome: Any) -> None:
            with self.lock:
                collector.add(outcome)

        return collector, InOrder(add, len(suite.cases) * self.options.repeat)

    def _end(self, job: SuiteJob, collector: Collector, ordered: InOrder, started: bool) -> None:
        suite = job.suite
        repeat = self.options.repeat
        status = "skipped" if job.skip_reason is not None else "cancelled"
        reason = job.skip_reason or INTERRUPTED_REASON

        def missing(position: int) -> Any:
            index, attempt = divmod(position, repeat)
            return unfinished(suite, index=index, attempt=attempt + 1, status=status, reason=reason)

        def add_missing(position: int) -> bool:  # under the lock, as _end is
            index, attempt = divmod(position, repeat)
            return collector.add_unfinished(index, attempt + 1, status, reason)

        ordered.drain(missing, add_missing)
        record = collector.record(job.target, skip_reason=job.skip_reason, started=started)
        self.writer.end_suite(suite_tail(record))
        self.records.append(record)

    async def run(
        self,
        registry: ScorerRegistry,
        *,
        stop: anyio.Event | None = None,
        progress: SuiteProgress | None = None,
        watchdog: Watchdog | None = None,
    ) -> None:
        """Every job in order. After ``stop`` is set nothing new starts."""
        while self._next_job < len(self.jobs):
            if stop is not None and stop.is_set():
                return
            job = self.jobs[self._next_job]
            self._next_job += 1
            skipped = job.skip_reason is not None or job.run is None
            with self.lock:
                collector, ordered = self._begin(job, "skipped" if skipped else "ran")
                self._current = (job, collector, ordered)
            if not skipped:
                assert job.run is not None
                callback = progress(job.suite, self.options.repeat) if progress else None
                await run_suite(
                    job.suite,
                    job.run,
                    registry,
                    self.options,
                    ordered,
                    SuiteControls(
                        progress=callback,
                        stop=stop,
                        watchdog=watchdog,
                        # A judge reviews checks as they are scored, here: none is left
                        # unscored.
                        leave_unscored=None if job.judges else collector.leave_unscored,
                        judges=job.judges,
                    ),
                )
            with self.lock:
                if self._current is not None:
                    self._end(job, collector, ordered, started=True)
                    self._current = None

    def finish_remaining(self) -> None:
        """The suite in progress and every suite not started, their unfinished attempts
        written as cancelled (skipped for an unauthorized suite)."""
        with self.lock:
            if self._current is not None:
                job, collector, ordered = self._current
                self._current = None
                self._end(job, collector, ordered, started=True)
            while self._next_job < len(self.jobs):
                job = self.jobs[self._next_job]
                self._next_job += 1
                skipped = job.skip_reason is not None or job.run is None
                collector, ordered = self._begin(job, "skipped" if skipped else "not_started")
                self._end(job, collector, ordered, started=skipped)

    @property
    def finished(self) -> bool:
        return self._finished

    def finish(self, *, duration: float, interruption: str | None) -> Report:
        """Write the report's last members (once: the caller holds ``lock`` and checks
        ``finished``); return the report without its cases, which are in the file already,
        for the summary."""
        with self.lock:
            if self._finished:
                raise RuntimeError("the report is finished already")
            self.finish_remaining()
            self._finished = True
            return finish_report(
                self.writer,
                self.header,
                self.records,
                duration=duration,
                interruption=interruption,
            )


def finish_report(
    writer: ReportWriter,
    header: RunHeader,
    records: Sequence[SuiteRecord],
    *,
    duration: float,
    interruption: str | None,
) -> Report:
    """Write a report's last members after its suites; return the report without its cases
    (they are in the file) for the summary."""
    suites = tuple(records)
    verdict = run_verdict(
        suites,
        interruption is not None,
        sum(suite.adjudication for suite in suites),
        interruption=interruption,
    )
    finished_at, seconds = now().isoformat(), round(duration, 6)
    live = run_live(suite.live for suite in suites)
    writer.tail(
        {
            "complete": interruption is None,
            "interruption": interruption,
            "finished_at": finished_at,
            "duration_seconds": seconds,
            "verdict": record_json(verdict),
            **({} if live is None else {"live": record_json(live)}),
        }
    )
    return Report(
        format=REPORT_FORMAT,
        goldgate_version=__version__,
        started_at=header.started.isoformat(),
        dataset=header.dataset,
        variant=header.variant,
        options=header.options,
        scorers=header.scorers(),
        judges=header.judges,
        replay_of=header.replay_of,
        suites=suites,
        complete=interruption is None,
        interruption=interruption,
        finished_at=finished_at,
        duration_seconds=seconds,
        verdict=verdict,
        live=live,
    )
