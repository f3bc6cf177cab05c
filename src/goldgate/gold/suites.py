"""Loaded gold: frozen suites with their cases, and content fingerprints."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldgate.base.jsonvalue import canonical_bytes, canonical_json
from goldgate.gold._stream.store import LazyCases, LazyCompiled
from goldgate.gold.compiled import CompiledExpectation, compile_expectations
from goldgate.gold.recorded import RecordedCase, RecordedCases

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from pydantic import TypeAdapter

    from goldgate.gold.models import Case, Metric, Suite, TextOptions


@dataclass(frozen=True)
class DatasetIdentity:
    name: str
    revision: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class RecordedVerdict:
    """A person's recorded verdict on one answer, and the gold it was judged against."""

    passed: bool
    gold: str | None
    """The digest of the expectation's gold the reviewer read (its prose, note and
    assertions: ``scoring.adjudication.gold_digest``). The verdict decides a check only while
    the gold is still this; None (a verdict recorded before verdicts were bound to gold)
    never decides one: the answer goes back to the queue."""


@dataclass(frozen=True)
class GoldSuite:
    name: str
    workflow: str
    flow: str | None
    step: str | None
    cases: Sequence[Case]
    """The cases in order: a tuple, or for a streamed case file a ``LazyCases`` that reads
    each case back when asked for (``gold._stream.store``), or for eval cases an ``EvalCases``
    that builds a case's model only when asked for (``evals.plan``)."""
    metrics: tuple[Metric, ...]
    thresholds: dict[str, float]
    text: TextOptions | None
    cases_source: str
    fingerprint: str
    compiled: Sequence[tuple[CompiledExpectation, ...]] = ()
    """Each case's expectations compiled, in case order (built once, when gold is loaded)."""
    verdicts: Mapping[tuple[str, str, str], RecordedVerdict] = field(default_factory=dict)
    """People's recorded verdicts for this suite's answers waiting for one: (case id, check
    name, answer digest) -> the verdict and the gold it was judged against
    (``goldgate.adjudication``). Not part of the fingerprint: a verdict decides an answer, it
    does not change what the gold asks."""
    positions: Sequence[int] | None = None
    """For a shard: each case's position in the whole suite (``None``: the whole suite)."""
    whole_case_count: int | None = None
    """For a shard: how many cases the whole suite has."""
    lines: Sequence[int] = ()
    """Each case's 1-based line in ``cases_source``, in case order; empty for suites made in
    Python."""
    dataset: DatasetIdentity | None = None
    """The dataset the suite was loaded from (None for a suite made in Python), so that a
    report of this suite alone still names the dataset's own name and revision."""
    custom_scorers: frozenset[str] | None = None
    """The custom scorers the expectations name, when loading found them (else read from
    the cases)."""
    judges: frozenset[str] | None = None
    """The judges the expectations name, when loading found them (else read from the
    compiled expectations)."""

    def shard(self, index: int, count: int) -> GoldSuite:
        """The cases of shard ``index`` of ``count`` (1-based): those whose id hashes there,
        the same on every machine and for every order of shards. Identity (name,
        fingerprint) stays the whole suite's, so shard reports can be merged back."""
        whole = self.cases
        ids = whole.ids if isinstance(whole, RecordedCases) else [c.id for c in whole]
        # Arrays (8 bytes a case, where a tuple of ints holds about 40): a shard's run keeps
        # them to its end, in its report process too.
        chosen = array(
            "q",
            [
                position
                for position, case_id in enumerate(ids)
                if shard_of(self.name, case_id, count) == index
            ],
        )
        cases: Sequence[Case]
        compiled: Sequence[tuple[CompiledExpectation, ...]]
        if isinstance(self.cases, LazyCases) and isinstance(self.compiled, LazyCompiled):
            cases, compiled = self.cases.select(chosen), self.compiled.select(chosen)
        else:
            cases = tuple(self.cases[p] for p in chosen)
            compiled = tuple(self.compiled[p] for p in chosen)
        return replace(
            self,
            cases=cases,
            compiled=compiled,
            lines=array("q", [self.lines[p] for p in chosen]) if self.lines else (),
            positions=chosen,
            whole_case_count=len(self.cases),
            judges=self.judge_names(),
        )

    def attempt_gold(
        self, index: int
    ) -> tuple[Case | RecordedCase, tuple[CompiledExpectation, ...]]:
        """Case ``index`` and its compiled expectations, as an attempt needs them: for a
        streamed case file, read back once for both and without models (``CaseStore.gold``)."""
        cases = self.cases
        # Exact types (neither has subclasses): an isinstance against these ABC-derived
        # classes costs more than the rest of this call.
        if type(cases) is LazyCases and type(self.compiled) is LazyCompiled:
            return cases.gold(index)
        if isinstance(cases, RecordedCases):  # eval cases: no model built per attempt
            return cases.recorded(index), self.compiled[index]
        return cases[index], self.compiled[index]

    def scorer_names(self) -> set[str]:
        """The custom scorers this suite's expectations name."""
        if self.custom_scorers is not None:
            return set(self.custom_scorers)
        return {
            expectation.scorer
            for case in self.cases
            for expectation in case.expectations
            if expectation.comparison == "custom" and expectation.scorer is not None
        }

    def judge_names(self) -> frozenset[str]:
        """The judges this suite's expectations name (the whole suite's, for a shard: every
        shard of a run asks, and records the standing of, the same judges)."""
        if self.judges is not None:
            return self.judges
        return frozenset(
            expectation.judge
            for compiled in self.compiled
            for expectation in compiled
            if expectation.judge is not None
        )

    @classmethod
    def build(
        cls,
        suite: Suite,
        cases: tuple[Case, ...],
        cases_source: str,
        raw_cases: list[Any] | None = None,
        compiled: tuple[tuple[CompiledExpectation, ...], ...] | None = None,
        lines: Sequence[int] = (),
    ) -> GoldSuite:
        """``raw_cases``: the cases as loaded, when they came from JSON (cheaper to hash);
        ``compiled``: their expectations compiled by the loader (compiled here otherwise);
        ``lines``: where each case starts in ``cases_source``."""
        return cls(
            name=suite.name,
            workflow=suite.workflow,
            flow=suite.flow,
            step=suite.step,
            cases=cases,
            metrics=tuple(suite.metrics),
            thresholds=dict(suite.thresholds),
            text=suite.text,
            cases_source=cases_source,
            compiled=compiled
            if compiled is not None
            else tuple(compile_expectations(case.expectations) for case in cases),
            lines=lines,
            fingerprint=suite_fingerprint(
                suite,
                raw_cases
                if raw_cases is not None
                else _cases_adapter().dump_python(cases, mode="json"),
            ),
        )


