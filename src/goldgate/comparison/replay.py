"""Replay: the current gold applied to the saved results of a complete report. No target is
built, imported or called, so a replay works where the application's code cannot even be
imported; only custom scorers (from the settings) are imported, as for a run.

The saved attempts become the same ``AttemptOutcome`` stream the runner produces and go
through the same ``SuiteCollector`` and ``ReportWriter``, so a replay is an ordinary report:
its checks and metrics are what the current gold says about the saved results; recorded
runtime failures stay failures (never retried); latency and usage are copied and the report
names the run that measured them (``replay_of``).

What the replay starts from and whether the saved run is what the gold describes (the first
mismatch refused, exit 2) is ``goldgate.comparison.replayable``; this module scores the
saved results and is the CLI's (``prepare_replay``) and the Python API's (``replay``) way in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import orjson

from goldgate.base.errors import InvalidInputError
from goldgate.base.memory import collections_paused
from goldgate.base.problems import display_path
from goldgate.comparison.replayable import ReplaySource, opened_replay_source, require_replayable
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.load import load_gold
from goldgate.gold.models import TextOptions
from goldgate.gold.settings.load import LoadedSettings, load_settings
from goldgate.gold.suites import Dataset, GoldSuite
from goldgate.report.build import SuiteCollector, suite_head, suite_tail
from goldgate.report.caserecords import CaseRecord, exception_fields
from goldgate.report.io import (
    ReportFile,
    default_report_path,
    ensure_writable,
    parse_report,
)
from goldgate.report.records import Report, SuiteRecord, dataset_record
from goldgate.report.stream import ReportWriter
from goldgate.report.verdictstore import attach_verdicts
from goldgate.run.identity import project_folder
from goldgate.run.scorers import settings_registry
from goldgate.run.streaming import RunHeader, finish_report
from goldgate.scoring import (
    CheckOutcome,
    RegisteredScorer,
    ScorerRegistry,
    not_run,
    score_compiled,
)
from goldgate.scoring.adjudication import adjudicate
from goldgate.scoring.attempt import AttemptOutcome
from goldgate.scoring.outcomes import not_run_reason
from goldgate.scoring.score import attempt_document, score_custom

__all__ = ["PreparedReplay", "ReplayOutcome", "prepare_replay", "replay", "replay_checks"]


def _scored(
    compiled: Sequence[CompiledExpectation],
    document: Mapping[str, Any],
    envelope: Mapping[str, Any],
    text: TextOptions | None,
) -> tuple[CheckOutcome, ...]:
    return tuple(score_compiled(e, document, envelope, text) for e in compiled)


def _text(result: Mapping[str, Any]) -> bytes | None:
    try:
        return orjson.dumps(result)
    except (orjson.JSONEncodeError, TypeError):  # integers beyond 64 bits: score each
        return None


async def replay_checks(
    compiled: Sequence[CompiledExpectation],
    status: str,
    reason: str | None,
    result: Mapping[str, Any] | None,
    envelope: Mapping[str, Any],
    registry: Mapping[str, RegisteredScorer],
    text: TextOptions | None = None,
) -> tuple[CheckOutcome, ...]:
    """The checks gold gives one saved attempt: a completed one's result scored as a run
    scores it; every check of any other is not_run for the attempt's recorded reason."""
    if status != "completed" or result is None:
        return (not_run(not_run_reason(status, reason)),) * len(compiled)
    if not any(e.comparison == "custom" for e in compiled):
        return _scored(compiled, result, envelope, text)
    checks = []
    for expectation in compiled:
        if expectation.comparison == "custom":
            checks.append(await score_custom(expectation, result, registry))
        else:
            checks.append(score_compiled(expectation, result, envelope, text))
    return tuple(checks)


