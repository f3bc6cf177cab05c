"""One ``goldgate evaluate`` run from the command line: prepare everything, then execute.

Preparation refuses whatever can be refused before the first attempt (bad gold, an unknown
suite, an existing --output, an unwritable report folder, a scorer or python target that does
not import, a missing credential for an authorized live workflow): exit 2, nothing run.
Execution handles Ctrl-C: scheduling stops, attempts in flight are cancelled, and what
finished is written as an incomplete report.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from goldgate.base.channel import note_signal, on_stop
from goldgate.base.errors import GoldgateError, InvalidInputError
from goldgate.base.memory import collections_spaced, freeze_survivors
from goldgate.base.problems import display_path
from goldgate.base.stdio import user_output_to_stderr
from goldgate.report.io import ReportFile, default_report_path, ensure_writable
from goldgate.report.process import ReportProcess, report_process_wanted, start_report_process
from goldgate.report.records import (
    PricingRecord,
    Report,
    TargetRecord,
    VariantRecord,
    dataset_record,
)
from goldgate.report.stream import ReportWriter
from goldgate.report.verdicts import STUCK
from goldgate.run.leftovers import abandon_executor_work
from goldgate.run.limits import DEFAULT_OPTIONS, RunOptions
from goldgate.run.runner import AttemptRun
from goldgate.run.streaming import (
    ReportRun,
    RunHeader,
    SuiteJob,
    SuiteProgress,
    now,
    options_record,
)
from goldgate.run.targets.base import Target, TargetRequest, TargetResponse
from goldgate.run.watchdog import Watchdog
from goldgate.scoring.scorers import ScorerRegistry

if TYPE_CHECKING:
    from goldgate.gold.settings.load import LoadedSettings
    from goldgate.gold.suites import Dataset, GoldSuite
    from goldgate.run.judges import JudgeBench
    from goldgate.run.live.cache import ResponseCache


@dataclass(frozen=True)
class SessionOutcome:
    report: Report
    report_path: Path
    fallback_reason: str | None


def _select_suites(dataset: Dataset, names: tuple[str, ...]) -> list[GoldSuite]:
    if not names:
        return list(dataset.suites)
    known = [suite.name for suite in dataset.suites]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InvalidInputError(
            f"--suite {unknown[0]!r} is not a suite of {dataset.name!r}; "
            f"its suites are {', '.join(known)}."
        )
    return [suite for suite in dataset.suites if suite.name in names]


def _skip_reason(
    settings: LoadedSettings, suite: GoldSuite, live: bool, environ: Mapping[str, str]
) -> str | None:
    workflow = settings.workflows[suite.workflow]
    if not workflow.live:
        return None
    if not live:
        return f"live workflow '{suite.workflow}' runs only with --live"
    for variable in workflow.credentials:
        if not environ.get(variable):
            raise InvalidInputError(
                f"live workflow '{suite.workflow}' needs the environment variable {variable}, "
                "which is not set; nothing was run."
            )
    return None


def _attempt_run(target: Target, suite: GoldSuite) -> AttemptRun:
    async def run(envelope: Mapping[str, Any]) -> TargetResponse:
        return await target(TargetRequest(suite.workflow, suite.flow, suite.step, envelope))

    return run


class _StopSignals:
    """SIGINT and SIGTERM as stop requests, from the start of the run until the report is on
    disk. The handlers run in the main thread even while a target blocks the event loop:
    they only note the signal and ask the loop (and the watchdog) to stop, so a second or
    third signal is held, never fatal."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: list[str] = []
        self._stop: Callable[[], object] | None = None
        self._previous: dict[int, Any] = {}
        self._asked = False

    @property
    def first(self) -> str | None:
        return self.received[0] if self.received else None

    def connect(self, stop: Callable[[], object]) -> None:
        self._stop = stop
        if self.received:
            stop()

    def _handle(self, signum: int, frame: object) -> None:
        note_signal(signum)
        self.received.append(signal.Signals(signum).name)
        if not self._asked and self._stop is not None:
            self._asked = True
            self._stop()  # asked again at worst (a signal and the parent's pipe at once): harmless

    def _forwarded(self, signum: int) -> None:
        """A stop the supervisor forwarded over its pipe (``base.channel``), from a thread:
        the signal itself may never reach ``_handle`` (user code ignores or blocks it)."""
        if not self.received and signum in self._SIGNALS:
            self._handle(signum, None)

    def __enter__(self) -> _StopSignals:
        self._previous = {number: signal.signal(number, self._handle) for number in self._SIGNALS}
        on_stop(self._forwarded)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.received:
            _STOPPING.append(True)
            return  # stopping: further signals stay held until the process has exited
        on_stop(None)
        for number, handler in self._previous.items():
            signal.signal(number, handler)


