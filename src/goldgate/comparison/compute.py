"""Two report sides in, one ``Comparison`` out. Pure: nothing here reads or writes a file.

The comparison is assembled here from its parts: ``refusals`` says whether the sides may be
compared at all; each suite pair is matched case by case (a case added, removed, or whose
input changed is listed, not compared; a case whose gold changed, with ``--partial``, has
its baseline re-scored under the candidate's gold, ``rescore``, and its effect counted in
``GoldEffect``); each unit is classified by ``classification`` (the one classification,
decided there and only there; every consumer reads its ``Finding`` and ``Classes``); and
``figures`` adds up each side's attempts into the deltas shown. A case whose gold changed
(partial) is ``gold changed`` unless its application change under the one gold says more;
a case whose input changed is ``input changed`` and not compared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from goldgate._version import __version__
from goldgate.comparison.classification import Unit, classify, classify_unit, judged_by_gold
from goldgate.comparison.figures import (
    Tally,
    figures_of,
    metric_deltas,
    summary_deltas,
    threshold_deltas,
)
from goldgate.comparison.models import (
    REPEAT_RULE,
    SINGLE_RULE,
    AttemptChange,
    CaseView,
    CheckChange,
    Classes,
    Comparable,
    Comparison,
    CountDelta,
    Finding,
    GoldEffect,
    ReportRef,
    SuiteComparison,
    Unmatched,
    case_change,
    finding_change,
)
from goldgate.comparison.opened import ReportSide, SuiteSide
from goldgate.comparison.refusals import (
    require_complete,
    require_same_catalogs,
    require_same_scorers,
    require_same_suites,
    require_same_target,
)
from goldgate.comparison.rescore import NOT_RESCORED, rescore_case
from goldgate.comparison.sides import OUTCOMES, AttemptSide, CaseSide
from goldgate.comparison.spool import Budget, Spooler
from goldgate.comparison.walk import SuiteWalk, unpaired_attempts

__all__ = ["compare_sides"]


# --- one suite ----------------------------------------------------------------------------------


def _count_effect(
    effect: Counter[str],
    case: CaseSide,
    *,
    old: AttemptSide,
    new: AttemptSide,
    names: Sequence[str],
) -> None:
    """Count into ``effect``, by ``GoldEffect``'s field names, what re-scoring the baseline's
    attempt ``old`` under the candidate's gold (``new``) did to its checks."""
    effect["rescored_attempts"] += 1
    before = dict(zip(case.names, old.codes, strict=True))
    after = dict(zip(names, new.codes, strict=True))
    for name, code in after.items():
        if code == NOT_RESCORED:
            effect["not_rescored"] += 1
        elif name not in before:
            effect["added_checks"] += 1
        elif before[name] == "P" and code != "P":
            effect["newly_failing"] += 1
        elif before[name] != "P" and code == "P":
            effect["newly_passing"] += 1
    effect["removed_checks"] += sum(1 for name in before if name not in after)


def _outcome(code: str | None) -> str | None:
    return None if code is None or code == NOT_RESCORED else OUTCOMES[code]


def _change(
    case: CaseSide,
    *,
    now: AttemptSide,
    before: AttemptSide,
    before_codes: str,
    change: str,
    rescored: bool,
) -> AttemptChange:
    names = case.names
    checks = []
    for position, name in enumerate(names):
        mine = now.codes[position] if position < len(now.codes) else None
        theirs = before_codes[position] if position < len(before_codes) else None
        if (mine == "P") != (theirs == "P"):
            checks.append(
                CheckChange(name=name, candidate=_outcome(mine), baseline=_outcome(theirs))
            )
    return AttemptChange(
        case_id=case.id,
        attempt=now.attempt,
        change=change,
        candidate_status=now.status,
        baseline_status=before.status,
        rescored=rescored,
        checks=tuple(checks),
    )


def _case_view(
    case_id: str, now: Sequence[AttemptSide], before: Sequence[AttemptSide], change: str
) -> CaseView:
    def passes(attempts: Iterable[AttemptSide]) -> tuple[int, int]:
        ran = [a for a in attempts if a.status != "skipped"]
        return sum(1 for a in ran if a.codes.count("P") == len(a.codes)), len(ran)

    mine, mine_n = passes(now)
    theirs, theirs_n = passes(before)
    return CaseView(
        case_id=case_id,
        candidate_passes=mine,
        candidate_attempts=mine_n,
        baseline_passes=theirs,
        baseline_attempts=theirs_n,
        candidate_flaky=_varies(now),
        baseline_flaky=_varies(before),
        change="unchanged" if change == "not compared" else change,
    )


def _varies(attempts: Sequence[AttemptSide]) -> bool:
    """Whether the attempts that ran disagree on some check's passing."""
    ran = {tuple(code == "P" for code in a.codes) for a in attempts if a.status != "skipped"}
    return len(ran) > 1


