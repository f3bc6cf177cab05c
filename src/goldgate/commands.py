"""What each CLI command does, as plain functions returning an exit code.

The CLI parses and calls one of these; they print only safe text (counts, names, digests,
paths) and raise ``GoldgateError`` for whole-run failures.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from goldgate.errors import ExitCode, InvalidInputError, most_severe
from goldgate.problems import Violation, display_path
from goldgate.settings.load import LoadedSettings, SettingsError, load_settings


def _emit(text: str) -> None:
    typer.echo(text)


def _emit_json(payload: dict[str, Any]) -> None:
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))


def _violations_listing(violations: Sequence[Violation], json_output: bool) -> ExitCode:
    """Every violation, then the count: the output of a check that found problems."""
    if json_output:
        _emit_json({"ok": False, "violations": [v.as_json() for v in violations]})
        return ExitCode.INVALID_INPUT
    for violation in violations:
        _emit(violation.render())
    count, files = len(violations), len({v.source for v in violations})
    _emit(f"{count} problem{'s' * (count != 1)} in {files} file{'s' * (files != 1)}.")
    return ExitCode.INVALID_INPUT


def _load_for_check(config: Path, json_output: bool) -> LoadedSettings | ExitCode:
    """The settings, or their problems listed as a check's output (exit 2). A file that
    cannot be read at all is an error like any other, in JSON when JSON was asked for."""
    try:
        return load_settings(config)
    except SettingsError as error:
        return _violations_listing(error.violations, json_output)
    except InvalidInputError as error:
        if not json_output:
            raise
        _emit_json({"ok": False, "error": str(error), "violations": []})
        return ExitCode.INVALID_INPUT


def validate_settings(config: Path, *, json_output: bool) -> ExitCode:
    """``goldgate validate``: the settings' problems, or their digest."""
    loaded = _load_for_check(config, json_output)
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


def check_gold_command(config: Path, dataset: Path | None, *, json_output: bool) -> ExitCode:
    """``goldgate evaluate --check``: every violation in the gold, or its fingerprints."""
    from goldgate.dataset.load import check_gold

    loaded = _load_for_check(config, json_output)
    if isinstance(loaded, ExitCode):
        return loaded
    result = check_gold(loaded, dataset)
    gold = result.dataset
    if gold is None:
        return _violations_listing(result.violations, json_output)
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
    variant: str | None = None
    variant_revision: str | None = None


def run_evaluation(request: RunRequest) -> ExitCode:
    """``goldgate evaluate``: check gold, prepare targets, run, write the report, summarize.

    Everything that can be refused is refused before the first attempt starts (exit 2).
    """
    from goldgate.report.summary import render_summary, summary_json
    from goldgate.session import prepare_session

    try:
        session = prepare_session(request)
    except InvalidInputError as error:
        if not request.json_output:
            raise  # one message on stderr, as for every refused run
        return _refused_as_json(error)
    outcome = session.execute()
    if request.json_output:
        _emit_json(summary_json(outcome.report, outcome.report_path))
    else:
        _emit(render_summary(outcome.report, outcome.report_path))
    return _published(ExitCode(outcome.report.verdict.exit_code), outcome)


def _refused_as_json(error: InvalidInputError) -> ExitCode:
    violations = getattr(error, "violations", ())
    _emit_json(
        {
            "ok": False,
            "error": str(error).splitlines()[-1],
            "violations": [violation.as_json() for violation in violations],
        }
    )
    return ExitCode.INVALID_INPUT


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
    from goldgate.replays import prepare_replay
    from goldgate.report.summary import render_summary, summary_json

    try:
        prepared = prepare_replay(request.report, request.config, request.dataset, request.output)
    except InvalidInputError as error:
        if not request.json_output:
            raise
        return _refused_as_json(error)
    outcome = prepared.execute()
    measured = outcome.source.record()  # the run whose latency and usage were copied
    if request.json_output:
        summary = summary_json(outcome.report, outcome.report_path)
        summary["replay_of"] = {"path": measured.path, "digest": measured.digest}
        _emit_json(summary)
    else:
        _emit(render_summary(outcome.report, outcome.report_path))
        _emit(
            f"replay of: {measured.path} ({measured.digest}); latency and usage are that "
            "run's measurements"
        )
    return _published(ExitCode(outcome.report.verdict.exit_code), outcome)


def _published(code: ExitCode, outcome: Any) -> ExitCode:
    """A file written elsewhere because its folder failed loses nothing, but it is not where
    CI looks for it: a runtime failure."""
    if outcome.fallback_reason:
        print(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead.",
            file=sys.stderr,
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
    when any attempt regressed or is mixed."""
    from datetime import UTC, datetime

    from goldgate.comparison import compare, default_comparison_path, write_comparison
    from goldgate.comparison.summary import comparison_json, render_comparison
    from goldgate.report.io import ensure_writable

    now = datetime.now(UTC)
    try:
        output = request.output or default_comparison_path(request.candidate, now)
        ensure_writable(output)
        comparison = compare(request.candidate, request.baseline, partial=request.partial, now=now)
    except InvalidInputError as error:
        if not request.json_output:
            raise
        return _refused_as_json(error)
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
        print(
            f"goldgate: {fallback_reason}; the comparison was written to {path} instead.",
            file=sys.stderr,
        )
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code
