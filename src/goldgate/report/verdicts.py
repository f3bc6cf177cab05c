"""What a suite's attempts come to, and what the run comes to: the summary figures
thresholds gate on (summed as checks arrive), the metrics, the thresholds' measured values,
each suite's verdict and the run's (exit code and meaning).

Pure, and shared by the three places that compute them: a run as it goes
(``report.build``), reading a report back (``report.verify`` recomputes every figure a report
states) and joining reports (``report.rebuild``, for merged shards). Nothing here imports
pydantic: a run of Python evals never loads it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode, most_severe
from goldgate.gold.maxima import MAXIMUM_THRESHOLDS
from goldgate.report.records import SuiteVerdict, ThresholdRecord, VerdictRecord

if TYPE_CHECKING:
    # Only gold with metrics computes them: the metric models are imported where they are used.
    from goldgate.gold.models import Metric
    from goldgate.report.records import CountsRecord, SuiteRecord
    from goldgate.scoring.metrics import MetricResult
    from goldgate.scoring.observations import Observation

ATTEMPT_STATUSES = ("completed", "failed", "timed_out", "skipped", "cancelled")
CHECK_OUTCOMES = ("passed", "failed", "error", "not_run")
RUNTIME_FAILURES = ("failed", "timed_out")
"""The attempt statuses that are the run's failure, not the application's answer."""


class CheckFigures(Protocol):
    """What the summary figures read of a check (an outcome, a view, a stored record)."""

    @property
    def outcome(self) -> str: ...
    @property
    def adjudication(self) -> bool: ...
    @property
    def assertions_declared(self) -> int | None: ...
    @property
    def assertions_held(self) -> int | None: ...
    @property
    def actual(self) -> Any: ...
    @property
    def json_parsed(self) -> bool | None: ...
    @property
    def required_keys_declared(self) -> int | None: ...
    @property
    def required_keys_found(self) -> int | None: ...


class Figures:
    """The suite-wide figures thresholds can gate on, summed as attempts arrive.

    pass_rate is passed / (passed + failed + error) over checks that ran; the text figures are
    taken over the checks that declared them, so absent is never zero.
    """

    def __init__(self) -> None:
        self.ran = self.passed = self.declared = self.held = 0
        self.parsed = self.parse_seen = self.keys = self.keys_declared = 0
        self.chars = self.texts = 0
        self.adjudication = 0

    def add(self, checks: Sequence[CheckFigures]) -> None:
        """Check outcomes as scored, or checks as read back from a report."""
        ran = passed = 0  # summed here, added once: every attempt of a run and a read adds
        for check in checks:
            outcome = check.outcome
            if outcome != "not_run":
                ran += 1
                passed += outcome == "passed"
            if check.adjudication:
                self.adjudication += 1
            if check.assertions_declared is not None:
                self.declared += check.assertions_declared
                self.held += check.assertions_held or 0
                if isinstance(check.actual, str):
                    self.chars += len(check.actual)
                    self.texts += 1
            if check.json_parsed is not None:
                self.parse_seen += 1
                self.parsed += check.json_parsed
            if check.required_keys_declared:
                self.keys_declared += check.required_keys_declared
                self.keys += check.required_keys_found or 0
        self.ran += ran
        self.passed += passed

    def add_figures(self, other: Figures) -> None:
        """Another tally's figures added (a shard's, ``report.shardtally``): each is a count,
        so the sum is what one tally of both tallies' checks gives, in any order."""
        for name, count in vars(other).items():
            setattr(self, name, getattr(self, name) + count)

    def summary(self) -> dict[str, float | None]:
        def ratio(numerator: int, denominator: int) -> float | None:
            return numerator / denominator if denominator else None

        return {
            "pass_rate": ratio(self.passed, self.ran),
            "expect.satisfied": ratio(self.held, self.declared),
            "json.parse": ratio(self.parsed, self.parse_seen),
            "schema.requiredCoverage": ratio(self.keys, self.keys_declared),
            "text.chars": ratio(self.chars, self.texts),
        }


def suite_metrics(
    metrics: Sequence[Metric], observations: Sequence[Iterable[Observation]]
) -> tuple[MetricResult, ...]:
    """Each metric computed over its observations; gold without metrics (Python evals
    among it) never imports the metric models."""
    if not metrics:
        return ()
    from goldgate.scoring.metrics import compute_metric

    return tuple(
        compute_metric(metric, found) for metric, found in zip(metrics, observations, strict=True)
    )


