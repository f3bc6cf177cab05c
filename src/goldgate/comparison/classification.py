"""The one classification: what changed in one unit, decided here and only here.

``classify_unit`` classifies a unit (``Unit``); every consumer reads its ``Finding`` and
``Classes``. ``classify`` is the quick form for one attempt pair's check codes. A check
passes only when its outcome is ``passed`` (``error``, ``not_run`` and a check present on
one side only are not passing).

- A suite run once: each attempt pair (same suite, case and attempt number) is a unit.
  Regressed: some check went from passing to not passing and none the other way; improved:
  the reverse; mixed: both.
- A suite run with ``--repeat`` on either side: each case is a unit, over every attempt of
  each side. A check dropped when it passed in every attempt before and in none now
  (all-to-none, which is the rule above for one attempt a side), or when Fisher's exact
  test, one-sided, on its pass counts gives p < 0.05; it rose the other way round. A case
  with a drop is regressed (mixed with a rise too), with a rise only improved; a case whose
  checks vary within either run and neither dropped nor rose is flaky: never a regression.
- A check whose change is gold's, not the application's, is left out of those and makes a
  unit ``gold changed`` when nothing else changed: a text check a person's verdict decided
  on one side where the answer is the same on both sides or waits for a verdict on either
  side (a verdict recorded between the runs), and a changed custom expectation compare
  could not re-score (``judged_by_gold``, ``rescore.NOT_RESCORED``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from goldgate.comparison.rescore import NOT_RESCORED
from goldgate.comparison.sides import JUDGED, VERDICT, WAITING, AttemptSide
from goldgate.comparison.stats import drop_is_significant, fisher_drop_p_value

__all__ = ["Unit", "classify", "classify_unit", "judged_by_gold"]


def classify(candidate: str, baseline: str, gold: Collection[int] = ()) -> str:
    """The class of an attempt pair from its check codes (one letter per check): improved,
    regressed, mixed, gold changed or unchanged. Positions in ``gold``, and a baseline check
    compare could not re-score, changed by gold: they only make a pair ``gold changed``."""
    if candidate == baseline:
        return "unchanged"
    up = down = by_gold = False
    for position in range(max(len(candidate), len(baseline))):
        now = position < len(candidate) and candidate[position] == "P"
        before = position < len(baseline) and baseline[position] == "P"
        if now == before:
            continue
        if position in gold or (position < len(baseline) and baseline[position] == NOT_RESCORED):
            by_gold = True
        elif now:
            up = True
        else:
            down = True
    if up and down:
        return "mixed"
    if up or down:
        return "improved" if up else "regressed"
    return "gold changed" if by_gold else "unchanged"


@dataclass(frozen=True)
class Unit:
    """What ``classify_unit`` decided for one unit: its class (``unchanged`` included) and a
    safe sentence."""

    change: str
    detail: str


def _judges(attempts: Sequence[AttemptSide], position: int) -> set[str]:
    """The calibrated judges (``judged:NAME@REVISION``) that decided check ``position``."""
    found = set()
    for attempt in attempts:
        judged = attempt.judged[position] if position < len(attempt.judged) else None
        if judged is not None and judged[0].startswith(JUDGED):
            found.add(judged[0])
    return found


def judged_by_gold(
    position: int, now: Sequence[AttemptSide], before: Sequence[AttemptSide]
) -> bool:
    """Whether a text check's change at ``position`` is a person's verdict recorded between
    the runs: a verdict decided it on some attempt, and either it waits for a verdict on
    some attempt (nothing to compare) or every answer is the same on both sides."""
    states: list[list[tuple[str, str | None] | None]] = [[], []]
    for side, attempts in enumerate((now, before)):
        for attempt in attempts:
            if attempt.status == "completed":
                judged = attempt.judged
                states[side].append(judged[position] if position < len(judged) else None)
    flat = [state for side in states for state in side if state is not None]
    if not flat:
        return False
    if any(state == WAITING for state, _ in flat):
        return True
    if _judges(now, position) != _judges(before, position):
        return True  # a judge calibrated, or its revision changed, between the runs
    if not any(state == VERDICT for state, _ in flat):
        return False  # queued but decided by assertions on both sides: the application's
    answers = [{None if s is None else s[1] for s in side} for side in states]
    return None not in answers[0] | answers[1] and answers[0] == answers[1]


def _code(attempt: AttemptSide, position: int) -> str | None:
    codes = attempt.codes
    return codes[position] if position < len(codes) else None


def _rates(now: int, now_runs: int, before: int, before_runs: int) -> str:
    return f"passed {before}/{before_runs} before, {now}/{now_runs} now"


def _shown(name: str, dropped: bool, counts: tuple[int, int, int, int]) -> str:
    """A check's name with why its rate changed (``counts``: now, now_runs, before, before_runs)."""
    now, now_runs, before, before_runs = counts
    why = _why(dropped, now=now, now_runs=now_runs, before=before, before_runs=before_runs)
    return f"{name} ({why})"


def _why(dropped: bool, *, now: int, now_runs: int, before: int, before_runs: int) -> str:
    """Which test told the change from noise, with its numbers."""
    counts = _rates(now, now_runs, before, before_runs)
    if dropped and before == before_runs and now == 0:
        return f"{counts}: all-to-none"
    if not dropped and now == now_runs and before == 0:
        return f"{counts}: none-to-all"
    if dropped:
        p_value = fisher_drop_p_value(before, before_runs, now, now_runs)
    else:
        p_value = fisher_drop_p_value(now, now_runs, before, before_runs)
    return f"{counts}: Fisher's exact test, one-sided p={p_value:.3g} < 0.05"


