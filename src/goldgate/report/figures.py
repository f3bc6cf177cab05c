"""A suite's figures and verdict, computed in one place.

Whatever tallied a suite's attempts (the run as it goes, ``report.build``, in the run's
process or the forked report process; reading a report back, ``report.verify``; rebuilding a
suite around other cases, ``report.rebuild`` for ``report.merge``), its counts, thresholds
and verdict come from ``suite_figures``: a rule about them (a new threshold, a maximum) is
changed here and nowhere else. The figures themselves (pass rate, the text figures) are
``verdicts.Figures``; what each threshold and verdict means is ``report.verdicts``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from goldgate.report.livefigures import LiveTally, maximum_figures
from goldgate.report.records import (
    CountsRecord,
    SuiteStatus,
    SuiteVerdict,
    ThresholdRecord,
)
from goldgate.report.verdicts import (
    ATTEMPT_STATUSES,
    CHECK_OUTCOMES,
    suite_thresholds,
    suite_verdict,
)

__all__ = ["SuiteFigures", "SuiteTally", "suite_counts", "suite_figures"]


class SuiteTally(Protocol):
    """What a suite's attempts were counted into, however they were read."""

    @property
    def attempts(self) -> Mapping[str, int]:
        """Attempts by status."""
        ...

    @property
    def checks(self) -> Mapping[str, int]:
        """Checks by outcome."""
        ...

    @property
    def live(self) -> LiveTally:
        """Retries, cached answers and costs."""
        ...

    @property
    def latencies(self) -> Iterable[float] | None:
        """The attempts' latencies in milliseconds, for a latency maximum (None: not kept,
        the suite has none)."""
        ...


@dataclass(frozen=True)
class SuiteFigures:
    """A suite's counts, thresholds (held or not) and verdict."""

    counts: CountsRecord
    thresholds: tuple[ThresholdRecord, ...]
    verdict: SuiteVerdict


def suite_counts(tally: SuiteTally) -> CountsRecord:
    """The suite's attempts by status and checks by outcome, every status and outcome named."""
    attempts, checks = tally.attempts, tally.checks
    return CountsRecord(
        {status: attempts.get(status, 0) for status in ATTEMPT_STATUSES},
        {outcome: checks.get(outcome, 0) for outcome in CHECK_OUTCOMES},
    )


def suite_figures(
    tally: SuiteTally,
    status: SuiteStatus,
    *,
    summary: Mapping[str, float | None],
    metrics: Sequence[Any],
    bounds: Mapping[str, float],
) -> SuiteFigures:
    """The figures of a suite whose attempts are in ``tally``: its counts; each threshold of
    ``bounds`` held or not against ``summary``, ``metrics`` and the latency and cost maxima;
    and its verdict: ``skipped`` for a suite skipped, ``incomplete`` for one never started,
    else what its counts and thresholds say (``verdicts.suite_verdict``)."""
    counts = suite_counts(tally)
    maxima = maximum_figures(tally.latencies or (), tally.live)
    thresholds = suite_thresholds(bounds, summary, metrics, maxima)
    verdict: SuiteVerdict
    if status == "skipped":
        verdict = "skipped"
    elif status == "not_started":
        verdict = "incomplete"
    else:
        verdict = suite_verdict(counts, thresholds, bool(bounds))
    return SuiteFigures(counts, thresholds, verdict)
