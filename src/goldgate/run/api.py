"""Running gold: the engine behind ``goldgate evaluate`` and the Python API.

``evaluate`` runs one in-memory suite against a variant and returns an immutable report,
writing nothing. ``open_application`` prepares the targets a settings file declares. The
CLI uses ``run_jobs`` and ``assemble_report`` from here with targets built from settings.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import FrozenJson
from goldgate.gold.models import Case, Expectation, Metric, Suite, TextOptions
from goldgate.gold.settings.load import LoadedSettings, load_settings
from goldgate.gold.suites import GoldSuite
from goldgate.report.io import parse_report
from goldgate.report.models import Report
from goldgate.report.records import DatasetRecord, TargetRecord, VariantRecord
from goldgate.report.stream import ReportWriter
from goldgate.run.limits import DEFAULT_OPTIONS, RunOptions
from goldgate.run.live import workflow_target
from goldgate.run.streaming import ReportRun, RunHeader, SuiteJob, now, options_record
from goldgate.run.targets import Target, TargetRequest, TargetResponse
from goldgate.scoring import RegisteredScorer, ScorerRegistry

__all__ = [
    "Application",
    "EvaluationSuite",
    "EvaluationVariant",
    "Expectation",
    "FrozenJson",
    "RegisteredScorer",
    "RunOptions",
    "evaluate",
    "open_application",
]


@dataclass(frozen=True)
class EvaluationVariant:
    """What is being evaluated: a named, revised way to run the application."""

    name: str
    revision: str
    run: Callable[[Mapping[str, Any]], Awaitable[Any]]
    configuration_revision: str | None = None
    workflow: str = "python"
    flow: str | None = None
    step: str | None = None


@dataclass(frozen=True)
class EvaluationSuite:
    """An in-memory suite for the Python API."""

    name: str
    cases: Sequence[Case]
    thresholds: Mapping[str, float] = field(default_factory=dict)
    text: TextOptions | None = None
    revision: str | None = None
    """The reviewed revision of these cases, recorded as the report's dataset revision;
    without one, the suite's content fingerprint stands for it."""


