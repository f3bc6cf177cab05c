"""Judges, as pure functions (docs/judges.md): a judge's answer read as a verdict, the
figures of a calibration (Cohen's kappa and its interval), and the gate's rule of whether a
judge's verdict decides its check or only suggests one.

- ``parse_verdict``: the first word of the answer, after leading whitespace, ``*``, ``#``,
  backticks and quotes, compared without case, is ``PASS`` or ``FAIL`` as a whole word
  (``PASSABLE`` or ``Verdict: PASS`` is no verdict); the rest is the judge's reason.
- ``calibration``: the 2x2 table of (human, judge) verdicts, agreement pₒ, Cohen's kappa as
  scikit-learn's ``cohen_kappa_score`` and its 95% interval
  kappa ± 1.96 × sqrt(pₒ(1 − pₒ) / (n(1 − pₑ)²)). Where kappa is undefined (no verdicts, or
  chance agreement pₑ = 1: both sides gave one same verdict throughout) it is None, and a
  judge with no kappa is not calibrated.
- ``standing``: a judge decides only when its record is for its current revision, holds at
  least ``min_verdicts`` verdicts and the lower bound of its interval is at least
  ``min_kappa``; otherwise it suggests (a record of another revision is ``stale``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, Literal

from goldgate.gold.judges import CalibrationRecord, CalibrationTable
from goldgate.gold.settings.models import JudgeSettings
from goldgate.scoring.adjudication import decided as decided_by_verdict
from goldgate.scoring.outcomes import CheckOutcome, JudgeOutcome, JudgeVerdict, Outcome

__all__ = [
    "JudgeAnswer",
    "JudgeOutcome",
    "Standing",
    "calibration",
    "judged",
    "parse_verdict",
    "standing",
]

_LEADING: Final = re.compile(r"[\s*#`\"']*")
_WORD: Final = re.compile(r"\w+")
Z95: Final = 1.96


@dataclass(frozen=True)
class JudgeAnswer:
    """A judge's answer read: its verdict (None: no verdict) and its reason (the rest)."""

    verdict: JudgeVerdict | None
    reason: str


def parse_verdict(text: str) -> JudgeAnswer:
    """The verdict a judge's answer states (see the module docstring)."""
    start = _LEADING.match(text)
    rest = text[start.end() if start else 0 :]
    word = _WORD.match(rest)
    if word is None or not word.group().isascii():
        return JudgeAnswer(None, text.strip())
    found = word.group().lower()
    if found not in ("pass", "fail"):
        return JudgeAnswer(None, text.strip())
    verdict: JudgeVerdict = "pass" if found == "pass" else "fail"
    return JudgeAnswer(verdict, rest[word.end() :].lstrip(" \t\r\n:.-—*`\"'").strip())


@dataclass(frozen=True)
class Figures:
    """A calibration's figures over n pairs of (human, judge) verdicts."""

    table: CalibrationTable
    agreement: float | None
    kappa: float | None
    kappa_ci95: tuple[float, float] | None


def calibration(pairs: Iterable[tuple[bool, bool]]) -> Figures:
    """The figures of (human passed, judge passed) pairs (see the module docstring)."""
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for human, judge in pairs:
        cells[(bool(human), bool(judge))] += 1
    table = CalibrationTable(
        pass_pass=cells[(True, True)],
        pass_fail=cells[(True, False)],
        fail_pass=cells[(False, True)],
        fail_fail=cells[(False, False)],
    )
    n = table.total
    if n == 0:
        return Figures(table, None, None, None)
    observed = (table.pass_pass + table.fail_fail) / n
    human_pass = (table.pass_pass + table.pass_fail) / n
    judge_pass = (table.pass_pass + table.fail_pass) / n
    chance = human_pass * judge_pass + (1 - human_pass) * (1 - judge_pass)
    if chance >= 1:  # both sides gave one same verdict throughout: kappa is 0/0
        return Figures(table, observed, None, None)
    kappa = (observed - chance) / (1 - chance)
    spread = Z95 * math.sqrt(observed * (1 - observed) / (n * (1 - chance) ** 2))
    return Figures(table, observed, kappa, (kappa - spread, kappa + spread))


StandingName = Literal["calibrated", "uncalibrated", "stale"]


@dataclass(frozen=True)
class Standing:
    """Whether a judge's verdicts decide checks, and one sentence saying why."""

    name: StandingName
    why: str
    record: CalibrationRecord | None = None

    @property
    def decides(self) -> bool:
        return self.name == "calibrated"


def standing(judge: str, settings: JudgeSettings, record: CalibrationRecord | None) -> Standing:
    """The gate's rule for ``judge`` with its calibration ``record`` (None: none)."""
    bar = settings.calibration
    if record is None:
        return Standing("uncalibrated", f"judge {judge} has no calibration record")
    if record.revision != settings.revision:
        return Standing(
            "stale",
            f"judge {judge}'s calibration record is stale: it is for revision "
            f"{record.revision}, the judge is at {settings.revision}",
            record,
        )
    if record.verdicts < bar.min_verdicts:
        return Standing(
            "uncalibrated",
            f"judge {judge} was calibrated on {record.verdicts} human verdicts, fewer than "
            f"min_verdicts {bar.min_verdicts}",
            record,
        )
    if record.kappa_ci95 is None:
        return Standing(
            "uncalibrated", f"judge {judge}'s kappa is undefined on its verdicts", record
        )
    low = record.kappa_ci95[0]
    if low < bar.min_kappa:
        return Standing(
            "uncalibrated",
            f"the lower bound of judge {judge}'s kappa interval, {low:.2f}, is under "
            f"min_kappa {bar.min_kappa:g}",
            record,
        )
    return Standing("calibrated", f"judge {judge} is calibrated", record)


def judged(check: CheckOutcome, outcome: JudgeOutcome) -> CheckOutcome:
    """``check`` (one that waits for a person) with its judge's ``outcome``: decided by it when
    the judge is calibrated (a failing verdict fails it, a passing one leaves the declared
    assertions' outcome standing, no verdict makes it an error, never a pass); otherwise it
    still waits for a person, the judge's suggestion beside it."""
    if not outcome.decided:
        why = f"waits for a human verdict; judge {outcome.label} only suggests (not calibrated)"
        waiting = check.outcome is Outcome.NOT_RUN
        return replace(check, reason=why if waiting else check.reason, judge=outcome)
    if outcome.verdict is None:
        why = f"judge {outcome.label} gave no verdict (neither PASS nor FAIL)"
        return replace(check, outcome=Outcome.ERROR, reason=why, adjudication=False, judge=outcome)
    made = decided_by_verdict(check, outcome.verdict == "pass")
    reason = made.reason
    if made.outcome is Outcome.FAILED and check.outcome is not Outcome.FAILED:
        reason = f"judge {outcome.label} failed this answer"
    return replace(made, reason=reason, adjudicated=False, judge=outcome)
