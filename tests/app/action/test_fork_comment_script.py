"""examples/workflows/fork-comment.yml, both halves: its goldgate step renders the comment
again from the report a fork's run left (never posting a body from the artifact), and its
script (run on Node, GitHub's client faked) posts it only to the pull request the
triggering run was for. What a fork's run could forge is refused or escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from goldgate.app.forkcomment import PREFACE, file_names, handoff
from goldgate.github.comments import marker

from .fork_poster import HEAD_REPOSITORY, HEAD_SHA, post_rendered, rebuild

pytestmark = [
    pytest.mark.slow,  # every test here starts processes (tests/helpers/slow.py)
    pytest.mark.xdist_group("fork_comment_script"),  # the failing report once, on one worker
]

HOSTILE = "@team <img src=x onerror=alert(1)> ✅ passed GH-1 [x](https://e.com)"
PULL = {"head": {"sha": HEAD_SHA, "repo": {"full_name": HEAD_REPOSITORY}}}


@pytest.fixture(scope="module")
def failing_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report of a failing run whose suite and case names hold what a fork would
    like a comment to say."""
    from run.support import STATUS_OK, case, expect, new_project

    project = new_project(tmp_path_factory.mktemp("fork") / "project")
    wrong = expect("category", "/payload/category", "refund")
    project.suite("suite " + HOSTILE, "py", [case("case " + HOSTILE, "ok", STATUS_OK, wrong)])
    project.write()
    output = project.output()
    assert project.run("--output", str(output)).code == 1
    return output


def _artifact(folder: Path, source: Path, *, comment_id: str = "goldgate", **changes: Any) -> Path:
    """The artifact as the action leaves it: the hand-off and the report it names."""
    folder.mkdir(parents=True)
    name, report_name, _ = file_names(comment_id)
    shutil.copyfile(source, folder / report_name)
    document = handoff(
        7,
        head_sha=HEAD_SHA,
        comment_id=comment_id,
        details="safe",
        link_gold=True,
        report=report_name,
        comparison=None,
    )
    document.update(changes)
    (folder / name).write_text(json.dumps(document), "utf-8")
    return folder


def test_the_comment_is_rendered_from_the_report_and_posted(
    tmp_path: Path, failing_report: Path
) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report, comment_id="ci: gate #2 ünï")
    rendered = tmp_path / "rendered.json"

    done = rebuild(artifact, rendered)

    assert done.returncode == 0, done.stderr
    comment = json.loads(rendered.read_text("utf-8"))
    assert comment["pull_request"] == 7
    assert comment["head_sha"] == HEAD_SHA
    tag, body = comment["body"].split("\n", 1)
    assert tag == marker("ci: gate #2 ünï")
    assert body.startswith("## ")  # the verdict first
    assert f"> {PREFACE}" in body.split("\n### ")[0]
    assert "goldgate: failed" in body
    assert f"https://github.com/octo/triage/blob/{HEAD_SHA}/" in body  # the event's commit
    assert "@team" not in body
    assert "<img" not in body
    assert "](https://e.com)" not in body
    posted = post_rendered(tmp_path / "post", rendered.read_text("utf-8"), pull=PULL)
    assert posted["failed"] is None
    assert posted["calls"][-1] == ["create", 7, comment["body"]]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"head_sha": "b" * 40}, "not " + HEAD_SHA),
        ({"body": '<!-- goldgate:comment id="goldgate" -->\n✅ passed @team'}, "unknown field"),
        ({"format": "goldgate.fork-comment/0"}, "not a goldgate fork hand-off"),
        ({"pull_request": "7"}, "not a pull request number"),
        ({"comment_id": "x\n::error::y"}, "comment_id"),
        ({"comment_id": "x" * 201}, "at most 200 characters"),
        ({"report": "../../etc/passwd"}, "'report' is not the name"),
        ({"report": "goldgate-comment-missing.json"}, "goldgate-comment-missing.json"),
        ({"details": "everything"}, "'details'"),
    ],
)
def test_a_hand_off_goldgate_did_not_write_is_refused(
    tmp_path: Path, failing_report: Path, change: dict[str, Any], why: str
) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report, **change)
    rendered = tmp_path / "rendered.json"

    done = rebuild(artifact, rendered)

    assert done.returncode == 2, done.stdout + done.stderr
    assert why in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not rendered.exists()


@pytest.mark.parametrize(
    ("asked", "extra", "shown"),
    [("values", "", False), ("safe", "--details values", False),
     ("values", "--details values", True)],
)  # fmt: skip
def test_values_are_shown_only_when_the_trusted_job_and_the_hand_off_ask(
    tmp_path: Path, failing_report: Path, asked: str, extra: str, shown: bool
) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report, details=asked)
    rendered = tmp_path / "rendered.json"

    done = rebuild(artifact, rendered, extra=extra)

    assert done.returncode == 0, done.stderr
    body = json.loads(rendered.read_text("utf-8"))["body"]
    assert ('"refund"' in body) is shown
    assert ('"billing"' in body) is shown


def test_a_forged_report_is_refused(tmp_path: Path, failing_report: Path) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report)
    _, report_name, _ = file_names("goldgate")
    (artifact / report_name).write_text('{"format": "goldgate.report/2", "verdict": "passed"}')

    done = rebuild(artifact, tmp_path / "rendered.json")

    assert done.returncode == 2, done.stdout + done.stderr
    assert not (tmp_path / "rendered.json").exists()


