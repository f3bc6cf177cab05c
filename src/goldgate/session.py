"""One ``goldgate evaluate`` run from the command line: prepare everything, then execute.

Preparation refuses whatever can be refused before the first attempt (bad gold, an unknown
suite, an existing --output, an unwritable report folder, a scorer or python target that does
not import, a missing credential for an authorized live workflow): exit 2, nothing run.
Execution handles Ctrl-C: scheduling stops, attempts in flight are cancelled, and what
finished is written as an incomplete report.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from goldgate.dataset.gold import Dataset, GoldSuite
from goldgate.dataset.load import load_gold
from goldgate.errors import InvalidInputError
from goldgate.evaluation import SuiteJob, _now, assemble_report, dataset_record, run_jobs
from goldgate.execution.runner import AttemptRun, RunOptions
from goldgate.execution.targets import Target, TargetRequest, TargetResponse, build_target
from goldgate.leftovers import abandon_executor_work
from goldgate.problems import display_path
from goldgate.progress import Progress
from goldgate.report.io import default_report_path, ensure_writable, write_report_safely
from goldgate.report.models import OptionsRecord, Report, TargetRecord, VariantRecord
from goldgate.scoring import ScorerRegistry, import_scorer
from goldgate.settings.load import LoadedSettings, load_settings
from goldgate.stdio import user_output_to_stderr

if TYPE_CHECKING:
    from goldgate.commands import RunRequest


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


def _registry(settings: LoadedSettings, suites: list[GoldSuite]) -> ScorerRegistry:
    needed = sorted(set().union(*(suite.scorer_names() for suite in suites)))
    scorers = []
    for name in needed:
        registered = settings.settings.scorers.get(name)
        if registered is None:  # pragma: no cover - the gold check refuses this first
            raise InvalidInputError(f"scorer {name!r} is not registered in the settings.")
        scorers.append(
            import_scorer(registered.import_path, name, registered.revision, settings.python_paths)
        )
    return ScorerRegistry(scorers)


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

    def execute(self) -> SessionOutcome:
        started, clock = _now(), time.perf_counter()
        with user_output_to_stderr():  # targets and scorers may print; stdout is goldgate's
            runs, interrupted = anyio.run(self._run)
        report = assemble_report(
            runs,
            dataset=dataset_record(self.dataset, display_path(self.dataset.path)),
            variant=VariantRecord(
                name="settings",
                revision=self.settings.configuration_digest,
                configuration_revision=self.settings.configuration_digest,
            ),
            options=OptionsRecord(
                max_concurrency=self.options.max_concurrency,
                timeout=self.options.timeout,
                repeat=self.options.repeat,
                suites=self.request.suites,
                live=self.request.live,
                include_details=True,
            ),
            registry=self.registry,
            started=started,
            duration=time.perf_counter() - clock,
            interrupted=interrupted,
        )
        with _signals_held():
            path, fallback_reason = write_report_safely(report, self.output)
        return SessionOutcome(report, Path(display_path(path)), fallback_reason)

    async def _run(self) -> tuple[list[Any], bool]:
        abandon_executor_work()  # closing the loop must not wait for what a target left there
        stop = anyio.Event()
        progress = Progress()
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(_stop_on_signal, stop)
                runs = await run_jobs(
                    self.jobs, self.registry, self.options, stop=stop, progress=progress.suite
                )
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                for target in self.targets:
                    await target.aclose()
        return runs, stop.is_set()


@contextmanager
def _signals_held() -> Iterator[None]:
    """A Ctrl-C while the report is written would lose the run. Everything has finished by
    then, so the signal is ignored until the file is there."""
    previous = {
        number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


async def _stop_on_signal(stop: anyio.Event) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            stop.set()


def prepare_session(request: RunRequest) -> Session:
    """Everything a run needs, or ``InvalidInputError`` before anything runs."""
    options = RunOptions(
        max_concurrency=request.max_concurrency, timeout=request.timeout, repeat=request.repeat
    )
    settings = load_settings(request.config)
    dataset = load_gold(settings, request.dataset)
    suites = _select_suites(dataset, request.suites)
    output = request.output or default_report_path(settings.folder, dataset.name, _now())
    ensure_writable(output)
    registry = _registry(settings, suites)
    targets: dict[str, Target] = {}
    jobs = []
    for suite in suites:
        workflow = settings.workflows[suite.workflow]
        skip_reason = _skip_reason(settings, suite, request.live, request.environ)
        target = targets.get(suite.workflow)
        if target is None:
            target = build_target(
                workflow.target,
                project_root=settings.project_root,
                search_paths=settings.python_paths,
                environ=request.environ,
                # A margin past the attempt's deadline, so that the deadline decides and an
                # unanswered request is always 'timed_out'.
                http_timeout=request.timeout + 5.0,
            )
        if skip_reason is None and suite.workflow not in targets:
            target.load()
            targets[suite.workflow] = target
        record = TargetRecord(
            kind=workflow.target.kind,
            workflow_revision=workflow.revision,
            live=workflow.live,
            identity=target.describe(),
        )
        run = None if skip_reason is not None else _attempt_run(target, suite)
        jobs.append(SuiteJob(suite, record, run, skip_reason))
    return Session(
        request=request,
        settings=settings,
        dataset=dataset,
        jobs=tuple(jobs),
        targets=tuple(targets.values()),
        registry=registry,
        options=options,
        output=output,
    )
