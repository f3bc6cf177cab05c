"""``goldgate evaluate --compare`` on the example application: a baseline and a candidate with
known improved, regressed, mixed and unchanged attempts (see conftest), checked against a
golden comparison file, and every incompatibility refused with its own message.

Regenerate the golden file after an intended change of the comparison format or of the
example (and review the diff):

    GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/compare/test_example.py
"""

from __future__ import annotations

import copy
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldgate.comparison import compare, read_comparison
from helpers.reports import coherent
from run.support import CliRun, run_cli

from .conftest import ExampleReports

# One worker makes the session's example reports (tests/conftest.py) once for the three modules
# that read them, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("example_reports")

GOLDEN = Path(__file__).parent / "golden" / "example_full.json"
REGENERATE = os.environ.get("GOLDGATE_REGENERATE") == "1"
PRIVATE = ("C-1049", "Cancel renewal", "kündigen", "Bitte")


def normalized(comparison: dict[str, Any]) -> dict[str, Any]:
    """What is the same on every run: no paths, digests, clocks, versions or latencies."""
    value = copy.deepcopy(comparison)
    for key in ("created_at", "goldgate_version"):
        value.pop(key)
    for side in ("candidate", "baseline"):
        for key in ("path", "digest", "started_at"):
            value[side].pop(key)

    def scrub(node: Any) -> None:
        if isinstance(node, dict):
            if "p50" in node and "p95" in node:
                node["p50"] = node["p95"] = "<measured>"
            for item in node.values():
                scrub(item)
        elif isinstance(node, list):
            for item in node:
                scrub(item)

    scrub(value)
    return value


def _compare(reports: ExampleReports, baseline: Path, *args: str, name: str = "c.json") -> CliRun:
    output = reports.folder / "out" / name
    output.unlink(missing_ok=True)
    return run_cli(
        "evaluate", "--compare", str(reports.candidate), "--baseline", str(baseline),
        "--output", str(output), *args, cwd=reports.folder,
    )  # fmt: skip


def test_the_comparison_matches_the_golden_file(example_reports: ExampleReports) -> None:
    result = _compare(example_reports, example_reports.baseline)

    assert result.code == 0, result.output
    output = example_reports.folder / "out" / "c.json"
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    written = json.loads(output.read_text("utf-8"))
    assert next(iter(written)) == "format"
    assert written["format"] == "goldgate.comparison/1"
    if REGENERATE:
        GOLDEN.write_text(json.dumps(normalized(written), indent=2) + "\n", "utf-8")
    assert normalized(written) == json.loads(GOLDEN.read_text("utf-8")), (
        "the comparison differs from tests/compare/golden/example_full.json; regenerate with "
        "GOLDGATE_REGENERATE=1 if the change is intended"
    )
    assert read_comparison(output).model_dump(mode="json") == written
    assert f"comparison: {Path('out') / 'c.json'}" in result.stdout
    assert not any(value in result.output for value in PRIVATE)


def test_each_class_is_where_the_edits_put_it(example_reports: ExampleReports) -> None:
    comparison = compare(example_reports.candidate, example_reports.baseline)

    changes = {
        (suite.name, change.case_id): change.change
        for suite in comparison.suites
        for change in suite.changes
    }
    assert changes[("pipeline", "positive_cancellation_en")] == "improved"
    assert changes[("pipeline", "positive_cancellation_de")] == "mixed"
    assert changes[("classify_step", "service_change_en")] == "regressed"
    assert ("command_pipeline", "positive_cancellation_en") not in changes
    counts = comparison.overall.attempts
    assert (counts.improved, counts.regressed, counts.mixed, counts.unchanged) == (4, 2, 1, 16)
    assert counts.not_compared == 1  # the live suite, skipped on both sides
    assert comparison.regressions is True
    mixed = next(c for c in comparison.suites[0].changes if c.change == "mixed")
    flips = {check.name: (check.baseline, check.candidate) for check in mixed.checks}
    assert flips["account"] == ("failed", "passed")
    assert flips["queue"] == ("passed", "failed")
    pipeline = comparison.suites[0].figures
    assert pipeline.mcnemar.improved == 3
    assert pipeline.mcnemar.regressed == 1
    assert pipeline.mcnemar.p_value == 0.625
    assert pipeline.attempt_pass_rate.delta == pytest.approx(0.2)
    account = next(e for e in pipeline.expectations if e.name == "account")
    assert account.pass_rate.baseline == 0.0
    assert account.pass_rate.candidate == 1.0


