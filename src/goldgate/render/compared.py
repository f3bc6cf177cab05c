"""The adapter from a comparison (``goldgate.comparison/1``) to the ``ComparisonView`` every
renderer reads: regressions (attempts regressed or mixed) with the checks that went from pass
to fail, improvements, flaky cases, per-suite McNemar tests and what a partial comparison left
out. Pure and safe: names, ids, outcomes and numbers, never a value.
"""

from __future__ import annotations

from collections.abc import Iterable

from goldgate.comparison.models import AttemptChange, CheckChange, Comparison, SuiteComparison
from goldgate.render.view import ChangeItem, ComparisonView, Location, McNemarItem
from goldgate.report.models import Report

PASSED = "passed"


def _names(checks: Iterable[CheckChange]) -> str:
    return ", ".join(check.name for check in checks)


def change_detail(change: AttemptChange) -> str:
    """One safe sentence: which checks went from pass to fail (and back), and a status
    change, if any."""
    worse = [c for c in change.checks if c.baseline == PASSED and c.candidate != PASSED]
    better = [c for c in change.checks if c.candidate == PASSED and c.baseline != PASSED]
    parts = []
    if change.candidate_status != change.baseline_status:
        parts.append(f"status {change.baseline_status} -> {change.candidate_status}")
    if worse:
        parts.append(f"pass to fail: {_names(worse)}")
    if better:
        parts.append(f"fail to pass: {_names(better)}")
    if change.rescored:
        parts.append("baseline re-scored under this gold")
    return "; ".join(parts)


def _locations(report: Report | None) -> dict[tuple[str, str], Location]:
    if report is None:
        return {}
    return {
        (suite.name, case.id): Location(suite.cases_source, case.line)
        for suite in report.suites
        for case in suite.cases
    }


def _baseline_name(comparison: Comparison) -> str:
    variant = comparison.baseline.variant
    return f"the baseline {variant.name} at revision {variant.revision}"


def _flaky_detail(case_id: str, suite: SuiteComparison) -> str:
    for view in suite.cases:
        if view.case_id == case_id:
            return (
                f"passed {view.candidate_passes} of {view.candidate_attempts} "
                f"(baseline {view.baseline_passes} of {view.baseline_attempts})"
            )
    return ""


def comparison_view(comparison: Comparison, report: Report | None = None) -> ComparisonView:
    """The renderers' view of ``comparison``; ``report`` (its candidate) places each case at
    its gold line."""
    where = _locations(report)
    nowhere = Location(None, None)
    regressions: list[ChangeItem] = []
    improvements: list[ChangeItem] = []
    flaky: list[ChangeItem] = []
    mcnemar: list[McNemarItem] = []
    # Whole suites on one side only (a partial comparison, e.g. with another run's report)
    # are listed too: nothing unmatched is silently dropped.
    added = [f"{name} (the whole suite)" for name in comparison.comparable.added_suites]
    removed = [f"{name} (the whole suite)" for name in comparison.comparable.removed_suites]
    changed: list[str] = []
    for suite in comparison.suites:
        flaky_ids = {case.case_id for case in suite.cases if case.change == "flaky"}
        for change in suite.changes:
            item = ChangeItem(
                suite.name,
                change.case_id,
                change.attempt,
                change.change,
                change_detail(change),
                where.get((suite.name, change.case_id), nowhere),
            )
            if change.change in ("regressed", "mixed"):
                if change.case_id not in flaky_ids:
                    regressions.append(item)
            elif change.change == "improved" and change.case_id not in flaky_ids:
                improvements.append(item)
        for case_id in sorted(flaky_ids, key=[c.case_id for c in suite.cases].index):
            location = where.get((suite.name, case_id), nowhere)
            detail = _flaky_detail(case_id, suite)
            flaky.append(ChangeItem(suite.name, case_id, 0, "flaky", detail, location))
        if suite.status == "compared":
            test = suite.figures.mcnemar
            mcnemar.append(McNemarItem(suite.name, test.regressed, test.improved, test.p_value))
        unmatched = suite.unmatched
        added += (f"{suite.name}: {case_id}" for case_id in unmatched.added)
        removed += (f"{suite.name}: {case_id}" for case_id in unmatched.removed)
        changed += (f"{suite.name}: {case_id}" for case_id in unmatched.input_changed)
    return ComparisonView(
        baseline=_baseline_name(comparison),
        regressions=tuple(regressions),
        improvements=tuple(improvements),
        flaky=tuple(flaky),
        mcnemar=tuple(mcnemar),
        partial=comparison.mode == "partial",
        added=tuple(added),
        removed=tuple(removed),
        changed=tuple(changed),
    )