def _noise(now: int, now_runs: int, before: int, before_runs: int) -> str:
    counts = _rates(now, now_runs, before, before_runs)
    if now * before_runs < before * now_runs:
        p_value = fisher_drop_p_value(before, before_runs, now, now_runs)
    elif now * before_runs > before * now_runs:
        p_value = fisher_drop_p_value(now, now_runs, before, before_runs)
    else:
        return f"{counts}"
    return f"{counts}; Fisher's exact test, one-sided p={p_value:.3g}, not < 0.05"


def classify_unit(
    names: Sequence[str],
    *,
    now: Sequence[AttemptSide],
    before: Sequence[AttemptSide],
    repeated: bool,
    rescored: bool = False,
) -> Unit:
    """The one classification of one unit: an attempt pair (``repeated`` false, one attempt
    a side) or a case over its repeats (every attempt a side). Skipped attempts are left
    out; ``not compared`` when a side has none left. ``rescored``: the case's gold changed
    and the baseline was re-scored under the candidate's."""
    now = [attempt for attempt in now if attempt.status != "skipped"]
    before = [attempt for attempt in before if attempt.status != "skipped"]
    if not now or not before:
        return Unit("not compared", "skipped on a side")
    now_runs, before_runs = len(now), len(before)
    width = max([len(names), *(len(a.codes) for a in now), *(len(a.codes) for a in before)])
    dropped: list[str] = []
    rose: list[str] = []
    flaky: list[str] = []
    by_gold: list[str] = []
    now_passes, before_passes = _passes(now, width), _passes(before, width)
    # Only these two can make a check's change gold's; most units have neither.
    unscored = any(NOT_RESCORED in attempt.codes for attempt in before)
    judged = any(attempt.judged for attempt in (*now, *before))
    for position in range(width):
        name = names[position] if position < len(names) else f"check {position + 1}"
        passes, passed = now_passes[position], before_passes[position]
        if passes * before_runs == passed * now_runs and not (
            0 < passes < now_runs or 0 < passed < before_runs
        ):
            continue  # the same rate and no noise: nothing to say about this check
        gold = (unscored and any(_code(a, position) == NOT_RESCORED for a in before)) or (
            judged and judged_by_gold(position, now, before)
        )
        counts = (passes, now_runs, passed, before_runs)
        if gold:
            if passes * before_runs != passed * now_runs:
                by_gold.append(f"{name} ({_gold_reason(position, now, before)})")
            continue
        if (passed == before_runs and passes == 0) or drop_is_significant(
            passed, before_runs, passes, now_runs
        ):
            dropped.append(_shown(name, True, counts) if repeated else name)
        elif (passes == now_runs and passed == 0) or drop_is_significant(
            passes, now_runs, passed, before_runs
        ):
            rose.append(_shown(name, False, counts) if repeated else name)
        else:
            flaky.append(f"{name} ({_noise(*counts)})")
    if dropped and rose:
        change = "mixed"
    elif dropped or rose:
        change = "regressed" if dropped else "improved"
    elif flaky:
        change = "flaky"
    elif by_gold or rescored:
        change = "gold changed"
    else:
        change = "unchanged"
    status = ""
    if not repeated and now[0].status != before[0].status:
        status = f"status {before[0].status} -> {now[0].status}"
    return Unit(
        change,
        _detail(
            status, dropped=dropped, rose=rose, flaky=flaky, by_gold=by_gold, rescored=rescored
        ),
    )


def _detail(
    status: str,
    *,
    dropped: list[str],
    rose: list[str],
    flaky: list[str],
    by_gold: list[str],
    rescored: bool,
) -> str:
    parts = [status] if status else []
    for label, names in (
        ("pass to fail", dropped),
        ("fail to pass", rose),
        ("varies within a run", flaky),
        ("gold changed", by_gold),
    ):
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    if rescored:
        parts.append("gold changed: baseline re-scored under the candidate's gold")
    return "; ".join(parts)


def _passes(attempts: Sequence[AttemptSide], width: int) -> list[int]:
    """Per check position, how many of ``attempts`` passed it."""
    counts = [0] * width
    for attempt in attempts:
        for position, code in enumerate(attempt.codes):
            if code == "P":
                counts[position] += 1
    return counts


def _gold_reason(position: int, now: Sequence[AttemptSide], before: Sequence[AttemptSide]) -> str:
    if any(_code(a, position) == NOT_RESCORED for a in before):
        return "a changed custom expectation compare does not re-score"

    def has(attempts: Sequence[AttemptSide], state: str) -> bool:
        return any(
            position < len(a.judged) and (a.judged[position] or ("",))[0] == state for a in attempts
        )

    if has(now, WAITING):
        return "it waits for a person's verdict now"
    if _judges(now, position) != _judges(before, position):
        return "a judge was calibrated, or its revision changed, between the runs"
    if not has(before, VERDICT):
        return "a person's verdict recorded between the runs"
    if not has(now, VERDICT):
        return "a person's verdict removed between the runs"
    return "a person's verdict changed between the runs, same answer"