def test_two_hand_offs_are_refused(tmp_path: Path, failing_report: Path) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report)
    (artifact / "goldgate-comment-other.json").write_text("{}")

    done = rebuild(artifact, tmp_path / "rendered.json")

    assert done.returncode == 2
    assert "expected one goldgate-comment-*.json file, found 2" in done.stderr


def _rendered(number: int = 7, body: str = "**goldgate**", head_sha: str = HEAD_SHA) -> str:
    return json.dumps(
        {
            "pull_request": number,
            "head_sha": head_sha,
            "comment_id": "goldgate",
            "body": f"{marker('goldgate')}\n{body}",
        }
    )


def test_the_sticky_comment_is_updated_not_duplicated(tmp_path: Path) -> None:
    tag = marker("goldgate")
    mine = {"id": 99, "user": {"login": "github-actions[bot]"}, "body": tag + "\nold"}
    theirs = {"id": 5, "user": {"login": "someone"}, "body": tag + "\nforged"}
    result = post_rendered(tmp_path, _rendered(), pull=PULL, comments=[theirs, mine])

    assert result["failed"] is None
    assert result["calls"][-1] == ["update", 99, f"{tag}\n**goldgate**"]


@pytest.mark.parametrize(
    ("rendered", "pull", "event_pulls", "why"),
    [
        (json.dumps({"pull_request": 7, "body": "no marker", "head_sha": HEAD_SHA}), PULL, [],
         "marker"),
        (json.dumps({"pull_request": "7", "body": "x"}), PULL, [], "no pull request number"),
        (_rendered(head_sha="c" * 40), PULL, [], "no pull request number, body or head"),
        (_rendered(), {"head": {"sha": "b" * 40, "repo": PULL["head"]["repo"]}}, [],
         "is not the one the run was for"),
        (_rendered(), {"head": {"sha": HEAD_SHA, "repo": None}}, [], "is not the one"),
        (_rendered(), PULL, [{"number": 8}], "is not one the run was for"),
        (_rendered(body="x" * 70000), PULL, [], "longer than GitHub accepts"),
    ],
)  # fmt: skip
def test_what_is_not_for_this_pull_request_is_not_posted(
    tmp_path: Path, rendered: str, pull: Any, event_pulls: Any, why: str
) -> None:
    result = post_rendered(tmp_path, rendered, pull=pull, event_pulls=event_pulls)

    assert why in (result["failed"] or "")
    assert not [call for call in result["calls"] if call[0] in ("create", "update")]


def test_an_event_pull_request_is_trusted_like_a_verified_head(tmp_path: Path) -> None:
    result = post_rendered(tmp_path, _rendered(), pull=PULL, event_pulls=[{"number": 7}])

    assert result["failed"] is None
    assert result["calls"][-1][0] == "create"


def test_the_check_run_the_fork_asked_for_is_created_on_its_head_commit(
    tmp_path: Path, failing_report: Path
) -> None:
    """The hand-off's ``check_run`` (issue 44): the trusted job renders the check run from
    the report (its conclusion the report's verdict under the hand-off's ``fail_on``) and
    creates it on the fork's head commit, annotations in requests of at most 50."""
    artifact = _artifact(tmp_path / "artifact", failing_report, check_run=True, fail_on="never")
    assert (
        handoff(
            7,
            head_sha=HEAD_SHA,
            comment_id="goldgate",
            details="safe",
            link_gold=True,
            report="r",
            comparison=None,
            check_run="never",
        )["fail_on"]
        == "never"
    )
    rendered = tmp_path / "rendered.json"

    done = rebuild(artifact, rendered)

    assert done.returncode == 0, done.stderr
    comment = json.loads(rendered.read_text("utf-8"))
    run = comment["check_run"]
    assert (run["name"], run["conclusion"]) == ("goldgate", "neutral")
    assert run["title"].startswith("❌ goldgate: failed")  # the report's own verdict
    assert run["summary"] == comment["body"].split("\n", 1)[1]
    (annotation,) = run["annotations"]
    assert annotation["annotation_level"] == "failure"
    assert "@team" in annotation["title"]  # a plain-text title: never rendered as Markdown
    posted = post_rendered(tmp_path / "post", rendered.read_text("utf-8"), pull=PULL)
    assert posted["failed"] is None
    checks = [call for call in posted["calls"] if call[0].startswith("checks.")]
    assert [name for name, _ in checks] == ["checks.create", "checks.update"]
    assert checks[0][1]["head_sha"] == HEAD_SHA
    assert checks[0][1]["status"] == "in_progress"
    assert checks[1][1]["conclusion"] == "neutral"
    assert checks[1][1]["output"]["annotations"] == run["annotations"]


def test_without_check_run_in_the_hand_off_none_is_created(
    tmp_path: Path, failing_report: Path
) -> None:
    artifact = _artifact(tmp_path / "artifact", failing_report)
    rendered = tmp_path / "rendered.json"

    assert rebuild(artifact, rendered).returncode == 0
    assert "check_run" not in json.loads(rendered.read_text("utf-8"))
