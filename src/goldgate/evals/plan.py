"""Eval functions mapped onto the engine: a suite per dataset, a case per function and case,
the function (and its evaluators) as the suite's target.

Each suite is a ``GoldSuite`` like any other, so the runner, the report, compare, the
renderers and the exit codes need nothing of their own: its cases' expectations are the
check of the case's default score key (``score`` comparison at ``/scores``; ``pass`` unless
``default_score_key`` names another) and, for a case with seed 004's ``expect``, a ``text``
comparison at ``/output``; further score keys are added per case as they appear
(``collector.EvalCollector``). A case's dataset is its own (layered: file defaults, the
decorator, the case), so one eval's cases may report in several suites. Whatever cannot work
is refused here, before anything runs (exit 2): two evals with one case id in a dataset, a
dataset mixing live and other evals, thresholds that disagree, an unknown ``--dataset``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, overload

import orjson

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import canonical_json
from goldgate.base.problems import display_path
from goldgate.base.textsafe import has_control, quote, starts_command
from goldgate.evals._options import Definition
from goldgate.evals.cases import EvalCase
from goldgate.evals.collector import PASS_ONLY, EvalCollector, score_expectation
from goldgate.evals.runtime import SuiteRuntime
from goldgate.gold.compiled import CompiledExpectation, compile_text
from goldgate.gold.recorded import (
    RecordedCase,
    RecordedCases,
    RecordedExpectation,
    new_recorded_case,
)
from goldgate.gold.suites import GoldSuite, RecordedVerdict, dataset_fingerprint
from goldgate.report.records import DatasetRecord, TargetRecord
from goldgate.run.streaming import SuiteJob

if TYPE_CHECKING:  # annotations only: an eval run builds no gold model (no pydantic)
    from goldgate.gold.models import Case

__all__ = [
    "EVALS_DATASET",
    "EXPECT_CHECK",
    "EvalPlan",
    "EvalSuite",
    "plan_evals",
]

EVALS_DATASET: Final = "evals"
EVALS_WORKFLOW: Final = "evals"
EXPECT_CHECK: Final = "expect"
TARGET_KIND: Final = "eval"
LIVE_REASON: Final = "live evals run only with --live"


@dataclass(frozen=True)
class EvalSuite:
    """One dataset's suite, how to run it and whether it may run."""

    gold: GoldSuite
    runtime: SuiteRuntime
    target: TargetRecord
    skip_reason: str | None
    functions: tuple[Definition, ...] = ()

    def job(self) -> SuiteJob:
        run = None if self.skip_reason is not None else self.runtime
        return SuiteJob(self.gold, self.target, run, self.skip_reason, EvalCollector)


@dataclass(frozen=True)
class EvalPlan:
    """Everything an eval run needs, checked."""

    project: Path
    suites: tuple[EvalSuite, ...]
    revision: str
    """sha256 over the eval files' bytes: the code that ran."""
    paths: tuple[str, ...]

    def dataset(self) -> DatasetRecord:
        fingerprint = dataset_fingerprint(
            EVALS_DATASET, [suite.gold.fingerprint for suite in self.suites]
        )
        return DatasetRecord(
            name=EVALS_DATASET,
            revision=fingerprint[: len("sha256:") + 12],
            fingerprint=fingerprint,
            path=", ".join(self.paths) or None,
        )

    def jobs(self) -> list[SuiteJob]:
        return [suite.job() for suite in self.suites]

    def timeouts_beyond(self, deadline: float) -> list[tuple[str, float]]:
        """(name, timeout) of each eval whose own timeout is longer than the run's
        ``deadline``, which ends its attempts first (the smaller one wins)."""
        found: dict[str, float] = {}
        for suite in self.suites:
            if suite.skip_reason is not None:
                continue
            for case in suite.runtime.cases.values():
                timeout = case.timeout
                if timeout is not None and timeout > deadline:
                    found[case.function.name] = max(timeout, found.get(case.function.name, 0))
        return sorted(found.items())


def relative_to(path: Path | None, root: Path) -> str:
    """``path`` as a report names it: relative to the project, else as messages show it."""
    if path is None:
        return "<eval>"
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return display_path(path)


_BY_KEY: dict[str, tuple[CompiledExpectation, ...]] = {"pass": PASS_ONLY}
"""The checks of a case without ``expect``, by its default key: shared by every such case."""


def _fixed(case: EvalCase) -> tuple[CompiledExpectation, ...]:
    key = case.default_key or "pass"
    checks = _BY_KEY.get(key)
    if checks is None:
        checks = _BY_KEY[key] = (score_expectation(key),)
    if not case.has_expect:
        return checks
    expect = CompiledExpectation(
        EXPECT_CHECK, "/output", "text", None, case.expect, ("output",), compile_text(case.expect)
    )
    return (*checks, expect)