_STOPPING: list[bool] = []


def stopping() -> bool:
    """Whether a run of this process was stopped by a signal: its handlers stay installed,
    and the process should exit without interpreter finalization, which restores the
    default handlers and would let a late SIGTERM kill it (exit -15 instead of 130)."""
    return bool(_STOPPING)


@dataclass(frozen=True)
class Session:
    request: RunRequest
    settings: LoadedSettings
    dataset: Dataset
    jobs: tuple[SuiteJob, ...]
    targets: tuple[Target, ...]
    registry: ScorerRegistry
    options: RunOptions
    output: Path
    variant: VariantRecord
    cache: ResponseCache | None = None
    """The response cache (``--cache``), whose warnings and counts the command reports."""
    judges: JudgeBench | None = None
    """The judges a live run asks (``run.judges``), whose standing and cost it reports."""

    def _header(self) -> RunHeader:
        return RunHeader(
            dataset=dataset_record(self.dataset, display_path(self.dataset.path)),
            variant=self.variant,
            options=options_record(
                self.options, self.request.suites, live=self.request.live, shard=self.request.shard
            ),
            registry=self.registry,
            started=now(),
            judges=() if self.judges is None else self.judges.records(),
        )

    def execute(
        self,
        emergency_exit: Callable[[SessionOutcome], None],
        progress: SuiteProgress | None = None,
    ) -> SessionOutcome:
        """Run every job, streaming the report into its file, and link it into place."""
        return execute_streamed(
            self._header(),
            self.jobs,
            self.options,
            self.output,
            self.registry,
            emergency_exit,
            targets=self.targets,
            progress=progress,
        )


@collections_spaced()  # in the report process too: it is forked inside
def execute_streamed(
    header: RunHeader,
    jobs: Sequence[SuiteJob],
    options: RunOptions,
    output: Path,
    registry: ScorerRegistry,
    emergency_exit: Callable[[SessionOutcome], None],
    *,
    targets: Sequence[Target] = (),
    progress: SuiteProgress | None = None,
) -> SessionOutcome:
    """One CLI run (``evaluate``, ``evals run``): ``jobs`` streamed into a report at
    ``output``, linked into place at the end. SIGINT and SIGTERM stop it and are held until
    the report is on disk; what targets print goes to stderr; ``emergency_exit`` ends the
    process when a target keeps the event loop blocked past every attempt to break in (it
    gets the outcome written from the watchdog's thread); ``targets`` are closed after;
    ``progress`` is told of each suite's attempts as they finish."""
    freeze_survivors()  # the loaded gold lives as long as the run: keep it out of collections
    report_file = _report_file(output, jobs, options)
    collector = report_file.collector if isinstance(report_file, ReportProcess) else None
    run = ReportRun(header, jobs, options, ReportWriter(report_file.write), collector=collector)
    clock = time.perf_counter()
    stops = _StopSignals()

    def finish(interruption: str | None) -> SessionOutcome:
        with run.lock:
            report = run.finish(duration=time.perf_counter() - clock, interruption=interruption)
            path, fallback_reason = report_file.publish()
        return SessionOutcome(report, Path(display_path(path)), fallback_reason)

    def stuck() -> None:
        with run.lock:
            if run.finished:
                return  # the main thread got there first
            emergency_exit(finish(stops.first or STUCK))

    try:
        with stops, Watchdog(stuck) as watchdog:
            stops.connect(watchdog.request_stop)
            with user_output_to_stderr():  # targets and scorers may print: not to stdout
                anyio.run(_run_streamed, run, registry, stops, watchdog, targets, progress)
            return finish(stops.first)
    except BaseExceptionGroup as group:
        if not run.finished:
            report_file.discard()
        # The gold is no longer what was checked, or the report process failed: one sentence.
        ours, _ = group.split(GoldgateError)
        if ours is not None:
            raise _first_leaf(ours) from None
        raise
    except BaseException:
        if not run.finished:
            report_file.discard()
        raise


