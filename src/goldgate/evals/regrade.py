"""``goldgate evals regrade REPORT``: the evaluators run again on the outputs a report saved,
and a new report is written. No eval function is called.

What the eval itself scored (its assertions and ``ctx.store``) is kept as saved; what
evaluators scored (``by``) is dropped and scored again by the evaluators as they are defined
now, in the eval files the report names (relative to the project; or the ``PATH``s given).
Each case's ``expect`` and the project's recorded verdicts apply again. Identity, inputs,
gold, options and timings are the saved report's: an attempt that did not complete stays as
it was, with its status and reason, and latency is copied, never measured. The new report is
a file of its own, never overwriting one.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

from goldgate.base.errors import InvalidInputError
from goldgate.base.pointers import PointerSyntaxError, parse_pointer
from goldgate.base.problems import display_path
from goldgate.base.stdio import user_output_to_stderr
from goldgate.evals._decorator import EvalFunction
from goldgate.evals.casemodel import case_model
from goldgate.evals.collector import EvalCollector
from goldgate.evals.discovery import load_evals
from goldgate.evals.plan import TARGET_KIND
from goldgate.evals.runtime import evaluate_output
from goldgate.gold.compiled import CompiledExpectation, compile_text
from goldgate.gold.suites import GoldSuite
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
from goldgate.run.session import SessionOutcome
from goldgate.run.streaming import RunHeader, finish_report, now
from goldgate.scoring import ScorerRegistry, not_run, score_compiled
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
    max_concurrency: int = 1
    timeout: float = 300.0


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
    """The checks an eval declares before it runs: ``pass`` and ``expect``."""
    return tuple(
        _compiled(e)
        for e in case.expectations
        if (e.comparison == SCORE_COMPARISON and e.name == "pass") or e.comparison == "text"
    )


def _gold(record: SuiteRecord, verdicts: Mapping[tuple[str, str, str], bool]) -> GoldSuite:
    cases = []
    compiled = []
    for case in record.cases:
        fixed = _fixed(case)
        envelope = case.input or {"payload": {}, "metadata": {}}
        cases.append(case_model(case.id, envelope, fixed, case.family, case.split))
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


def _functions(report: Report, request: RegradeRequest, project: Path) -> dict[str, EvalFunction]:
    """The eval functions the report's suites name, as defined now."""
    if request.paths:
        loaded = load_evals(request.paths, search_paths=[project])
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
        loaded = load_evals(paths, search_paths=[project])
    by_name: dict[str, EvalFunction] = {}
    for function in loaded:
        by_name.setdefault(f"{function.dataset}\0{function.name}", function)
    return by_name


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


async def _rescore(
    suite: SuiteRecord,
    gold: GoldSuite,
    functions: Mapping[str, EvalFunction],
    limiter: anyio.CapacityLimiter,
    timeout: float,
) -> list[AttemptOutcome]:
    names = suite.target.identity.get("evals") or {}
    outcomes: list[AttemptOutcome | None] = []
    jobs: list[tuple[int, int, CaseRecord, AttemptRecord, EvalFunction]] = []
    for index, case in enumerate(suite.cases):
        name = case.id.split("[", 1)[0]
        function = functions.get(f"{suite.name}\0{name}")
        if function is None and name in names:
            raise InvalidInputError(
                f"eval {name!r} of dataset {suite.name!r} ({names[name]}) is not defined any "
                "more; regrade needs its evaluators."
            )
        for attempt in case.attempts:
            position = len(outcomes)
            outcomes.append(None)
            if attempt.status == "completed" and function is not None:
                jobs.append((position, index, case, attempt, function))
            else:
                why = not_run_reason(attempt.status, attempt.reason)
                checks = (not_run(why),) * len(gold.compiled[index])
                outcomes[position] = AttemptOutcome(
                    index, gold.cases[index], attempt.attempt, attempt.status, attempt.reason,
                    attempt.latency_ms, None, None, checks,
                )  # fmt: skip

    async def one(job: tuple[int, int, CaseRecord, AttemptRecord, EvalFunction]) -> None:
        position, index, case, attempt, function = job
        saved = attempt.result or {}
        envelope = case.input or {}
        payload = envelope.get("payload") or {}
        body = [dict(s) for s in saved.get("scores") or () if isinstance(s, dict) and "by" not in s]
        async with limiter:
            with anyio.move_on_after(timeout) as scope:
                document = await evaluate_output(
                    function,
                    saved.get("output"),
                    body,
                    payload.get("input"),
                    payload.get("reference"),
                    envelope.get("metadata") or {},
                )
        if scope.cancelled_caught:
            body.append(
                {
                    "key": "evaluators",
                    "error": f"the evaluators ran past the {timeout:g} s deadline",
                }
            )
            document = {"output": saved.get("output"), "scores": body}
        compiled = gold.compiled[index]
        checks = tuple(score_compiled(e, document, envelope) for e in compiled)
        if gold.verdicts:
            checks = adjudicate(checks, compiled, case.id, gold.verdicts)
        outcomes[position] = AttemptOutcome(
            index, gold.cases[index], attempt.attempt, "completed", None, attempt.latency_ms,
            document, None, checks,
        )  # fmt: skip

    async with anyio.create_task_group() as group:
        for job in jobs:
            group.start_soon(one, job)
    return [outcome for outcome in outcomes if outcome is not None]


def regrade(request: RegradeRequest) -> SessionOutcome:
    """Write the regraded report; ``InvalidInputError`` (exit 2) before anything runs for a
    report that cannot be regraded or evals that are not there."""
    source = display_path(request.report)
    report = read_report(request.report)
    _check_report(report, source)
    project = find_project(request.paths[0] if request.paths else Path.cwd())
    verdicts = verdicts_by_suite(load_store(store_path(project)))
    functions = _functions(report, request, project)
    output = request.output or default_report_path(project, "evals-regrade", now())
    ensure_writable(output)
    golds = [_gold(suite, verdicts.get(suite.name, {})) for suite in report.suites]
    limiter_size = request.max_concurrency

    async def rescore_all() -> list[list[AttemptOutcome]]:
        limiter = anyio.CapacityLimiter(limiter_size)
        return [
            await _rescore(suite, gold, functions, limiter, request.timeout)
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
