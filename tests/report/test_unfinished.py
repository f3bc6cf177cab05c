"""Attempts that never started (an interrupted run, a skipped suite) are written by
``SuiteCollector.add_unfinished`` without building their outcomes: what it writes and counts
must be exactly what adding ``attempt.unfinished(...)`` writes and counts, case records,
counters and the suite's record alike, with or without attempts that did finish before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.evals import EvalContext, eval
from goldgate.evals.collect import cases_of
from goldgate.evals.collector import EvalCollector
from goldgate.evals.plan import plan_evals
from goldgate.gold.load import load_gold
from goldgate.gold.settings.load import load_settings
from goldgate.gold.suites import GoldSuite
from goldgate.report.build import SuiteCollector
from goldgate.report.plain import record_json
from goldgate.report.records import TargetRecord
from goldgate.run.runner import InOrder, _failed
from goldgate.scoring.attempt import (
    INTERRUPTED_REASON,
    AttemptOutcome,
    Which,
    completed,
    unfinished,
)
from goldgate.scoring.evalscores import SCORE_COMPARISON, score_check
from goldgate.scoring.score import score_compiled

TARGET = TargetRecord(kind="python", workflow_revision="r1", live=False, identity={})


def _written(
    suite: GoldSuite,
    make: type[SuiteCollector],
    repeat: int,
    include_details: bool,
    fast: bool,
    finished: set[int],
    status: str = "cancelled",
    finish: Any = None,
) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """The case records, counters and suite record of a run where the attempts at
    ``finished`` ended as ``finish`` makes them (failed) and every other one never
    started."""
    finish = finish or _failure
    lines: list[str] = []
    collector = make(suite, repeat, include_details, lambda r: lines.append(json.dumps(r)))
    total = len(suite.cases) * repeat
    ordered = InOrder(collector.add, total)
    for position in sorted(finished):  # finished early, out of order: held until drained
        index, attempt = divmod(position, repeat)
        ordered.deliver(position, finish(suite, index, attempt + 1))

    def missing(position: int) -> Any:
        index, attempt = divmod(position, repeat)
        return unfinished(
            suite, index=index, attempt=attempt + 1, status=status, reason=INTERRUPTED_REASON
        )

    def add_missing(position: int) -> bool:
        index, attempt = divmod(position, repeat)
        return collector.add_unfinished(index, attempt + 1, status, INTERRUPTED_REASON)

    ordered.drain(missing, add_missing if fast else None)
    counts = {"attempts": dict(collector.attempts), "checks": dict(collector.checks),
              "count": collector.count}  # fmt: skip
    record = record_json(collector.record(TARGET))
    record.pop("duration_seconds", None)
    return lines, counts, record


def _failure(suite: GoldSuite, index: int, attempt: int) -> AttemptOutcome:
    return _failed(Which(index, suite.attempt_gold(index)[0], attempt), "it broke", 1.5)


def _scored(suite: GoldSuite, index: int, attempt: int) -> AttemptOutcome:
    """A completed eval attempt with a score key of its own (``tone``), which gives the
    case's every attempt a check more."""
    case, compiled = suite.attempt_gold(index)
    scores = [{"key": "pass", "passed": True}, {"key": "tone", "passed": attempt % 2 == 1}]
    document = {"output": case.input.payload["input"], "scores": scores}
    envelope = case.input.as_json()
    checks = tuple(
        score_check(scores, e.expected)
        if e.comparison == SCORE_COMPARISON
        else score_compiled(e, document, envelope, None)
        for e in compiled
    )
    return completed(
        Which(index, case, attempt),
        latency_ms=2.5,
        document=document,
        stderr=None,
        checks=checks,
    )


def _gold_suites(gold_project: Any, without_metrics: bool) -> list[GoldSuite]:
    if without_metrics:
        for suite in gold_project.manifest["suites"]:
            suite.pop("metrics", None)
            suite.get("thresholds", {}).pop("queue_quality.accuracy", None)
    project = gold_project.write()
    dataset = load_gold(load_settings(project.root / project.SETTINGS))
    return [dataset.suite("inline"), dataset.suite("filed")]


@pytest.mark.parametrize("repeat", [1, 3])
@pytest.mark.parametrize("include_details", [True, False])
@pytest.mark.parametrize("without_metrics", [True, False])
@pytest.mark.parametrize("status", ["cancelled", "skipped"])
def test_gold_suites_write_unfinished_attempts_as_the_outcomes_would(
    gold_project: Any, repeat: int, include_details: bool, without_metrics: bool, status: str
) -> None:
    for suite in _gold_suites(gold_project, without_metrics):
        total = len(suite.cases) * repeat
        for finished in (set(), {0}, {total - 1}, set(range(0, total, 2))):
            fast = _written(suite, SuiteCollector, repeat, include_details, True, finished, status)
            slow = _written(suite, SuiteCollector, repeat, include_details, False, finished, status)
            assert fast == slow, (suite.name, finished)
            assert len(fast[0]) == len(suite.cases)


def test_the_fast_path_is_taken_where_no_metric_needs_the_outcome(gold_project: Any) -> None:
    with_metrics, streamed = _gold_suites(gold_project, without_metrics=False)
    assert with_metrics.metrics
    assert not SuiteCollector(with_metrics, 1, True, lambda _: None).add_unfinished(
        0, 1, "cancelled", INTERRUPTED_REASON
    )
    assert SuiteCollector(streamed, 1, True, lambda _: None).add_unfinished(
        0, 1, "cancelled", INTERRUPTED_REASON
    )


def _eval_suite(tmp_path: Path) -> GoldSuite:
    def subject(ctx: EvalContext) -> None:
        ctx.store(scores={"key": "tone", "passed": True})

    subject.__code__ = subject.__code__.replace(co_filename=str(tmp_path / "eval_x.py"))
    function = eval(
        dataset="d",
        cases=[{"input": "a"}, {"input": "b", "expect": {"contains": "b"}}, {"input": "c"}],
    )(subject)
    return plan_evals(cases_of([function]), project=tmp_path).suites[0].gold


@pytest.mark.parametrize("repeat", [1, 2])
def test_eval_suites_write_unfinished_attempts_as_the_outcomes_would(
    tmp_path: Path, repeat: int
) -> None:
    suite = _eval_suite(tmp_path)
    total = len(suite.cases) * repeat
    for finish in (_failure, _scored):
        for finished in (set(), {1}, {total - 1}, set(range(total))):
            fast = _written(suite, EvalCollector, repeat, True, True, finished, finish=finish)
            slow = _written(suite, EvalCollector, repeat, True, False, finished, finish=finish)
            assert fast == slow, (finish, finished)
