"""What each CLI command does, as plain functions returning an exit code.

The CLI parses and calls one of these; they print only safe text (counts, names, digests,
paths) and raise ``GoldgateError`` for whole-run failures.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from goldgate.errors import ExitCode, InvalidInputError, most_severe
from goldgate.problems import Violation
from goldgate.settings.load import LoadedSettings, SettingsError, load_settings


def _emit(text: str) -> None:
    typer.echo(text)


def _emit_json(payload: dict[str, Any]) -> None:
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))


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

        typer.echo(violation_annotations(violations), nl=False)
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
        _emit_json({"ok": False, "error": str(error), "violations": []})
        return ExitCode.INVALID_INPUT


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


def check_gold_command(
    config: Path, dataset: Path | None, *, json_output: bool, github: bool = False
) -> ExitCode:
    """``goldgate evaluate --check``: every violation in the gold, or its fingerprints."""
    from goldgate.dataset.load import check_gold

    loaded = _load_for_check(config, json_output, github)
    if isinstance(loaded, ExitCode):
        return loaded
    result = check_gold(loaded, dataset)
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
        violations = getattr(error, "violations", ())
        _emit_json(
            {
                "ok": False,
                "error": str(error).splitlines()[-1],
                "violations": [violation.as_json() for violation in violations],
            }
        )
        return ExitCode.INVALID_INPUT
    outcome = session.execute()
    if request.json_output:
        _emit_json(summary_json(outcome.report, outcome.report_path))
    else:
        _emit(render_summary(outcome.report, outcome.report_path))
    code = ExitCode(outcome.report.verdict.exit_code)
    if outcome.fallback_reason:
        # Nothing is lost, but the report is not where CI looks for it: a runtime failure.
        print(
            f"goldgate: {outcome.fallback_reason}; the report was written to "
            f"{outcome.report_path} instead.",
            file=sys.stderr,
        )
        code = most_severe(code, ExitCode.RUNTIME_FAILURE)
    return code


# --- goldgate report ------------------------------------------------------------------------------


def _write_or_print(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        message = f"{output}: cannot be written ({error.strerror or error})."
        raise InvalidInputError(message) from None


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a report is read and rendered.

    A report of 100,000 attempts is millions of small objects that live until the process
    exits, and a renderer allocates hundreds of thousands more that hold no cycles; the
    collector would scan them again and again (measured: 9 s instead of 2 s to read such a
    report, twice the time to write its JUnit). Nothing is lost by pausing it for one
    command: the process ends right after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def render_report(
    kind: str,
    report_path: Path,
    output: Path | None = None,
    **options: Any,
) -> ExitCode:
    """``goldgate report junit|markdown|annotations|show``: read a report, render it, write
    it to ``output`` or stdout. Nothing is sent anywhere."""
    with collector_paused():
        text = _rendered(kind, report_path, **options)
    _write_or_print(text, output)
    return ExitCode.PASSED


def _rendered(kind: str, report_path: Path, **options: Any) -> str:
    from goldgate.problems import display_path
    from goldgate.report.io import read_report

    report = read_report(report_path)
    shown_path = display_path(report_path)
    if kind == "junit":
        from goldgate.render.junit import render_junit

        text = render_junit(report)
    elif kind == "markdown":
        from goldgate.render.markdown import render_markdown

        text = render_markdown(report, full_report=shown_path, **options)
    elif kind == "annotations":
        from goldgate.render.annotations import render_annotations

        text = render_annotations(report, full_report=shown_path, **options)
    else:
        from goldgate.render.terminal import render_terminal

        text = render_terminal(report, **options)
    return text
