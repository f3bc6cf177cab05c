"""The sticky comment is goldgate's own: a comment carrying goldgate's marker (and a hidden
state line) that another account wrote, another bot included, is never edited or taken as
goldgate's, on the first page of comments or a later one; the action records the id and
author of the comment it posted (outputs ``comment_id`` and ``comment_author``)."""

from __future__ import annotations

from goldgate.github.comments import marker

from .conftest import Runner

ONE_COMMENT = r"/issues/comments/\d+$"
INSTANCE = "goldgate/gate"  # the runner's comment_id
FORGED_STATE = "exit=0;regressed=0,mixed=0,improved=0"


def test_a_marker_comment_another_account_wrote_is_never_goldgate_s(runner: Runner) -> None:
    """Another bot's and a person's forged comments, both on the first page of comments and
    both again on a later one (after 120 others; GitHub lists 100 a page): each is left as it
    was, and goldgate posts and then edits a comment of its own. (One pair of runs for both
    pages.)"""
    number = runner.pr_number
    forged = f"{marker(INSTANCE)}\n<!-- goldgate:state {FORGED_STATE} -->\n## ✅ all good"
    planters = ("other-bot[bot]", "mallory")
    planted = {runner.fake.add_comment(number, forged, login=who): who for who in planters}
    runner.fake.add_comments(number, 120)
    planted |= {runner.fake.add_comment(number, forged, login=who): who for who in planters}
    assert len(runner.fake.comments(number)) == 124  # two on the first page, two on the second

    first = runner.run(comment_mode="changes")
    outputs = runner.outputs()
    second = runner.run(fail_on="never")

    assert (first.code, second.code) == (1, 0), first.stderr
    ours = [c for c in runner.fake.comments(number) if c[1] == "github-actions[bot]"]
    [(ident, _, body)] = ours
    assert (outputs["comment_id"], outputs["comment_author"]) == (
        str(ident),
        "github-actions[bot]",
    )
    assert runner.outputs()["comment_id"] == str(ident)  # the second run edited it in place
    assert body.startswith(marker(INSTANCE) + "\n<!-- goldgate:state exit=0;")
    kept = [(who, text) for found, who, text in runner.fake.comments(number) if found in planted]
    assert kept == [(who, forged) for who in planters * 2]
    patched = [r.path.rsplit("/", 1)[-1] for r in runner.fake.requests_to("PATCH", ONE_COMMENT)]
    assert not {str(ident) for ident in planted} & set(patched)
