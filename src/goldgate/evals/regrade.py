"""``goldgate evals regrade REPORT``: the evaluators run again on the results a report saved,
and a new report is written. No eval function (and no target) is called.

What the eval itself scored (its assertions and ``ctx.store``) is kept as saved; what
evaluators scored (``by``) is dropped and scored again by the evaluators as they are defined
now (file defaults, the decorator, the case), in the eval files the report names (relative
to the project; or the ``PATH``s given), as a run scores it: each evaluator reads the saved
result, one that raises fails the attempt. Each case's ``expect`` and the project's recorded
verdicts apply again. Identity, inputs, gold, options and timings are the saved report's: an
attempt that did not complete stays as it was, with its status and reason, and so does the
result of an eval that returned several (as EZVals does not regrade those); latency is
copied, never measured. The new report is a file of its own, never overwriting one.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from goldgate.base.errors import InvalidInputError, PointerSyntaxError
from goldgate.base.holdable import unholdable
from goldgate.base.pointers import parse_pointer
from goldgate.base.problems import display_path
from goldgate.base.stdio import user_output_to_stderr
from goldgate.evals._context import EvalResult, TraceData
from goldgate.evals.casemodel import case_model
from goldgate.evals.cases import EvalCase
from goldgate.evals.collect import collect
from goldgate.evals.collector import EvalCollector
from goldgate.evals.execute import Ran, evaluate
from goldgate.evals.plan import TARGET_KIND
from goldgate.evals.runtime import EvalFailed, document
from goldgate.gold.compiled import CompiledExpectation, compile_text
from goldgate.gold.suites import GoldSuite, RecordedVerdict
from goldgate.report.build import suite_head, suite_tail
from goldgate.report.io import ReportFile, default_report_path, ensure_writable, read_report
from goldgate.report.models import (
    AttemptRecord,
    CaseRecord,
    ExpectationRecord,
    Report,
    SuiteRecord,
)
from goldgate.report.stream import ReportWriter
from goldgate.report.verdictstore import find_project, load_store, store_path, verdicts_by_suite
from goldgate.run.limits import DEFAULT_OPTIONS, RunOptions
from goldgate.run.session import SessionOutcome
from goldgate.run.streaming import RunHeader, finish_report, now
from goldgate.scoring import CheckOutcome, ScorerRegistry, not_run, score_compiled
from goldgate.scoring.adjudication import adjudicate
from goldgate.scoring.attempt import AttemptOutcome
from goldgate.scoring.evalscores import SCORE_COMPARISON
from goldgate.scoring.outcomes import not_run_reason

__all__ = ["RegradeRequest", "regrade"]


@dataclass(frozen=True)
class RegradeRequest:
    report: Path
    paths: tuple[Path, ...] = ()
    output: Path | None = None
    options: RunOptions = DEFAULT_OPTIONS
    """Attempts regraded at once (``max_concurrency``) and seconds for one attempt's
    evaluators (``timeout``); a regrade repeats nothing."""


def _compiled(expectation: ExpectationRecord) -> CompiledExpectation:
    name, path = expectation.name, expectation.path
    try:
        tokens: tuple[str, ...] | None = parse_pointer(path)
    except PointerSyntaxError:
        tokens = None
    text = compile_text(expectation.expected) if expectation.comparison == "text" else None
    return CompiledExpectation(
        name, path, expectation.comparison, None, expectation.expected, tokens, text
    )


def _fixed(case: CaseRecord) -> tuple[CompiledExpectation, ...]:
    """The checks an eval declares before it runs: its default key's (the first) and
    ``expect``."""
    return tuple(
        _compiled(e)
        for position, e in enumerate(case.expectations)
        if (e.comparison == SCORE_COMPARISON and position == 0) or e.comparison == "text"
    )


def _gold(
    record: SuiteRecord, verdicts: Mapping[tuple[str, str, str], RecordedVerdict]
) -> GoldSuite:
    cases = []
    compiled = []
    for case in record.cases:
        fixed = _fixed(case)
        envelope = case.input or {"payload": {}, "metadata": {}}
        cases.append(case_model(case.id, envelope, fixed, family=case.family, split=case.split))
        compiled.append(fixed)
    return GoldSuite(
        name=record.name,
        workflow=record.workflow,
        flow=record.flow,
        step=record.step,
        cases=tuple(cases),
        metrics=(),
        thresholds={t.key: t.bound for t in record.thresholds},
        text=None,
        cases_source=record.cases_source or "",
        fingerprint=record.fingerprint,
        compiled=tuple(compiled),
        verdicts=verdicts,
    )


def _cases(report: Report, request: RegradeRequest, project: Path) -> dict[str, EvalCase]:
    """The eval cases the report's suites name, as defined now, by dataset and case id."""
    if request.paths:
        paths = list(request.paths)
    else:
        files: dict[str, None] = {}
        for suite in report.suites:
            for file in (suite.target.identity.get("evals") or {}).values():
                files.setdefault(str(file), None)
        paths = []
        for file in files:
            path = project / file
            if not path.is_file():
                raise InvalidInputError(
                    f"{display_path(path)}: the eval file the report names is not there; run "
                    "regrade from the project folder or name the eval files after the report."
                )
            paths.append(path)
    with user_output_to_stderr():  # importing eval files may print
        found = collect(paths, search_paths=[project]) if paths else None
    if found is not None and found.refused:
        raise InvalidInputError(found.refused[0])
    by_id: dict[str, EvalCase] = {}
    for case in found.cases if found is not None else ():
        by_id.setdefault(f"{case.dataset}\0{case.case_id}", case)
    return by_id


