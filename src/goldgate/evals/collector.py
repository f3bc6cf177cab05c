"""An eval suite's attempts into report records: a check per score key, decided per case.

The report keeps checks by position: a case's expectations, and each attempt's checks in the
same order. An eval declares the check of its default score key (``pass`` unless
``default_score_key`` says otherwise) and its ``expect`` check before it runs,
but its other score keys appear only as it runs (``ctx.store``, evaluators). So each case's
attempts are held until the last one is in (``--repeat``: the case's attempts, which the
runner hands on in order anyway), then its checks are fixed: the default key, ``expect``, then
every other key that carries ``passed`` (or could not be taken) in the order it first
appeared. An attempt that made no score of a key gets that check ``not_run``: absent is not
a failure. Numeric ``value`` scores are summed per key for the suite's ``KEY.mean``,
``KEY.min`` and ``KEY.count``. An attempt whose eval failed (its result an ``EvalFailed``:
it raised, or passed its own timeout) is recorded ``failed`` (or ``timed_out``), exactly as
the runner records a target that raised (or passed the run's deadline), its result kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from goldgate.evals.runtime import EvalFailed
from goldgate.gold.compiled import CompiledExpectation, GoldFields
from goldgate.gold.recorded import RecordedCase
from goldgate.report.build import SuiteCollector
from goldgate.scoring.attempt import AttemptOutcome
from goldgate.scoring.evalscores import (
    SCORE_COMPARISON,
    SCORES_PATH,
    add_value,
    score_check,
    value_figures,
)
from goldgate.scoring.outcomes import CheckOutcome, not_run, not_run_reason

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import Case
    from goldgate.gold.suites import GoldSuite

__all__ = ["EvalCollector", "score_expectation"]


def score_expectation(key: str) -> CompiledExpectation:
    """The expectation checking score key ``key``."""
    return CompiledExpectation(
        key, SCORES_PATH, SCORE_COMPARISON, None, {"key": key}, (SCORES_PATH[1:],)
    )


PASS_ONLY: Final = (score_expectation("pass"),)
"""The checks of a case without ``expect`` whose default key is ``pass``, shared by every
such case."""


def _failed(outcome: AttemptOutcome) -> AttemptOutcome:
    """``outcome`` as ``failed`` (or ``timed_out``) when its eval failed: every check not run
    with the reason, as the runner does, and the result kept (the private detail of why)."""
    document = outcome.document
    if type(document) is not EvalFailed:
        return outcome
    reason = document.reason
    why = not_run_reason(document.status, reason)
    timed_out = document.status == "timed_out"
    return dataclasses.replace(
        outcome,
        status=document.status,
        reason=reason,
        latency_ms=None if timed_out else outcome.latency_ms,
        document=dict(document),
        stderr=None,
        checks=(not_run(why),) * len(outcome.checks),
    )


def _scores(outcome: AttemptOutcome) -> Sequence[Any]:
    if outcome.status != "completed" or outcome.document is None:
        return ()
    scores = outcome.document.get("scores")
    return scores if isinstance(scores, list) else ()


class EvalCollector(SuiteCollector):
    """``SuiteCollector`` for eval suites (``SuiteJob.collector``)."""

    def __init__(
        self,
        suite: GoldSuite,
        repeat: int,
        include_details: bool,
        write_case: Callable[[dict[str, Any]], None],
    ) -> None:
        super().__init__(suite, repeat, include_details, write_case)
        self._held: list[AttemptOutcome] = []
        self._case: tuple[int, tuple[CompiledExpectation, ...]] | None = None
        self.values: dict[str, list[float]] = {}
        """key -> [sum, min, count] of the numeric values of the suite's completed attempts."""

    def case_expectations(self, index: int) -> Sequence[CompiledExpectation]:
        if self._case is not None and self._case[0] == index:
            return self._case[1]
        return super().case_expectations(index)

    def record_expectations(self, index: int, case: Case | RecordedCase) -> Sequence[GoldFields]:
        return self.case_expectations(index)  # the score keys this case produced

    def add_unfinished(self, index: int, attempt: int, status: str, reason: str) -> bool:
        # With --repeat, a case's checks are fixed over all its attempts (see add).
        return self.repeat == 1 and super().add_unfinished(index, attempt, status, reason)

    def summary(self) -> dict[str, float | None]:
        figures = super().summary()
        figures.update(value_figures(self.values))
        return figures

    def _value(self, entry: Any) -> None:
        add_value(self.values, entry)

    def add(self, outcome: AttemptOutcome) -> None:
        if type(outcome.document) is EvalFailed:
            outcome = _failed(outcome)
        held: Sequence[AttemptOutcome]
        if self.repeat == 1:
            held = (outcome,)
        else:
            self._held.append(outcome)
            if outcome.attempt < self.repeat:
                return
            held, self._held = self._held, []
        fixed = self.suite.compiled[outcome.index]
        first = fixed[0].name  # the eval's default key: most scores are of it
        keys: list[str] = []
        taken: set[str] | None = None
        valued = False
        for attempt in held:
            for entry in _scores(attempt):
                if type(entry) is not dict:
                    continue
                valued = valued or "value" in entry
                key = entry.get("key")
                if key == first or type(key) is not str:
                    continue
                if "passed" in entry or "error" in entry:
                    if taken is None:
                        taken = {expectation.name for expectation in fixed}
                    if key not in taken:
                        taken.add(key)
                        keys.append(key)
        if not keys and not valued:  # the common case: nothing to add
            for attempt in held:
                super().add(attempt)
            return
        extra = tuple(score_expectation(key) for key in keys)
        self._case = (outcome.index, (*fixed, *extra))
        try:
            for attempt in held:
                super().add(self._extended(attempt, keys, extra))
        finally:
            self._case = None

    def _extended(
        self, attempt: AttemptOutcome, keys: list[str], extra: tuple[CompiledExpectation, ...]
    ) -> AttemptOutcome:
        scores = _scores(attempt)
        for entry in scores:
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                self._value(entry)
        if not keys:
            return attempt
        checks: tuple[CheckOutcome, ...]
        if attempt.status == "completed":
            checks = tuple(score_check(scores, e.expected) for e in extra)
        else:
            reason = (
                attempt.checks[0].reason
                if attempt.checks and attempt.checks[0].reason
                else not_run_reason(attempt.status, attempt.reason)
            )
            checks = (not_run(reason),) * len(keys)
        return dataclasses.replace(attempt, checks=(*attempt.checks, *checks))