async def _replay_suite(
    saved: SuiteRecord,
    cases: Iterable[CaseRecord],
    gold: GoldSuite,
    registry: ScorerRegistry,
    writer: ReportWriter,
) -> SuiteRecord:
    """One suite's saved ``cases`` (read a case at a time) scored with ``gold``, each case
    written as it is scored."""
    head = replace(
        saved,
        fingerprint=gold.fingerprint,
        cases_source=gold.cases_source,
        metric_definitions=gold.metrics,
    )
    writer.begin_suite(suite_head(head))
    collector = SuiteCollector(gold, saved.repeat, True, writer.case)
    custom = [any(e.comparison == "custom" for e in c) for c in gold.compiled]
    for index, (saved_case, case) in enumerate(zip(cases, gold.cases, strict=True)):
        compiled = gold.compiled[index]
        envelope = case.input.as_json()
        # Scoring is a pure function of gold, input and result (custom scorers aside, which
        # are the user's code and may not be): repeats that saved the same result are
        # scored once. Keyed by the result's JSON text, so only equal documents share.
        scored: dict[bytes, tuple[CheckOutcome, ...]] = {}
        for attempt in saved_case.attempts:
            result = attempt.result
            # The attempt's own figures (latency, cost) as the run recorded them, where gold
            # points at /attempt: such a document is this attempt's alone, never shared.
            document: Mapping[str, Any] | None = None
            if result is not None:
                document = attempt_document(
                    result, compiled, latency_ms=attempt.latency_ms, cost=attempt.cost
                )
            shared = document is result
            if attempt.status == "completed" and document is not None and not custom[index]:
                key = _text(document) if shared else None
                checks = scored.get(key) if key is not None else None
                if checks is None:
                    checks = _scored(compiled, document, envelope, gold.text)  # no await
                    if key is not None:
                        scored[key] = checks
            else:
                checks = await replay_checks(
                    compiled,
                    attempt.status,
                    attempt.reason,
                    document,
                    envelope,
                    registry,
                    gold.text,
                )
            if gold.verdicts and attempt.status == "completed":
                checks = adjudicate(checks, compiled, case.id, gold.verdicts)
            collector.add(
                AttemptOutcome(
                    index,
                    case,
                    attempt.attempt,
                    attempt.status,
                    attempt.reason,
                    attempt.latency_ms,
                    result if attempt.status == "completed" else None,
                    attempt.stderr,
                    checks,
                    exception_fields(attempt.exception),
                    attempt.retries,  # copied, as latency and usage are: the run's own
                    attempt.cached,
                    attempt.cost,
                )
            )
    skip_reason = saved.skip_reason if saved.status == "skipped" else None
    record = collector.record(saved.target, skip_reason=skip_reason)
    writer.end_suite(suite_tail(record))
    return record


async def _replay(
    source: ReplaySource,
    dataset: Dataset,
    suites: Sequence[GoldSuite],
    registry: ScorerRegistry,
    write: Callable[[bytes], object],
) -> Report:
    saved = source.report
    header = RunHeader(
        dataset=dataset_record(dataset, display_path(dataset.path)),
        variant=saved.variant,
        options=saved.options,
        registry=registry,
        started=_now(),
        replay_of=source.record(),
    )
    clock = time.perf_counter()
    writer = ReportWriter(write)
    writer.head(header.as_json())
    # The saved report is millions of live objects: collections triggered by the records
    # made here would scan them all, again and again, for cycles there are none of.
    with collections_paused():
        ended = [
            await _replay_suite(record, source.cases(index), gold, registry, writer)
            for index, (record, gold) in enumerate(zip(saved.suites, suites, strict=True))
        ]
    return finish_report(
        writer, header, ended, duration=time.perf_counter() - clock, interruption=None
    )


def _now() -> datetime:
    return datetime.now(UTC)


def _registry(
    settings: LoadedSettings, suites: Sequence[GoldSuite], given: Sequence[RegisteredScorer] | None
) -> ScorerRegistry:
    """The custom scorers the suites name: ``given`` (Python API), else imported from the
    settings as a run imports them."""
    if given is not None:
        return _given_registry(suites, given)
    return settings_registry(settings, suites)


def _given_registry(
    suites: Sequence[GoldSuite], given: Sequence[RegisteredScorer]
) -> ScorerRegistry:
    registry = ScorerRegistry(given)
    needed = sorted(set().union(*(suite.scorer_names() for suite in suites)))
    missing = [name for name in needed if name not in registry]
    if missing:
        raise InvalidInputError(f"scorer {missing[0]!r} is not registered.")
    return registry


# --- the CLI and the Python API ----------------------------------------------------------------