def _report_file(
    output: Path, jobs: Sequence[SuiteJob], options: RunOptions
) -> ReportFile | ReportProcess:
    """The report's temporary file; for a large run on a machine with a CPU to spare, handed
    to a report process that scores the attempts and writes them while this process runs
    the targets (``goldgate.report.process``)."""
    report_file = ReportFile(output)
    attempts = sum(len(job.suite.cases) for job in jobs if job.run is not None) * options.repeat
    suites = [job.suite for job in jobs]
    if all(job.collector is None for job in jobs) and report_process_wanted(suites, attempts):
        process = start_report_process(suites, report_file)
        if process is not None:
            return process
    return report_file


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


async def _run_streamed(
    run: ReportRun,
    registry: ScorerRegistry,
    stops: _StopSignals,
    watchdog: Watchdog,
    targets: Sequence[Target],
    progress: SuiteProgress | None,
) -> None:
    abandon_executor_work()  # closing the loop must not wait for what a target left there
    stop = anyio.Event()
    loop = asyncio.get_running_loop()

    def request_stop() -> None:
        watchdog.request_stop()
        loop.call_soon_threadsafe(stop.set)

    stops.connect(request_stop)
    async with anyio.create_task_group() as group:
        group.start_soon(watchdog.heartbeat)
        try:
            await run.run(registry, stop=stop, progress=progress, watchdog=watchdog)
        finally:
            with anyio.CancelScope(shield=True):
                for target in targets:
                    await target.aclose()
        group.cancel_scope.cancel()


def prepare_session(request: RunRequest) -> Session:
    """Everything a run needs, or ``InvalidInputError`` before anything runs."""
    # Here rather than at the top: `goldgate evals run` shares execute_streamed and needs
    # none of the settings, gold loading (YAML, the settings models) or target kinds.
    from goldgate.gold.load import load_gold
    from goldgate.gold.settings.load import load_settings
    from goldgate.report.verdictstore import attach_verdicts
    from goldgate.run.identity import project_folder
    from goldgate.run.live import workflow_target
    from goldgate.run.scorers import settings_registry

    options = request.options
    settings = load_settings(request.config)
    dataset = load_gold(settings, request.dataset)
    suites = attach_verdicts(_select_suites(dataset, request.suites), settings.project_root)
    if request.shard is not None:
        suites = [suite.shard(*request.shard) for suite in suites]
    project = project_folder(settings.path)
    output = request.output or default_report_path(project, dataset.name, now())
    ensure_writable(output)
    variant = run_variant(request, settings, project)
    registry = settings_registry(settings, suites)
    cache = response_cache(request.cache, request.environ, variant.revision)
    targets: dict[str, Target] = {}
    jobs = []
    for suite in suites:
        workflow = settings.workflows[suite.workflow]
        skip_reason = _skip_reason(settings, suite, request.live, request.environ)
        target = targets.get(suite.workflow)
        if target is None:
            target = workflow_target(settings, workflow, options, request.environ, cache)
        if skip_reason is None and suite.workflow not in targets:
            target.load()
            targets[suite.workflow] = target
        pricing = workflow.pricing
        record = TargetRecord(
            kind=workflow.target.kind,
            workflow_revision=workflow.revision,
            live=workflow.live,
            identity=target.describe(),
            pricing=None
            if pricing is None
            else PricingRecord(
                pricing.input_per_million, pricing.output_per_million, pricing.currency
            ),
        )
        run = None if skip_reason is not None else _attempt_run(target, suite)
        jobs.append(SuiteJob(suite, record, run, skip_reason))
    bench = None
    if request.live and settings.settings.judges:
        from goldgate.run.judges import judge_bench

        named = frozenset().union(*(job.suite.judge_names() for job in jobs))
        bench = judge_bench(settings, options, request.environ, cache, targets, named)
        jobs = [replace(job, judges=bench) for job in jobs]
    return Session(
        request=request,
        settings=settings,
        dataset=dataset,
        jobs=tuple(jobs),
        targets=tuple(targets.values()),
        registry=registry,
        options=options,
        output=output,
        variant=variant,
        cache=cache,
        judges=bench,
    )


