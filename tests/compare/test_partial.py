"""``--partial``: a pull request that edits gold still gets a comparison. On the example, the
candidate's gold adds 2 cases, removes 1, changes 1 expectation's ``expected`` and 1 case's
input. Exactly the attempts whose identity and input match are classified, the baseline
re-scored under the candidate's gold where the gold changed (what replay gives), and every
other case is listed with its count: nothing is dropped silently."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from goldgate.comparison import compare, read_comparison
from goldgate.comparison.opened import opened_side
from goldgate.comparison.rescore import rescore_case
from run.support import read_report_json, run_cli

from .conftest import CANDIDATE_EDITS, evaluate, example_copy

# Every test here starts processes (tests/helpers/slow.py); one worker makes its runs once, not
# each worker that draws one of its tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("partial")]

PIPELINE = "evaluation/cases/pipeline.json"
ADDED = ("added_billing_en", "added_help_en")
REMOVED = "negative_policy_de"
RESCORED = "positive_billing_en"
INPUT_CHANGED = "ambiguous_help_de"
COMPARABLE = ("pipeline", "classify_step", "reply_text", "command_pipeline")


def _edit_json(path: Path, edit: Callable[[Any], None]) -> None:
    value = json.loads(path.read_text("utf-8"))
    edit(value)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False), "utf-8")


def _expected_only(cases: list[dict[str, Any]]) -> None:
    billing = next(c for c in cases if c["id"] == RESCORED)
    account = next(e for e in billing["expectations"] if e["name"] == "account")
    account["expected"] = "B-221"  # the application answers B-220: fails on both sides


def _pull_request(cases: list[dict[str, Any]]) -> None:
    _expected_only(cases)
    for new_id, source in zip(ADDED, ("positive_billing_en", "ambiguous_help_en"), strict=True):
        copy = json.loads(json.dumps(next(c for c in cases if c["id"] == source)))
        copy["id"] = new_id
        copy["input"]["payload"]["requestId"] = new_id
        cases.append(copy)
    cases[:] = [c for c in cases if c["id"] != REMOVED]
    changed = next(c for c in cases if c["id"] == INPUT_CHANGED)
    changed["input"]["payload"]["message"] = "Bitte helfen Sie mir schnell."


def _revision(manifest: dict[str, Any]) -> None:
    manifest["revision"] = "reviewed-2026-12-01"


@dataclass(frozen=True)
class Runs:
    folder: Path
    baseline: Path
    gold_only: Path
    app_only: Path
    app_and_gold: Path
    replayed: Path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    folder = tmp_path_factory.mktemp("partial")

    def project(name: str, app: bool, gold: Callable[[list[dict[str, Any]]], None] | None) -> Path:
        root = example_copy(folder / name, CANDIDATE_EDITS if app else {})
        if gold is not None:
            _edit_json(root / PIPELINE, gold)
            _edit_json(root / "evaluation" / "dataset.json", _revision)
        return root

    baseline_root = project("baseline", False, None)
    baseline = evaluate(baseline_root, folder / "baseline.json")
    gold_only = evaluate(project("gold", False, _pull_request), folder / "gold_only.json")
    app_only = evaluate(project("app", True, None), folder / "app_only.json")
    both = evaluate(project("both", True, _pull_request), folder / "app_and_gold.json")
    # Replay needs the same cases: a copy of the baseline whose gold only has the changed
    # expectation, replayed over the baseline's saved results.
    replay_root = project("replay", False, _expected_only)
    replayed = folder / "replayed.json"
    result = run_cli(
        "evaluate", "--replay", str(baseline), "--output", str(replayed), cwd=replay_root
    )
    assert result.code == 1, result.output
    return Runs(folder, baseline, gold_only, app_only, both, replayed)


def test_without_partial_the_gold_edit_is_refused(runs: Runs) -> None:
    result = run_cli(
        "evaluate", "--compare", str(runs.app_and_gold), "--baseline", str(runs.baseline),
        "--output", str(runs.folder / "refused.json"), cwd=runs.folder,
    )  # fmt: skip
    assert result.code == 2
    assert "(--partial compares what matches and lists the rest)" in result.stderr


def test_a_gold_edit_alone_changes_no_class(runs: Runs) -> None:
    comparison = compare(runs.gold_only, runs.baseline, partial=True)

    assert comparison.mode == "partial"
    counts = comparison.overall.attempts
    assert (counts.improved, counts.regressed, counts.mixed) == (0, 0, 0)
    assert comparison.regressions is False
    effect = comparison.gold_effect
    assert effect is not None
    assert (effect.rescored_cases, effect.rescored_attempts) == (1, 1)
    assert (effect.newly_failing, effect.newly_passing) == (1, 0)
    assert (effect.added_checks, effect.removed_checks, effect.not_rescored) == (0, 0, 0)


def test_unmatched_cases_are_listed_with_counts(runs: Runs) -> None:
    comparison = compare(runs.app_and_gold, runs.baseline, partial=True)

    [pipeline] = [s for s in comparison.suites if s.name == "pipeline"]
    unmatched = pipeline.unmatched
    assert unmatched.added == ADDED
    assert unmatched.removed == (REMOVED,)
    assert unmatched.input_changed == (INPUT_CHANGED,)
    assert unmatched.rescored == (RESCORED,)
    assert (unmatched.added_attempts, unmatched.removed_attempts) == (2, 1)
    assert unmatched.input_changed_attempts == 1
    assert pipeline.metrics_scope == "each report's cases"
    for other in comparison.suites:
        if other.name != "pipeline":
            assert other.unmatched.added == other.unmatched.removed == ()
    comparable = comparison.comparable
    # Every candidate attempt is compared, listed or counted as not compared: none is lost.
    listed = sum(
        s.unmatched.added_attempts + s.unmatched.input_changed_attempts for s in comparison.suites
    )
    counts = comparison.overall.attempts
    assert comparable.compared_attempts + listed + counts.not_compared == (
        comparable.candidate_attempts
    )
    assert comparable.candidate_attempts == 25
    assert comparable.compared_attempts == 21
    assert comparable.share == pytest.approx(21 / 25)


def test_partial_classes_measure_the_application_change_alone(runs: Runs) -> None:
    """The comparable attempts get exactly the classes a full comparison of the same
    application change (under unchanged gold) gives them."""
    partial = compare(runs.app_and_gold, runs.baseline, partial=True)
    full = compare(runs.app_only, runs.baseline)
    skipped = {REMOVED, INPUT_CHANGED, *ADDED}

    def changes(comparison: Any) -> dict[tuple[str, str, int], str]:
        return {
            (suite.name, change.case_id, change.attempt): change.change
            for suite in comparison.suites
            for change in suite.changes
            if change.case_id not in skipped
        }

    assert changes(partial) == changes(full)
    assert changes(partial)  # the application change is visible
    both = {s.name: s.figures.attempts for s in partial.suites}
    alone = {s.name: s.figures.attempts for s in full.suites}
    assert both["pipeline"].unchanged == alone["pipeline"].unchanged - 2  # removed, changed input
    for name in COMPARABLE[1:]:
        assert both[name] == alone[name]


def test_the_rescored_baseline_is_what_replay_gives(runs: Runs) -> None:
    with (
        opened_side(runs.app_and_gold, "candidate") as candidate,
        opened_side(runs.baseline, "baseline") as baseline,
    ):
        suite_now, suite_before = candidate.suite("pipeline"), baseline.suite("pipeline")
        assert suite_now is not None
        assert suite_before is not None
        now = suite_now.case(suite_now.keys().ids.index(RESCORED))
        before = suite_before.case(suite_before.keys().ids.index(RESCORED), keep=True)

    rescored = rescore_case(now, before, "pipeline", str(runs.baseline))

    replayed = read_report_json(runs.replayed)
    attempts = [a for a in replayed["suites"][0]["attempts"] if a["case_id"] == RESCORED]
    letters = {"passed": "P", "failed": "F", "error": "E", "not_run": "N"}
    assert [a.codes for a in rescored] == [
        "".join(letters[c["outcome"]] for c in a["checks"]) for a in attempts
    ]
    assert [a.codes for a in rescored] == ["PPPF"]


def test_the_summary_says_what_share_was_comparable(runs: Runs) -> None:
    output = runs.folder / "partial.json"
    result = run_cli(
        "evaluate", "--compare", str(runs.gold_only), "--baseline", str(runs.baseline),
        "--partial", "--output", str(output), cwd=runs.folder,
    )  # fmt: skip

    assert result.code == 0, result.output
    assert "comparable: 21/25 of the candidate's attempts (84.0%)" in result.stdout
    assert (
        "cases: 2 added, 1 removed, 1 input changed (not compared), 1 gold changed (baseline "
        "re-scored under the candidate's gold)" in result.stdout
    )
    # a gold edit alone: the re-scored case is "gold changed", never a regression
    assert "0 regressed, 0 mixed, 0 improved, 0 flaky, 1 gold changed, 1 input changed" in (
        result.stdout
    )
    assert "under the new gold the baseline would fail 1 more checks" in result.stdout
    written = json.loads(output.read_text("utf-8"))
    assert written["mode"] == "partial"
    assert written["gold_effect"]["newly_failing"] == 1


def test_input_and_gold_changes_are_said_in_those_words_by_every_renderer(
    runs: Runs, tmp_path: Path
) -> None:
    output = tmp_path / "comparison.json"
    result = run_cli(
        "evaluate", "--compare", str(runs.app_and_gold), "--baseline", str(runs.baseline),
        "--partial", "--output", str(output), "--fail-on-regression", cwd=runs.folder,
    )  # fmt: skip
    assert result.code == 1, result.output  # the application change still regresses

    comparison = read_comparison(output)
    [pipeline] = [s for s in comparison.suites if s.name == "pipeline"]
    findings = {finding.case_id: finding for finding in pipeline.findings}
    assert findings[RESCORED].change == "gold changed"
    assert findings[INPUT_CHANGED].change == "input changed"
    assert (pipeline.classes.gold_changed, pipeline.classes.input_changed) == (1, 1)
    regressed = comparison.classes.regressions
    assert regressed > 0
    assert f"regressions: yes (regressed or mixed: {regressed})" in result.stdout

    where = ("--comparison", str(output))
    candidate = str(runs.app_and_gold)
    markdown = run_cli("report", "markdown", candidate, *where, cwd=runs.folder).stdout
    assert "| pipeline | positive\\_billing\\_en | gold changed | gold changed:" in markdown
    assert "- input changed: pipeline: ambiguous\\_help\\_de\n" in markdown
    shown = run_cli("report", "show", candidate, *where, cwd=runs.folder).stdout
    assert "- pipeline: case positive_billing_en, change gold changed" in shown  # folded at 80
    assert "- not compared, input changed: pipeline: ambiguous_help_de" in shown
    junit = tmp_path / "junit.xml"
    run_cli("report", "junit", candidate, "-o", str(junit), *where, cwd=runs.folder)
    xml = junit.read_text("utf-8")
    assert '<property name="comparison.gold changed.cases" value="positive_billing_en" />' in xml
    assert '<property name="comparison.input changed.cases" value="ambiguous_help_de" />' in xml
    annotations = run_cli("report", "annotations", candidate, *where, cwd=runs.folder).stdout
    [billing] = [line for line in annotations.splitlines() if f"/ {RESCORED}::" in line]
    assert "::gold changed, not a regression: gold changed: baseline re-scored" in billing


def test_a_spooled_partial_comparison_writes_the_same_bytes(
    runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Added, removed, input-changed and re-scored cases, changes and findings: with every
    list spooled to a file (``spool.HELD`` 0) the comparison's file is the bytes of the whole
    model dumped, and those of the comparison held in memory (issue 43)."""
    from datetime import UTC, datetime

    from goldgate.comparison import comparison_bytes
    from goldgate.comparison import spool as spool_module
    from goldgate.report.stream import dumps

    now = datetime(2026, 12, 7, tzinfo=UTC)
    written = []
    for held in (spool_module.HELD, 0):
        monkeypatch.setattr(spool_module, "HELD", held)
        comparison = compare(runs.app_and_gold, runs.baseline, partial=True, now=now)
        suite = next(s for s in comparison.suites if s.name == "pipeline")
        assert suite.unmatched.added.spooled is (held == 0)
        assert len(suite.unmatched.added) == 2
        assert suite.changes
        assert suite.findings
        data = comparison_bytes(comparison)
        assert data == dumps(comparison.model_dump(mode="json")) + b"\n"
        written.append(data)
    assert written[0] == written[1]
