"""The two halves of the fork fallback agree: the comment file `goldgate action` writes when
it cannot comment is posted by examples/workflows/fork-comment.yml's script, run here on Node
with GitHub's client faked, and what does not come from goldgate is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.github.comments import marker

from .fork_poster import HEAD_REPOSITORY, HEAD_SHA, post_comment_files


def _handoff(comment_id: str = "goldgate", number: int = 7, body: str = "**goldgate**") -> str:
    """A comment file as goldgate action writes it (see tests/action/test_action.py)."""
    return json.dumps(
        {
            "pull_request": number,
            "head_sha": HEAD_SHA,
            "comment_id": comment_id,
            "body": f"{marker(comment_id)}\n{body}",
        }
    )


PULL = {"head": {"sha": HEAD_SHA, "repo": {"full_name": HEAD_REPOSITORY}}}


@pytest.mark.parametrize("comment_id", ["goldgate", "goldgate/gate", "ci: gate #2 ünï"])
def test_the_action_s_comment_file_is_posted(tmp_path: Path, comment_id: str) -> None:
    name = "goldgate-comment-x.json"
    result = post_comment_files(tmp_path, {name: _handoff(comment_id)}, pull=PULL)

    assert result["failed"] is None
    assert result["calls"][-1] == ["create", 7, f"{marker(comment_id)}\n**goldgate**"]


def test_the_sticky_comment_is_updated_not_duplicated(tmp_path: Path) -> None:
    tag = marker("goldgate")
    mine = {"id": 99, "user": {"login": "github-actions[bot]"}, "body": tag + "\nold"}
    theirs = {"id": 5, "user": {"login": "someone"}, "body": tag + "\nforged"}
    files = {"c.json": _handoff()}
    result = post_comment_files(tmp_path, files, pull=PULL, comments=[theirs, mine])

    assert result["failed"] is None
    assert result["calls"][-1] == ["update", 99, f"{marker('goldgate')}\n**goldgate**"]


@pytest.mark.parametrize(
    ("files", "pull", "why"),
    [
        ({}, PULL, "expected one comment file"),
        ({"a.json": _handoff(), "b.json": _handoff()}, PULL, "expected one comment file"),
        ({"c.json": json.dumps({"pull_request": 7, "body": "no marker"})}, PULL, "marker"),
        ({"c.json": json.dumps({"pull_request": "7", "body": "x"})}, PULL, "no pull request"),
        ({"c.json": _handoff()}, {"head": {"sha": "b" * 40, "repo": PULL["head"]["repo"]}},
         "is not the one the run was for"),
        ({"c.json": _handoff()}, {"head": {"sha": HEAD_SHA, "repo": None}}, "is not the one"),
        ({"c.json": _handoff(body="x" * 70000)}, PULL, "longer than GitHub accepts"),
    ],
)  # fmt: skip
def test_what_is_not_goldgate_s_comment_is_refused(
    tmp_path: Path, files: dict[str, str], pull: Any, why: str
) -> None:
    result = post_comment_files(tmp_path, files, pull=pull)

    assert why in (result["failed"] or "")
    assert not [call for call in result["calls"] if call[0] in ("create", "update")]
