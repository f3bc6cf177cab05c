"""The action's pure decisions: the step's exit code, and whether a baseline may be compared.

``decide_exit`` applies ``fail_on`` to the run's exit code and the comparison's one
classification, and says in one sentence which rule decided. ``baseline_refusal`` and
``nothing_compared`` say why a baseline must not count as compared: one of another dataset
or choice of suites, or a comparison that compared nothing, would say that nothing
regressed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, assert_type

from goldgate.base.english import count
from goldgate.base.errors import ExitCode

if TYPE_CHECKING:
    from goldgate.app.action.inputs import FailOn
    from goldgate.comparison.models import Comparison
    from goldgate.github.checkruns import Conclusion
    from goldgate.report.models import Report

PASSTHROUGH_CODES = frozenset({ExitCode.INVALID_INPUT, ExitCode.INTERRUPTED})
"""Exit codes that ``fail_on: never`` passes on: the input was invalid, or the run stopped."""


def _meaning(code: int) -> str:
    from goldgate.base.errors import EXIT_CODE_MEANINGS

    meaning = {int(key): value for key, value in EXIT_CODE_MEANINGS.items()}.get(code)
    return f"exit code {code}" + (f", {meaning}" if meaning else "")


def decide_exit(fail_on: FailOn, run_code: int, comparison: Comparison | None) -> tuple[int, str]:
    """The step's exit code under ``fail_on`` and one sentence, in plain words, saying
    which rule decided and why (shown below the verdict of the comment and summary).
    ``fail_on`` is one of ``FAIL_ON`` (``read_inputs`` refuses any other word), so every
    branch is one of its values and none stands in for an unknown one."""
    run = _meaning(run_code)
    if fail_on == "never":
        if run_code in PASSTHROUGH_CODES:
            return run_code, (
                f"Failed: the input was invalid or the run was interrupted ({run}), which "
                "fail_on never does not pass over."
            )
        return 0, f"Passed whatever the run found, as fail_on is never (goldgate: {run})."
    if fail_on == "regression":
        if run_code in (*PASSTHROUGH_CODES, ExitCode.MISSING_DEPENDENCY, ExitCode.RUNTIME_FAILURE):
            return run_code, (
                f"Failed: the run itself did not complete cleanly ({run}), which fails even "
                "where fail_on is regression."
            )
        also = "" if run_code == 0 else f" (goldgate: {run})"
        if comparison is None:
            return 0, (
                f"Passed: fail_on is regression and there is no baseline to compare with{also}."
            )
        regressed = comparison.classes.regressions  # the comparison's one classification
        if regressed:
            return 1, (
                f"Failed: {regressed:,} regressed or mixed against the baseline, and fail_on "
                "is regression."
            )
        return 0, (
            f"Passed: nothing regressed against the baseline, and fail_on is regression{also}."
        )
    assert_type(fail_on, Literal["disagreement"])
    if run_code == 0:
        return 0, "Passed: nothing disagreed with the gold (fail_on is disagreement)."
    from goldgate.render.view import exit_explanation

    return run_code, f"Failed, as fail_on is disagreement: {run}. {exit_explanation(run_code)}"


def check_conclusion(
    fail_on: FailOn, code: int, run_code: int, comparison: Comparison | None
) -> Conclusion:
    """The check run's conclusion, agreeing with the step's exit code ``code`` (what
    ``decide_exit`` gave) and goldgate's own ``run_code``: ``cancelled`` for an interrupted
    run, ``failure`` when the step fails, ``neutral`` when it passes only because fail_on
    is never (the run found something: a disagreement, an error, a regression), else
    ``success``."""
    if run_code == ExitCode.INTERRUPTED:
        return "cancelled"
    if code != 0:
        return "failure"
    regressed = comparison is not None and comparison.classes.regressions > 0
    if fail_on == "never" and (run_code != 0 or regressed):
        return "neutral"
    return "success"


def baseline_refusal(candidate: Report, baseline: Report) -> str | None:
    """Why ``baseline`` must not be compared with ``candidate`` at all, or None: a report of
    another dataset, or of another choice of suites, would compare little or nothing and
    then say that nothing regressed."""
    if baseline.dataset.name != candidate.dataset.name:
        return (
            f"it is a report of the dataset {baseline.dataset.name!r}, the candidate of "
            f"{candidate.dataset.name!r}"
        )

    def chosen(report: Report) -> str:
        return ", ".join(repr(name) for name in sorted(report.options.suites)) or "all suites"

    if set(baseline.options.suites) != set(candidate.options.suites):
        return f"it ran {chosen(baseline)}, the candidate {chosen(candidate)}"
    names = {suite.name for suite in baseline.suites}
    if candidate.suites and not any(suite.name in names for suite in candidate.suites):
        return "it holds none of the candidate's suites"
    return None


def nothing_compared(comparison: Comparison) -> str | None:
    """Why a comparison that compared no attempt of the candidate is no comparison."""
    comparable = comparison.comparable
    if comparable.candidate_attempts and not comparable.compared_attempts:
        attempts = count(comparable.candidate_attempts, "attempt")
        return (
            f"none of the candidate's {attempts} could be compared "
            "with the baseline (their inputs or gold differ, or they did not run)"
        )
    return None