def _check_report(report: Report, source: str) -> None:
    if not report.complete:
        raise InvalidInputError(f"{source}: the report is incomplete; regrade a complete run.")
    if not report.options.include_details:
        raise InvalidInputError(f"{source}: the report holds no saved outputs (no details).")
    for suite in report.suites:
        if suite.target.kind != TARGET_KIND:
            raise InvalidInputError(
                f"{source}: suite {suite.name!r} is not an eval suite; regrade re-runs the "
                "evaluators of a `goldgate evals run` report."
            )


def _saved(saved: dict[str, Any], case: CaseRecord) -> EvalResult:
    """The result a report saved, as an evaluator reads it (without evaluators' scores)."""
    envelope = case.input or {}
    payload = envelope.get("payload") or {}
    result = EvalResult(
        input=saved.get("input", payload.get("input")),
        output=saved.get("output"),
        reference=saved.get("reference", payload.get("reference")),
        metadata=saved.get("metadata", envelope.get("metadata") or {}),
        trace_data=TraceData(saved.get("trace_data") or {}),
        latency=saved.get("latency"),
    )
    result.scores = [
        dict(s) for s in saved.get("scores") or () if isinstance(s, dict) and "by" not in s
    ]
    return result


async def _regraded(
    eval_case: EvalCase, saved: dict[str, Any], case: CaseRecord, root: Path, timeout: float
) -> dict[str, Any]:
    ran = Ran([_saved(saved, case)])
    with anyio.move_on_after(timeout) as scope:
        await evaluate(eval_case, ran, None, root)
    if scope.cancelled_caught:
        ran.fail(ran.results, f"the evaluators ran past the {timeout:g} s deadline", "timed_out")
    envelope = case.input or {"payload": {}, "metadata": {}}
    return document(ran, eval_case._replace(envelope=envelope))  # the saved case's values


