"""What every rendering says of judges (docs/judges.md), in one place so that Markdown,
the job summary, JUnit, the HTML page and ``report show`` agree on every word: per suite,
how many checks a judge decided and how many it only suggested a verdict for, with the
judge's kappa, interval and number of human verdicts, and what asking judges cost, apart
from the application's cost. Safe: names, counts and figures; never a judge's reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from goldgate.report.models import Report, SuiteRecord
from goldgate.report.records import JudgeStandingRecord

__all__ = [
    "JudgeLine",
    "cost_sentence",
    "judge_cost",
    "judge_lines",
    "judge_sentences",
    "standing_sentence",
]


@dataclass(frozen=True)
class JudgeLine:
    """One sentence about one judge in one suite, and the figures it states."""

    suite: str
    judge: str
    decided: int
    suggested: int
    sentence: str


def standing_sentence(standing: JudgeStandingRecord | None) -> str:
    """``κ 0.78 [0.66, 0.90] on 120 human verdicts``, or why the judge has no such figures
    (``stale``, uncalibrated)."""
    if standing is None:
        return "not calibrated"
    if standing.kappa is not None and standing.kappa_ci95 is not None:
        low, high = standing.kappa_ci95
        figures = (
            f"κ {standing.kappa:.2f} [{low:.2f}, {high:.2f}] on {standing.verdicts} human verdicts"
        )
    else:
        figures = "no calibration figures"
    if standing.standing == "stale":
        return f"{figures} of revision {standing.record_revision} (stale)"
    if standing.standing == "uncalibrated" and standing.record_revision is None:
        return "no calibration record"
    return figures


def _plural(count: int) -> str:
    return f"{count} check{'s' * (count != 1)}"


def judge_lines(
    judges: Sequence[JudgeStandingRecord], suites: Sequence[SuiteRecord]
) -> list[JudgeLine]:
    """Every suite's judges, as sentences (suites and judges in report order); ``judges``:
    the report's, as the run found them."""
    standings = {judge.name: judge for judge in judges}
    lines = []
    for suite in suites:
        for judged in suite.judges:
            standing = standings.get(judged.name)
            label = f"judge {judged.name}@{judged.revision}"
            figures = standing_sentence(standing)
            parts = []
            if judged.decided:
                parts.append(f"{_plural(judged.decided)} decided by {label}, {figures}")
            if judged.suggested:
                why = ""
                if standing is not None and standing.standing != "calibrated":
                    why = f" ({figures}; {standing.why})"
                parts.append(
                    f"{_plural(judged.suggested)} only suggested by {label}{why}, waiting for "
                    "a human verdict"
                )
            sentence = "; ".join(parts)
            lines.append(
                JudgeLine(suite.name, judged.name, judged.decided, judged.suggested, sentence)
            )
    return lines


def judge_cost(suites: Sequence[SuiteRecord]) -> float | None:
    """What asking judges cost in the run, apart from the application's cost."""
    costs = [suite.judge_cost for suite in suites if suite.judge_cost is not None]
    return sum(costs) if costs else None


def cost_sentence(report: Report) -> str | None:
    """``judges' calls cost 0.0123 (apart from the application's cost)``, or None."""
    cost = judge_cost(report.suites)
    if cost is None:
        return None
    return f"judges' calls cost {cost:.6g} (apart from the application's cost)"


def judge_sentences(report: Report) -> list[str]:
    """Every line a rendering shows of judges: ``suite: sentence`` per suite and judge,
    then the judges' cost."""
    said = [f"{line.suite}: {line.sentence}" for line in judge_lines(report.judges, report.suites)]
    cost = cost_sentence(report)
    if cost is not None:
        said.append(cost[0].upper() + cost[1:])
    return said