def _gold_positions(now: AttemptSide, before: AttemptSide) -> frozenset[int]:
    if not (now.judged or before.judged):
        return frozenset()
    width = max(len(now.judged), len(before.judged))
    return frozenset(p for p in range(width) if judged_by_gold(p, (now,), (before,)))


def _pairs(
    case: CaseSide, before_attempts: Sequence[AttemptSide], classes: Counter[str], rescored: bool
) -> list[AttemptChange]:
    """Classify a case's attempt pairs (attempt k with attempt k) into ``classes``; attempts
    beyond the other side's repeats are counted, never dropped. Returns what changed."""
    changes = []
    paired = min(len(case.attempts), len(before_attempts))
    classes["candidate_only"] += len(case.attempts) - paired
    classes["baseline_only"] += len(before_attempts) - paired
    for now, before in zip(case.attempts, before_attempts, strict=False):
        if now.status == "skipped" or before.status == "skipped":
            classes["not_compared"] += 1
            continue
        if now.codes == before.codes:  # most pairs: ``classify`` says so whatever the gold
            classes["unchanged"] += 1
            continue
        change = classify(now.codes, before.codes, _gold_positions(now, before))
        classes[change] += 1
        if change != "unchanged":
            changes.append(
                _change(
                    case,
                    now=now,
                    before=before,
                    before_codes=before.codes,
                    change=change,
                    rescored=rescored,
                )
            )
    return changes


@dataclass
class _SuiteResult:
    comparison: SuiteComparison
    tally: Tally
    effect: Counter[str]
    """The gold edit's effect on the suite, by ``GoldEffect``'s field names."""
    attempts: int
    """The candidate suite's attempts."""


def _priced(candidate: SuiteSide, baseline: SuiteSide) -> Tally:
    """A suite's empty tally, with the currencies of each side's pricing."""
    tally = Tally()
    for side, record in ((tally.candidate, candidate.record), (tally.baseline, baseline.record)):
        if record.target.pricing is not None:
            side.currencies.add(record.target.pricing.currency)
    return tally


def _compare_suite(
    *,
    candidate: SuiteSide,
    baseline: SuiteSide,
    partial: bool,
    replay: bool,
    baseline_path: str,
    budget: Budget,
) -> _SuiteResult:
    require_same_target(candidate, baseline)
    if not partial:
        require_same_catalogs(candidate, baseline)
    skipped = "skipped" in (candidate.record.status, baseline.record.status)
    repeated = max(candidate.record.repeat, baseline.record.repeat) > 1
    tally, effect = _priced(candidate, baseline), Counter[str]()
    # The per-case lists are spooled past a size (``comparison.spool``): never held whole.
    changes = Spooler(AttemptChange, budget=budget)
    views = Spooler(CaseView, key=case_change, budget=budget)
    added, input_changed, rescored_ids, removed = (Spooler(str, budget=budget) for _ in range(4))
    counts = Counter[str]()
    findings = Spooler(Finding, key=finding_change, budget=budget)
    classes = Counter[str]()
    # One case of each side at a time, as the walk pairs them (``comparison.walk``):
    # classified, tallied and let go of.
    walk = SuiteWalk(candidate, baseline, full=not partial, removed=removed.append)
    for met in walk:
        case_id = met.id
        if met.change == "added":
            added.append(case_id)
            counts["added"] += met.attempts
            continue
        if met.change == "input changed":
            input_changed.append(case_id)
            counts["input_changed"] += met.attempts
            classes["input changed"] += 1
            findings.append(
                Finding(
                    case_id=case_id,
                    attempt=0,
                    change="input changed",
                    detail="input changed: not compared (its input differs from the baseline's)",
                )
            )
            continue
        rescored, case, before_case = met.rescored, met.case, met.before
        assert case is not None
        assert before_case is not None
        names = case.names
        before_attempts = before_case.attempts
        if rescored:
            rescored_ids.append(case.id)
            effect["rescored_cases"] += 1
            before_attempts = rescore_case(case, before_case, candidate.name, baseline_path)
            for old, new in zip(before_case.attempts, before_attempts, strict=True):
                _count_effect(effect, before_case, old=old, new=new, names=names)
        tally.candidate.add_case(case.attempts, names)
        tally.baseline.add_case(before_attempts, names)
        changes.extend(_pairs(case, before_attempts, tally.classes, rescored))
        view = _classify_case(
            case,
            before_attempts,
            repeated=repeated,
            rescored=rescored,
            findings=findings,
            classes=classes,
        )
        if view is not None:
            views.append(view)
    unmatched = Unmatched(
        added=added.done(),
        removed=removed.done(),
        input_changed=input_changed.done(),
        rescored=rescored_ids.done(),
        added_attempts=counts["added"],
        removed_attempts=walk.removed_attempts,
        input_changed_attempts=counts["input_changed"],
    )
    same_cases = not (len(added) or len(removed) or len(input_changed) or len(rescored_ids))
    listed_views = views.done()
    comparison = SuiteComparison(
        name=candidate.name,
        status="skipped" if skipped else "compared",
        repeat=CountDelta(
            candidate=candidate.record.repeat,
            baseline=baseline.record.repeat,
            delta=candidate.record.repeat - baseline.record.repeat,
        ),
        figures=figures_of(tally, replay),
        metrics=metric_deltas(candidate, baseline),
        thresholds=threshold_deltas(candidate, baseline),
        summary=summary_deltas(candidate, baseline),
        changes=changes.done(),
        case_changes=dict(listed_views.counts(case_change)) if repeated else {},
        cases=listed_views,
        unmatched=unmatched,
        metrics_scope="same cases" if same_cases else "each report's cases",
        unit="case" if repeated else "attempt",
        rule=REPEAT_RULE if repeated else SINGLE_RULE,
        classes=Classes(**{key.replace(" ", "_"): value for key, value in classes.items()}),
        findings=findings.done(),
    )
    return _SuiteResult(comparison, tally, effect, walk.attempts)


