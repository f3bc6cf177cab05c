"""The adapter from a comparison (``goldgate.comparison/1``) to the ``ComparisonView`` every
renderer reads. It reads the comparison's one classification (its findings and counts) and
decides nothing itself: regressions (regressed or mixed), improvements, flaky cases, gold
changes and input changes are the comparison's, with their details; per-suite McNemar tests
and what a partial comparison left out. Pure and safe: names, ids, outcomes and numbers,
never a value.
"""

from __future__ import annotations

from goldgate.comparison.models import CHANGE_CLASSES, REPEAT_RULE, Comparison
from goldgate.comparison.summary import classes_text
from goldgate.render.costrow import cost_rows
from goldgate.render.view import REGRESSIONS, ChangeItem, ComparisonView, Location, McNemarItem
from goldgate.report.models import Report


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


def _counts(comparison: Comparison) -> str:
    units = {suite.unit for suite in comparison.suites}
    unit = {
        frozenset({"attempt"}): "attempts",
        frozenset({"case"}): "cases over repeats",
    }.get(frozenset(units), "attempts; cases of suites run with --repeat")
    return f"{classes_text(comparison.classes)} ({unit})"


def comparison_view(comparison: Comparison, report: Report | None = None) -> ComparisonView:
    """The renderers' view of ``comparison``; ``report`` (its candidate) places each case at
    its gold line."""
    where = _locations(report)
    nowhere = Location(None, None)
    listed: dict[str, list[ChangeItem]] = {change: [] for change in CHANGE_CLASSES}
    mcnemar: list[McNemarItem] = []
    # Whole suites on one side only (a partial comparison, e.g. with another run's report)
    # are listed too: nothing unmatched is silently dropped.
    added = [f"{name} (the whole suite)" for name in comparison.comparable.added_suites]
    removed = [f"{name} (the whole suite)" for name in comparison.comparable.removed_suites]
    changed: list[str] = []
    regressions: list[ChangeItem] = []  # regressed and mixed, in the comparison's order
    for suite in comparison.suites:
        for finding in suite.findings:
            item = ChangeItem(
                suite.name,
                finding.case_id,
                finding.attempt,
                finding.change,
                finding.detail,
                where.get((suite.name, finding.case_id), nowhere),
            )
            listed[finding.change].append(item)
            if finding.change in REGRESSIONS:
                regressions.append(item)
            if finding.change == "input changed":
                changed.append(f"{suite.name}: {finding.case_id}")
        if suite.status == "compared":
            test = suite.figures.mcnemar
            mcnemar.append(McNemarItem(suite.name, test.regressed, test.improved, test.p_value))
        unmatched = suite.unmatched
        added += (f"{suite.name}: {case_id}" for case_id in unmatched.added)
        removed += (f"{suite.name}: {case_id}" for case_id in unmatched.removed)
    return ComparisonView(
        baseline=_baseline_name(comparison),
        regressions=tuple(regressions),
        improvements=tuple(listed["improved"]),
        flaky=tuple(listed["flaky"]),
        gold_changes=tuple(listed["gold changed"]),
        mcnemar=tuple(mcnemar),
        partial=comparison.mode == "partial",
        added=tuple(added),
        removed=tuple(removed),
        changed=tuple(changed),
        input_changes=tuple(listed["input changed"]),
        counts=_counts(comparison),
        rule=REPEAT_RULE if any(suite.unit == "case" for suite in comparison.suites) else "",
        suite_counts={
            suite.name: {change: suite.classes.count(change) for change in CHANGE_CLASSES}
            | {"unchanged": suite.classes.unchanged}
            for suite in comparison.suites
        },
        cost=cost_rows(comparison.overall.cost),
    )
