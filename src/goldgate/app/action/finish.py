"""The step every mode ends with: from a report on disk to the step's exit code.

``conclude`` reads the report (just run, replayed, or given), compares it with the baseline
(``baseline.find_baseline``; ``rules`` says when one must not count), publishes
(``publish``) and decides the exit code under ``fail_on`` (``rules.decide_exit``). A run
with no report to publish still writes its outputs and a summary that says why.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.action.baseline import find_baseline, replayed_other_report
from goldgate.app.action.inputs import ActionInputs
from goldgate.app.action.publish import Publication, publish
from goldgate.app.action.rules import (
    baseline_refusal,
    check_conclusion,
    decide_exit,
    nothing_compared,
)
from goldgate.app.action.step import (
    WORK_FOLDER,
    StepRun,
    append_step_summary,
    note_interrupted,
    write_step_outputs,
)
from goldgate.base.errors import ExitCode, GoldgateError, RuntimeFailureError, most_severe
from goldgate.github.client import describe_error

if TYPE_CHECKING:
    from goldgate.app.action.verifying import Deferred, Handed
    from goldgate.app.renderpass import BaselineRead
    from goldgate.comparison.models import Comparison
    from goldgate.github.event import GitHubEvent
    from goldgate.report.idrepeats import IdHook
    from goldgate.report.streamread import StreamedReport


@dataclass(frozen=True)
class _Opened:
    """The candidate open while it is published (with whether its ids may repeat, which its
    scan noted for the comparison's walk), the stack that keeps the baseline open too, and
    the helper verifying them meanwhile (``verifying.Deferred``; None: each verified as it
    was read)."""

    streamed: StreamedReport
    ids: IdHook | None
    stack: contextlib.ExitStack[bool | None]
    deferred: Deferred | None


def conclude(
    run: StepRun,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    report_path: Path,
    run_code: int,
    *,
    recorded: str | None = None,
) -> int:
    """From a report on disk (just run, replayed, or given): compare with the baseline, render
    and publish, and decide the step's exit code under fail_on. Mode compare and mode report
    take the run's exit code from the report's own verdict. ``recorded`` (``goldgate
    publish``: the hand-off's sha256 of the report) must be the digest of the very bytes
    read and verified here, or nothing is published (a report swapped after the hand-off
    was checked is refused). The report and a baseline file are verified by a helper while
    this process compares and renders them, nothing published before they are
    (``verifying``).

    SIGINT or SIGTERM while the baseline downloads (or is compared) or the comment posts
    stops that, not the step: what can still be written (JUnit, the summary, the outputs)
    is, with exit 130."""
    from goldgate.app.action.verifying import verified_meanwhile
    from goldgate.base.memory import freeze_survivors

    # What the step holds by now (its modules, inputs, a run's gold) lives as long as it:
    # frozen out of the collections the publishing's imports would trigger (a full one
    # took some 0.05 s at 10,000 attempts), and out of its helpers' (fewer pages copied).
    freeze_survivors()
    paths = [report_path] if report_path.is_file() else []
    source = inputs.baseline
    if paths and source and not source.startswith("artifact:") and Path(source).is_file():
        paths.append(Path(source))

    def attempt(deferred: Deferred | None) -> int:
        return _concluded(
            run, inputs, event, (report_path, run_code), recorded=recorded, deferred=deferred
        )

    return verified_meanwhile(run, paths, attempt)


def _concluded(
    run: StepRun,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    ran: tuple[Path, int],
    *,
    recorded: str | None,
    deferred: Deferred | None,
) -> int:
    """``conclude`` for the report at ``ran[0]`` (the run's code ``ran[1]``), verified as it
    is read, or by ``deferred``'s helper before anything is published."""
    from goldgate.report.idrepeats import IdHook
    from goldgate.report.streamread import streamed_from_scan, streamed_report

    report_path, run_code = ran
    with contextlib.ExitStack() as stack:
        streamed: StreamedReport | None = None
        refused: GoldgateError | None = None
        # Whether the candidate's ids may repeat is noted by the scan that verifies it.
        ids = None if inputs.baseline is None else IdHook(str(report_path))
        if deferred is not None and report_path.is_file():
            _scan_ahead(inputs, deferred, report_path, ids)
        if report_path.is_file():
            try:  # verified a case at a time; its cases are read again once, to publish
                handed = None if deferred is None else deferred.handed(report_path)
                if handed is not None:  # scanned by the helper that verifies it
                    streamed = stack.enter_context(streamed_from_scan(report_path, handed.scan))
                    ids = _handed_ids(handed, ids)
                else:
                    streamed = stack.enter_context(
                        streamed_report(report_path, on_case=ids, verify=deferred is None)
                    )
            except GoldgateError as error:  # unreadable, or its stored verdict is not its own
                refused = error
            except MemoryError:
                refused = RuntimeFailureError(f"{report_path}: too large to read in this memory.")
        if streamed is not None and deferred is not None:
            deferred.used(streamed)  # a helper verifies it from this scan meanwhile
        if streamed is None:
            _settle(deferred)
            if refused is not None:
                run_code = int(most_severe(ExitCode(run_code), refused.exit_code))
                run.failure = str(refused)
            return _no_report(run, inputs, run_code)
        if recorded is not None and streamed.digest != f"sha256:{recorded}":
            _settle(deferred)
            return run.commands.refuse(
                f"the report {report_path} is not the one the run step recorded (its digest "
                "differs): it was changed after user code ran; nothing is published."
            )
        return _conclude(run, inputs, event, _Opened(streamed, ids, stack, deferred), run_code)


_LOADED_MEANWHILE = (
    "goldgate.app.renderpass",
    "goldgate.render.html",
    "goldgate.render.htmlcases",
    "goldgate.render.markdown",
)
"""What publishing imports in any case: loaded while the helpers scan the reports (with the
comparison's where there is a baseline, JUnit's where it is asked for)."""


def _scan_ahead(
    inputs: ActionInputs, deferred: Deferred, report_path: Path, ids: IdHook | None
) -> None:
    """The report and a baseline file scanned by helpers (``Deferred.scan_ahead``), which
    then verify them, while this process loads the modules comparing and rendering them
    take (some 0.2 s it would otherwise spend before it could start)."""
    import importlib

    from goldgate.app.renderpass import baseline_hooks
    from goldgate.base.memory import long_lived

    deferred.scan_ahead(report_path, () if ids is None else (ids,))
    source = inputs.baseline
    if source is not None and not source.startswith("artifact:") and Path(source).is_file():
        deferred.scan_ahead(Path(source), baseline_hooks(Path(source)))
    loaded = (
        *_LOADED_MEANWHILE,
        *(() if source is None else ("goldgate.comparison",)),
        *(() if inputs.junit is None else ("goldgate.render.junit",)),
    )
    with long_lived():  # modules and models: no collection scans them, now or later
        for name in loaded:
            importlib.import_module(name)


def _handed_ids(handed: Handed, ids: IdHook | None) -> IdHook | None:
    """The helper's copy of the candidate's ``ids`` (it saw every case), where one was given."""
    if ids is None:
        return None
    (copy,) = handed.hooks
    assert isinstance(copy, type(ids))
    return copy


def _settle(deferred: Deferred | None) -> Path | None:
    """Wait for the reports' verification, where a helper does it (``verifying``)."""
    return None if deferred is None else deferred.settle()


def _conclude(
    run: StepRun,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    opened: _Opened,
    run_code: int,
) -> int:
    """``conclude`` for the report ``opened.streamed``, open while it is published, as is
    the baseline (kept open in ``opened.stack``)."""
    streamed, deferred = opened.streamed, opened.deferred
    report, report_path = streamed.report, Path(streamed.path)
    now = datetime.now(UTC)
    if inputs.mode in ("compare", "report"):
        run_code = report.verdict.exit_code  # recomputed from its attempts as it was read
    comparison: Comparison | None = None
    comparison_path: Path | None = None
    baseline: BaselineRead | None = None
    if run_code == ExitCode.INTERRUPTED:
        run.notes.append("No baseline: the run was interrupted, so nothing was compared.")
    else:
        try:
            comparison, comparison_path, baseline = _compare(run, inputs, event, opened, now)
        except KeyboardInterrupt:
            note_interrupted(
                run, "while the baseline was fetched or compared; nothing was compared"
            )
    if run.failure is not None:  # the baseline was refused: nothing it says is trusted
        _settle(deferred)
        return _no_report(run, inputs, int(ExitCode.INVALID_INPUT))
    try:
        return publish(
            run,
            Publication(
                inputs,
                event,
                streamed,
                run_code,
                comparison=comparison,
                comparison_path=comparison_path,
                baseline=baseline,
                settle=None if deferred is None else deferred.settle,
            ),
        )
    except KeyboardInterrupt:  # while rendering or writing: what is cheap is still written
        comparison_path = comparison_path or _settle(deferred)
        note_interrupted(run, "while the results were published")
        from goldgate.app.action import checkrun

        checkrun.abandon(
            run,
            event,
            f"Interrupted while the results were published; the report is {report_path}.",
            "cancelled",
        )
        code, rule = decide_exit(inputs.fail_on, int(ExitCode.INTERRUPTED), comparison)
        append_step_summary(
            run,
            _short_summary(
                code,
                rule,
                f"Interrupted while the results were published; the report is {report_path}.",
            ),
        )
        write_step_outputs(
            run,
            {
                "exit_code": str(int(ExitCode.INTERRUPTED)),
                "report": str(report_path),
                "comparison": str(comparison_path or ""),
            },
        )
        return code


def _short_summary(code: int, rule: str, what: str) -> str:
    """The job summary of a step that has no report to render: the verdict first, then why
    and what happened (``what`` is Markdown already)."""
    from goldgate.render.words import verdict_word

    icon = "✅" if code == 0 else ("⏹️" if code == ExitCode.INTERRUPTED else "❌")
    return f"## {icon} goldgate: {verdict_word(code, True)}\n\n**Why:** {rule} {what}\n"


def _no_report(run: StepRun, inputs: ActionInputs, run_code: int) -> int:
    """The outputs and summary of a run that has no report to publish: goldgate's exit code
    and, when an error ended it, its sentence."""
    from goldgate.app.action import checkrun
    from goldgate.render import escape

    code, rule = decide_exit(inputs.fail_on, run_code, None)
    if run.failure is not None:
        run.commands.error(run.failure)
        why = escape.markdown(run.failure, 1_000)
        summary = _short_summary(code, rule, f"Nothing was published: {why}")
    else:
        summary = _short_summary(code, rule, f"The run wrote no report (exit {run_code}).")
    append_step_summary(run, summary)
    conclusion = check_conclusion(inputs.fail_on, code, run_code, None)
    checkrun.abandon(run, None, summary, conclusion)
    write_step_outputs(run, {"exit_code": str(run_code)})
    return code


def _compare(
    run: StepRun,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    opened: _Opened,
    now: datetime,
) -> tuple[Comparison | None, Path | None, BaselineRead | None]:
    """The comparison with the baseline, where it was written (None while a helper verifies
    the reports: written once it has, ``Deferred.write_later``), and the baseline report
    (for the HTML page's baseline side); Nones when nothing was compared. Each side is
    compared from the scan that read it (its cases walked again, once, from the file still
    open: ``comparison.walk``), never scanned again."""
    streamed, ids, deferred = opened.streamed, opened.ids, opened.deferred
    report, report_path = streamed.report, Path(streamed.path)
    if inputs.baseline is None:
        run.notes.append("No baseline was configured, so nothing was compared.")
        return None, None, None
    unverified = deferred is not None and not inputs.baseline.startswith("artifact:")
    if not unverified:  # an artifact is fetched only for a report verified
        _settle(deferred)
    found = find_baseline(
        run,
        inputs.baseline,
        event,
        now,
        stack=opened.stack,
        verify=not unverified,
        handed=None if deferred is None else deferred.handed,
    )
    if found is None:
        return None, None, None
    if deferred is not None and unverified:
        assert found.streamed is not None  # kept open in opened.stack
        deferred.used(found.streamed)
    # Imported once both reports are scanned and handed to their helpers: those verify
    # them while the comparison's modules load.
    from goldgate.comparison import compare
    from goldgate.comparison.opened import ReportSide, streamed_side

    baseline_path, baseline = found.path, found.report
    if inputs.mode == "replay" and inputs.report is None:
        other = replayed_other_report(report, baseline_path)
        if other is not None:
            run.failure = f"{other}; nothing it says is trusted."
            return None, None, None
    refusal = baseline_refusal(report, baseline)
    if refusal is None:
        try:
            mine: ReportSide | Path = report_path
            if ids is not None and streamed.streamed:
                mine = streamed_side(streamed, ids, "candidate")
            theirs = found.side("baseline")
            comparison = compare(mine, theirs, partial=inputs.partial, now=now)
        except GoldgateError as error:
            refusal = str(error).removeprefix("cannot compare: ")
        except Exception as error:  # a baseline no check foresaw: a note, never a crash
            refusal = describe_error(error)
        else:
            refusal = nothing_compared(comparison)
    if refusal is not None:
        refusal = refusal.rstrip(".")
        run.warning(f"baseline not compared: {refusal}.")
        run.notes.append(f"Baseline not compared: {refusal}.")
        return None, None, None
    if deferred is not None and not deferred.settled:
        deferred.write_later(lambda: _write_comparison(run, comparison, now))
        return comparison, None, found
    return comparison, _write_comparison(run, comparison, now), found


def _write_comparison(run: StepRun, comparison: Comparison, now: datetime) -> Path:
    """The comparison written into the work folder (or elsewhere, with a warning); where."""
    from goldgate.comparison import write_comparison
    from goldgate.report.io import unique_path

    written, fallback = write_comparison(comparison, unique_path(WORK_FOLDER, "comparison", now))
    if fallback:
        run.warning(f"{fallback}; the comparison was written to {written} instead.")
    return written
