"""Shards on a CI matrix: ``evaluate --shard K/N`` runs a stable subset of cases, and
``goldgate report merge`` joins the shards' reports into exactly the report of one run
(outcomes, counts, summary figures, metrics, thresholds and verdicts), refusing overlaps,
gaps, mixed gold and incomplete shards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from goldgate.gold.suites import shard_of
from goldgate.report.io import read_report
from goldgate.report.models import Report
from goldgate.report.plain import record_json
from helpers.reports import coherent
from run import support
from run.support import run_cli

# Every test here starts processes (tests/helpers/slow.py); one worker makes its whole run and
# four shards once, not each worker that draws one of its tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("shards")]

GENERATED = Path(__file__).parent / "fixtures" / "v1_generated"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated gold (40 cases: classification and multilabel metrics, thresholds, text
    assertions, prose for adjudication, a raising target), copied so runs leave it alone."""
    root = tmp_path_factory.mktemp("shards") / "project"
    shutil.copytree(GENERATED, root, ignore=shutil.ignore_patterns("__pycache__", ".goldgate"))
    return root


def _evaluate(project: Path, output: Path, *args: str) -> Report:
    result = run_cli(
        "evaluate", "--config", str(project / "config" / "settings.yaml"),
        "--output", str(output), "--repeat", "2", *args, cwd=project,
    )  # fmt: skip
    assert output.exists(), result.stderr
    return read_report(output)


def _decided(report: Report) -> list[Any]:
    """Everything a run decided (not timings)."""
    decided: list[Any] = [record_json(report.verdict), record_json(report.dataset)]
    for suite in report.suites:
        plain = record_json(suite)
        for case in plain["cases"]:
            for attempt in case["attempts"]:
                del attempt["latency_ms"]
        decided.append(plain)
    return decided


