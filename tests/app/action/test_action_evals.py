"""``goldgate action`` in mode ``evals``, end to end as the runner starts it: the example's
Python evals (``examples/support_triage/evals``) run in a workspace whose application changed
since the baseline, compared with the evals report of the merge-base commit, which the fake
GitHub serves as an artifact.

The candidate no longer finds account numbers (``compare.conftest.BASELINE_EDITS``, the gold
tests' baseline), so four eval attempts that passed at the merge-base commit fail now: four
regressions and a gold disagreement (exit 1); the other seven attempts still pass.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import BASELINE_EDITS, example_copy
from goldgate.github.comments import marker
from helpers.fake_github import FakeGitHub
from run.support import CliRun, run_cli

from .conftest import ARTIFACT, MERGE_BASE, Runner, made_once, make_runner
from .scenarios import assert_no_secret
from .support import why

EVALS_ARTIFACT = "goldgate-evals-baseline"
REGRESSED = [  # suite, case, the check that went from passed to failed
    ("reply_drafts", "drafts_a_reply[cancel_en]", "expect"),
    ("routing", "routes_a_cancellation", "pass"),
    ("routing", "routes_each_case[refund_en]", "account"),
    ("routing", "routes_each_case[plan_de]", "account"),
]

STALLS = """
import anyio

from goldgate.evals import eval


@eval(dataset="slow", timeout=0.2)
async def stalls(ctx):
    await anyio.sleep(30)
"""

NO_TOKENS = """
import os

from goldgate.evals import eval

TOKENS = ("GITHUB_TOKEN", "INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
          "ACTIONS_ID_TOKEN_REQUEST_TOKEN")


@eval(dataset="environment")
def sees_no_token(ctx):
    ctx.output = sorted(name for name in TOKENS if name in os.environ)  # names, never values
    assert ctx.output == [], "an eval can read a GitHub or Actions token"
"""


@pytest.fixture(scope="session")
def evals_baseline(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The evals report of the unchanged example, as `goldgate evals run` writes it: once for
    the whole run (``made_once``), not once an xdist worker."""

    def make(folder: Path) -> None:
        root = example_copy(tmp_path_factory.mktemp("action-evals-baseline") / "baseline", {})
        report = folder / "evals-baseline.json"
        result = run_cli("evals", "run", "evals", "--output", str(report), cwd=root, timeout=120)
        assert result.code == 0, result.output

    folder = made_once(tmp_path_factory, "action-evals-baseline", make)
    return (folder / "evals-baseline.json").read_bytes()


def _zip(report: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("goldgate-evals-report.json", report)
    return buffer.getvalue()


@pytest.fixture
def runner(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], evals_baseline: bytes
) -> Runner:
    return make_runner(
        tmp_path, fake, payload, _zip(evals_baseline), edits=BASELINE_EDITS, artifact=EVALS_ARTIFACT
    )


def run_evals(runner: Runner, **inputs: str) -> CliRun:
    given = {"mode": "evals", "evals": "evals", "baseline": f"artifact:{EVALS_ARTIFACT}"}
    return runner.run(**{**given, **inputs})


def test_mode_evals_gates_compares_comments_and_reports(runner: Runner) -> None:
    result = run_evals(runner)

    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "verdict: gold disagreement (exit 1)" in result.stdout  # the run's own summary
    outputs = runner.outputs()
    assert outputs["exit_code"] == "1"
    assert (outputs["passed"], outputs["failed"], outputs["errors"]) == ("7", "4", "0")
    assert (outputs["improved"], outputs["regressed"], outputs["flaky"]) == ("0", "4", "0")
    assert outputs["comment_file"] == ""
    for name in ("report", "comparison", "junit", "markdown", "html"):
        assert (runner.workspace / outputs[name]).is_file(), name

    report = json.loads((runner.workspace / outputs["report"]).read_text("utf-8"))
    assert report["variant"]["name"] == "evals"
    assert report["dataset"]["path"] == "evals"
    assert [suite["name"] for suite in report["suites"]] == [
        "reply_drafts",
        "reply_quality",
        "routing",
    ]
    assert {suite["target"]["kind"] for suite in report["suites"]} == {"eval"}
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    changes = [
        (suite["name"], change["case_id"], change["change"], change["checks"])
        for suite in comparison["suites"]
        for change in suite["changes"]
    ]
    assert changes == [
        (suite, case, "regressed", [{"name": check, "candidate": "failed", "baseline": "passed"}])
        for suite, case, check in REGRESSED
    ]

    junit = (runner.workspace / outputs["junit"]).read_text("utf-8")
    assert junit.count('type="regression"') == 4
    assert '<testsuite disabled="0" errors="0" failures="3" name="routing"' in junit

    summary = runner.summary.read_text("utf-8")
    assert summary.startswith("## ❌ goldgate: failed — ")
    assert why(summary) == (
        "Failed, as fail_on is disagreement: exit code 1, gold disagreement. A check failed or "
        "could not run, or a threshold was missed."
    )
    assert "### Regressions" in summary
    first = summary.splitlines()[0]
    assert first.startswith("## ❌ goldgate: failed — 4 regressed against master@")

    annotations = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 4
    assert sum("file=evals/eval_replies.py," in line for line in annotations) == 1
    assert sum("file=evals/eval_routing.py," in line for line in annotations) == 3
    assert all("goldgate regression" in line for line in annotations)

    [(_, author, body)] = runner.fake.comments(runner.pr_number)
    assert author == "github-actions[bot]"
    assert body.startswith(marker("goldgate/gate") + "\n<!-- goldgate:state exit=1;")
    assert why(body).startswith("Failed, as fail_on is disagreement")
    assert "routes\\_each\\_case\\[refund\\_en\\]" in body
    assert "/blob/ec26c3e57ca3a959ca5aad62de7213c562f8c821/evals/eval_replies.py#L" in body
    assert_no_secret(runner, result)


