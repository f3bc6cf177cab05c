"""What each CLI command does, as plain functions returning an exit code.

The CLI parses and calls one of these; they print only safe text (counts, names, digests,
paths) and raise ``GoldgateError`` for whole-run failures.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldgate.app.supervisor import announce
from goldgate.base.errors import (
    EXIT_CODE_MEANINGS,
    ExitCode,
    GoldgateError,
    InvalidInputError,
    most_severe,
)
from goldgate.base.memory import collections_paused, long_lived
from goldgate.base.problems import Violation, display_path, sort_violations
from goldgate.base.stdio import (
    end_user_output,
    settle_streams,
    user_output_to_stderr,
    warn,
    write_commands,
    write_json,
    write_stdout,
)
from goldgate.gold.settings.load import LoadedSettings, SettingsError, load_settings


def _emit(text: str) -> bool:
    """``text`` on stdout; False when stdout cannot take it (never raised: see stdio)."""
    return write_stdout(text)


def _emit_json(payload: dict[str, Any]) -> bool:
    return write_json(payload)


_INTERRUPTED = "interrupted before the report was written."


def emit_json_refusal(message: str, violations: Sequence[Violation] = ()) -> None:
    """A command refused, or ended without a report: the one JSON document that
    ``--format json`` prints, whatever the outcome."""
    _emit_json({"ok": False, "error": message, "violations": [v.as_json() for v in violations]})


def _refusal_json(error: GoldgateError | KeyboardInterrupt) -> ExitCode:
    if isinstance(error, KeyboardInterrupt):
        emit_json_refusal(_INTERRUPTED)
        return ExitCode.INTERRUPTED
    emit_json_refusal(str(error).splitlines()[-1], getattr(error, "violations", ()))
    return error.exit_code


def _violations_listing(
    violations: Sequence[Violation], json_output: bool, github: bool = False
) -> ExitCode:
    """Every violation, then the count: the output of a check that found problems. With
    ``github``, the violations are workflow-command annotations at their file, line and
    column (GitHub shows ten; a notice counts the rest)."""
    if json_output:
        _emit_json({"ok": False, "violations": [v.as_json() for v in violations]})
        return ExitCode.INVALID_INPUT
    if github:
        from goldgate.render.annotations import violation_annotations

        write_commands(violation_annotations(violations))
    else:
        for violation in violations:
            _emit(violation.render())
    count, files = len(violations), len({v.source for v in violations})
    _emit(f"{count} problem{'s' * (count != 1)} in {files} file{'s' * (files != 1)}.")
    return ExitCode.INVALID_INPUT


def _load_for_check(
    config: Path, json_output: bool, github: bool = False
) -> LoadedSettings | ExitCode:
    """The settings, or their problems listed as a check's output (exit 2). A file that
    cannot be read at all is an error like any other, in JSON when JSON was asked for."""
    try:
        return load_settings(config)
    except SettingsError as error:
        return _violations_listing(error.violations, json_output, github)
    except InvalidInputError as error:
        if not json_output:
            raise
        return _refusal_json(error)


def validate_settings(config: Path, *, json_output: bool, github: bool = False) -> ExitCode:
    """``goldgate validate``: the settings' problems, or their digest."""
    loaded = _load_for_check(config, json_output, github)
    if isinstance(loaded, ExitCode):
        return loaded
    if json_output:
        _emit_json(
            {
                "ok": True,
                "settings": str(loaded.path),
                "configuration_digest": loaded.configuration_digest,
                "workflows": sorted(loaded.workflows),
                "scorers": sorted(loaded.settings.scorers),
                "dataset": str(loaded.dataset_path),
            }
        )
    else:
        workflows = ", ".join(sorted(loaded.workflows))
        _emit(f"settings OK: {loaded.path} ({len(loaded.workflows)} workflows: {workflows})")
        _emit(f"configuration digest: {loaded.configuration_digest}")
    return ExitCode.PASSED