def _expect(value: object, kind: type | tuple[type, ...], what: str, hint: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{what} must be {hint}, not {type(value).__name__}.")


def _require_types(
    suite: object, variant: object, metrics: Sequence[object], scorers: Sequence[object]
) -> None:
    """Plain dicts where models belong fail here with a sentence, not deep in the run."""
    _expect(suite, (EvaluationSuite, GoldSuite), "suite", "an EvaluationSuite")
    _expect(variant, EvaluationVariant, "variant", "an EvaluationVariant")
    if isinstance(suite, EvaluationSuite):
        for index, case in enumerate(suite.cases):
            _expect(case, Case, f"suite.cases[{index}]", "a Case (Case.model_validate(dict))")
    for index, metric in enumerate(metrics):
        _expect(metric, Metric, f"metrics[{index}]", "a Metric (Metric.model_validate(dict))")
    for index, scorer in enumerate(scorers):
        _expect(scorer, RegisteredScorer, f"scorers[{index}]", "a RegisteredScorer")


def _require_scorers(suite: GoldSuite, registry: ScorerRegistry) -> None:
    for case in suite.cases:
        for expectation in case.expectations:
            if expectation.comparison == "custom" and expectation.scorer not in registry:
                raise InvalidInputError(
                    f"case {case.id!r}, expectation {expectation.name!r}: scorer "
                    f"{expectation.scorer!r} is not registered."
                )


def _gold_suite(
    suite: EvaluationSuite | GoldSuite, variant: EvaluationVariant, metrics: Sequence[Metric]
) -> GoldSuite:
    """The suite to run; an in-memory suite targets the variant's workflow, flow and step."""
    if isinstance(suite, GoldSuite):
        if not metrics:
            return suite
        cases, name = suite.cases, suite.name
        thresholds, text = suite.thresholds, suite.text
        metrics = (*suite.metrics, *metrics)
        workflow, flow, step = suite.workflow, suite.flow, suite.step
    else:
        cases, name = tuple(suite.cases), suite.name
        thresholds, text = dict(suite.thresholds), suite.text
        workflow, flow, step = variant.workflow, variant.flow, variant.step
    model = Suite(
        name=name,
        workflow=workflow,
        flow=flow,
        step=step,
        cases=[case.model_dump(mode="json") for case in cases],
        metrics=list(metrics),
        thresholds=dict(thresholds),
        text=text,
    )
    for metric in metrics:
        for case in cases:
            if metric.cases is not None and case.id not in metric.cases:
                continue
            if sum(e.path == metric.path for e in case.expectations) != 1:
                raise InvalidInputError(
                    f"case {case.id!r} needs exactly one expectation at {metric.path!r} "
                    f"for metric {metric.name!r}."
                )
    built = GoldSuite.build(model, tuple(cases), "<python>")
    return replace(built, dataset=suite.dataset) if isinstance(suite, GoldSuite) else built


def _dataset_record(suite: EvaluationSuite | GoldSuite, gold: GoldSuite) -> DatasetRecord:
    """The dataset a Python API report names: a loaded suite's own dataset (its name and
    reviewed revision); an in-memory suite is a dataset of its own."""
    if gold.dataset is not None:
        identity = gold.dataset
        return DatasetRecord(
            name=identity.name,
            revision=identity.revision,
            fingerprint=identity.fingerprint,
            path=None,
        )
    revision = suite.revision if isinstance(suite, EvaluationSuite) else None
    return DatasetRecord(
        name=gold.name,
        revision=revision or gold.fingerprint,
        fingerprint=gold.fingerprint,
        path=None,
    )


async def evaluate(
    suite: EvaluationSuite | GoldSuite,
    variant: EvaluationVariant,
    *,
    metrics: Sequence[Metric] = (),
    scorers: Sequence[RegisteredScorer] = (),
    include_details: bool = True,
    options: RunOptions = DEFAULT_OPTIONS,
) -> Report:
    """Run every case of ``suite`` through ``variant.run`` and score it; write nothing.

    A custom comparison whose scorer is not in ``scorers`` fails before anything runs.
    """
    _require_types(suite, variant, metrics, scorers)
    registry = ScorerRegistry(scorers)
    gold = _gold_suite(suite, variant, metrics)
    _require_scorers(gold, registry)
    target = TargetRecord(
        kind="python-api", workflow_revision=variant.revision, live=False, identity={}
    )
    header = RunHeader(
        dataset=_dataset_record(suite, gold),
        variant=VariantRecord(
            name=variant.name,
            revision=variant.revision,
            configuration_revision=variant.configuration_revision,
        ),
        options=options_record(options, (gold.name,), live=False, include_details=include_details),
        registry=registry,
        started=now(),
    )
    chunks: list[bytes] = []
    run = ReportRun(
        header,
        [SuiteJob(gold, target, variant.run)],
        options,
        ReportWriter(chunks.append),
        include_details=include_details,
    )
    clock = time.perf_counter()
    await run.run(registry)
    run.finish(duration=time.perf_counter() - clock, interruption=None)
    return parse_report(b"".join(chunks), "<memory>")


@dataclass(frozen=True)
class PreparedConfiguration:
    """Settings ready to run: their digest identifies the configuration in reports."""

    settings: LoadedSettings

    @property
    def configuration_digest(self) -> str:
        return self.settings.configuration_digest


class Application:
    """The application a settings file declares, reachable per workflow, flow and step."""

    def __init__(self, prepared: PreparedConfiguration, targets: Mapping[str, Target]) -> None:
        self.prepared = prepared
        self._targets = dict(targets)

    @property
    def configuration_digest(self) -> str:
        return self.prepared.configuration_digest

    def _target(self, workflow: str) -> Target:
        try:
            return self._targets[workflow]
        except KeyError:
            raise InvalidInputError(
                f"workflow {workflow!r} is not declared in the settings."
            ) from None

    async def _call(
        self, workflow: str, flow: str | None, step: str | None, envelope: Mapping[str, Any]
    ) -> TargetResponse:
        return await self._target(workflow)(TargetRequest(workflow, flow, step, envelope))

    async def run(self, workflow: str, envelope: Mapping[str, Any]) -> TargetResponse:
        return await self._call(workflow, None, None, envelope)

    async def run_flow(
        self, workflow: str, flow: str, envelope: Mapping[str, Any]
    ) -> TargetResponse:
        return await self._call(workflow, flow, None, envelope)

    async def run_step(
        self, workflow: str, flow: str, step: str, envelope: Mapping[str, Any]
    ) -> TargetResponse:
        return await self._call(workflow, flow, step, envelope)


@asynccontextmanager
async def open_application(
    settings: LoadedSettings | Path | str,
    *,
    live: bool = False,
    options: RunOptions = DEFAULT_OPTIONS,
) -> AsyncIterator[Application]:
    """Prepare every workflow's target (live ones only when ``live``) and close them after.
    The targets are built as ``goldgate evaluate`` builds them: an http request times out
    just past ``options.timeout``, as the run's attempts would."""
    loaded = settings if isinstance(settings, LoadedSettings) else load_settings(Path(settings))
    targets: dict[str, Target] = {}
    try:
        for name, workflow in loaded.workflows.items():
            if workflow.live and not live:
                continue
            # Its retries, limits and pricing too.
            target = workflow_target(loaded, workflow, options, os.environ)
            target.load()
            targets[name] = target
        yield Application(PreparedConfiguration(loaded), targets)
    finally:
        for target in targets.values():
            await target.aclose()
