"""Running evals: in memory (``run_evals``, the Python API) and from the command line
(``prepare`` then ``execute``: the report streamed into its file, Ctrl-C and SIGTERM keeping
what finished, the watchdog breaking into an eval that blocks the event loop), exactly as
``goldgate evaluate`` runs gold.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.base.errors import InvalidInputError
from goldgate.base.memory import collections_paused, freeze_survivors
from goldgate.base.problems import display_path
from goldgate.evals._decorator import EvalFunction
from goldgate.evals.cases import EvalCase
from goldgate.evals.collect import Collected, cases_of, collect
from goldgate.evals.discovery import split_selectors
from goldgate.evals.plan import EvalPlan, plan_evals
from goldgate.report.io import default_report_path, ensure_writable, parse_report
from goldgate.report.records import VariantRecord
from goldgate.report.stream import ReportWriter
from goldgate.report.verdictstore import find_project, load_store, store_path, verdicts_by_suite
from goldgate.run.limits import DEFAULT_OPTIONS, RunOptions
from goldgate.run.session import SessionOutcome, execute_streamed
from goldgate.run.streaming import ReportRun, RunHeader, SuiteProgress, now, options_record
from goldgate.scoring import ScorerRegistry

if TYPE_CHECKING:
    from goldgate.report.models import Report

__all__ = ["EvalsRequest", "EvalsSession", "prepare", "run_evals"]

VARIANT = "evals"


@dataclass(frozen=True)
class EvalsRequest:
    """What ``goldgate evals run`` was asked to do."""

    paths: tuple[Path, ...]
    datasets: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    live: bool = False
    options: RunOptions = DEFAULT_OPTIONS
    output: Path | None = None
    json_output: bool = False


def _project(paths: Sequence[Path]) -> Path:
    return find_project(split_selectors(paths[0])[0]) if paths else Path.cwd()


def _found(collected: Collected, paths: Sequence[str]) -> None:
    """Refuse a run without a single eval function (exit 2)."""
    if not collected.functions and not collected.refused:
        shown = ", ".join(paths) or "the paths given"
        raise InvalidInputError(
            f"no eval functions found in {shown} (files holding functions marked @eval; in "
            "folders, every .py file whose name does not start with '_')."
        )


def _plan(
    cases: Sequence[EvalCase],
    project: Path,
    *,
    datasets: Sequence[str],
    live: bool,
    paths: Sequence[str],
    labels: Sequence[str] = (),
) -> EvalPlan:
    store = load_store(store_path(project))
    return plan_evals(
        cases,
        project=project,
        datasets=datasets,
        labels=labels,
        live=live,
        verdicts=verdicts_by_suite(store),
        paths=paths,
    )


def _header(plan: EvalPlan, options: RunOptions, datasets: Sequence[str], live: bool) -> RunHeader:
    return RunHeader(
        dataset=plan.dataset(),
        variant=VariantRecord(name=VARIANT, revision=plan.revision, configuration_revision=None),
        options=options_record(options, datasets, live=live),
        registry=ScorerRegistry(),
        started=now(),
    )


async def run_evals(
    evals: Sequence[EvalFunction | Path | str],
    *,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    live: bool = False,
    options: RunOptions = DEFAULT_OPTIONS,
    project: Path | None = None,
) -> Report:
    """Run eval functions (or the eval files and folders named) in this process and return
    the report, writing nothing. The project (default: found from the first eval's file)
    provides the verdict store. (EZVals' ``run_evals`` returns its results instead: calling
    an eval, ``fn()``, does that here.)"""
    if project is None:
        first = next(
            (
                item.file if isinstance(item, EvalFunction) else split_selectors(Path(item))[0]
                for item in evals
                if not isinstance(item, EvalFunction) or item.file is not None
            ),
            None,
        )
        project = find_project(first) if first is not None else Path.cwd()
    cases: list[EvalCase] = []
    functions = 0
    refused: list[str] = []
    for item in evals:
        if isinstance(item, EvalFunction):
            cases.extend(cases_of([item]))
            functions += 1
        else:
            found = collect([Path(item)], search_paths=[project])
            cases.extend(found.cases)
            functions += found.functions
            refused.extend(found.refused)
    shown = [str(item) for item in evals if not isinstance(item, EvalFunction)]
    _found(Collected((), tuple(refused), functions), shown)
    plan = _plan(cases, project, datasets=datasets, live=live, paths=shown, labels=labels)
    chunks: list[bytes] = []
    run = ReportRun(
        _header(plan, options, datasets, live), plan.jobs(), options, ReportWriter(chunks.append)
    )
    clock = time.perf_counter()
    await run.run(ScorerRegistry())
    run.finish(duration=time.perf_counter() - clock, interruption=None)
    return parse_report(b"".join(chunks), "<memory>")


@dataclass(frozen=True)
class EvalsSession:
    """A prepared ``goldgate evals run``."""

    request: EvalsRequest
    plan: EvalPlan
    options: RunOptions
    output: Path
    refused: tuple[str, ...] = ()
    """One sentence for each eval file that could not be used (the others run)."""

    def execute(
        self,
        emergency_exit: Callable[[SessionOutcome], None],
        progress: SuiteProgress | None = None,
    ) -> SessionOutcome:
        """Run every suite, streaming the report into its file; link it into place."""
        header = _header(self.plan, self.options, self.request.datasets, self.request.live)
        return execute_streamed(
            header,
            self.plan.jobs(),
            self.options,
            self.output,
            ScorerRegistry(),
            emergency_exit,
            progress=progress,
        )


def prepare(request: EvalsRequest) -> EvalsSession:
    """Discover, import and check every eval, and the report's place: ``InvalidInputError``
    (exit 2) before anything runs."""
    options = request.options
    project = _project(request.paths).absolute()  # before user code moves the working folder
    shown = [display_path(path) for path in request.paths]
    with collections_paused():  # thousands of cases, no cycles among them: collecting is waste
        collected = collect(request.paths, search_paths=[project])
        _found(collected, shown)
        plan = _plan(
            collected.cases,
            project,
            datasets=request.datasets,
            live=request.live,
            paths=shown,
            labels=request.labels,
        )
        # The plan lives as long as the run, which freezes it (execute_streamed) anyway.
        # Frozen before collections resume, the objects counted while they were paused do
        # not start a full collection of the whole heap (~50 ms for 10,000 cases).
        freeze_survivors()
    output = request.output or default_report_path(project, "evals", now())
    ensure_writable(output)
    return EvalsSession(request, plan, options, output, collected.refused)
