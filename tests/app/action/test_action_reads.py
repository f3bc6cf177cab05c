"""``goldgate action`` trusts no report it is given: in modes report, compare and replay an
unreadable or forged report (or a forged baseline) is exit 2, the ``exit_code`` output says
2 and the job summary says why in one sentence, whatever ``fail_on`` says. And the
``exit_code`` output is always goldgate's own exit code: ``fail_on`` decides only the step's.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from helpers.fake_github import FakeGitHub
from helpers.reports import coherent

from .conftest import Runner, make_runner, saved_candidate
from .support import why


def _lying(value: dict[str, Any]) -> dict[str, Any]:
    """Every failed check passed, and every figure made to agree with that."""
    for suite in value["suites"]:
        for case in suite["cases"]:
            for attempt in case["attempts"]:
                for check in attempt.get("checks", []):
                    if check["outcome"] == "failed":
                        check["outcome"] = "passed"
                        check.pop("reason", None)
    return coherent(value, rescore=False)


def _write(runner: Runner, name: str, value: Any) -> str:
    path = runner.workspace / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), "utf-8")
    return name


def _refused(runner: Runner, result: Any, *fragments: str) -> None:
    assert result.code == 2, result.stdout + result.stderr
    assert runner.outputs()["exit_code"] == "2"
    summary = runner.summary.read_text("utf-8")
    assert summary.startswith("## ❌ goldgate: failed\n"), summary
    assert "fail_on" in why(summary), summary
    assert len(summary.strip().splitlines()) == 3, summary  # the verdict, then the rule and why
    for fragment in fragments:
        assert fragment in summary, summary
    assert "Traceback" not in result.stdout + result.stderr
    assert runner.fake.comments(runner.pr_number) == []


@pytest.mark.parametrize("mode", ["report", "compare", "replay"])
@pytest.mark.parametrize("fail_on", ["disagreement", "never"])
def test_a_forged_report_is_exit_2_in_every_mode_and_the_summary_says_why(
    runner: Runner, candidate: tuple[str, bytes], mode: str, fail_on: str
) -> None:
    _, value = saved_candidate(runner, candidate)
    forged = _write(runner, "forged.json", _lying(value))

    result = runner.run(mode=mode, report=forged, baseline="", comment="update", fail_on=fail_on)

    _refused(runner, result, "forged.json", "altered or is corrupt")


@pytest.mark.parametrize("mode", ["report", "compare", "replay"])
@pytest.mark.parametrize(
    "text", ["{}", '{"format": "goldgate.report/2", "suites": "x"}', "<html></html>"]
)
def test_an_unreadable_report_is_exit_2_in_every_mode(runner: Runner, mode: str, text: str) -> None:
    broken = _write(runner, "broken.json", text)

    result = runner.run(mode=mode, report=broken, baseline="", comment="update", fail_on="never")

    _refused(runner, result, "broken.json")


def test_an_out_of_range_exit_code_is_exit_2(runner: Runner, candidate: tuple[str, bytes]) -> None:
    _, value = saved_candidate(runner, candidate)
    value["verdict"]["exit_code"] = 7
    forged = _write(runner, "forged.json", value)

    result = runner.run(mode="report", report=forged, baseline="", comment="off")

    _refused(runner, result, "/verdict/exit", "is 7 but")


def test_a_forged_baseline_is_exit_2_not_no_baseline(
    runner: Runner, candidate: tuple[str, bytes]
) -> None:
    saved, value = saved_candidate(runner, candidate)
    baseline = _write(runner, "baseline.json", _lying(value))

    result = runner.run(
        mode="compare", report=saved, baseline=baseline, comment="off", fail_on="regression"
    )

    _refused(runner, result, "the baseline was refused", "altered or is corrupt")


@pytest.mark.parametrize(("fail_on", "step"), [("disagreement", 1), ("never", 0)])
def test_the_exit_code_output_is_goldgates_whatever_fail_on(
    runner: Runner, candidate: tuple[str, bytes], fail_on: str, step: int
) -> None:
    saved, _ = saved_candidate(runner, candidate)

    result = runner.run(mode="report", report=saved, baseline="", comment="off", fail_on=fail_on)

    assert result.code == step, result.stderr
    assert runner.outputs()["exit_code"] == "1"
    assert Path(runner.workspace / saved).is_file()


def test_a_forged_baseline_artifact_is_no_baseline_and_says_why(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        value = json.loads(archive.read("goldgate-report.json"))
    value["verdict"]["exit_code"] = 0
    forged = io.BytesIO()
    with zipfile.ZipFile(forged, "w") as archive:
        archive.writestr("goldgate-report.json", json.dumps(value))
    runner = make_runner(tmp_path, fake, payload, forged.getvalue())

    result = runner.run(comment="off", fail_on="regression")

    assert "Traceback" not in result.stderr
    summary = runner.summary.read_text("utf-8")
    assert "holds no goldgate report" in summary, summary
    assert "/verdict/exit" in summary, summary
    assert runner.outputs()["comparison"] == ""