@dataclass(frozen=True)
class ReplayOutcome:
    report: Report
    report_path: Path
    fallback_reason: str | None
    source: ReplaySource


@dataclass(frozen=True)
class PreparedReplay:
    source: ReplaySource
    dataset: Dataset
    suites: tuple[GoldSuite, ...]
    registry: ScorerRegistry
    output: Path
    opened: ExitStack = field(default_factory=ExitStack)
    """Holds the saved report open for its cases until ``execute`` ends."""

    def execute(self) -> ReplayOutcome:
        """Replay into a new report file, linked into place when complete."""
        with self.opened:
            report_file = ReportFile(self.output)
            try:
                report = anyio.run(
                    _replay,
                    self.source,
                    self.dataset,
                    self.suites,
                    self.registry,
                    report_file.write,
                )
            except BaseException:
                report_file.discard()
                raise
        path, fallback_reason = report_file.publish()
        return ReplayOutcome(report, Path(display_path(path)), fallback_reason, self.source)


def prepare_replay(
    report: Path, config: Path, dataset: Path | None, output: Path | None
) -> PreparedReplay:
    """Everything a replay needs, or ``InvalidInputError`` before anything is written. The
    saved report stays open for ``execute``, which reads its cases again one at a time."""
    settings = load_settings(config)
    gold = load_gold(settings, dataset)
    with ExitStack() as opened:
        source = opened.enter_context(opened_replay_source(report))
        suites = attach_verdicts(require_replayable(source, gold, settings), settings.project_root)
        output = output or default_report_path(project_folder(settings.path), gold.name, _now())
        ensure_writable(output)
        registry = _registry(settings, suites, None)
        return PreparedReplay(source, gold, tuple(suites), registry, output, opened.pop_all())


async def replay(
    report: Report | Path | str,
    gold: LoadedSettings | Dataset | GoldSuite | Path | str,
    *,
    dataset: Path | str | None = None,
    scorers: Sequence[RegisteredScorer] | None = None,
) -> Report:
    """The current gold applied to a saved report's results; returns the new report and
    writes nothing.

    ``gold`` is a settings file (or loaded settings), whose dataset (``dataset`` when given)
    is the current gold and whose configuration and targets the report must have run under,
    as for ``goldgate evaluate --replay``; or gold already in memory (a ``Dataset``, or one
    ``GoldSuite`` as given to ``evaluate``), when there are no settings to check the
    configuration and targets against. Custom scorers are ``scorers`` when given, else
    imported from the settings."""
    with ExitStack() as opened:
        source = (
            ReplaySource.of(report)
            if isinstance(report, Report)
            else opened.enter_context(opened_replay_source(Path(report)))
        )
        return await _replay_source(source, gold, dataset, scorers)


async def _replay_source(
    source: ReplaySource,
    gold: LoadedSettings | Dataset | GoldSuite | Path | str,
    dataset: Path | str | None,
    scorers: Sequence[RegisteredScorer] | None,
) -> Report:
    settings: LoadedSettings | None = None
    if isinstance(gold, GoldSuite):
        current = _dataset_of(gold)
    elif isinstance(gold, Dataset):
        current = gold
    else:
        settings = gold if isinstance(gold, LoadedSettings) else load_settings(Path(gold))
        current = load_gold(settings, _path(dataset))
    suites = require_replayable(source, current, settings)
    if settings is not None:  # the project's recorded verdicts, as a run would take them
        suites = attach_verdicts(suites, settings.project_root)
    if settings is None:
        registry = _given_registry(suites, scorers or ())
    else:
        registry = _registry(settings, suites, scorers)
    chunks: list[bytes] = []
    await _replay(source, current, suites, registry, chunks.append)
    return parse_report(b"".join(chunks), "<memory>")


def _dataset_of(suite: GoldSuite) -> Dataset:
    """One suite as the dataset ``evaluate`` names in its report."""
    identity = suite.dataset
    return Dataset(
        name=identity.name if identity else suite.name,
        revision=identity.revision if identity else suite.fingerprint,
        suites=(suite,),
        path=Path("<python>"),
        fingerprint=identity.fingerprint if identity else suite.fingerprint,
    )


def _path(value: Path | str | None) -> Path | None:
    return None if value is None else Path(value)
