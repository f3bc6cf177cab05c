"""The safe summary of a comparison: names, ids, counts, rates, p-values, digests and paths.
Never an input, a result, an expected value or a reason."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from goldgate.base.textsafe import escape_control
from goldgate.comparison.cost import cost_line
from goldgate.comparison.models import (
    CHANGE_CLASSES,
    REPEAT_RULE,
    Classes,
    Comparison,
    Delta,
    Figures,
    ReportRef,
)


def _rate(delta: Delta) -> str:
    def show(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    change = "" if delta.delta is None else f" ({delta.delta:+.3f})"
    return f"{show(delta.baseline)} -> {show(delta.candidate)}{change}"


def classes_text(classes: Classes) -> str:
    """The one classification's counts, in its order: the words every renderer uses."""
    shown = [f"{classes.count(change)} {change}" for change in CHANGE_CLASSES]
    return ", ".join([*shown, f"{classes.unchanged} unchanged"])


def _classes(classes: Classes, figures: Figures) -> str:
    counts = figures.attempts
    extra = [
        f"{value} {label}"
        for value, label in (
            (classes.not_compared, "not compared (skipped)"),
            (counts.candidate_only, "candidate-only repeats"),
            (counts.baseline_only, "baseline-only repeats"),
        )
        if value
    ]
    return "; ".join([classes_text(classes), *extra])


def _line(name: str, classes: Classes, figures: Figures, unit: str) -> str:
    return (
        f"{name}: {_classes(classes, figures)}{unit}; attempt pass rate "
        f"{_rate(figures.attempt_pass_rate)}, McNemar p={figures.mcnemar.p_value:.4g}"
    )


def _unit(units: Collection[str]) -> str:
    if units == {"case"}:
        return " (cases over repeats)"
    if units == {"case", "attempt"}:
        return " (attempts; cases of suites run with --repeat)"
    return ""


def _names(names: Sequence[str]) -> str:
    return ", ".join(escape_control(name) for name in names) or "none"


def _side(ref: ReportRef) -> str:
    replay = " (replay)" if ref.replay_of else ""
    return f"{escape_control(ref.variant.name)}@{escape_control(ref.variant.revision)}{replay}"


def render_comparison(comparison: Comparison, path: Path | None) -> str:
    """A few lines a CI log can show anyone."""
    lines = [
        f"goldgate compare ({comparison.mode}): candidate {_side(comparison.candidate)} vs "
        f"baseline {_side(comparison.baseline)}"
    ]
    for suite in comparison.suites:
        name = escape_control(suite.name)
        lines.append("  " + _line(name, suite.classes, suite.figures, _unit({suite.unit})))
    units = {suite.unit for suite in comparison.suites}
    lines.append(_line("overall", comparison.classes, comparison.overall, _unit(units)))
    if "case" in units:
        lines.append(f"with --repeat, {REPEAT_RULE}")
    comparable = comparison.comparable
    lines.append(
        f"comparable: {comparable.compared_attempts}/{comparable.candidate_attempts} of the "
        f"candidate's attempts ({comparable.share:.1%})"
    )
    if comparison.mode == "partial":
        unmatched = [suite.unmatched for suite in comparison.suites]
        added = sum(len(u.added) for u in unmatched)
        removed = sum(len(u.removed) for u in unmatched)
        changed = sum(len(u.input_changed) for u in unmatched)
        rescored = sum(len(u.rescored) for u in unmatched)
        lines.append(
            f"cases: {added} added, {removed} removed, {changed} input changed (not compared), "
            f"{rescored} gold changed (baseline re-scored under the candidate's gold)"
        )
        if comparable.added_suites or comparable.removed_suites:
            lines.append(
                f"suites: added {_names(comparable.added_suites)}; removed "
                f"{_names(comparable.removed_suites)}"
            )
        effect = comparison.gold_effect
        if effect is not None and effect.rescored_attempts:
            lines.append(
                f"gold edit alone: under the new gold the baseline would fail "
                f"{effect.newly_failing} more checks and pass {effect.newly_passing} more "
                f"({effect.added_checks} added, {effect.removed_checks} removed, "
                f"{effect.not_rescored} custom checks not re-scored)"
            )
    latency = comparison.overall.latency
    if latency.comparable:
        lines.append(f"latency p50 {_rate(latency.p50)} ms, p95 {_rate(latency.p95)} ms")
    else:
        lines.append(f"latency and usage: not comparable ({escape_control(str(latency.reason))})")
    cost = cost_line(comparison.overall.cost)
    if cost is not None:
        lines.append(escape_control(cost))
    verdict = "regressions: yes" if comparison.regressions else "regressions: none"
    lines.append(f"{verdict} (regressed or mixed: {comparison.classes.regressions})")
    if path is not None:
        lines.append(f"comparison: {escape_control(str(path))}")
    return "\n".join(lines)


def comparison_json(comparison: Comparison, path: Path | None) -> dict[str, Any]:
    """The same safe summary for machines."""
    return {
        "mode": comparison.mode,
        "candidate": comparison.candidate.model_dump(mode="json"),
        "baseline": comparison.baseline.model_dump(mode="json"),
        "regressions": comparison.regressions,
        "classes": comparison.classes.model_dump(mode="json"),
        "comparable": comparison.comparable.model_dump(mode="json"),
        "overall": {
            "attempts": comparison.overall.attempts.model_dump(mode="json"),
            "attempt_pass_rate": comparison.overall.attempt_pass_rate.model_dump(mode="json"),
            "mcnemar": comparison.overall.mcnemar.model_dump(mode="json"),
        },
        "suites": [
            {
                "name": suite.name,
                "status": suite.status,
                "unit": suite.unit,
                "classes": suite.classes.model_dump(mode="json"),
                "attempts": suite.figures.attempts.model_dump(mode="json"),
                "attempt_pass_rate": suite.figures.attempt_pass_rate.model_dump(mode="json"),
                "mcnemar": suite.figures.mcnemar.model_dump(mode="json"),
            }
            for suite in comparison.suites
        ],
        "gold_effect": None
        if comparison.gold_effect is None
        else comparison.gold_effect.model_dump(mode="json"),
        "comparison": None if path is None else str(path),
    }