def response_cache(
    folder: Path | None, environ: Mapping[str, str], code: str | None = None
) -> ResponseCache | None:
    """The run's response cache (``--cache DIR``): None without one. A path that is there
    and not a folder, or a folder in which git tracks files (answers a pull request could
    have committed), is refused before anything runs; entries are signed with the secret in
    ``GOLDGATE_CACHE_KEY`` when it is set, and a python or command target's are keyed by
    ``code``, the commit being evaluated (``goldgate.run.live.cache``)."""
    if folder is None:
        return None
    from goldgate.base.textsafe import escape_control
    from goldgate.run.live.cache import KEY_VARIABLE, ResponseCache, tracked

    where = escape_control(display_path(folder))
    if not folder.is_symlink() and folder.exists() and not folder.is_dir():
        raise InvalidInputError(
            f"--cache {where}: not a folder; name a folder (made when missing) for the "
            "response cache."
        )
    found = tracked(folder)
    if found:
        raise InvalidInputError(
            f"--cache {where}: git tracks files in this folder, so answers committed with a "
            "pull request would answer the run; keep the cache outside the checkout (the "
            "action keeps it under RUNNER_TEMP) or out of git."
        )
    secret = environ.get(KEY_VARIABLE, "").encode("utf-8") or None
    cache = ResponseCache(folder, secret, code=code)
    if found is None:
        cache.refuse("could not be checked for files git tracks in time; the cache was not used")
    return cache


def run_variant(request: RunRequest, settings: LoadedSettings, project: Path) -> VariantRecord:
    """What ran: ``--variant`` (default ``settings``) at ``--variant-revision`` (default the
    commit, else the configuration digest), under this configuration."""
    from goldgate.run.identity import DEFAULT_VARIANT, variant_revision

    digest = settings.configuration_digest
    for option, given in (
        ("--variant", request.variant),
        ("--variant-revision", request.variant_revision),
    ):
        if given is not None:
            _printable_option(option, given)
    return VariantRecord(
        name=request.variant or DEFAULT_VARIANT,
        revision=variant_revision(request.variant_revision, project, request.environ, digest),
        configuration_revision=digest,
    )


def _printable_option(option: str, value: str) -> None:
    """Refuse an option value that is printed as a name (exit 2) unless it is one:
    nonempty, no control characters, not starting with ``::``."""
    from goldgate.base.textsafe import refuse_control

    try:
        refuse_control(value)
    except ValueError as error:
        raise InvalidInputError(f"{option}: {error}.") from None
    if not value.strip():
        raise InvalidInputError(f"{option}: must not be empty.")


@dataclass(frozen=True)
class RunRequest:
    """What ``goldgate evaluate`` was asked to do."""

    config: Path
    dataset: Path | None = None
    suites: tuple[str, ...] = ()
    live: bool = False
    options: RunOptions = DEFAULT_OPTIONS
    output: Path | None = None
    json_output: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    shard: tuple[int, int] | None = None
    variant: str | None = None
    variant_revision: str | None = None
    cache: Path | None = None
    """``--cache DIR``: live workflows' answers are taken from and kept in this folder."""