@pytest.mark.parametrize(
    ("fail_on", "stalled", "code", "rule"),
    [
        # disagreement, nothing stalled: test_mode_evals_gates_compares_comments_and_reports
        ("regression", False, 1, "Failed: 4 regressed or mixed against the baseline"),
        ("never", False, 0, "Passed whatever the run found, as fail_on is never"),
        ("disagreement", True, 4, "Failed, as fail_on is disagreement: exit code 4"),
        ("regression", True, 4, "Failed: the run itself did not complete cleanly (exit code 4"),
        ("never", True, 0, "Passed whatever the run found, as fail_on is never"),
    ],
)
def test_the_exit_code_of_mode_evals_follows_fail_on(
    runner: Runner, fail_on: str, stalled: bool, code: int, rule: str
) -> None:
    """A failing eval is a gold disagreement (exit 1); an eval past its timeout is a runtime
    failure (exit 4), which fail_on regression does not forgive. (fail_on disagreement with
    nothing stalled is test_mode_evals_gates_compares_comments_and_reports's run, which
    asserts the same exit code, outputs and rule.)"""
    if stalled:
        (runner.workspace / "evals" / "eval_stalls.py").write_text(STALLS, "utf-8")

    result = run_evals(runner, fail_on=fail_on, comment="off")

    assert result.code == code, result.stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == ("4" if stalled else "1")  # goldgate's own, whatever fail_on
    assert outputs["regressed"] == "4"  # the new eval is an added case, not a regression
    assert outputs["errors"] == ("1" if stalled else "0")
    summary = runner.summary.read_text("utf-8")
    assert why(summary).startswith(rule)
    if stalled:
        assert "/evals/eval_stalls.py#L7) | timed\\_out | eval 'stalls' gave no result" in summary
    assert runner.fake.comments(runner.pr_number) == []


def test_mode_evals_compares_with_a_baseline_report_in_the_workspace(
    runner: Runner, evals_baseline: bytes
) -> None:
    (runner.workspace / "evals-baseline.json").write_bytes(evals_baseline)

    result = run_evals(
        runner, baseline="evals-baseline.json", partial="false", fail_on="regression"
    )

    assert result.code == 1, result.stderr
    outputs = runner.outputs()
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    assert comparison["mode"] == "full"  # the same evals and cases: nothing partial about it
    assert (outputs["improved"], outputs["regressed"]) == ("0", "4")
    assert not runner.fake.requests_to("GET", r"/artifacts")


def test_a_gold_baseline_is_not_compared_and_says_so(runner: Runner, baseline_zip: bytes) -> None:
    """A misconfigured baseline, the merge-base commit's gold report, is of another dataset
    than an evals report: it is refused for the comparison, partial or full, with a warning
    and a note (so fail_on regression cannot pass silently on it), and the candidate is
    reported either way."""
    runner.fake.add_artifact(
        ARTIFACT, head_sha=MERGE_BASE, head_branch="master", zip_bytes=baseline_zip
    )

    for partial in ("true", "false"):
        result = run_evals(
            runner, baseline=f"artifact:{ARTIFACT}", fail_on="regression", partial=partial
        )

        assert result.code == 0, result.stderr  # no comparison, so nothing regressed
        assert "Traceback" not in result.stderr
        assert runner.outputs()["comparison"] == ""
        warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
        assert any("baseline not compared: it is a report of the dataset" in w for w in warnings)
        summary = runner.summary.read_text("utf-8")
        assert "> Baseline not compared: it is a report of the dataset 'support" in summary
        assert "### Failing cases" in summary


def test_evals_never_see_a_github_or_actions_token(runner: Runner) -> None:
    (runner.workspace / "evals" / "eval_environment.py").write_text(NO_TOKENS, "utf-8")

    result = run_evals(runner, evals="evals/eval_environment.py", baseline="", comment="off")

    assert result.code == 0, result.stdout + result.stderr
    report = json.loads((runner.workspace / runner.outputs()["report"]).read_text("utf-8"))
    [case] = report["suites"][0]["cases"]
    assert case["attempts"][0]["result"]["output"] == []


def test_mode_evals_without_evals_is_refused(runner: Runner) -> None:
    result = run_evals(runner, evals="")

    assert result.code == 2
    assert "::error title=goldgate::mode evals needs the input evals" in result.stdout
    assert runner.outputs() == {"exit_code": "2"}
    assert not (runner.workspace / ".goldgate").exists()  # nothing ran


def test_an_eval_file_that_does_not_import_is_exit_2_whatever_fail_on(runner: Runner) -> None:
    (runner.workspace / "evals" / "eval_broken.py").write_text("import no_such_module\n", "utf-8")

    result = run_evals(runner, fail_on="never", comment="off")

    assert result.code == 2, result.stdout + result.stderr
    assert "eval_broken.py:1: the eval file does not import" in result.stderr
    assert runner.outputs()["exit_code"] == "2"
    summary = runner.summary.read_text("utf-8")
    assert summary.startswith("## ❌ goldgate: failed\n")
    assert why(summary).startswith(
        "Failed: the input was invalid or the run was interrupted (exit code 2"
    )
