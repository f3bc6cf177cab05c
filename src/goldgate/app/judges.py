"""What ``goldgate judge calibrate`` does (docs/judges.md): measure each judge against the
team's recorded verdicts and write its calibration record, ``evaluation/judges/NAME.json``.

The answers come from the reports named (default: every complete report under the
project's ``.goldgate/evaluations/``). An answer counts when a person decided it in the
verdict store, for an expectation naming the judge, against the gold the report holds
(the verdict's ``gold`` is the digest of the expectation's ``expected``): each answer once.
The judge is asked about each through its workflow's target, exactly as a live run asks it
(retries, rate limit, pricing, ``--cache``); an answer it gives no verdict on is counted
apart and left out of the figures. Stdout says counts and figures, never an answer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from goldgate.base.errors import ExitCode, InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.stdio import write_json, write_stdout
from goldgate.gold.judges import CalibrationRecord, record_json, record_path, write_record
from goldgate.gold.settings.load import LoadedSettings, load_settings
from goldgate.gold.shapes import note_of
from goldgate.report.io import REPORTS_FOLDER
from goldgate.report.streamread import streamed_report
from goldgate.report.verdictstore import Verdict, load_store, store_path
from goldgate.run.identity import project_folder
from goldgate.run.judges import require_credentials
from goldgate.scoring.adjudication import gold_digest, output_digest
from goldgate.scoring.judges import calibration

__all__ = ["CalibrationRequest", "calibrate_command"]


@dataclass(frozen=True)
class CalibrationRequest:
    """What ``goldgate judge calibrate`` was asked to do."""

    config: Path
    judges: tuple[str, ...] = ()
    reports: tuple[Path, ...] = ()
    store: Path | None = None
    cache: Path | None = None
    output_format: Literal["text", "json"] = "text"
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)


@dataclass(frozen=True)
class Decided:
    """One answer a person decided, for an expectation naming a judge."""

    judge: str
    note: str | None
    envelope: Any
    answer: str
    passed: bool


def _chosen(settings: LoadedSettings, names: Sequence[str]) -> list[str]:
    declared = settings.settings.judges
    for name in names:
        if name not in declared:
            raise InvalidInputError(
                f"--judge {name}: no such judge in {display_path(settings.path)}'s judges."
            )
    chosen = list(dict.fromkeys(names)) or list(declared)
    if not chosen:
        raise InvalidInputError(f"{display_path(settings.path)} declares no judges.")
    return chosen


def _report_paths(settings: LoadedSettings, given: Sequence[Path]) -> list[Path]:
    if given:
        return list(given)
    folder = project_folder(settings.path) / REPORTS_FOLDER
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def decided_answers(
    paths: Sequence[Path], verdicts: Sequence[Verdict], judges: Sequence[str]
) -> list[Decided]:
    """The answers of the reports at ``paths`` that a person decided, for an expectation
    naming one of ``judges``, against the very gold the report holds: each answer once."""
    store = {verdict.key: verdict for verdict in verdicts}
    wanted = set(judges)
    found: dict[tuple[str, str, str, str, str], Decided] = {}
    for path in paths:
        # Read a case at a time (report.streamread): what is kept is the answers found.
        with streamed_report(path) as streamed:
            report = streamed.report
            if not report.complete:
                continue
            for index, suite in enumerate(report.suites):
                for case in streamed.cases(index):
                    judged_by = [e.judge for e in case.expectations]
                    if not wanted.intersection(filter(None, judged_by)):
                        continue
                    _collect(found, store, suite.name, case, judged_by, wanted)
    return list(found.values())


def _collect(
    found: dict[tuple[str, str, str, str, str], Decided],
    store: Mapping[tuple[str, str, str, str], Verdict],
    suite: str,
    case: Any,
    judged_by: list[str | None],
    wanted: set[str],
) -> None:
    from goldgate.report.caserecords import attempt_views

    for attempt in attempt_views(case):
        for judge, check in zip(judged_by, attempt.checks, strict=True):
            if judge not in wanted or not isinstance(check.actual, str) or judge is None:
                continue
            digest = output_digest(check.actual)
            verdict = store.get((suite, attempt.case_id, check.name, digest))
            if verdict is None or verdict.gold != gold_digest(check.expected):
                continue
            note = note_of(check.expected)
            found.setdefault(
                (judge, suite, attempt.case_id, check.name, digest),
                Decided(judge, note, attempt.input, check.actual, verdict.passed),
            )


def calibrate_command(request: CalibrationRequest) -> ExitCode:
    """Calibrate the judges asked for and write their records (see the module docstring)."""
    from goldgate.run.calibrate import run_judge

    settings = load_settings(request.config)
    names = _chosen(settings, request.judges)
    require_credentials(settings, names, request.environ, "nothing was sent")
    project = project_folder(settings.path)
    store = load_store(request.store or store_path(project))
    answers = decided_answers(_report_paths(settings, request.reports), store.verdicts, names)
    records = []
    for name in names:
        mine = [item for item in answers if item.judge == name]
        asked = run_judge(settings, name, mine, environ=request.environ, cache=request.cache)
        said = zip(mine, asked.verdicts, strict=True)
        pairs = [(item.passed, verdict == "pass") for item, verdict in said if verdict is not None]
        figures = calibration(pairs)
        record = CalibrationRecord(
            judge=name,
            revision=settings.settings.judges[name].revision,
            verdicts=figures.table.total,
            agreement=figures.agreement,
            kappa=figures.kappa,
            kappa_ci95=figures.kappa_ci95,
            table=figures.table,
            no_verdict=len(mine) - len(pairs),
            requests=asked.requests,
            cached=asked.cached,
            cost=asked.cost,
        )
        path = record_path(settings.project_root, name)
        write_record(path, record)
        records.append((record, path))
    if request.output_format == "json":
        write_json([record_json(record) for record, _ in records])
    else:
        for record, path in records:
            write_stdout(_summary(record, path))
    return ExitCode.PASSED


def _summary(record: CalibrationRecord, path: Path) -> str:
    figures = "kappa undefined"
    if record.kappa is not None and record.kappa_ci95 is not None:
        low, high = record.kappa_ci95
        figures = f"κ {record.kappa:.2f} [{low:.2f}, {high:.2f}]"
    agreement = "" if record.agreement is None else f", agreement {record.agreement:.0%}"
    return (
        f"judge {record.judge}@{record.revision}: {figures}{agreement} on {record.verdicts} "
        f"human verdicts ({record.no_verdict} without a verdict from the judge; "
        f"{record.requests} requests, {record.cached} cached); record: {display_path(path)}"
    )
