"""The bundled example end to end through the real CLI: it passes, its live suite is skipped,
its command suite runs through the command target, and every comparison kind and both metric
kinds show up with the numbers the example's gold was reviewed for."""

from __future__ import annotations

import stat
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .support import EXAMPLE, read_report_json, run_cli, suite_of

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

REPO = EXAMPLE.parent.parent


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], Path]:
    output = tmp_path_factory.mktemp("example") / "report.json"
    config = EXAMPLE / "config" / "settings.yaml"
    result = run_cli(
        "evaluate", "--config", str(config.relative_to(REPO)), "--output", str(output), cwd=REPO
    )
    report = read_report_json(output) if output.exists() else {}
    return result, report, output


def test_example_passes_and_skips_its_live_suite(
    example_run: tuple[Any, dict[str, Any], Path],
) -> None:
    result, report, output = example_run
    assert result.code == 0, result.stderr
    assert f"report: {output}" in result.stdout
    assert "verdict: passed (exit 0)" in result.stdout
    assert "judges are asked only with --live" in result.stderr
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    assert report["complete"] is True
    assert report["dataset"]["name"] == "support_checks"
    assert report["dataset"]["revision"] == "reviewed-2026-11-30"
    assert [s["name"] for s in report["suites"]] == [
        "pipeline",
        "classify_step",
        "reply_text",
        "command_pipeline",
        "live_answer",
    ]
    assert report["verdict"]["suites"] == {"passed": 4, "skipped": 1}
    live = suite_of(report, "live_answer")
    assert live["status"] == "skipped"
    assert live["skip_reason"] == "live workflow 'answer_live' runs only with --live"
    assert live["target"]["kind"] == "http"
    assert live["target"]["live"] is True
    assert [a["status"] for a in live["attempts"]] == ["skipped"]
    assert "live_answer" in result.stdout
    assert "skipped: live workflow 'answer_live' runs only with --live" in result.stdout
    for suite in report["suites"]:
        if suite["name"] != "live_answer":
            assert suite["status"] == "ran"
            assert suite["counts"]["attempts"]["completed"] == suite["attempt_count"]
            assert suite["counts"]["checks"]["failed"] == 0
            assert suite["counts"]["checks"]["error"] == 0


def test_example_command_suite_runs_through_the_command_target(
    example_run: tuple[Any, dict[str, Any], Path],
) -> None:
    _, report, _ = example_run
    command = suite_of(report, "command_pipeline")
    assert command["target"] == {
        "kind": "command",
        "workflow_revision": "rules-2026-11-30",
        "live": False,
        "identity": {"kind": "command", "command": ["python3", "-m", "support_triage_app.cli"]},
    }
    assert command["verdict"] == "passed"
    assert [(a["case_id"], a["status"]) for a in command["attempts"]] == [
        ("positive_cancellation_en", "completed"),
        ("ambiguous_help_en", "completed"),
    ]
    first = command["attempts"][0]
    assert first["result"]["flows"]["triage"]["steps"]["classify"]["result"]["answer"] == {
        "optionId": "cancellation"
    }
    assert all(a["latency_ms"] > 0 for a in command["attempts"])
    assert suite_of(report, "pipeline")["target"]["kind"] == "python"


def test_example_uses_every_comparison_and_both_metric_kinds(
    example_run: tuple[Any, dict[str, Any], Path],
) -> None:
    _, report, _ = example_run
    passed = Counter(
        check["comparison"]
        for suite in report["suites"]
        for attempt in suite["attempts"]
        for check in attempt["checks"]
        if check["outcome"] == "passed"
    )
    assert set(passed) == {"exact", "set", "source_span", "custom", "text"}
    assert report["scorers"] == [{"name": "casefolded", "revision": "1"}]

    [terminal] = suite_of(report, "pipeline")["metrics"]
    assert (terminal["name"], terminal["kind"]) == ("terminal_status", "classification")
    assert (terminal["support"], terminal["correct"]) == (10, 10)
    assert (terminal["accuracy"], terminal["coverage"]) == (1.0, 1.0)
    assert terminal["macro"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}

    classify = suite_of(report, "classify_step")
    queue, issues = classify["metrics"]
    assert (queue["name"], queue["kind"], queue["support"]) == (
        "queue_quality",
        "classification",
        5,
    )
    assert (queue["accuracy"], queue["coverage"]) == (1.0, 1.0)
    assert (issues["name"], issues["kind"]) == ("issue_quality", "multilabel")
    assert (issues["support"], issues["exact_set_accuracy"], issues["coverage"]) == (8, 1.0, 1.0)
    assert issues["micro"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    # A catalog label nobody expected or predicted scores 0, so macro is 2/3 (scikit-learn).
    assert issues["macro"]["f1"] == pytest.approx(2 / 3)
    assert {t["key"]: (t["actual"], t["held"]) for t in classify["thresholds"]} == {
        "pass_rate": (1.0, True),
        "queue_quality.accuracy": (1.0, True),
        "queue_quality.coverage": (1.0, True),
    }

    reply = suite_of(report, "reply_text")
    assert reply["summary"]["expect.satisfied"] == 1.0
    tone = next(a for a in reply["attempts"] if a["case_id"] == "reply_tone_de")
    assert tone["checks"][0]["adjudication"] is True
    assert tone["checks"][0]["outcome"] == "not_run"
    # Its judge is calibrated (evaluation/judges/tone.json) but asked only with --live.
    assert "its judge tone is asked only with --live" in tone["checks"][0]["reason"]