class EvalCases(RecordedCases):
    """An eval suite's cases: each as the engine's ``Case`` (``case_model``) when indexed,
    which only code that asks for models does (a replay, the Python API); a run reads each
    as a ``RecordedCase`` (``recorded``), built several times faster, and no model of any
    case is kept."""

    def __init__(
        self, cases: Sequence[EvalCase], compiled: Sequence[tuple[CompiledExpectation, ...]]
    ) -> None:
        self._cases = cases
        self._compiled = compiled

    def __len__(self) -> int:
        return len(self._cases)

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Case]: ...

    def __getitem__(self, index: int | slice) -> Case | Sequence[Case]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        from goldgate.evals.casemodel import case_model  # the gold models: only when asked for

        case = self._cases[index]
        return case_model(case.case_id, case.envelope, self._compiled[index])

    def recorded(self, index: int) -> RecordedCase:
        case, compiled = self._cases[index], self._compiled[index]
        envelope = case.envelope
        expectations = _PASS_ONLY_RECORDED if compiled is PASS_ONLY else _recorded(compiled)
        return new_recorded_case(
            case.case_id,
            family=None,
            split=None,
            payload=envelope["payload"],
            metadata=envelope["metadata"],
            expectations=expectations,
        )

    @property
    def ids(self) -> list[str]:
        return [case.case_id for case in self._cases]


def _recorded(compiled: Sequence[CompiledExpectation]) -> tuple[RecordedExpectation, ...]:
    """The expectations ``case_model`` gives its case, as a report records them."""
    return tuple(
        [RecordedExpectation(e.name, e.path, e.comparison, None, e.expected) for e in compiled]
    )


_PASS_ONLY_RECORDED: Final = _recorded(PASS_ONLY)


def _functions(cases: Sequence[EvalCase]) -> list[Definition]:
    """The evals of ``cases``, each once, in order of their first case."""
    found: dict[int, Definition] = {}
    for case in cases:
        found.setdefault(id(case.function), case.function)
    return list(found.values())


def _thresholds(cases: Sequence[EvalCase], dataset: str, root: Path) -> dict[str, float]:
    merged: dict[str, tuple[float, Definition]] = {}
    seen: dict[int, Definition] = {}
    for case in cases:
        if not case.thresholds or id(case.thresholds) in seen:
            continue
        function = seen[id(case.thresholds)] = case.function  # one object per eval
        for key, minimum in case.thresholds.items():
            before = merged.get(key)
            if before is not None and before[0] != minimum:
                raise InvalidInputError(
                    f"dataset {dataset!r}: threshold {key!r} is {before[0]:g} in eval "
                    f"{before[1].name!r} ({relative_to(before[1].file, root)}) and "
                    f"{minimum:g} in eval {function.name!r} ({relative_to(function.file, root)})."
                )
            merged[key] = (float(minimum), function)
    return {key: minimum for key, (minimum, _) in merged.items()}


def _qualified(cases: Sequence[EvalCase], root: Path) -> Sequence[EvalCase]:
    """``cases``, each id that evals of several files share qualified by its file, as EZVals
    names every result (``evals/support.py::test_refund``): two files may each hold a
    ``test_refund`` of one dataset."""
    files: dict[str, set[Path | None]] = {}
    for case in cases:
        files.setdefault(case.case_id, set()).add(case.function.file)
    shared = {case_id for case_id, where in files.items() if len(where) > 1}
    if not shared:
        return cases
    qualified = []
    for case in cases:
        if case.case_id not in shared:
            qualified.append(case)
            continue
        case_id = f"{relative_to(case.function.file, root)}::{case.case_id}"
        payload = {**case.envelope["payload"], "case": case_id}
        qualified.append(
            case._replace(case_id=case_id, envelope={**case.envelope, "payload": payload})
        )
    return qualified


def _suite(
    dataset: str,
    cases: Sequence[EvalCase],
    root: Path,
    live: bool,
    verdicts: Mapping[tuple[str, str, str], RecordedVerdict],
) -> EvalSuite:
    functions = _functions(cases)
    live_cases = [case for case in cases if case.live]
    if live_cases and len(live_cases) != len(cases):
        other = next(case for case in cases if not case.live)
        live_one = live_cases[0].function
        raise InvalidInputError(
            f"dataset {dataset!r} mixes live eval {live_one.name!r} "
            f"({relative_to(live_one.file, root)}) with eval {other.function.name!r} "
            f"({relative_to(other.function.file, root)}); give the live evals a dataset of "
            "their own."
        )
    cases = _qualified(cases, root)
    origins: dict[str, str] = {}
    for case in cases:
        if case.case_id in origins:
            raise InvalidInputError(
                f"{case.origin}: dataset {dataset!r} has case {case.case_id!r} twice "
                f"(also at {origins[case.case_id]}); rename one eval or give it a dataset."
            )
        origins[case.case_id] = case.origin
    compiled = tuple(_fixed(case) for case in cases)
    thresholds = _thresholds(cases, dataset, root)
    if "expect.satisfied" in thresholds and cases and not any(c.has_expect for c in cases):
        raise InvalidInputError(
            f"dataset {dataset!r}: threshold 'expect.satisfied' is measured on the cases' "
            "expect, and no case of this dataset has one, so it could never hold."
        )
    # Named as gold names its case files: from the working folder, as CI annotations need.
    files = sorted({display_path(f.file) if f.file else "<eval>" for f in functions})
    gold = GoldSuite(
        name=dataset,
        workflow=EVALS_WORKFLOW,
        flow=None,
        step=None,
        cases=EvalCases(cases, compiled),
        metrics=(),
        thresholds=thresholds,
        text=None,
        cases_source=", ".join(files),
        fingerprint=suite_fingerprint(dataset, thresholds, cases, compiled),
        compiled=compiled,
        verdicts=verdicts,
        # Each case at its eval's definition, for links and annotations: only where the
        # suite's cases all come from one file (cases_source names it).
        lines=tuple(case.function.line for case in cases) if len(files) == 1 else (),
    )
    target = TargetRecord(
        kind=TARGET_KIND,
        workflow_revision=None,
        live=bool(live_cases),
        identity={
            "kind": TARGET_KIND,
            "evals": {f.name: relative_to(f.file, root) for f in functions},
        },
    )
    skip = LIVE_REASON if live_cases and not live else None
    runtime = SuiteRuntime({case.case_id: case for case in cases}, root)
    return EvalSuite(gold, runtime, target, skip, tuple(functions))