def _gold_without_settings(config: Path, dataset: Path | None) -> list[Violation]:
    """The problems of the gold itself when the settings did not load: of ``dataset``, else
    of the gold the settings name (read as plain YAML) or the default, when it is there.
    Nothing that needs the settings is checked, and a gold file that is not found adds
    nothing (the settings' own problems may be why)."""
    from goldgate.gold.load import check_gold
    from goldgate.gold.settings.yamlfile import load_yaml_file

    path = dataset
    if path is None:
        try:
            value = load_yaml_file(config, display_path(config)).value
        except (GoldgateError, OSError, ValueError):
            return []
        evaluation = value.get("evaluation") if isinstance(value, dict) else None
        literal = evaluation.get("dataset") if isinstance(evaluation, dict) else None
        if literal is not None and not isinstance(literal, str):
            return []
        path = (
            config.parent.parent / "evaluation" / "dataset.json"
            if literal is None
            else config.parent / literal
        )
        if not path.is_file():
            return []
    try:
        return list(check_gold(None, path).violations)
    except (GoldgateError, OSError, ValueError):
        return []


def check_gold_command(
    config: Path, dataset: Path | None, *, json_output: bool, github: bool = False
) -> ExitCode:
    """``goldgate evaluate --check``: every violation in the gold, or its fingerprints."""
    with long_lived():
        from goldgate.gold.load import check_gold

    try:
        loaded = load_settings(config)
    except SettingsError as error:  # the gold's own problems are listed with theirs
        violations = [*error.violations, *_gold_without_settings(config, dataset)]
        return _violations_listing(sort_violations(violations), json_output, github)
    except InvalidInputError as error:
        if not json_output:
            raise
        return _refusal_json(error)
    try:
        result = check_gold(loaded, dataset)
    except InvalidInputError as error:  # a dataset file that cannot be read at all
        if not json_output:
            raise
        return _refusal_json(error)
    gold = result.dataset
    if gold is None:
        return _violations_listing(result.violations, json_output, github)
    if json_output:
        _emit_json(
            {
                "ok": True,
                "dataset": str(result.path),
                "case_count": result.case_count,
                "violations": [],
                "name": gold.name,
                "revision": gold.revision,
                "fingerprint": gold.fingerprint,
                "suites": [
                    {"name": s.name, "cases": len(s.cases), "fingerprint": s.fingerprint}
                    for s in gold.suites
                ],
            }
        )
    else:
        _emit(
            f"gold OK: {gold.name} @ {gold.revision}: {len(gold.suites)} suites, "
            f"{result.case_count} cases"
        )
        for suite in gold.suites:
            _emit(f"  {suite.name}: {len(suite.cases)} cases, {suite.fingerprint}")
        _emit(f"dataset fingerprint: {gold.fingerprint}")
    return ExitCode.PASSED


@dataclass(frozen=True)
class RunRequest:
    """What ``goldgate evaluate`` was asked to do."""

    config: Path
    dataset: Path | None = None
    suites: tuple[str, ...] = ()
    live: bool = False
    max_concurrency: int = 1
    timeout: float = 300.0
    repeat: int = 1
    output: Path | None = None
    json_output: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    shard: tuple[int, int] | None = None
    variant: str | None = None
    variant_revision: str | None = None


def run_evaluation(request: RunRequest) -> ExitCode:
    """``goldgate evaluate``: check gold, prepare targets, run, write the report, summarize.

    Everything that can be refused is refused before the first attempt starts (exit 2).
    """
    with long_lived():
        from goldgate.report.summary import render_summary, shard_exit_code, summary_json
        from goldgate.run.session import SessionOutcome, prepare_session

    def conclude(outcome: SessionOutcome) -> ExitCode:
        code = shard_exit_code(outcome.report, ExitCode(outcome.report.verdict.exit_code))
        if outcome.fallback_reason:
            # Nothing is lost, but the report is not where CI looks for it: a runtime failure.
            warn(
                f"goldgate: {outcome.fallback_reason}; the report was written to "
                f"{outcome.report_path} instead."
            )
            code = most_severe(code, ExitCode.RUNTIME_FAILURE)
        announce("report", int(code), str(outcome.report_path))
        if request.json_output:
            shown = _emit_json(summary_json(outcome.report, outcome.report_path, code))
        else:
            shown = _emit(render_summary(outcome.report, outcome.report_path, code))
        if not shown:  # the outcome must not be lost with stdout
            warn(
                f"goldgate: stdout cannot be written; the run ends with exit {int(code)} "
                f"({EXIT_CODE_MEANINGS[code]}) and its report is {outcome.report_path}."
            )
        return code

    def emergency_exit(outcome: SessionOutcome) -> None:
        # From the watchdog's thread: the main thread is stuck in a target for good.
        end_user_output()
        code = conclude(outcome)
        warn(
            "goldgate: a target kept the event loop blocked and could not be stopped; "
            "what finished is in the report."
        )
        settle_streams()
        os._exit(int(code))

    try:
        # Importing targets and scorers may print; the prepared gold lives as long as the run.
        with user_output_to_stderr(), long_lived():
            session = prepare_session(request)
        outcome = session.execute(emergency_exit)
    except (GoldgateError, KeyboardInterrupt) as error:
        if request.json_output:
            return _refusal_json(error)
        if isinstance(error, KeyboardInterrupt):  # typer would exit 130 without a word
            warn(f"goldgate: {_INTERRUPTED}")
            return ExitCode.INTERRUPTED
        raise  # one message on stderr, as for every refused run
    return conclude(outcome)