@pytest.fixture(scope="module")
def runs(project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("reports")
    paths = {"whole": out / "whole.json"}
    _evaluate(project, paths["whole"])
    for k in range(1, 5):
        paths[f"{k}/4"] = out / f"shard-{k}.json"
        _evaluate(project, paths[f"{k}/4"], "--shard", f"{k}/4")
    return paths


def test_four_shards_merged_equal_one_run(runs: dict[str, Path], tmp_path: Path) -> None:
    merged = tmp_path / "merged.json"
    # Order of the arguments does not matter.
    shards = [str(runs[k]) for k in ("3/4", "1/4", "4/4", "2/4")]
    result = run_cli("report", "merge", *shards, "-o", str(merged), cwd=tmp_path)
    whole = read_report(runs["whole"])
    assert result.code == whole.verdict.exit_code, result.stderr
    assert _decided(read_report(merged)) == _decided(whole)
    assert read_report(merged).options.shard is None


def test_merged_shards_are_the_bytes_of_the_merge_read_whole(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """`report merge` streams (each shard read a case at a time, the merged report written
    as it goes): the same bytes as joining the shards read whole, with every speed-up off
    too."""
    from goldgate.report.io import report_bytes
    from goldgate.report.merge import ShardReport, merge_reports

    shards = [runs[k] for k in ("2/4", "4/4", "1/4", "3/4")]
    whole = report_bytes(
        merge_reports([ShardReport(str(path), read_report(path)) for path in shards])
    )
    for accelerators in ("1", "0"):
        merged = tmp_path / f"merged-{accelerators}.json"
        run_cli(
            "report", "merge", *map(str, shards), "-o", str(merged), cwd=tmp_path,
            env={"GOLDGATE_ACCELERATORS": accelerators},
        )  # fmt: skip
        assert merged.read_bytes() == whole


@pytest.mark.parametrize("gated", [False, True])
def test_a_shard_decides_nothing_alone(tmp_path: Path, gated: bool) -> None:
    """A shard whose cases disagree with gold, or miss a threshold, exits 0: its report
    keeps the verdict and its summary says the merge decides; the merged report exits 1.
    A runtime failure still fails its shard (exit 4)."""
    project = support.new_project(tmp_path / "project")
    wrong = support.expect("category", "/payload/category", "refund")
    cases = [support.case(f"c{n}", "ok", *([wrong] if n % 3 == 0 else [])) for n in range(12)]
    thresholds = {"thresholds": {"pass_rate": 0.95}} if gated else {}
    project.suite("main", "py", cases, **thresholds).write()
    shards = []
    for k in range(1, 5):
        output = project.output(f"shard-{k}.json")
        result = project.run("--shard", f"{k}/4", "--output", str(output))
        verdict = read_report(output).verdict
        shards.append(str(output))
        assert result.code == 0, result.output
        if verdict.exit_code == 1:
            assert "in this shard; a shard decides nothing alone" in result.stdout
            as_json = project.run(
                "--shard", f"{k}/4", "--format", "json", "--output", str(output) + ".j"
            )
            shown = json.loads(as_json.stdout)["verdict"]
            assert (as_json.code, shown["exit_code"], shown["passed"]) == (0, 0, False)
    merged = project.output("merged.json")
    assert run_cli("report", "merge", *shards, "-o", str(merged), cwd=project.root).code == 1

    project.suites.clear()
    raising = [support.case(f"c{n}", "raise" if n < 4 else "ok") for n in range(12)]
    project.suite("main", "py", raising)
    project.write()
    codes = {
        project.run("--shard", f"{k}/4", "--output", str(project.output(f"f{k}.json"))).code
        for k in range(1, 5)
    }
    assert 4 in codes, codes


def test_each_shard_runs_a_stable_share_of_the_cases(runs: dict[str, Path]) -> None:
    ids: list[str] = []
    for k in range(1, 5):
        report = read_report(runs[f"{k}/4"])
        assert report.options.shard == f"{k}/4"
        [suite] = report.suites
        assert suite.whole_case_count == 40
        for case in suite.cases:
            assert shard_of("generated", case.id, 4) == k
            ids.append(case.id)
        positions = [case.position for case in suite.cases]
        assert positions == sorted(positions)  # dataset order within a shard
    assert sorted(ids) == [f"g-{i:03d}" for i in range(40)]
    assert all(len(read_report(runs[f"{k}/4"]).suites[0].cases) < 40 for k in range(1, 5))


def test_a_missing_shard_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    shards = [str(runs[k]) for k in ("1/4", "2/4", "4/4")]
    result = run_cli("report", "merge", *shards, "-o", str(tmp_path / "m.json"), cwd=tmp_path)
    assert result.code == 2
    assert "shard 3/4 missing" in result.stderr
    assert not (tmp_path / "m.json").exists()


def test_a_shard_given_twice_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    shards = [str(runs[k]) for k in ("1/4", "2/4", "2/4", "3/4", "4/4")]
    result = run_cli("report", "merge", *shards, "-o", str(tmp_path / "m.json"), cwd=tmp_path)
    assert result.code == 2
    assert "shard 2/4 is also" in result.stderr


def test_overlapping_cases_are_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    # A forged shard 4 that also holds shard 1's first case.
    forged = json.loads(runs["4/4"].read_text())
    forged["suites"][0]["cases"].insert(
        0, json.loads(runs["1/4"].read_text())["suites"][0]["cases"][0]
    )
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(coherent(forged)))
    shards = [str(runs[k]) for k in ("1/4", "2/4", "3/4")] + [str(path)]
    result = run_cli("report", "merge", *shards, "-o", str(tmp_path / "m.json"), cwd=tmp_path)
    assert result.code == 2
    assert "shards overlap" in result.stderr


def test_an_unsharded_or_mixed_report_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    shards = [str(runs["whole"]), str(runs["1/4"])]
    result = run_cli("report", "merge", *shards, "-o", str(tmp_path / "m.json"), cwd=tmp_path)
    assert result.code == 2
    assert "not a shard's report" in result.stderr

    other = json.loads(runs["2/4"].read_text())
    other["dataset"]["fingerprint"] = "sha256:" + "0" * 64
    path = tmp_path / "other-gold.json"
    path.write_text(json.dumps(other))
    shards = [str(runs["1/4"]), str(path), str(runs["3/4"]), str(runs["4/4"])]
    result = run_cli("report", "merge", *shards, "-o", str(tmp_path / "m2.json"), cwd=tmp_path)
    assert result.code == 2
    assert "one dataset fingerprint" in result.stderr


@pytest.mark.parametrize("shard", ["0/4", "5/4", "1", "a/b", "1/0"])
def test_a_malformed_shard_option_is_refused(project: Path, shard: str, tmp_path: Path) -> None:
    result = run_cli(
        "evaluate", "--config", str(project / "config" / "settings.yaml"),
        "--output", str(tmp_path / "r.json"), "--shard", shard, cwd=project,
    )  # fmt: skip
    assert result.code == 2
    assert "shard" in result.stderr.lower()
    assert not (tmp_path / "r.json").exists()