def suite_thresholds(
    thresholds: Mapping[str, float],
    summary: Mapping[str, float | None],
    metrics: Sequence[Any],
    maxima: Mapping[str, float | None] | None = None,
) -> tuple[ThresholdRecord, ...]:
    """Each threshold, held or not: a minimum held when its figure is at least it, a maximum
    (``MAXIMUM_THRESHOLDS``, its figure from ``maxima``) when its figure is at most it; an
    unmeasured figure never holds."""
    by_name = {metric.name: metric for metric in metrics}
    records = []
    for key, minimum in thresholds.items():
        if key in MAXIMUM_THRESHOLDS:
            value = (maxima or {}).get(key)
            held = value is not None and value <= minimum
            records.append(ThresholdRecord(key, None, value, held, float(minimum)))
            continue
        if key in summary:
            actual = summary[key]
        else:
            name, _, figure = key.rpartition(".")
            actual = _metric_figure(by_name.get(name), figure)
        records.append(
            ThresholdRecord(
                key,
                float(minimum),
                None if actual is None else float(actual),
                actual is not None and actual >= minimum,
            )
        )
    return tuple(records)


def _metric_figure(metric: Any, figure: str) -> float | None:
    if metric is None:
        return None
    if figure.startswith(("micro_", "macro_")):
        average, _, measure = figure.partition("_")
        return float(getattr(getattr(metric, average), measure))
    value = getattr(metric, figure, None)
    return None if value is None else float(value)


def suite_verdict(
    counts: CountsRecord,
    thresholds: Sequence[ThresholdRecord],
    gated: bool,
) -> SuiteVerdict:
    if counts.attempts["cancelled"]:
        return "incomplete"
    if counts.attempts["failed"] or counts.attempts["timed_out"]:
        return "error"
    if counts.checks["error"]:  # thresholds absorb disagreement, never a check that broke
        return "failed"
    if gated:
        return "passed" if all(threshold.held for threshold in thresholds) else "failed"
    return "passed" if not counts.checks["failed"] else "failed"


_SUITE_EXIT = {
    "passed": ExitCode.PASSED,
    "skipped": ExitCode.PASSED,
    "failed": ExitCode.GOLD_DISAGREEMENT,
    "error": ExitCode.RUNTIME_FAILURE,
    "incomplete": ExitCode.INTERRUPTED,
}

NOTHING_EVALUATED = "nothing was evaluated"


STUCK = "watchdog"
"""The interruption of a run the watchdog ended: a target kept the event loop blocked and no
signal asked for the stop."""
STUCK_MEANING = (
    "runtime failure: a target kept the event loop blocked and could not be stopped; what "
    "finished is in the report"
)


def run_verdict(
    suites: Sequence[SuiteRecord],
    interrupted: bool,
    adjudication: int = 0,
    *,
    interruption: str | None = None,
) -> VerdictRecord:
    """The run's verdict: the most severe of its suites' (130 > 4 > 1 > 0). A run in which no
    check ran and nothing failed says so: 'nothing was evaluated' (exit 0). A run the
    watchdog ended (``interruption`` is ``STUCK``) is incomplete, but nobody interrupted it:
    what its suites left unfinished is a runtime failure (4), never 130."""
    stuck = interruption == STUCK
    stopped = ExitCode.RUNTIME_FAILURE if stuck else ExitCode.INTERRUPTED
    code = most_severe(
        *(
            stopped if suite.verdict == "incomplete" else _SUITE_EXIT[suite.verdict]
            for suite in suites
        ),
        stopped if interrupted else ExitCode.PASSED,
    )
    evaluated = any(
        suite.counts.checks.get(outcome, 0) for suite in suites for outcome in CHECK_OUTCOMES[:3]
    )
    meaning = EXIT_CODE_MEANINGS[code]
    if code is ExitCode.PASSED and not evaluated:
        meaning = NOTHING_EVALUATED
    elif stuck and code is ExitCode.RUNTIME_FAILURE:
        meaning = STUCK_MEANING
    return VerdictRecord(
        passed=code is ExitCode.PASSED,
        exit_code=int(code),
        meaning=meaning,
        suites=dict(Counter(suite.verdict for suite in suites)),
        evaluated=evaluated,
        adjudication=adjudication,
    )
