"""What a replay starts from, and whether it may: the saved report (``ReplaySource``) and
the checks that it is what the current gold describes (``require_replayable``).

A replay needs the saved run to be what the gold describes: the same dataset name, suite and
case identities and order, inputs, configuration and workflow revisions, targets and attempt
identities. The gold revision may differ. The first mismatch is refused (exit 2) with one
sentence naming the suite, case and field, and for private values a digest of each side.
Targets are built only to describe themselves: nothing is imported, started or contacted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from goldgate.base.errors import InvalidInputError
from goldgate.gold.models import Case
from goldgate.gold.settings.load import LoadedSettings
from goldgate.gold.suites import Dataset, GoldSuite
from goldgate.report import records
from goldgate.report.digests import bytes_digest, value_digest
from goldgate.report.io import report_bytes
from goldgate.report.models import CaseRecord, Report
from goldgate.report.records import TargetRecord
from goldgate.report.streamread import StreamedReport, streamed_report
from goldgate.run.targets import build_target

__all__ = ["ReplaySource", "opened_replay_source", "require_replayable"]


@dataclass(frozen=True)
class ReplaySource:
    """A saved report and how it is named in the replay: path as given, digest of its bytes.
    Read from a file, ``report`` has its suites' cases left out: ``cases`` reads them again
    one at a time (``report.streamread``)."""

    report: Report
    path: str
    digest: str
    stream: StreamedReport | None = None

    def case_count(self, suite: int) -> int:
        if self.stream is None:
            return len(self.report.suites[suite].cases)
        return self.stream.case_count(suite)

    def cases(self, suite: int) -> Iterator[CaseRecord]:
        """Suite ``suite``'s saved cases in order, one at a time."""
        if self.stream is None:
            return iter(self.report.suites[suite].cases)
        return self.stream.cases(suite)

    @classmethod
    def of(cls, report: Report, path: str = "<memory>") -> ReplaySource:
        return cls(report, path, bytes_digest(report_bytes(report)))

    def record(self) -> records.ReplayRecord:
        """The run that measured the latency and usage: a replay of a replay names the
        original run, not the intermediate replay."""
        if self.report.replay_of is not None:
            return self.report.replay_of
        return records.ReplayRecord(self.path, self.digest, self.report.started_at, True)


@contextlib.contextmanager
def opened_replay_source(path: Path) -> Iterator[ReplaySource]:
    """The report at ``path``, verified a case at a time, open for its cases until the block
    ends."""
    with streamed_report(path) as stream:
        yield ReplaySource(stream.report, str(path), stream.digest, stream)


def _refuse(where: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"cannot replay: {where}{what}.")


def _differs(label: str, saved: object, current: object, source: str = "the gold") -> str:
    return f"{label} is {saved!r} in the report but {current!r} in {source}"


def _digests_differ(label: str, saved: object, current: object, source: str = "the gold") -> str:
    return f"{label} differs (report {value_digest(saved)}, {source} {value_digest(current)})"


def _replayed_suites(report: Report, dataset: Dataset) -> list[GoldSuite]:
    """The gold's suites the report ran: all, or those it asked for with --suite."""
    if report.dataset.name != dataset.name:
        raise _refuse("", _differs("the dataset name", report.dataset.name, dataset.name))
    wanted = report.options.suites
    suites = [s for s in dataset.suites if not wanted or s.name in wanted]
    saved = [suite.name for suite in report.suites]
    current = [suite.name for suite in suites]
    for position, (before, now) in enumerate(zip(saved, current, strict=False), start=1):
        if before != now:
            raise _refuse("", _differs(f"suite {position}", before, now))
    if len(saved) != len(current):
        extra = saved[len(current)] if len(saved) > len(current) else current[len(saved)]
        where = "the report only" if len(saved) > len(current) else "the gold only"
        raise _refuse("", f"suite {extra!r} is in {where}")
    return suites


