"""What a pull request's check must show, asserted alike wherever ``goldgate action`` runs:
as a subprocess on the host (test_action.py) and in the action's image under Docker, as the
runner starts it (test_container.py). A scenario takes a ``Runner`` (conftest.py) and calls
only its ``run``, so the same assertions hold for both."""

from __future__ import annotations

from pathlib import Path

from goldgate.github.comments import marker
from goldgate.render import escape
from helpers.fake_github import TOKEN
from run.support import CliRun

from .conftest import SECRET, Runner
from .support import why

RUN_URL = "https://github.com/Codertocat/Hello-World/actions/runs/4242"
"""The run the comment names for its HTML page (GITHUB_RUN_ID 4242 in conftest.py)."""


def everything_written(runner: Runner, result: CliRun) -> dict[str, str]:
    """Every text the action produced or sent, by where it went."""
    texts = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "GITHUB_OUTPUT": runner.output.read_text("utf-8"),
        "GITHUB_STEP_SUMMARY": runner.summary.read_text("utf-8"),
    }
    for path in runner.workspace.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".xml", ".md", ".html"):
            texts[str(path.relative_to(runner.workspace))] = path.read_text("utf-8", "replace")
    for index, request in enumerate(runner.fake.requests):
        texts[f"request {index} {request.method} {request.path}"] = request.body
    return texts


def assert_no_secret(runner: Runner, result: CliRun) -> None:
    for where, text in everything_written(runner, result).items():
        for secret in (SECRET, TOKEN):
            lines = [line for line in text.splitlines() if secret in line]
            if where == "stdout":  # the one place: the mask itself, before anything runs
                assert lines == [f"::add-mask::{secret}"], (where, lines)
            else:
                assert lines == [], (where, lines)


def gated_commented_once_and_summarized(runner: Runner, comment_id: str) -> CliRun:
    """A pull request whose candidate regresses 3 cases against the merge-base baseline: run
    twice (``fail_on`` disagreement, then never), it gets exit 1 then 0, the outputs, the
    JUnit, the job summary, 3 annotations and one sticky comment (marked ``comment_id``),
    created by the first run and updated in place by the second; no secret leaks. The first
    run's result."""
    first = runner.run()

    assert first.code == 1, first.stderr
    assert "Traceback" not in first.stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "1"
    assert (outputs["passed"], outputs["failed"], outputs["errors"]) == ("20", "3", "0")
    assert (outputs["improved"], outputs["regressed"], outputs["flaky"]) == ("4", "3", "0")
    assert outputs["comment_file"] == ""
    for name in ("report", "comparison", "junit", "markdown", "html"):
        assert (runner.workspace / outputs[name]).is_file(), name
    junit = (runner.workspace / outputs["junit"]).read_text("utf-8")
    assert junit.count('type="regression"') == 3
    assert outputs["junit"] == "goldgate-junit.xml"
    page = runner.workspace / outputs["html"]
    assert page.name == Path(outputs["report"]).with_suffix(".html").name  # named after it
    assert '<h1>goldgate: <span class="word">failed</span></h1>' in page.read_text("utf-8")
    assert 'data-side="before"' in page.read_text("utf-8")  # the baseline's heatmaps too
    where = (
        f"The HTML report, with its figures and every case: {escape.markdown(outputs['html'])}, "
        f"among the artifacts of [this run]({RUN_URL}) where the workflow uploads it."
    )

    summary = runner.summary.read_text("utf-8")
    # The merge-base baseline's branch and commit, as the artifact says.
    assert summary.splitlines()[0].startswith(
        "## ❌ goldgate: failed — 2 regressed, 1 mixed, 4 improved against master@"
    )
    assert why(summary).startswith("Failed, as fail_on is disagreement: exit code 1")
    assert "### Regressions" in summary
    assert summary.rstrip("\n").endswith(where)

    annotations = [line for line in first.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 3
    assert all("goldgate regression" in line for line in annotations)

    comments = runner.fake.comments(runner.pr_number)
    assert len(comments) == 1
    ident, author, body = comments[0]
    assert author == "github-actions[bot]"
    assert body.startswith(marker(comment_id) + "\n<!-- goldgate:state exit=1;")
    assert why(body).startswith("Failed, as fail_on is disagreement")
    assert "(https://github.com/Codertocat/Hello-World/blob/ec26c3e" in body  # link_gold
    assert body.rstrip("\n").endswith(where)
    assert_no_secret(runner, first)

    second = runner.run(fail_on="never")

    assert second.code == 0, second.stderr
    comments = runner.fake.comments(runner.pr_number)
    assert len(comments) == 1, "the sticky comment was duplicated"
    assert comments[0][0] == ident
    assert comments[0][2].startswith(marker(comment_id) + "\n<!-- goldgate:state exit=0;")
    assert why(comments[0][2]).startswith("Passed whatever the run found, as fail_on is never")
    assert runner.fake.requests_to("PATCH", r"/issues/comments/\d+")
    assert_no_secret(runner, second)
    return first