def _classify_case(
    case: CaseSide,
    before_attempts: Sequence[AttemptSide],
    *,
    repeated: bool,
    rescored: bool,
    findings: Spooler[Finding],
    classes: Counter[str],
) -> CaseView | None:
    """The one classification of a compared case into ``findings`` and ``classes``: the case
    over its repeats (and its view), or each attempt pair of a suite run once."""
    names = case.names
    if repeated:
        unit = classify_unit(
            names, now=case.attempts, before=before_attempts, repeated=True, rescored=rescored
        )
        _record(findings, classes, case.id, 0, unit)
        return _case_view(case.id, case.attempts, before_attempts, unit.change)
    for now, before in zip(case.attempts, before_attempts, strict=False):
        if (
            now.codes == before.codes
            and not rescored
            and "skipped" not in (now.status, before.status)
        ):
            classes["unchanged"] += 1  # most pairs: nothing to classify
            continue
        unit = classify_unit(names, now=(now,), before=(before,), repeated=False, rescored=rescored)
        _record(findings, classes, case.id, now.attempt, unit)
    return None


def _record(
    findings: Spooler[Finding], classes: Counter[str], case_id: str, attempt: int, unit: Unit
) -> None:
    classes[unit.change] += 1
    if unit.change not in ("unchanged", "not compared"):
        findings.append(
            Finding(case_id=case_id, attempt=attempt, change=unit.change, detail=unit.detail)
        )


# --- the whole comparison -----------------------------------------------------------------------


def _reference(side: ReportSide) -> ReportRef:
    header = side.header
    return ReportRef(
        path=side.path,
        digest=side.digest,
        started_at=header.started_at,
        dataset=header.dataset,
        variant=header.variant,
        replay_of=header.replay_of.digest if header.replay_of is not None else None,
    )


def compare_sides(
    candidate: ReportSide, baseline: ReportSide, *, partial: bool, now: datetime
) -> Comparison:
    """The comparison of two sides, or ``InvalidInputError`` naming the first thing that
    makes them incomparable."""
    require_complete(candidate)
    require_complete(baseline)
    require_same_scorers(candidate, baseline)
    if not partial:
        require_same_suites(candidate, baseline)
    replay = candidate.is_replay or baseline.is_replay
    results = []
    added_suites = []
    budget = Budget()  # what the suites' lists may keep in memory, together
    total = 0
    for suite in candidate.suites:
        other = baseline.suite(suite.name)
        if other is None:
            added_suites.append(suite.name)
            total += unpaired_attempts(suite)
            continue
        results.append(
            _compare_suite(
                candidate=suite,
                baseline=other,
                partial=partial,
                replay=replay,
                baseline_path=baseline.path,
                budget=budget,
            )
        )
    removed_suites = [s.name for s in baseline.suites if candidate.suite(s.name) is None]
    for name in removed_suites:
        unpaired_attempts(baseline.suite(name))
    overall, effect = Tally(), Counter[str]()
    for result in results:
        overall.merge(result.tally)
        effect.update(result.effect)
    figures = figures_of(overall, replay)
    counts = figures.attempts
    compared = (
        counts.improved + counts.regressed + counts.mixed + counts.gold_changed + counts.unchanged
    )
    classes = Classes()
    for result in results:
        classes = classes.plus(result.comparison.classes)
    total += sum(result.attempts for result in results)
    return Comparison(
        goldgate_version=__version__,
        created_at=now.isoformat(),
        mode="partial" if partial else "full",
        candidate=_reference(candidate),
        baseline=_reference(baseline),
        comparable=Comparable(
            candidate_attempts=total,
            compared_attempts=compared,
            share=compared / total if total else 0.0,
            added_suites=tuple(added_suites),
            removed_suites=tuple(removed_suites),
        ),
        regressions=classes.regressions > 0,
        classes=classes,
        overall=figures,
        suites=tuple(result.comparison for result in results),
        gold_effect=GoldEffect(**effect) if partial else None,
    )
