"""The words of a report's first line, shared by the Markdown report and the terminal: the
verdict in a word, the attempts by what became of them, and what changed against the
baseline (or that there is none)."""

from __future__ import annotations

from collections.abc import Mapping

from goldgate.base.errors import ExitCode
from goldgate.render import text
from goldgate.render.deltas import Figure
from goldgate.render.view import ComparisonView, ReportView


def verdict_word(code: int, evaluated: bool) -> str:
    """The verdict in a word, for an exit code (the run's, or the step's under fail_on)."""
    if code == ExitCode.INTERRUPTED:
        return "interrupted"
    if code == 0:
        return "passed" if evaluated else "nothing evaluated"
    return "failed"


def attempt_counts(counts: Mapping[str, int]) -> str:
    """The attempts by what became of them, only the kinds that occurred: "20 passed, 3
    failing, 1 runtime failure, 1 skipped"."""
    parts = [f"{counts['passed']:,} passed"]
    for key, noun, plural in (
        ("failure", "failing", "failing"),
        ("runtime", "runtime failure", None),
        ("check_error", "check error", None),
        ("skipped", "skipped", "skipped"),
        ("cancelled", "cancelled", "cancelled"),
    ):
        if counts[key]:
            parts.append(text.count(counts[key], noun, plural))
    return ", ".join(parts)


def headline(view: ReportView) -> str:
    """What line one says after the verdict: the comparison's counts and its baseline, then
    the failing suites it could not compare (a live suite the model-free baseline skipped, a
    suite the pull request added), or the attempts' counts and that there is no baseline."""
    comparison = view.comparison
    if comparison is None:
        return f"{attempt_counts(view.counts)}; no baseline"
    line = f"{comparison.headline} against {comparison.baseline}"
    outside = _failing_outside(view, comparison)
    return f"{line}; outside the comparison: {outside}" if outside else line


_SUITES_NAMED = 3
"""Failing suites outside the comparison named on the first line; the rest are counted."""


def _failing_outside(view: ReportView, comparison: ComparisonView) -> str:
    """The candidate's failed or errored suites that were not compared, in words: without
    them a run that failed only there would read "failed — nothing changed"."""
    failing = [
        f"{suite.name} failed" if suite.record.verdict == "failed" else f"{suite.name} errored"
        for suite in view.suites
        if suite.record.verdict in ("failed", "error") and suite.name in comparison.uncompared
    ]
    if len(failing) > _SUITES_NAMED:
        rest = len(failing) - _SUITES_NAMED + 1
        failing[_SUITES_NAMED - 1 :] = [f"{rest} more suites failed or errored"]
    return ", ".join(failing)


def overall_pass_rate(comparison: ComparisonView) -> str | None:
    """The pass rate over every compared suite, before and after ("attempts passed 83.3% →
    79.2% (-4.2 pts)"): a change spread over suites, shown whole; None without figures."""
    overall = comparison.overall
    if overall is None:
        return None
    rate = overall.attempt_pass_rate
    figure = Figure("attempts passed", rate.baseline, rate.candidate, "rate")
    return f"attempts passed {figure.before()} → {figure.after()} ({figure.change})"