def merge_shard_reports(paths: Sequence[Path], output: Path) -> ExitCode:
    """``goldgate report merge``: the shards' reports joined into one; its exit code is the
    verdict of the whole run."""
    from goldgate.report.io import ensure_writable, read_report, write_report
    from goldgate.report.merge import ShardReport, merge_reports
    from goldgate.report.summary import render_summary

    ensure_writable(output)
    merged = merge_reports([ShardReport(str(path), read_report(path)) for path in paths])
    written = write_report(merged, output)
    code = ExitCode(merged.verdict.exit_code)
    _emit(render_summary(merged, written, code))
    return code


@dataclass(frozen=True)
class ReplayRequest:
    """What ``goldgate evaluate --replay`` was asked to do."""

    report: Path
    config: Path
    dataset: Path | None = None
    output: Path | None = None
    json_output: bool = False


def replay_evaluation(request: ReplayRequest) -> ExitCode:
    """``goldgate evaluate --replay``: the current gold over a saved report's results, into
    a new report; the exit code is the replayed report's verdict."""
    from goldgate.comparison.replay import prepare_replay
    from goldgate.report.summary import render_summary, summary_json

    try:
        prepared = prepare_replay(request.report, request.config, request.dataset, request.output)
        outcome = prepared.execute()
    except GoldgateError as error:
        if not request.json_output:
            raise
        return _refusal_json(error)
    measured = outcome.source.record()  # the run whose latency and usage were copied
    code = _published(ExitCode(outcome.report.verdict.exit_code), outcome)
    if request.json_output:
        summary = summary_json(outcome.report, outcome.report_path, code)
        summary["replay_of"] = {"path": measured.path, "digest": measured.digest}
        _emit_json(summary)
    else:
        _emit(render_summary(outcome.report, outcome.report_path, code))
        _emit(
            f"replay of: {measured.path} ({measured.digest}); latency and usage are that "
            "run's measurements"
        )
    return code


def _published(code: ExitCode, outcome: Any) -> ExitCode:
    """A file written elsewhere because its folder failed loses nothing, but it is not where
    CI looks for it: a runtime failure."""
    if outcome.fallback_reason:
        warn(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead."
        )
        return most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


@dataclass(frozen=True)
class CompareRequest:
    """What ``goldgate evaluate --compare`` was asked to do."""

    candidate: Path
    baseline: Path
    output: Path | None = None
    partial: bool = False
    fail_on_regression: bool = False
    json_output: bool = False


def compare_reports(request: CompareRequest) -> ExitCode:
    """``goldgate evaluate --compare``: no settings, no targets; a new comparison file and a
    safe summary. 0 when compared, 2 when incomparable; with ``--fail-on-regression``, 1
    when the comparison's one classification has a regressed or mixed unit."""
    from datetime import UTC, datetime

    from goldgate.comparison import compare, default_comparison_path, write_comparison
    from goldgate.comparison.summary import comparison_json, render_comparison
    from goldgate.report.io import ensure_writable

    now = datetime.now(UTC)
    try:
        output = request.output or default_comparison_path(request.candidate, now)
        ensure_writable(output)
        comparison = compare(request.candidate, request.baseline, partial=request.partial, now=now)
    except GoldgateError as error:
        if not request.json_output:
            raise
        return _refusal_json(error)
    written, fallback_reason = write_comparison(comparison, output)
    path = Path(display_path(written))
    if request.json_output:
        _emit_json(comparison_json(comparison, path))
    else:
        _emit(render_comparison(comparison, path))
    code = ExitCode.PASSED
    if request.fail_on_regression and comparison.regressions:
        code = ExitCode.GOLD_DISAGREEMENT
    if fallback_reason:
        warn(f"goldgate: {fallback_reason}; the comparison was written to {path} instead.")
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


