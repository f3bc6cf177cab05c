"""One constructed pair of reports (``pair.py``) gives the same counts everywhere: the
``evaluate --compare`` summary, its exit code with ``--fail-on-regression``, the comparison
file, the Markdown, ``report show``, JUnit (parsed) and annotations, all through the real
CLI. (The action's outputs for the same pair: tests/app/action/test_action.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import junitparser
import pytest

from goldgate.comparison.models import REPEAT_RULE
from run.support import run_cli

from .pair import (
    BASELINE,
    CANDIDATE,
    COUNTS_TEXT,
    EXPECTED_CLASSES,
    Pair,
    build_pair,
    evaluate,
    project,
    record_verdict,
)

# Every test here starts processes (tests/helpers/slow.py); one worker makes its pair of runs
# once, not each worker that draws one of its tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("one_classification")]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    return build_pair(tmp_path_factory.mktemp("one-classification"), "--repeat", "3")


def _compare(pair: Pair, candidate: Path, output: Path, *args: str) -> Any:
    return run_cli(
        "evaluate", "--compare", str(candidate), "--baseline", str(pair.baseline),
        "--output", str(output), *args, cwd=pair.root,
    )  # fmt: skip


def _junit_counts(xml: str) -> tuple[dict[str, int], int]:
    """The comparison.* properties summed over the suites, and the regression failures."""
    parsed = junitparser.JUnitXml.fromstring(xml.encode("utf-8"))
    counts: dict[str, int] = {}
    regressions = 0
    for suite in parsed:
        for prop in suite.properties():
            name = prop.name.removeprefix("comparison.")
            if prop.name.startswith("comparison.") and not name.endswith(".cases"):
                key = name.replace(" ", "_")
                counts[key] = counts.get(key, 0) + int(prop.value)
        for case in suite:
            regressions += sum(1 for r in case.result if getattr(r, "type", None) == "regression")
    return counts, regressions


def test_every_output_counts_the_one_classification(pair: Pair, tmp_path: Path) -> None:
    output = tmp_path / "comparison.json"
    result = _compare(pair, pair.candidate, output, "--fail-on-regression")

    assert result.code == 1, result.output
    assert f"overall: {COUNTS_TEXT} (cases over repeats);" in result.stdout
    assert "regressions: yes (regressed or mixed: 2)" in result.stdout
    assert f"with --repeat, {REPEAT_RULE}" in result.stdout
    written = json.loads(output.read_text("utf-8"))
    assert written["classes"] == EXPECTED_CLASSES
    [suite] = written["suites"]
    assert suite["unit"] == "case"
    assert suite["rule"] == REPEAT_RULE
    assert {f["case_id"]: f["change"] for f in suite["findings"]} == {
        "drops": "regressed",
        "swap": "mixed",
        "fixed": "improved",
        "noisy": "flaky",
        "judged": "gold changed",
    }
    assert {c["case_id"]: c["change"] for c in suite["cases"]}["steady"] == "unchanged"

    comparison = ("--comparison", str(output))
    markdown = run_cli("report", "markdown", str(pair.candidate), *comparison, cwd=pair.root)
    assert markdown.code == 0, markdown.output
    escaped = COUNTS_TEXT.replace("_", "\\_")
    assert f"; {escaped} \\(cases over repeats\\)." in markdown.stdout
    assert "Against the baseline: attempts passed " in markdown.stdout
    assert "Fisher's exact test \\(one-sided, on its pass counts\\) gives p &lt; 0.05" in (
        markdown.stdout
    )
    sections = markdown.stdout.split("### ")
    table = {section.split("\n", 1)[0]: section for section in sections}
    drops = "| main | drops | regressed | pass to fail: category \\(passed 3/3 before, 0/3 now: "
    assert drops + "all-to-none\\) |" in table["Regressions"]
    assert "| main | swap | mixed |" in table["Regressions"]
    assert "noisy" not in table["Regressions"]
    assert "| main | noisy | flaky |" in table["Flaky cases"]
    assert "| main | fixed | improved |" in table["Improvements"]
    assert "| main | judged | gold changed | gold changed: tone" in table["Gold changes"]

    shown = run_cli("report", "show", str(pair.candidate), *comparison, cwd=pair.root)
    assert shown.code == 0, shown.output
    # Lines wrap at 80 columns: read them as the words they say.
    words = " ".join(shown.stdout.split())
    assert f"; {COUNTS_TEXT} (cases over repeats)." in words
    assert "Against the baseline: attempts passed " in words
    assert "Gold changes (1)" in shown.stdout
    assert "Regressions (2)" in shown.stdout

    junit_path = tmp_path / "junit.xml"
    junit = run_cli(
        "report", "junit", str(pair.candidate), "-o", str(junit_path), *comparison, cwd=pair.root
    )
    assert junit.code == 0, junit.output
    counts, regression_failures = _junit_counts(junit_path.read_text("utf-8"))
    assert counts == {k: v for k, v in EXPECTED_CLASSES.items() if k != "not_compared"}
    assert regression_failures == 6  # every failing attempt of drops and swap

    annotations = run_cli("report", "annotations", str(pair.candidate), *comparison, cwd=pair.root)
    assert annotations.code == 0, annotations.output
    lines = annotations.stdout.splitlines()
    assert sum(1 for line in lines if "title=goldgate regression" in line) == 6
    noisy = [line for line in lines if "/ noisy#" in line]
    assert len(noisy) == 2  # the candidate failed 2 of 3
    assert all("::flaky, not a regression: varies within a run" in line for line in noisy)


def test_the_comparison_file_is_refused_when_its_counts_disagree(
    pair: Pair, tmp_path: Path
) -> None:
    """A comparison whose regressions flag or counts were edited cannot make a green."""
    output = tmp_path / "comparison.json"
    assert _compare(pair, pair.candidate, output).code == 0
    value = json.loads(output.read_text("utf-8"))
    value["regressions"] = False
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(value), "utf-8")

    result = run_cli(
        "report", "markdown", str(pair.candidate), "--comparison", str(forged), cwd=pair.root
    )

    assert result.code == 2
    assert "regressions is false but 2 units regressed or are mixed" in " ".join(
        result.output.split()
    )


def test_flaky_alone_never_fails_the_gate(pair: Pair, tmp_path: Path) -> None:
    noisy_only = evaluate(
        pair.root, {**BASELINE, "noisy": CANDIDATE["noisy"]}, tmp_path / "noisy.json",
        "--repeat", "3",
    )  # fmt: skip
    result = _compare(pair, noisy_only, tmp_path / "c.json", "--fail-on-regression")

    assert result.code == 0, result.output
    assert "0 regressed, 0 mixed, 0 improved, 1 flaky, 1 gold changed" in result.stdout
    assert "regressions: none (regressed or mixed: 0)" in result.stdout


def test_a_verdict_changed_between_runs_is_a_gold_change_not_a_regression(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "project")
    record_verdict(root, "pass")
    baseline = evaluate(root, BASELINE, tmp_path / "baseline.json")
    record_verdict(root, "fail")  # the application is the same; the reviewer changed their mind
    candidate = evaluate(root, BASELINE, tmp_path / "candidate.json")
    output = tmp_path / "comparison.json"

    result = run_cli(
        "evaluate", "--compare", str(candidate), "--baseline", str(baseline),
        "--output", str(output), "--fail-on-regression", cwd=root,
    )  # fmt: skip

    assert result.code == 0, result.output
    assert (
        "overall: 0 regressed, 0 mixed, 0 improved, 0 flaky, 1 gold changed, 0 input changed, "
        "5 unchanged;" in result.stdout
    )
    comparison = ("--comparison", str(output))
    markdown = run_cli("report", "markdown", str(candidate), *comparison, cwd=root).stdout
    assert "### Regressions" not in markdown
    assert "| main | judged | gold changed | gold changed: tone" in markdown
    junit = tmp_path / "junit.xml"
    run_cli("report", "junit", str(candidate), "-o", str(junit), *comparison, cwd=root)
    assert 'type="regression"' not in junit.read_text("utf-8")
    assert 'type="gold disagreement"' in junit.read_text("utf-8")  # the verdict fails it now
    annotations = run_cli("report", "annotations", str(candidate), *comparison, cwd=root).stdout
    [line] = [line for line in annotations.splitlines() if "/ judged" in line]
    assert "goldgate gold disagreement" in line
    assert "::gold changed, not a regression: gold changed: tone" in line


def test_a_spooled_repeated_comparison_writes_the_same_bytes(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every kind of unit, cases over repeats (case views): with every list spooled to a
    file the comparison's file is the bytes of the comparison held in memory (issue 43)."""
    from datetime import UTC, datetime

    from goldgate.comparison import compare, comparison_bytes
    from goldgate.comparison import spool as spool_module

    now = datetime(2026, 12, 7, tzinfo=UTC)
    written = []
    for held in (spool_module.HELD, 0):
        monkeypatch.setattr(spool_module, "HELD", held)
        comparison = compare(pair.candidate, pair.baseline, now=now)
        [suite] = comparison.suites
        assert suite.cases.spooled is (held == 0)
        assert len(suite.findings) == 5  # one of each class but unchanged
        written.append(comparison_bytes(comparison))
    assert written[0] == written[1]
