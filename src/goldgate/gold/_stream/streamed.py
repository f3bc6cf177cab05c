"""Checking a suite's case file as it streams by, keeping only where each case is.

The fast path of loading: a case file is read in chunks (``gold._stream.casefile``) and each case
is validated, compiled and cross-checked as it comes, exactly as the whole-file path does it
(the same models and rules), then dropped; the suite keeps a ``CaseStore`` of where each case
is and reads it back when the run needs it. Memory stays flat however large the gold.

Nothing here words a problem: a suite with any problem (or a file the stream cannot take)
is handed back (``None``) to the whole-file path, which finds every violation and names the
place of each. Good gold, the common case, is read once, in constant memory.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a
# named tuple's string annotations are each compiled as a forward reference when the class is
# made, at some 60 us a field.
import os
from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, BinaryIO, NamedTuple

from pydantic import ValidationError

from goldgate.base.accelerators import note
from goldgate.base.errors import InvalidInputError
from goldgate.base.files import open_regular_file
from goldgate.base.jsonvalue import canonical_bytes
from goldgate.base.problems import Located, display_path
from goldgate.gold._stream.casefile import Element, ElementReader
from goldgate.gold._stream.parallel import (
    BATCH,
    PARALLEL_BYTES,
    PARALLEL_FROM,
    Helper,
    Span,
    parallel_possible,
    start_helpers,
)
from goldgate.gold._stream.store import OPEN_FILES, CaseStore, LazyCases, LazyCompiled
from goldgate.gold.compiled import CompiledExpectation, compile_expectations
from goldgate.gold.errors import NotStreamable
from goldgate.gold.models import Case, Metric, Suite
from goldgate.gold.rules import (
    PlacedCase,
    case_violations,
    metric_scopes,
    suite_head_violations,
)
from goldgate.gold.settings.models import WorkflowSettings
from goldgate.gold.suites import GoldSuite, SuiteHasher

__all__ = ["reference_problem", "stream_suite"]


def reference_problem(reference: str) -> str | None:
    """Why a suite's ``cases`` string cannot name a case file, or None."""
    if any(ord(character) < 32 for character in reference):
        return "a case file reference must not contain control characters"
    if PurePosixPath(reference).is_absolute() or PureWindowsPath(reference).is_absolute():
        return "a case file reference must be relative to the manifest"
    return None


class _Nowhere:
    """Where a problem would be described if this path described problems: it does not (the
    whole-file path does), but the shared rules position each violation they find."""

    source = ""
    value = None

    def position(self, path: Sequence[str | int]) -> tuple[int, int]:
        return (1, 1)


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _HasProblems(Exception):
    """The suite is not good gold: the whole-file path describes why."""


def stream_suite(
    manifest: Located,
    manifest_path: Path,
    suite: Suite,
    workflows: dict[str, WorkflowSettings],
    scorer_names: Collection[str],
    *,
    keep: bool = True,
    judge_names: Collection[str] | None = None,
) -> GoldSuite | None:
    """The suite, its case file checked as it streams, when it is good gold; ``None`` when it
    has inline cases or any problem (the whole-file path then takes it). ``keep``: keep what
    the check made for the run that follows (``CaseStore``)."""
    if not isinstance(suite.cases, str) or reference_problem(suite.cases) is not None:
        return None
    case_path = manifest_path.parent / suite.cases
    source = display_path(case_path)
    try:
        handle = open_regular_file(case_path, source, what="a JSON file")
    except InvalidInputError:
        return None
    store = CaseStore(handle, source, case_path, keep=keep)
    try:
        facts = _check_cases(store, handle, suite, workflows, scorer_names, judge_names=judge_names)
    except (NotStreamable, _HasProblems, OSError):  # a read error: the whole-file path says it
        OPEN_FILES.release(store.key)
        return None
    hasher, has_text, scorers, judges = facts
    workflow = workflows.get(suite.workflow)
    if next(suite_head_violations(manifest, (), suite, workflow, store.ids, has_text), None):
        OPEN_FILES.release(store.key)
        return None
    store.ids.seal()
    note("streamed check")
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
        judges=frozenset(judges),
    )