# --- goldgate report ------------------------------------------------------------------------------


def _write_or_print(
    text: str, output: Path | None, protected: Sequence[Path] = (), *, commands: bool = False
) -> None:
    """``text`` to ``output`` (never over a file in ``protected``), else to stdout;
    ``commands``: it is goldgate's own workflow commands (annotations, their data escaped
    inside them), printed as they are."""
    if output is None:
        written = write_commands(text) if commands else write_stdout(text, end="")
        if not written:
            warn("goldgate: stdout cannot be written; use -o FILE to keep the rendering.")
        return
    from goldgate.base.outputs import write_output_file

    write_output_file(output, text, protected=protected)


def render_report(
    kind: str,
    report_path: Path,
    output: Path | None = None,
    comparison_path: Path | None = None,
    **options: Any,
) -> ExitCode:
    """``goldgate report junit|markdown|annotations|show``: read a report (and a comparison
    whose candidate it is), render it, write it to ``output`` or stdout. Nothing is sent
    anywhere."""
    with collections_paused():  # a big report is millions of objects and no cycles
        text = _rendered(kind, report_path, comparison_path, **options)
    read = [report_path] if comparison_path is None else [report_path, comparison_path]
    _write_or_print(text, output, read, commands=kind == "annotations")
    return ExitCode.PASSED


def fork_comment(
    folder: Path,
    head_sha: str,
    output: Path,
    *,
    repository: str | None = None,
    server_url: str | None = None,
    details: str = "safe",
) -> ExitCode:
    """``goldgate report fork-comment``: the comment for a fork's hand-off, rebuilt from its
    report, written as JSON to ``output`` (new file) for the posting script."""
    from goldgate.app.forkcomment import rebuild_comment
    from goldgate.base.outputs import write_output_file

    _note_project_secrets()
    with collections_paused():
        comment = rebuild_comment(
            folder, head_sha, repository=repository, server_url=server_url, details=details
        )
    write_output_file(output, json.dumps(comment, ensure_ascii=False) + "\n")
    write_stdout(
        f"the comment for pull request #{comment['pull_request']} was rebuilt from its "
        f"report: {display_path(output)}"
    )
    return ExitCode.PASSED


def load_comparison_view(comparison_path: Path, digest: str, report: Any, report_path: Path) -> Any:
    """The renderers' view of the comparison file at ``comparison_path``; refused
    (``InvalidInputError``) unless its candidate is the report whose bytes have ``digest``
    (read from ``report_path``) and its figures are what its reports give
    (``comparison.verify``)."""
    from goldgate.base.problems import display_path
    from goldgate.comparison import read_comparison
    from goldgate.comparison.verify import verify_comparison
    from goldgate.render.compared import comparison_view

    shown = display_path(comparison_path)
    comparison = read_comparison(shown)  # InvalidInputError naming the place
    if comparison.candidate.digest != digest:
        raise InvalidInputError(
            f"{shown} compares the report {comparison.candidate.digest}, not this report ({digest})"
        )
    verify_comparison(comparison, shown, report_path)
    return comparison_view(comparison, report)


def _note_project_secrets() -> None:
    """Load the working folder's settings, if it has any, for the secrets they name (their
    credentials' values are redacted from what is rendered); a report alone names none."""
    from goldgate.gold.settings.load import DEFAULT_SETTINGS

    if DEFAULT_SETTINGS.is_file():
        with contextlib.suppress(GoldgateError, OSError, ValueError):
            load_settings(DEFAULT_SETTINGS)


def _rendered(kind: str, report_path: Path, comparison_path: Path | None, **options: Any) -> str:
    from goldgate.base.problems import display_path
    from goldgate.report.io import read_report_and_digest

    _note_project_secrets()

    report, digest = read_report_and_digest(report_path)
    comparison = None
    if comparison_path is not None:
        comparison = load_comparison_view(comparison_path, digest, report, report_path)
    shown_path = display_path(report_path)
    if kind == "junit":
        from goldgate.render.junit import render_junit

        text = render_junit(report, comparison)
    elif kind == "markdown":
        from goldgate.render.markdown import render_markdown

        text = render_markdown(report, comparison, full_report=shown_path, **options)
    elif kind == "annotations":
        from goldgate.render.annotations import render_annotations

        text = render_annotations(report, comparison, full_report=shown_path, **options)
    else:
        from goldgate.render.terminal import render_terminal

        text = render_terminal(report, comparison, **options)
    return text
