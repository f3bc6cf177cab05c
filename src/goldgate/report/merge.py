"""Joining the reports of shards (``evaluate --shard K/N`` on a CI matrix) into the report a
single run of the whole dataset would have written.

Every shard must be there exactly once, complete, from the same gold; every case of every
suite must come from exactly one shard. Figures are recomputed over the joined attempts (a
metric over all observations, never an average of the shards' metrics).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from goldgate.base.errors import InvalidInputError
from goldgate.report.caserecords import CaseRecord
from goldgate.report.livefigures import run_live
from goldgate.report.rebuild import rebuild_suite
from goldgate.report.records import Report, SuiteRecord, SuiteStatus
from goldgate.report.verdicts import run_verdict

__all__ = ["ShardReport", "check_shards", "merge_reports", "merge_status", "parse_shard"]


@dataclass(frozen=True)
class ShardReport:
    source: str
    """Where the report came from, for messages."""
    report: Report


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` as (K, N) with 1 <= K <= N; ``ValueError`` with a sentence otherwise."""
    index, slash, count = text.partition("/")
    if not (slash and index.isdigit() and count.isdigit()):
        raise ValueError(f"a shard is K/N, such as 1/4, not {text!r}")
    k, n = int(index), int(count)
    if not 1 <= k <= n <= 10_000:
        raise ValueError(f"a shard K/N needs 1 <= K <= N <= 10000, not {text!r}")
    return k, n


def _shards(reports: Sequence[ShardReport]) -> int:
    """Check that the reports are the shards 1..N of one run, each once; return N."""
    seen: dict[int, str] = {}
    count: int | None = None
    for item in reports:
        shard = item.report.options.shard
        if shard is None:
            raise InvalidInputError(f"{item.source}: not a shard's report (no options.shard).")
        if not item.report.complete:
            raise InvalidInputError(
                f"{item.source}: shard {shard} is incomplete (interrupted); merge complete "
                "shards only."
            )
        k, n = parse_shard(shard)
        if count is not None and n != count:
            raise InvalidInputError(
                f"{item.source}: shard {shard} is one of {n}, the others are of {count}."
            )
        count = n
        if k in seen:
            raise InvalidInputError(f"{item.source}: shard {shard} is also {seen[k]}.")
        seen[k] = item.source
    assert count is not None
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise InvalidInputError(f"shard {', '.join(missing)} missing: every shard is needed.")
    return count


def check_shards(reports: Sequence[ShardReport]) -> None:
    """Refuse reports that are not every shard of one run, each once and complete, from the
    same gold, variant and suites (what ``merge_reports`` checks before joining)."""
    _shards(reports)
    first = reports[0]
    for other in reports[1:]:
        _same_run(first, other)


def _same_run(first: ShardReport, other: ShardReport) -> None:
    a, b = first.report, other.report
    if a.dataset.fingerprint != b.dataset.fingerprint or a.dataset.name != b.dataset.name:
        raise InvalidInputError(
            f"{other.source}: gold {b.dataset.fingerprint} differs from {first.source}'s "
            f"{a.dataset.fingerprint}; shards of one run share one dataset fingerprint."
        )
    if a.variant != b.variant or a.options.repeat != b.options.repeat:
        raise InvalidInputError(
            f"{other.source}: a different variant or --repeat than {first.source}."
        )
    names = [(s.name, s.fingerprint) for s in a.suites]
    if names != [(s.name, s.fingerprint) for s in b.suites]:
        raise InvalidInputError(f"{other.source}: other suites than {first.source}.")


def _merged_cases(suite: str, parts: Sequence[tuple[str, SuiteRecord]]) -> list[CaseRecord]:
    owner: dict[int, str] = {}
    cases: list[tuple[int, CaseRecord]] = []
    whole: int | None = None
    for source, record in parts:
        whole = record.whole_case_count
        for case in record.cases:
            if case.position is None:
                raise InvalidInputError(f"{source}: case {case.id!r} has no position.")
            if case.position in owner:
                raise InvalidInputError(
                    f"{source}: case {case.id!r} of suite {suite!r} is also in "
                    f"{owner[case.position]}; shards overlap."
                )
            owner[case.position] = source
            cases.append((case.position, dataclasses.replace(case, position=None)))
    whole = whole if whole is not None else 0
    absent = whole - len(owner)
    if absent or any(position >= whole for position in owner):
        raise InvalidInputError(
            f"suite {suite!r}: {absent} of its {whole} cases are in no shard's report."
        )
    return [case for _, case in sorted(cases, key=lambda item: item[0])]


def merge_reports(reports: Sequence[ShardReport]) -> Report:
    """The report of the whole run, from the reports of all its shards."""
    if not reports:
        raise InvalidInputError("no shard reports to merge.")
    check_shards(reports)
    first = reports[0]
    suites = []
    for position, suite in enumerate(first.report.suites):
        parts = [(item.source, item.report.suites[position]) for item in reports]
        cases = _merged_cases(suite.name, parts)
        whole = dataclasses.replace(suite, whole_case_count=None, status=merge_status(parts))
        suites.append(rebuild_suite(whole, cases))
    records = tuple(suites)
    verdict = run_verdict(records, False, sum(suite.adjudication for suite in records))
    all_reports = [item.report for item in reports]
    return dataclasses.replace(
        first.report,
        suites=records,
        options=dataclasses.replace(first.report.options, shard=None),
        started_at=min(report.started_at for report in all_reports),
        finished_at=max(report.finished_at for report in all_reports),
        duration_seconds=max(report.duration_seconds for report in all_reports),
        verdict=verdict,
        live=run_live(suite.live for suite in records),
    )


def merge_status(parts: Sequence[tuple[str, SuiteRecord]]) -> SuiteStatus:
    """A suite ran when any shard ran it (a shard may hold none of its cases)."""
    statuses = {record.status for _, record in parts}
    return "ran" if "ran" in statuses else next(iter(statuses))