def _target_record(settings: LoadedSettings, suite: GoldSuite) -> TargetRecord:
    """The target a run of ``suite`` would record. The target is built only to describe
    itself: nothing is imported, started or contacted."""
    workflow = settings.workflows[suite.workflow]
    target = build_target(
        workflow.target,
        project_root=settings.project_root,
        search_paths=settings.python_paths,
        environ={},
    )
    return TargetRecord(
        kind=workflow.target.kind,
        workflow_revision=workflow.revision,
        live=workflow.live,
        identity=target.describe(),
    )


def _require_same_suite(
    source: ReplaySource, index: int, gold: GoldSuite, target: TargetRecord
) -> None:
    saved = source.report.suites[index]
    where = f"suite {saved.name!r}: "
    for label in ("workflow", "flow", "step"):
        before, now = getattr(saved, label), getattr(gold, label)
        if before != now:
            raise _refuse(where, _differs(f"the {label}", before, now))
    if saved.target.kind != target.kind:
        raise _refuse(
            where, _differs("the target kind", saved.target.kind, target.kind, "the settings")
        )
    if saved.target.workflow_revision != target.workflow_revision:
        raise _refuse(
            where,
            _differs(
                "the workflow revision",
                saved.target.workflow_revision,
                target.workflow_revision,
                "the settings",
            ),
        )
    if value_digest(saved.target.identity) != value_digest(target.identity):
        raise _refuse(
            where,
            _digests_differ(
                "the target identity", saved.target.identity, target.identity, "the settings"
            ),
        )
    if saved.status == "not_started":  # pragma: no cover - only incomplete reports have it
        raise _refuse(where, "it was not started")
    count = source.case_count(index)
    if count != len(gold.cases):
        raise _refuse(where, f"{count} cases in the report but {len(gold.cases)} in the gold")
    cases = zip(source.cases(index), gold.cases, strict=True)
    for position, (record, case) in enumerate(cases, 1):
        if record.id != case.id:
            raise _refuse(where, _differs(f"case {position}", record.id, case.id))
        _require_same_case(where, record, case, saved.repeat)


def _require_same_case(where: str, record: CaseRecord, case: Case, repeat: int) -> None:
    where = f"{where}case {record.id!r}: "
    if record.input is None:
        raise _refuse(where, "the report was written without details (no input)")
    envelope = case.input.as_json()
    if value_digest(record.input) != value_digest(envelope):
        raise _refuse(where, _digests_differ("the input", record.input, envelope))
    numbers = [attempt.attempt for attempt in record.attempts]
    if numbers != list(range(1, repeat + 1)):
        raise _refuse(
            where, f"the attempts are numbered {numbers}, not 1 to {repeat} (--repeat {repeat})"
        )
    for attempt in record.attempts:
        if attempt.status == "completed" and attempt.result is None:
            raise _refuse(
                where,
                f"attempt {attempt.attempt} has no saved result (the report was written "
                "without details)",
            )


def require_replayable(
    source: ReplaySource, dataset: Dataset, settings: LoadedSettings | None
) -> list[GoldSuite]:
    """The gold suites to replay the report with, or ``InvalidInputError`` naming the first
    thing that does not match. Checked in the order a reader would look: completeness, the
    dataset, the suites, the configuration, then each suite's target, cases and attempts.
    Without ``settings`` (gold from the Python API) the configuration and targets are the
    report's own: there is nothing else to hold them against."""
    report = source.report
    if not report.complete:
        raise _refuse(
            "",
            f"{source.path} is incomplete (interrupted by {report.interruption or 'a signal'});"
            " only a complete report can be replayed",
        )
    suites = _replayed_suites(report, dataset)
    if settings is None:
        for index, (saved, gold) in enumerate(zip(report.suites, suites, strict=True)):
            _require_same_suite(source, index, gold, saved.target)
        return suites
    if report.variant.configuration_revision != settings.configuration_digest:
        raise _refuse(
            "",
            _differs(
                "the configuration revision",
                report.variant.configuration_revision,
                settings.configuration_digest,
                "the settings",
            ),
        )
    for index, gold in enumerate(suites):
        _require_same_suite(source, index, gold, _target_record(settings, gold))
    return suites
