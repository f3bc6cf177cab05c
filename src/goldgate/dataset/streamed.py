"""Checking a suite's case file as it streams by, keeping only where each case is.

The fast path of loading: a case file is read in chunks (``dataset.casefile``) and each case
is validated, compiled and cross-checked as it comes, exactly as the whole-file path does it
(the same models and rules), then dropped; the suite keeps a ``CaseStore`` of where each case
is and reads it back when the run needs it. Memory stays flat however large the gold.

Nothing here words a problem: a suite with any problem (or a file the stream cannot take)
is handed back (``None``) to the whole-file path, which finds every violation and names the
place of each. Good gold, the common case, is read once, in constant memory.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from pydantic import ValidationError

from goldgate.dataset.casefile import NotStreamable, elements
from goldgate.dataset.compiled import compile_expectations
from goldgate.dataset.gold import GoldSuite, SuiteHasher
from goldgate.dataset.models import Case, Suite
from goldgate.dataset.rules import (
    PlacedCase,
    case_violations,
    metric_scopes,
    suite_head_violations,
)
from goldgate.dataset.store import OPEN_FILES, CaseStore, LazyCases, LazyCompiled
from goldgate.errors import InvalidInputError
from goldgate.files import open_regular_file
from goldgate.problems import Located, display_path
from goldgate.settings.models import WorkflowSettings

__all__ = ["reference_problem", "stream_suite"]


def reference_problem(reference: str) -> str | None:
    """Why a suite's ``cases`` string cannot name a case file, or None."""
    if any(ord(character) < 32 for character in reference):
        return "a case file reference must not contain control characters"
    if PurePosixPath(reference).is_absolute() or PureWindowsPath(reference).is_absolute():
        return "a case file reference must be relative to the manifest"
    return None


@dataclass(frozen=True)
class _Nowhere:
    """Where a problem would be described if this path described problems: it does not (the
    whole-file path does), but the shared rules position each violation they find."""

    source: str = ""
    value: None = None

    def position(self, path: Sequence[str | int]) -> tuple[int, int]:
        return (1, 1)


class _HasProblems(Exception):
    """The suite is not good gold: the whole-file path describes why."""


def stream_suite(
    manifest: Located,
    manifest_path: Path,
    suite: Suite,
    workflows: dict[str, WorkflowSettings],
    scorer_names: Collection[str],
) -> GoldSuite | None:
    """The suite, its case file checked as it streams, when it is good gold; ``None`` when it
    has inline cases or any problem (the whole-file path then takes it)."""
    if not isinstance(suite.cases, str) or reference_problem(suite.cases) is not None:
        return None
    case_path = manifest_path.parent / suite.cases
    source = display_path(case_path)
    try:
        handle = open_regular_file(case_path, source, what="a JSON file")
    except InvalidInputError:
        return None
    store = CaseStore(handle, source, case_path)
    try:
        facts = _check_cases(store, handle, suite, workflows, scorer_names)
    except (NotStreamable, _HasProblems, OSError):  # a read error: the whole-file path says it
        OPEN_FILES.release(store.key)
        return None
    hasher, has_text, scorers = facts
    workflow = workflows.get(suite.workflow)
    ids = set(store.ids)
    if next(suite_head_violations(manifest, (), suite, workflow, ids, has_text), None):
        OPEN_FILES.release(store.key)
        return None
    return GoldSuite(
        name=suite.name,
        workflow=suite.workflow,
        flow=suite.flow,
        step=suite.step,
        cases=LazyCases(store),
        metrics=tuple(suite.metrics),
        thresholds=dict(suite.thresholds),
        text=suite.text,
        cases_source=source,
        fingerprint=hasher.digest(),
        compiled=LazyCompiled(store),
        lines=store.lines,
        custom_scorers=frozenset(scorers),
    )


def _check_cases(
    store: CaseStore,
    handle: BinaryIO,
    suite: Suite,
    workflows: dict[str, WorkflowSettings],
    scorer_names: Collection[str],
) -> tuple[SuiteHasher, bool, set[str]]:
    """Every case checked as it streams by and added to ``store``; ``_HasProblems`` at the
    first problem. Returns the fingerprint so far, whether any case compares text, and the
    custom scorers named."""
    workflow = workflows.get(suite.workflow)
    metrics = metric_scopes(suite.metrics)
    hasher = SuiteHasher(suite)
    nowhere = _Nowhere()
    seen: set[str] = set()
    has_text = False
    scorers: set[str] = set()
    for position, element in enumerate(elements(handle)):
        raw = element.value
        if not isinstance(raw, dict):
            raise _HasProblems
        try:
            case = Case.model_validate(raw)
        except ValidationError:
            raise _HasProblems from None
        if case.id in seen:
            raise _HasProblems
        seen.add(case.id)
        compiled = compile_expectations(case.expectations)
        placed = PlacedCase(case, nowhere, (position,), compiled)
        if next(case_violations(placed, workflow, scorer_names, metrics), None) is not None:
            raise _HasProblems
        for expectation in compiled:
            if expectation.comparison == "text":
                has_text = True
            elif expectation.comparison == "custom" and expectation.scorer is not None:
                scorers.add(expectation.scorer)
        hasher.add(raw, has_floats=element.has_floats)
        store.add(case.id, compiled, element.offset, element.length, element.checksum, element.line)
    return hasher, has_text, scorers
