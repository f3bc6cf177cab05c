"""What a run holds does not grow with its attempts (issue 43): a suite's collector keeps its
counters, the distinct observations its metrics need and, for a latency maximum, 8 bytes an
attempt; each case's record goes to the report as soon as its attempts are in. Counted
in-process at two sizes with tracemalloc (bytes still held, never time): the memory a run's
streamed suite holds once every attempt is in, past what it held as it started."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from goldgate.gold import Case, Metric
from goldgate.gold.models import Suite
from goldgate.gold.suites import GoldSuite
from goldgate.report.build import SuiteCollector
from goldgate.report.records import DatasetRecord, SuiteRecord, TargetRecord, VariantRecord
from goldgate.report.stream import ReportWriter
from goldgate.run.limits import RunOptions
from goldgate.run.streaming import ReportRun, RunHeader, SuiteJob, now, options_record
from goldgate.scoring import ScorerRegistry

LABELS = ("billing", "refund", "other")
TARGET = TargetRecord(kind="python-api", workflow_revision="r1", live=False, identity={})
PER_ATTEMPT_BOUND = 24
"""Bytes a run may keep for each attempt past the first ones: the latencies a latency
maximum needs (8 bytes each, in an array that grows by a sixteenth at a time) and noise.
An object an attempt (an observation of a metric is some 300 bytes with its values, a
float in a list 32) is well past it."""


def _suite(cases: int) -> GoldSuite:
    """``cases`` cases with a classification metric and a latency maximum."""
    raw = [
        {
            "id": f"case-{index:06d}",
            "input": {"payload": {"message": f"request {index}"}, "metadata": {}},
            "expectations": [
                {"name": "label", "path": "/payload/label", "expected": LABELS[index % 3]},
                {"name": "status", "path": "/execution/status", "expected": "completed"},
            ],
        }
        for index in range(cases)
    ]
    metric = Metric(name="label", path="/payload/label", kind="classification", labels=list(LABELS))
    model = Suite(
        name="held",
        workflow="app",
        cases=raw,
        metrics=[metric],
        thresholds={"latency.p95_ms": 60_000.0, "label.accuracy": 0.5},
    )
    return GoldSuite.build(model, tuple(Case.model_validate(case) for case in raw), "<test>")


async def _answer(envelope: Mapping[str, Any]) -> dict[str, Any]:
    number = int(envelope["payload"]["message"].split()[-1])
    label = LABELS[(number // 7) % 3]  # right for some cases, wrong for others
    return {"execution": {"status": "completed"}, "payload": {"label": label}}


def _held(cases: int) -> tuple[int, SuiteRecord]:
    """Bytes the run holds once every attempt of its suite of ``cases`` cases is in, past
    what it held as the suite began; and the suite's record."""
    suite = _suite(cases)
    found: dict[str, Any] = {}

    class Probe(SuiteCollector):
        def __init__(self, *args: Any) -> None:
            found["start"] = tracemalloc.get_traced_memory()[0]
            super().__init__(*args)

        def record(self, target: TargetRecord, **options: Any) -> SuiteRecord:
            found["end"] = tracemalloc.get_traced_memory()[0]
            made = super().record(target, **options)
            found["record"] = made
            return made

    def make(suite: GoldSuite, repeat: int, details: bool, write: Callable[..., None]) -> Any:
        return Probe(suite, repeat, details, write)

    options = RunOptions(max_concurrency=4, timeout=60)
    header = RunHeader(
        dataset=DatasetRecord(name="d", revision="r", fingerprint=suite.fingerprint, path=None),
        variant=VariantRecord(name="v", revision="r1", configuration_revision=None),
        options=options_record(options, (suite.name,), live=False),
        registry=ScorerRegistry(()),
        started=now(),
    )
    written = [0]

    def discard(data: bytes) -> None:  # the report's bytes are not what is measured
        written[0] += len(data)

    job = SuiteJob(suite, TARGET, _answer, collector=make)
    tracemalloc.start()
    try:
        run = ReportRun(header, [job], options, ReportWriter(discard))
        anyio.run(run.run, ScorerRegistry(()))
    finally:
        tracemalloc.stop()
    assert written[0] > cases * 100  # every case was written as it went
    return found["end"] - found["start"], found["record"]


def test_what_a_run_holds_does_not_grow_with_its_attempts() -> None:
    _held(30)  # what the first run of a process imports and caches is held by neither size
    small, large = 300, 2100
    held_small, record_small = _held(small)
    held_large, record_large = _held(large)
    assert record_large.attempt_count == large
    assert record_small.counts.checks["failed"] > 0
    metric = record_large.metrics[0]
    assert metric.support == large  # every attempt was observed, each as it said
    assert metric.correct == sum(LABELS[i % 3] == LABELS[(i // 7) % 3] for i in range(large))
    assert (held_large - held_small) / (large - small) < PER_ATTEMPT_BOUND, (
        held_small,
        held_large,
    )
