"""The safe summary printed to stdout: names, counts, verdicts and the report path only.

No inputs, outputs, expected values, reasons or credentials: those stay in the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.base.english import count
from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode
from goldgate.base.textsafe import escape_control
from goldgate.report.plain import record_json

if TYPE_CHECKING:
    from goldgate.report.records import LiveRecord, Report, SuiteRecord


def _suite_line(suite: SuiteRecord, width: int) -> str:
    name = escape_control(suite.name).ljust(width)
    if suite.status == "skipped":
        return f"  {name}  skipped: {escape_control(str(suite.skip_reason))}"
    if suite.status == "not_started":
        return f"  {name}  not started (interrupted)"
    attempts = suite.counts.attempts
    checks = suite.counts.checks
    parts = [
        count(suite.case_count, "case"),
        count(suite.attempt_count, "attempt"),
        f"checks {checks['passed']} passed, {checks['failed']} failed, {checks['error']} error",
    ]
    runtime = attempts["failed"] + attempts["timed_out"]
    if runtime:
        parts.append(count(runtime, "runtime failure"))
    if attempts["cancelled"]:
        parts.append(f"{attempts['cancelled']} cancelled")
    if suite.live is not None:
        parts.extend(live_parts(suite.live))
    if suite.thresholds:
        held = sum(threshold.held for threshold in suite.thresholds)
        parts.append(f"thresholds {held}/{len(suite.thresholds)} held")
        errors = checks["error"]
        if errors and held == len(suite.thresholds) and not runtime:
            parts.append(f"failed on {count(errors, 'check error')}")
    return f"  {name}  {suite.verdict.upper():<10} " + "; ".join(parts)


def live_parts(live: LiveRecord) -> list[str]:
    """What a live suite's calls came to, for its summary line: cached attempts, retries and
    cost (what the answers cost, and what this run paid where the cache saved some)."""
    parts = []
    if live.cached:
        parts.append(f"{live.cached} cached")
    if live.retries:
        parts.append(count(live.retries, "retry", "retries"))
    if live.cost is not None:
        currency = f" {escape_control(live.currency)}" if live.currency else ""
        paid = f" ({live.spent:.4f} spent)" if live.spent != live.cost else ""
        parts.append(f"cost {live.cost:.4f}{currency}{paid}")
    return parts


def render_summary(report: Report, report_path: Path | None, exit_code: ExitCode) -> str:
    """A few lines a CI log can show anyone. ``exit_code`` is the one the process returns,
    which can be more severe than the report's (a report written elsewhere is exit 4)."""
    # Names come from a report file too (report merge): each on its line, controls shown.
    width = max((len(escape_control(suite.name)) for suite in report.suites), default=0)
    dataset = report.dataset
    lines = [
        f"goldgate: {escape_control(dataset.name)} @ {escape_control(dataset.revision)} "
        f"({len(report.suites)} suites, {report.duration_seconds:.2f} s)"
    ]
    lines.extend(_suite_line(suite, width) for suite in report.suites)
    verdict = report.verdict
    if verdict.adjudication:
        count = verdict.adjudication
        lines.append(f"{count} check{'s' * (count != 1)} await{'s' * (count == 1)} a human verdict")
    stopped = escape_control(report.interruption or "interrupted")
    state = "" if report.complete else f" (incomplete: {stopped})"
    lines.append(f"verdict: {_meaning(report, exit_code)} (exit {int(exit_code)}){state}")
    if report_path is not None:
        lines.append(f"report: {escape_control(str(report_path))}")
    return "\n".join(lines)


SHARD_DECIDES_NOTHING = "a shard decides nothing alone: `goldgate report merge` decides"


def shard_exit_code(report: Report, code: ExitCode) -> ExitCode:
    """The code a shard's run exits with: gold disagreement and missed thresholds are 0 (the
    merged report decides on the whole run); invalid input, runtime failures and
    interruptions still fail the shard. Any other run's code is ``code``."""
    if report.options.shard is not None and code is ExitCode.GOLD_DISAGREEMENT:
        return ExitCode.PASSED
    return code


def _meaning(report: Report, exit_code: ExitCode) -> str:
    """The report's own meaning ("nothing was evaluated" included) when the process exits
    with the report's code; otherwise the meaning of the code it exits with."""
    if int(exit_code) == report.verdict.exit_code:
        return report.verdict.meaning
    if shard_exit_code(report, ExitCode(report.verdict.exit_code)) is exit_code:
        return f"{report.verdict.meaning} in this shard; {SHARD_DECIDES_NOTHING}"
    return EXIT_CODE_MEANINGS[exit_code]


def summary_json(
    report: Report, report_path: Path | None, exit_code: ExitCode
) -> dict[str, object]:
    """The same safe summary for machines, its verdict stating ``exit_code`` as well."""
    return {
        "dataset": report.dataset.name,
        "revision": report.dataset.revision,
        "fingerprint": report.dataset.fingerprint,
        "complete": report.complete,
        "verdict": {
            **record_json(report.verdict),
            # A shard's exit 0 on disagreement is not a pass: its report's verdict says so.
            "passed": exit_code == ExitCode.PASSED and report.verdict.passed,
            "exit_code": int(exit_code),
            "meaning": _meaning(report, exit_code),
        },
        "suites": [
            {
                "name": suite.name,
                "status": suite.status,
                "verdict": suite.verdict,
                "skip_reason": suite.skip_reason,
                "case_count": suite.case_count,
                "attempt_count": suite.attempt_count,
                "counts": record_json(suite.counts),
                "thresholds": [record_json(threshold) for threshold in suite.thresholds],
                **({} if suite.live is None else {"live": record_json(suite.live)}),
            }
            for suite in report.suites
        ],
        "report": str(report_path) if report_path is not None else None,
    }