def shard_of(suite: str, case_id: str, count: int) -> int:
    """The 1-based shard of ``count`` a case belongs to: a hash of its suite and id, so a
    case keeps its shard when others are added, removed or reordered."""
    digest = hashlib.sha256(f"{suite}\0{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class Dataset:
    name: str
    revision: str
    suites: tuple[GoldSuite, ...]
    path: Path
    fingerprint: str

    def suite(self, name: str) -> GoldSuite:
        return next(suite for suite in self.suites if suite.name == name)


@cache
def _cases_adapter() -> TypeAdapter[tuple[Case, ...]]:
    # Built on first use: only suites made in Python need it, and building it costs 0.1 s.
    from pydantic import TypeAdapter

    from goldgate.gold.models import Case

    return TypeAdapter(tuple[Case, ...])


def _digest(content: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def suite_fingerprint(suite: Suite, cases: list[Any]) -> str:
    """sha256 over the suite's ordered, canonical content (its cases as JSON): reordering
    cases changes it, reformatting the JSON (or moving cases into a file) does not."""
    hasher = SuiteHasher(suite)
    for case in cases:
        hasher.add(case)
    return hasher.digest()


class SuiteHasher:
    """``suite_fingerprint`` taken one case at a time, as a case file streams by: the same
    bytes are hashed as for the canonical text of the whole content."""

    def __init__(self, suite: Suite) -> None:
        content = suite.model_dump(mode="json", by_alias=True, exclude={"cases", "description"})
        mark = "goldgate:cases"
        while canonical_json(mark) in canonical_json(content):  # found nowhere else in it
            mark += "!"
        content["cases"] = mark
        self._head, self._tail = canonical_json(content).split(canonical_json(mark))
        self._hash = hashlib.sha256(self._head.encode("utf-8") + b"[")
        self._first = True

    def add(self, case: Any, *, has_floats: bool = True) -> None:
        """One more case (``has_floats``: whether it may hold a float)."""
        self.add_canonical(canonical_bytes(case, has_floats=has_floats))

    def add_canonical(self, canonical: bytes) -> None:
        """One more case, as its canonical bytes (``jsonvalue.canonical_bytes``)."""
        if not self._first:
            self._hash.update(b",")
        self._hash.update(canonical)
        self._first = False

    def digest(self) -> str:
        self._hash.update(("]" + self._tail).encode("utf-8"))
        return "sha256:" + self._hash.hexdigest()


def dataset_fingerprint(name: str, suite_fingerprints: list[str]) -> str:
    """sha256 over the dataset's name and its suites' fingerprints, in order."""
    return _digest({"name": name, "suites": suite_fingerprints})