async def _rescore(
    suite: SuiteRecord,
    gold: GoldSuite,
    cases: Mapping[str, EvalCase],
    limiter: anyio.CapacityLimiter,
    timeout: float,
    root: Path,
) -> list[AttemptOutcome]:
    names = suite.target.identity.get("evals") or {}
    outcomes: list[AttemptOutcome | None] = []
    jobs: list[tuple[int, int, CaseRecord, AttemptRecord, EvalCase]] = []
    for index, case in enumerate(suite.cases):
        eval_case = cases.get(f"{suite.name}\0{case.id}")
        name = case.id.split("[", 1)[0].split("~", 1)[0]
        if eval_case is None and name in names:
            raise InvalidInputError(
                f"case {case.id!r} of eval {name!r} of dataset {suite.name!r} ({names[name]}) "
                "is not defined any more; regrade needs its evaluators."
            )
        for attempt in case.attempts:
            position = len(outcomes)
            outcomes.append(None)
            saved = attempt.result
            if (
                attempt.status == "completed"
                and eval_case is not None
                and isinstance(saved, dict)
                and "results" not in saved
            ):
                jobs.append((position, index, case, attempt, eval_case))
                continue
            if attempt.status == "completed":  # kept as it was: scored again as saved
                compiled = gold.compiled[index]
                checks = tuple(score_compiled(e, saved, case.input or {}) for e in compiled)
            else:
                why = not_run_reason(attempt.status, attempt.reason)
                checks = (not_run(why),) * len(gold.compiled[index])
            outcomes[position] = _regraded_outcome(
                gold,
                index,
                attempt,
                status=attempt.status,
                reason=attempt.reason,
                answer=saved,
                checks=checks,
            )

    async def one(job: tuple[int, int, CaseRecord, AttemptRecord, EvalCase]) -> None:
        position, index, case, attempt, eval_case = job
        envelope = case.input or {}
        async with limiter:
            found = await _regraded(eval_case, dict(attempt.result or {}), case, root, timeout)
        compiled = gold.compiled[index]
        problem = unholdable(found)
        if problem is not None:  # the attempt's error; every other attempt is kept
            reason = problem.sentence("the result")
            checks = (not_run(not_run_reason("failed", reason)),) * len(compiled)
            outcomes[position] = _regraded_outcome(
                gold, index, attempt, status="failed", reason=reason, answer=None, checks=checks
            )
            return
        checks = tuple(score_compiled(e, found, envelope) for e in compiled)
        if gold.verdicts and not isinstance(found, EvalFailed):
            checks = adjudicate(checks, compiled, case.id, gold.verdicts)
        outcomes[position] = _regraded_outcome(
            gold, index, attempt, status="completed", reason=None, answer=found, checks=checks
        )

    async with anyio.create_task_group() as group:
        for job in jobs:
            group.start_soon(one, job)
    return [outcome for outcome in outcomes if outcome is not None]


def _regraded_outcome(
    gold: GoldSuite,
    index: int,
    attempt: AttemptRecord,
    *,
    status: str,
    reason: str | None,
    answer: Any,
    checks: tuple[CheckOutcome, ...],
) -> AttemptOutcome:
    """A saved attempt as regrading leaves it: its latency kept, its stderr not."""
    return AttemptOutcome(
        index=index,
        case=gold.cases[index],
        attempt=attempt.attempt,
        status=status,
        reason=reason,
        latency_ms=attempt.latency_ms,
        document=answer,
        stderr=None,
        checks=checks,
    )


def regrade(request: RegradeRequest) -> SessionOutcome:
    """Write the regraded report; ``InvalidInputError`` (exit 2) before anything runs for a
    report that cannot be regraded or evals that are not there."""
    source = display_path(request.report)
    report = read_report(request.report)
    _check_report(report, source)
    project = find_project(request.paths[0] if request.paths else Path.cwd()).absolute()
    verdicts = verdicts_by_suite(load_store(store_path(project)))
    cases = _cases(report, request, project)
    output = request.output or default_report_path(project, "evals-regrade", now())
    ensure_writable(output)
    golds = [_gold(suite, verdicts.get(suite.name, {})) for suite in report.suites]
    limiter_size = request.options.max_concurrency

    async def rescore_all() -> list[list[AttemptOutcome]]:
        limiter = anyio.CapacityLimiter(limiter_size)
        return [
            await _rescore(suite, gold, cases, limiter, request.options.timeout, project)
            for suite, gold in zip(report.suites, golds, strict=True)
        ]

    clock = time.perf_counter()
    with user_output_to_stderr():
        outcomes = anyio.run(rescore_all)
    report_file = ReportFile(output)
    try:
        header = RunHeader(
            report.dataset,
            report.variant,
            report.options,
            ScorerRegistry(),
            now(),
        )
        writer = ReportWriter(report_file.write)
        writer.head(header.as_json())
        records = []
        for suite, gold, attempts in zip(report.suites, golds, outcomes, strict=True):
            writer.begin_suite(suite_head(suite))
            collector = EvalCollector(gold, suite.repeat, True, writer.case)
            for outcome in attempts:
                collector.add(outcome)
            record = collector.record(
                suite.target,
                skip_reason=suite.skip_reason,
                started=suite.status != "not_started",
            )
            writer.end_suite(suite_tail(record))
            records.append(record)
        summary = finish_report(
            writer,
            header,
            records,
            duration=time.perf_counter() - clock,
            interruption=None,
        )
        path, fallback = report_file.publish()
    except BaseException:
        report_file.discard()
        raise
    return SessionOutcome(summary, Path(display_path(path)), fallback)