def _check_cases(
    store: CaseStore,
    handle: BinaryIO,
    suite: Suite,
    workflows: dict[str, WorkflowSettings],
    scorer_names: Collection[str],
    *,
    judge_names: Collection[str] | None = None,
) -> tuple[SuiteHasher, bool, set[str], set[str]]:
    """Every case checked as it streams by and added to ``store``; ``_HasProblems`` at the
    first problem. Returns the fingerprint, whether any case compares text, the custom
    scorers named and the judges named (the cases' ids are the store's). Past
    ``PARALLEL_FROM`` cases (from the first in a large file), helper processes may check
    batches of cases meanwhile
    (``gold._stream.parallel``): cases still reach the hasher and the store in order."""
    check = _CaseCheck(
        workflows.get(suite.workflow),
        scorer_names,
        metric_scopes(suite.metrics),
        check_only=not store.keeps,
        judge_names=judge_names,
    )
    taken = _Taken(store, SuiteHasher(suite))
    reader = ElementReader(handle)
    helpers: list[Helper] = []
    helper: Helper | None = None  # the one taking the current batch, if any
    waiting: deque[_Checked | _Sent] = deque()
    """Cases checked here behind a batch the helper has not answered yet, in file order."""
    spans: list[Span] = []
    lines: list[int] = []
    for_helper = False
    position = 0
    try:
        if os.fstat(handle.fileno()).st_size >= PARALLEL_BYTES and parallel_possible():
            helpers = start_helpers(handle.fileno(), check.facts, store.keeps)
        while True:
            if position % BATCH == 0:  # a new batch: for the helper, or checked here?
                helper = next((h for h in helpers if h.has_room()), None)
                for_helper = helper is not None
            element = reader.next(strict=not for_helper)
            if element is None:
                pass
            elif for_helper:
                spans.append((element.offset, element.length, element.checksum, position))
                lines.append(element.line)
            else:
                raw = element.value
                compiled = check(raw, position)
                canonical = canonical_bytes(raw, has_floats=element.has_floats)
                checked = _Checked(raw["id"], compiled, element, canonical, raw)
                if waiting:
                    waiting.append(checked)
                else:
                    taken.add_checked(checked)
                if position == PARALLEL_FROM and not helpers and parallel_possible():
                    helpers = start_helpers(handle.fileno(), check.facts, store.keeps)
            if spans and (element is None or len(spans) == BATCH) and helper is not None:
                waiting.append(_Sent(helper, helper.send(spans), spans, lines))
                spans, lines = [], []
            if position % BATCH == 0:  # answers are looked for once a batch
                while waiting and (waiting[0].ready() or len(waiting) > _WAITING):
                    taken.add(waiting.popleft())  # past _WAITING: waits for the answer
            if element is None:
                break
            position += 1
        while waiting:
            taken.add(waiting.popleft())
    finally:
        for started in helpers:
            started.stop()
    return taken.hasher, taken.has_text, taken.scorers, taken.judges


_WAITING = 8 * 128
"""Cases checked here that may wait behind a batch the helper has not answered: past them,
this process waits for the answer (a starved helper must not make memory grow)."""


class _Checked(NamedTuple):
    """A case checked here: its id, compiled expectations, place, canonical bytes and the
    case as parsed (which the store may keep for the run). A named tuple: one per case, built
    several times faster than a frozen dataclass."""

    id: str
    compiled: tuple[CompiledExpectation, ...]
    element: Element
    canonical: bytes
    value: Any

    def ready(self) -> bool:
        return True


class _Sent(NamedTuple):
    """A batch of cases sent to the helper: its number, the cases' places and lines."""

    helper: Helper
    number: int
    spans: list[Span]
    lines: list[int]

    def ready(self) -> bool:
        return self.helper.answered(self.number)


