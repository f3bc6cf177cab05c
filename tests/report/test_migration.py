"""Reports written in format 1 (committed before format 2 existed) read as format 2 with every
check outcome and metric figure equal to a fresh format-2 run of the same gold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from goldgate.report.io import read_report
from goldgate.report.models import Report
from goldgate.report.plain import record_json
from run.support import EXAMPLE, run_cli

FIXTURES = Path(__file__).parent / "fixtures"


def _outcomes(report: Report) -> list[Any]:
    """Everything a run decided, attempt by attempt and suite by suite (not timings)."""
    decided: list[Any] = []
    for suite in report.suites:
        decided.append(
            (
                suite.name,
                suite.status,
                suite.verdict,
                suite.case_count,
                suite.attempt_count,
                record_json(suite.counts),
                suite.summary,
                [metric.model_dump(mode="json") for metric in suite.metrics],
                [record_json(threshold) for threshold in suite.thresholds],
            )
        )
        for attempt in suite.iter_attempts():
            decided.append(
                (
                    suite.name,
                    attempt.case_id,
                    attempt.attempt,
                    attempt.status,
                    attempt.reason,
                    attempt.input,
                    attempt.result,
                    [
                        (
                            c.name,
                            c.path,
                            c.outcome,
                            c.reason,
                            c.actual_present,
                            c.actual,
                            c.expected,
                            c.assertions_declared,
                            c.assertions_held,
                            c.adjudication,
                        )
                        for c in attempt.checks
                    ],
                )
            )
    decided.append((report.verdict.exit_code, report.verdict.suites, report.verdict.adjudication))
    return decided


def _example_before_judges(tmp_path: Path) -> Path:
    """A copy of the example whose gold names no judge, as it was when the format-1 fixture
    was made (a judge's name is gold: it changes the fingerprint and the waiting check's
    reason)."""
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns(".goldgate", "__pycache__"))
    dataset = copy / "evaluation" / "dataset.json"
    text = dataset.read_text("utf-8")
    dataset.write_text(text.replace(',\n              "judge": "tone"', ""), "utf-8")
    return copy


def _fresh(tmp_path: Path, config: Path, *args: str) -> Report:
    output = tmp_path / "fresh.json"
    result = run_cli(
        "evaluate", "--config", str(config), "--output", str(output), *args, cwd=tmp_path
    )
    assert output.exists(), result.stderr
    return read_report(output)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fixture", "config", "args"),
    [
        ("report_v1_example.json", EXAMPLE / "config" / "settings.yaml", ()),
        (
            "report_v1_generated.json",
            FIXTURES / "v1_generated" / "config" / "settings.yaml",
            ("--repeat", "2"),
        ),
    ],
    ids=["example", "generated"],
)
def test_a_format_1_report_migrates_to_what_a_fresh_run_decides(
    tmp_path: Path, fixture: str, config: Path, args: tuple[str, ...]
) -> None:
    path = FIXTURES / fixture
    assert json.loads(path.read_text("utf-8"))["format"] == "goldgate.report/1"
    migrated = read_report(path)
    assert migrated.format == "goldgate.report/2"
    if config.is_relative_to(EXAMPLE):
        config = _example_before_judges(tmp_path) / config.relative_to(EXAMPLE)
    fresh = _fresh(tmp_path, config, *args)
    assert _outcomes(migrated) == _outcomes(fresh)
    assert migrated.dataset.fingerprint == fresh.dataset.fingerprint


def test_the_migrated_generated_report_keeps_every_attempt_and_metric() -> None:
    migrated = read_report(FIXTURES / "report_v1_generated.json")
    [suite] = migrated.suites
    attempts = list(suite.iter_attempts())
    assert len(attempts) == 80 == suite.attempt_count
    assert [a.attempt for a in attempts[:4]] == [1, 2, 1, 2]
    failed = [a for a in attempts if a.status == "failed"]
    assert [(a.case_id, a.attempt) for a in failed] == [("g-013", 1), ("g-013", 2)]
    assert all(c.outcome == "not_run" for a in failed for c in a.checks)
    assert {m.kind for m in suite.metrics} == {"classification", "multilabel"}
    assert (
        migrated.verdict.adjudication == sum(c.adjudication for a in attempts for c in a.checks) > 0
    )