def test_fail_on_regression_exits_1(example_reports: ExampleReports) -> None:
    result = _compare(example_reports, example_reports.baseline, "--fail-on-regression")
    assert result.code == 1, result.output
    assert "regressions: yes (regressed or mixed: 3)" in result.stdout


def test_a_report_compared_with_itself_is_unchanged_with_zero_deltas(
    example_reports: ExampleReports,
) -> None:
    comparison = compare(example_reports.candidate, example_reports.candidate)

    assert comparison.regressions is False
    deltas: list[float | None] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            if set(node) == {"candidate", "baseline", "delta"}:
                deltas.append(node["delta"])
            for item in node.values():
                collect(item)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    collect(comparison.model_dump(mode="json"))
    assert deltas
    assert all(delta in (0, None) for delta in deltas)
    assert any(delta == 0 for delta in deltas)
    for figures in (comparison.overall, *(s.figures for s in comparison.suites)):
        counts = figures.attempts
        assert counts.improved == counts.regressed == counts.mixed == 0
        assert figures.mcnemar.p_value == 1.0
    assert comparison.overall.attempts.unchanged == 23
    assert all(not suite.changes for suite in comparison.suites)
    metrics = [m for s in comparison.suites for m in s.metrics]
    assert metrics
    assert all(m.comparable for m in metrics)
    assert all(d.delta == 0 for m in metrics for d in m.figures.values())


def test_a_replay_makes_latency_and_usage_not_comparable(example_reports: ExampleReports) -> None:
    replayed = example_reports.folder / "replayed.json"
    if not replayed.exists():
        result = run_cli(
            "evaluate", "--replay", str(example_reports.baseline), "--output", str(replayed),
            cwd=example_reports.baseline_root,
        )  # fmt: skip
        assert result.code == 1, result.output

    comparison = compare(example_reports.candidate, replayed)

    assert comparison.baseline.replay_of is not None
    latency = comparison.overall.latency
    assert latency.comparable is False
    assert latency.p50.delta is None
    assert latency.reason is not None
    assert "replay" in latency.reason
    assert comparison.overall.usage.comparable is False
    result = _compare(example_reports, replayed, name="replayed.json")
    assert "latency and usage: not comparable" in result.stdout


def test_json_summary(example_reports: ExampleReports) -> None:
    result = _compare(example_reports, example_reports.baseline, "--format", "json")
    assert result.code == 0
    summary = json.loads(result.stdout)
    assert summary["regressions"] is True
    assert summary["overall"]["attempts"]["mixed"] == 1
    assert summary["comparison"].endswith("c.json")


def test_default_output_goes_to_comparisons_of_the_project(
    example_reports: ExampleReports, tmp_path: Path
) -> None:
    evaluations = tmp_path / "project" / ".goldgate" / "evaluations"
    evaluations.mkdir(parents=True)
    candidate = evaluations / "candidate.json"
    candidate.write_bytes(example_reports.candidate.read_bytes())

    first = run_cli(
        "evaluate", "--compare", str(candidate), "--baseline", str(example_reports.baseline),
        cwd=tmp_path,
    )  # fmt: skip
    loose = tmp_path / "candidate.json"
    loose.write_bytes(example_reports.candidate.read_bytes())
    second = run_cli(
        "evaluate", "--compare", str(loose), "--baseline", str(example_reports.baseline),
        cwd=tmp_path,
    )  # fmt: skip

    assert (first.code, second.code) == (0, 0), first.output + second.output
    [made] = (tmp_path / "project" / ".goldgate" / "comparisons").iterdir()
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.glob("*comparison*.json"))


def test_an_existing_output_is_never_overwritten(example_reports: ExampleReports) -> None:
    output = example_reports.folder / "exists.json"
    output.write_text("keep", "utf-8")
    result = run_cli(
        "evaluate", "--compare", str(example_reports.candidate), "--baseline",
        str(example_reports.baseline), "--output", str(output), cwd=example_reports.folder,
    )  # fmt: skip
    assert result.code == 2
    assert "already exists" in result.stderr
    assert output.read_text("utf-8") == "keep"


def test_partial_and_fail_on_regression_need_compare(example_reports: ExampleReports) -> None:
    result = run_cli("evaluate", "--partial", cwd=example_reports.folder)
    assert result.code == 2
    assert "--partial" in result.output
    result = run_cli(
        "evaluate", "--compare", str(example_reports.candidate), cwd=example_reports.folder
    )
    assert result.code == 2
    assert "--baseline" in result.output


# --- every incompatibility, refused with its own message ----------------------------------------