class _Taken:
    """The cases taken so far, in file order: the fingerprint, the store (their ids and
    places), and what the suite's own rules need to know of them."""

    def __init__(self, store: CaseStore, hasher: SuiteHasher) -> None:
        self.store = store
        self.hasher = hasher
        self.has_text = False
        self.scorers: set[str] = set()
        self.judges: set[str] = set()

    def _id(self, case_id: str) -> None:
        """Before the case is added to the store: a repeated id is a problem, which the
        whole-file path says where (the store's ids are indexed while they are checked)."""
        if case_id in self.store.ids:
            raise _HasProblems

    def add_checked(self, case: _Checked) -> None:
        self._id(case.id)
        element = case.element
        self.hasher.add_canonical(case.canonical)
        has_text, scorers, judges = _facts_of(case.compiled)
        self.has_text = self.has_text or has_text
        self.scorers.update(scorers)
        self.judges.update(judges)
        self.store.add(
            case.id,
            case.compiled,
            offset=element.offset,
            length=element.length,
            checksum=element.checksum,
            line=element.line,
            checked=case.value,
        )

    def add(self, item: _Checked | _Sent) -> None:
        if isinstance(item, _Checked):
            self.add_checked(item)
            return
        answer = item.helper.answer(item.number)
        if not answer.good:
            raise _HasProblems
        self.has_text = self.has_text or answer.has_text
        self.scorers.update(answer.scorers)
        self.judges.update(answer.judges)
        self.store.adopt(answer.patterns)
        for case_id, canonical, (offset, length, checksum, _), line in zip(
            answer.ids, answer.canonical, item.spans, item.lines, strict=True
        ):
            self._id(case_id)
            self.hasher.add_canonical(canonical)
            self.store.add(case_id, (), offset=offset, length=length, checksum=checksum, line=line)


def _facts_of(
    compiled: tuple[CompiledExpectation, ...],
) -> tuple[bool, frozenset[str], frozenset[str]]:
    """Whether the expectations compare text, the custom scorers and the judges they name."""
    has_text = False
    scorers: set[str] | None = None
    judges: set[str] | None = None
    for expectation in compiled:
        if expectation.comparison == "text":
            has_text = True
            if expectation.judge is not None:
                judges = judges or set()
                judges.add(expectation.judge)
        elif expectation.comparison == "custom" and expectation.scorer is not None:
            scorers = scorers or set()
            scorers.add(expectation.scorer)
    none = _NO_SCORERS
    return (
        has_text,
        none if scorers is None else frozenset(scorers),
        none if judges is None else frozenset(judges),
    )


_NO_SCORERS: frozenset[str] = frozenset()


@dataclass(eq=False)
class _CaseCheck:
    """One case checked on its own, as the whole-file path checks it: validated, compiled
    and cross-checked against the suite's workflow, scorers and metrics. With ``check_only``
    (a check no run follows), flat patterns are not compiled: they surely compile
    (``compiled.compile_text``)."""

    workflow: WorkflowSettings | None
    scorer_names: Collection[str]
    metrics: list[tuple[Metric, frozenset[str] | None]]
    _: KW_ONLY
    check_only: bool = False
    judge_names: Collection[str] | None = None
    nowhere: _Nowhere = field(default_factory=_Nowhere, init=False)

    def __post_init__(self) -> None:
        # What Case.model_validate calls, without its own Python frame (a tenth of the
        # validation of a small case). The gold models defer building their validators.
        Case.model_rebuild()
        self._validate_case = Case.__pydantic_validator__.validate_python

    def __call__(self, raw: Any, position: int) -> tuple[CompiledExpectation, ...]:
        """The case's expectations compiled; ``_HasProblems`` if it is not good gold."""
        try:
            case: Case = self._validate_case(raw)
        except ValidationError:
            raise _HasProblems from None
        compiled = compile_expectations(case.expectations, check_only=self.check_only)
        placed = PlacedCase(case, self.nowhere, (position,), compiled)
        if next(
            case_violations(
                placed, self.workflow, self.scorer_names, self.metrics, judge_names=self.judge_names
            ),
            None,
        ):
            raise _HasProblems
        return compiled

    def facts(self, raw: Any, position: int) -> tuple[bool, frozenset[str], frozenset[str]]:
        """The helper's check (``gold._stream.parallel``): the facts of a good case."""
        return _facts_of(self(raw, position))