def _canonical(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # integers beyond 64 bits
        return canonical_json(value).encode("utf-8")


def suite_fingerprint(
    dataset: str,
    thresholds: Mapping[str, float],
    cases: Sequence[EvalCase],
    compiled: Sequence[Sequence[CompiledExpectation]],
) -> str:
    """sha256 over the suite's canonical content, case by case in order: each case's id,
    input (with reference and metadata), declared checks and the names of its eval's
    evaluators. Code is not part of it (the report's variant revision says which code ran)."""
    digest = hashlib.sha256(
        _canonical({"name": dataset, "workflow": EVALS_WORKFLOW, "thresholds": thresholds})
    )
    evaluators: dict[int, list[str]] = {}  # by the id of a case's evaluators
    pass_only = [[e.name, e.path, e.comparison, e.expected] for e in PASS_ONLY]
    # One buffer, one update; each line copied in at once (orjson's bytes are larger than
    # their content: 10,000 of them held in a list would take tens of MB).
    buffer = bytearray()
    for case, checks in zip(cases, compiled, strict=True):
        names = evaluators.get(id(case.evaluators))
        if names is None:
            names = [getattr(e, "__qualname__", repr(e)) for e in case.evaluators]
            evaluators[id(case.evaluators)] = names
        item = {
            "id": case.case_id,
            "input": case.envelope,
            "checks": pass_only
            if checks is PASS_ONLY
            else [[e.name, e.path, e.comparison, e.expected] for e in checks],
            "evaluators": names,
        }
        buffer += _canonical(item)
        buffer += b"\n"
    digest.update(buffer)
    return "sha256:" + digest.hexdigest()


def _revision(functions: Sequence[Definition], root: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted({f.file for f in functions if f.file is not None}):
        digest.update(relative_to(file, root).encode("utf-8", "surrogatepass") + b"\0")
        try:
            digest.update(file.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()[:12]


def _printable(function: Definition, what: str, name: str, root: Path) -> None:
    # A file's stem or a callable's __name__ is printed like any gold name.
    if has_control(name) or starts_command(name):
        raise InvalidInputError(
            f"{relative_to(function.file, root)}: the {what} {quote(name)} must not "
            "hold control characters nor start with '::'."
        )


def plan_evals(
    cases: Sequence[EvalCase],
    *,
    project: Path,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    live: bool = False,
    verdicts: Mapping[str, Mapping[tuple[str, str, str], RecordedVerdict]] | None = None,
    paths: Sequence[str] = (),
) -> EvalPlan:
    """The suites to run for ``cases``: a suite per dataset, in order of first appearance;
    those of ``datasets`` only (all when empty), and only cases with one of ``labels`` (all
    when empty; EZVals' ``--label``)."""
    root = project.resolve()
    grouped: dict[str, list[EvalCase]] = {}
    for case in cases:
        found = grouped.get(case.dataset)
        if found is None:
            found = grouped[case.dataset] = []
        found.append(case)
    named: dict[int, Definition] = {}
    for dataset, found in grouped.items():
        for case in found:
            named.setdefault(id(case.function), case.function)
        _printable(found[0].function, "dataset", dataset, root)
    for function in named.values():
        _printable(function, "eval name", function.name, root)
    unknown = [name for name in datasets if name not in grouped]
    if unknown:
        raise InvalidInputError(
            f"--dataset {unknown[0]!r} names no dataset of these evals; their datasets are "
            f"{', '.join(grouped) or 'none'}."
        )
    chosen = [name for name in grouped if not datasets or name in datasets]
    if labels:
        wanted = set(labels)
        grouped = {
            name: [case for case in grouped[name] if wanted.intersection(case.labels)]
            for name in chosen
        }
        chosen = [name for name in chosen if grouped[name]]
    suites = tuple(
        _suite(name, grouped[name], root, live, (verdicts or {}).get(name, {})) for name in chosen
    )
    return EvalPlan(root, suites, _revision(_functions(cases), root), tuple(paths))