Edit = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Edit:
    def edit(report: dict[str, Any]) -> None:
        node: Any = report
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _case(suite: int, case: int) -> tuple[Any, ...]:
    return ("suites", suite, "cases", case)


INCOMPATIBLE: dict[str, tuple[Edit, str]] = {
    "input": (
        _set((*_case(0, 0), "input", "payload", "message"), "Cancel renewal for account C-2."),
        "suite 'pipeline', case 'positive_cancellation_en': the input differs (candidate sha256:",
    ),
    "gold": (
        _set((*_case(0, 0), "expectations", 4, "expected"), "C-7"),
        "suite 'pipeline', case 'positive_cancellation_en': the gold differs: expectation "
        "'account': expected differs (candidate sha256:",
    ),
    "gold comparison": (
        _set((*_case(0, 0), "expectations", 4, "comparison"), "set"),
        "suite 'pipeline', case 'positive_cancellation_en': the gold differs: expectation "
        "'account': comparison is 'exact' in the candidate but 'set' in the baseline",
    ),
    "scorer revision": (
        _set(("scorers", 0, "revision"), "2"),
        "scorer 'casefolded' revision is '1' in the candidate but '2' in the baseline.",
    ),
    "metric catalog": (
        _set(
            ("suites", 0, "metric_definitions", 0, "labels"), ["completed", "needs_review", "other"]
        ),
        "suite 'pipeline': the catalog of metric 'terminal_status' differs (candidate sha256:",
    ),
    "metric missing": (
        lambda r: r["suites"][0].update(metrics=[], metric_definitions=[]),
        "suite 'pipeline': metric 'terminal_status' is in the candidate only.",
    ),
    "target": (
        _set(("suites", 0, "target", "identity", "python"), "other_app:handle"),
        "suite 'pipeline': the target identity differs (candidate sha256:",
    ),
    "target kind": (
        _set(("suites", 0, "target", "kind"), "command"),
        "suite 'pipeline': the target kind is 'python' in the candidate but 'command' in the "
        "baseline.",
    ),
    "workflow": (
        _set(("suites", 0, "step"), "classify"),
        "suite 'pipeline': the step is None in the candidate but 'classify' in the baseline.",
    ),
    "complete attempts": (
        lambda r: r.update(complete=False, interruption="SIGTERM"),
        "the baseline report {baseline} is incomplete (interrupted by SIGTERM); compare needs "
        "complete attempts.",
    ),
    "details": (
        _set((*_case(1, 2), "input"), None),
        "the baseline report {baseline} was written without details (suite 'classify_step', "
        "case 'service_change_en' has no input); compare needs inputs to match.",
    ),
    "suite order": (
        lambda r: r["suites"].reverse(),
        "suite 1 is 'pipeline' in the candidate but 'live_answer' in the baseline (--partial",
    ),
    "suite missing": (
        lambda r: r["suites"].pop(),
        "suite 'live_answer' is in the candidate only (--partial",
    ),
    "case missing": (
        lambda r: r["suites"][1]["cases"].pop(),
        "suite 'classify_step': case 'multiple_en' is in the candidate only (--partial",
    ),
    "case order": (
        lambda r: r["suites"][1]["cases"].reverse(),
        "suite 'classify_step': case 1 is 'billing_en' in the candidate but 'multiple_en' in the "
        "baseline (--partial",
    ),
}


@pytest.mark.parametrize("field", list(INCOMPATIBLE))
def test_each_incompatibility_is_refused_naming_its_field(
    example_reports: ExampleReports, field: str
) -> None:
    edit, message = INCOMPATIBLE[field]
    report = json.loads(example_reports.baseline.read_text("utf-8"))
    edit(report)
    baseline = example_reports.folder / f"incompatible-{field.replace(' ', '-')}.json"
    baseline.write_text(json.dumps(coherent(report)), "utf-8")  # figures as a run gives them

    result = _compare(example_reports, baseline, name=f"{field}.json")

    assert result.code == 2, result.output
    assert result.stdout == ""
    expected = "goldgate: cannot compare: " + message.format(baseline=baseline)
    assert result.stderr.startswith(expected), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not any(value in result.output for value in PRIVATE)
    assert not (example_reports.folder / "out" / f"{field}.json").exists()


def test_options_of_a_run_are_refused_with_compare(example_reports: ExampleReports) -> None:
    result = _compare(example_reports, example_reports.baseline, "--repeat", "3")
    assert result.code == 2
    assert "--repeat" in result.stderr
    assert "not used with --compare" in result.stderr
