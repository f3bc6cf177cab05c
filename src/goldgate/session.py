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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from goldgate.dataset.gold import Dataset, GoldSuite
from goldgate.dataset.load import load_gold
from goldgate.errors import InvalidInputError
from goldgate.evaluation import (
    RunHeader,
    SuiteJob,
    _now,
    dataset_record,
    finish_report,
    run_jobs,
)
from goldgate.execution.runner import AttemptRun, RunOptions
from goldgate.execution.targets import Target, TargetRequest, TargetResponse, build_target
from goldgate.identity import DEFAULT_VARIANT, project_folder, variant_revision
from goldgate.problems import display_path
from goldgate.progress import Progress
from goldgate.report.io import ReportFile, default_report_path, ensure_writable
from goldgate.report.models import OptionsRecord, Report, TargetRecord, VariantRecord
from goldgate.report.stream import ReportWriter
from goldgate.scoring import ScorerRegistry, import_scorer
from goldgate.settings.load import LoadedSettings, load_settings

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
    variant: VariantRecord

    def execute(self) -> SessionOutcome:
        """Run every job, streaming the report into its file; link it into place at the end
        (or, interrupted, as soon as what finished is written)."""
        header = RunHeader(
            dataset=dataset_record(self.dataset, display_path(self.dataset.path)),
            variant=self.variant,
            options=OptionsRecord(
                max_concurrency=self.options.max_concurrency,
                timeout=self.options.timeout,
                repeat=self.options.repeat,
                suites=self.request.suites,
                live=self.request.live,
                include_details=True,
            ),
            registry=self.registry,
            started=_now(),
        )
        report_file = ReportFile(self.output)
        try:
            outcome = anyio.run(self._run, header, report_file)
        except BaseException:
            report_file.discard()
            raise
        return outcome

    async def _run(self, header: RunHeader, report_file: ReportFile) -> SessionOutcome:
        """The run and the report's last bytes happen while goldgate's own signal handler
        is installed: from the first SIGINT or SIGTERM until the report is on disk, further
        signals are only noted, never fatal."""
        clock = time.perf_counter()
        writer = ReportWriter(report_file.write)
        writer.head(header.as_json())
        stop = anyio.Event()
        received: list[str] = []
        progress = Progress()
        async with anyio.create_task_group() as group:
            group.start_soon(_stop_on_signal, stop, received)
            try:
                records = await run_jobs(
                    self.jobs, self.registry, self.options, writer,
                    stop=stop, progress=progress.suite,
                )  # fmt: skip
            finally:
                with anyio.CancelScope(shield=True):
                    for target in self.targets:
                        await target.aclose()
            interruption = received[0] if received else None
            report = finish_report(
                writer,
                header,
                records,
                duration=time.perf_counter() - clock,
                interruption=interruption,
            )
            path, fallback_reason = report_file.publish()
            group.cancel_scope.cancel()
        return SessionOutcome(report, Path(display_path(path)), fallback_reason)


async def _stop_on_signal(stop: anyio.Event, received: list[str]) -> None:
    """The first SIGINT or SIGTERM stops the run; it and every later one are noted."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for number in signals:
            received.append(signal.Signals(number).name)
            stop.set()


def prepare_session(request: RunRequest) -> Session:
    """Everything a run needs, or ``InvalidInputError`` before anything runs."""
    options = RunOptions(
        max_concurrency=request.max_concurrency, timeout=request.timeout, repeat=request.repeat
    )
    settings = load_settings(request.config)
    dataset = load_gold(settings, request.dataset)
    suites = _select_suites(dataset, request.suites)
    project = project_folder(settings.path)
    output = request.output or default_report_path(project, dataset.name, _now())
    ensure_writable(output)
    variant = run_variant(request, settings, project)
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
        variant=variant,
    )


def run_variant(request: RunRequest, settings: LoadedSettings, project: Path) -> VariantRecord:
    """What ran: ``--variant`` (default ``settings``) at ``--variant-revision`` (default the
    commit, else the configuration digest), under this configuration."""
    digest = settings.configuration_digest
    return VariantRecord(
        name=request.variant or DEFAULT_VARIANT,
        revision=variant_revision(request.variant_revision, project, request.environ, digest),
        configuration_revision=digest,
    )
