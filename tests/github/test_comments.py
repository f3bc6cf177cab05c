"""The sticky comment against the fake GitHub: found on any page, by marker and author,
updated in place; every refusal a fallback with a reason, never a traceback."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from goldgate.github.client import connect, repository
from goldgate.github.comments import (
    COMMENT_LIMIT,
    DEFAULT_AUTHORS,
    CommentResult,
    StickyComment,
    comment_authors,
    comment_budget,
    comment_length,
    comment_state,
    marker,
    upsert_comment,
    with_marker,
)
from goldgate.github.errors import CommentTooLong
from helpers.fake_github import BOT, READ_ONLY_MESSAGE, FakeGitHub

from .conftest import FAST

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

COMMENTS = r"/issues/\d+/comments$"
ONE_COMMENT = r"/issues/comments/\d+$"

# --- the marker ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instance_id", "expected"),
    [
        ("main", '<!-- goldgate:comment id="main" -->'),
        ("suite/a:b@c", '<!-- goldgate:comment id="suite/a:b@c" -->'),
        ("a-b", '<!-- goldgate:comment id="a%2Db" -->'),
        ("x-->y", '<!-- goldgate:comment id="x%2D%2D%3Ey" -->'),
        ('q"uote', '<!-- goldgate:comment id="q%22uote" -->'),
        ("50%", '<!-- goldgate:comment id="50%25" -->'),
        ("two words\n", '<!-- goldgate:comment id="two%20words%0A" -->'),
        ("é", '<!-- goldgate:comment id="%C3%A9" -->'),
    ],
)
def test_marker_escapes_the_id(instance_id: str, expected: str) -> None:
    assert marker(instance_id) == expected


@pytest.mark.parametrize("instance_id", ["-->", "--", "a--!>b", "<!--", '" -->', "\x00"])
def test_no_id_can_close_the_marker_early(instance_id: str) -> None:
    tag = marker(instance_id)
    inside = tag.removeprefix("<!-- ").removesuffix(" -->")

    assert "--" not in inside
    assert ">" not in inside
    assert inside.count('"') == 2


def test_different_ids_never_share_a_marker_or_a_prefix() -> None:
    ids = ["a", "ab", "a%", "a%25", "a-", "a%2D", "A"]
    tags = [marker(i) for i in ids]

    assert len(set(tags)) == len(ids)
    assert not any(s.startswith(t) for s in tags for t in tags if s != t)


def test_an_empty_id_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        marker("")


def test_with_marker_puts_it_first_once() -> None:
    body = with_marker("## goldgate", "main")

    assert body == '<!-- goldgate:comment id="main" -->\n## goldgate'
    assert with_marker(body, "main") == body


def test_budget_and_length_count_utf16_units() -> None:
    assert comment_length("abc") == 3
    assert comment_length("😀") == 2
    assert comment_budget("main") == COMMENT_LIMIT - len(marker("main")) - 1


# --- creating and updating ----------------------------------------------------------------


def test_first_run_creates_the_comment(repo: Repository, fake: FakeGitHub) -> None:
    result = upsert_comment(repo, 7, "## passed", StickyComment("main"))

    [(ident, login, body)] = fake.comments(7)
    assert result == CommentResult(
        "created",
        ident,
        f"https://github.com/octo-org/octo-repo/pull/7#issuecomment-{ident}",
        author=BOT,
    )
    assert login == BOT
    assert body == with_marker("## passed", "main")


def test_next_run_updates_it_in_place(repo: Repository, fake: FakeGitHub) -> None:
    first = upsert_comment(repo, 7, "## run 1", StickyComment("main"))

    second = upsert_comment(repo, 7, "## run 2", StickyComment("main"))

    assert second.action == "updated"
    assert second.comment_id == first.comment_id
    assert fake.comments(7) == [(first.comment_id, BOT, with_marker("## run 2", "main"))]


def test_the_sticky_comment_on_the_second_page_is_found(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_comments(7, 120)
    sticky = fake.add_comment(7, with_marker("old", "main"), login=BOT)
    fake.add_comments(7, 15)

    result = upsert_comment(repo, 7, "new", StickyComment("main"))

    assert result.action == "updated"
    assert result.comment_id == sticky
    pages = fake.requests_to("GET", COMMENTS)
    assert [r.query for r in pages] == [{"per_page": "100"}, {"per_page": "100", "page": "2"}]
    assert fake.requests_to("POST", COMMENTS) == []
    assert len(fake.comments(7)) == 136


def test_instances_keep_their_own_comments(repo: Repository, fake: FakeGitHub) -> None:
    upsert_comment(repo, 7, "one", StickyComment("suite-a"))
    upsert_comment(repo, 7, "two", StickyComment("suite-ab"))
    upsert_comment(repo, 7, "one again", StickyComment("suite-a"))

    bodies = [body for _, _, body in fake.comments(7)]
    assert bodies == [with_marker("one again", "suite-a"), with_marker("two", "suite-ab")]


def test_a_marker_in_someone_elses_comment_is_left_alone(
    repo: Repository, fake: FakeGitHub
) -> None:
    planted = fake.add_comment(7, with_marker("fake verdict: passed", "main"), login="mallory")
    quoted = fake.add_comment(7, "> " + with_marker("quoted", "main"), login=BOT)

    result = upsert_comment(repo, 7, "real", StickyComment("main"))

    assert result.action == "created"
    assert result.comment_id not in (planted, quoted)
    assert fake.requests_to("PATCH", ONE_COMMENT) == []


def test_a_personal_token_finds_comments_by_its_configured_login(
    repo: Repository, fake: FakeGitHub
) -> None:
    mine = fake.add_comment(7, with_marker("old", "main"), login="release-bot")

    result = upsert_comment(repo, 7, "new", StickyComment("main", authors=("release-bot",)))

    assert (result.action, result.comment_id) == ("updated", mine)


def test_mode_new_always_adds_a_comment(repo: Repository, fake: FakeGitHub) -> None:
    upsert_comment(repo, 7, "run 1", StickyComment("main"))

    result = upsert_comment(repo, 7, "run 2", StickyComment("main", mode="new"))

    assert result.action == "created"
    assert len(fake.comments(7)) == 2
    assert len(fake.requests_to("GET", COMMENTS)) == 1  # only the first run looked


def test_mode_off_touches_nothing(repo: Repository, fake: FakeGitHub) -> None:
    result = upsert_comment(repo, 7, "x", StickyComment("main", mode="off"))

    assert result.action == "skipped"
    assert fake.work == []


# --- when to post: comment_mode ----------------------------------------------------------------


def test_the_state_line_follows_the_marker_and_reads_back() -> None:
    body = with_marker("## failed", "main", state="exit=1;regressed=2")

    assert body == (
        '<!-- goldgate:comment id="main" -->\n<!-- goldgate:state exit=1;regressed=2 -->\n## failed'
    )
    assert comment_state(body) == "exit=1;regressed=2"
    assert comment_state(with_marker("## failed", "main")) is None
    assert comment_state("<!-- goldgate:state x -->") is None  # only on the second line
    with pytest.raises(ValueError, match="state"):
        with_marker("x", "main", state="a --> <b>")
    assert comment_budget("main", "exit=1") == comment_budget("main") - len(
        "<!-- goldgate:state exit=1 -->\n"
    )


def test_changes_posts_only_when_the_state_changed(repo: Repository, fake: FakeGitHub) -> None:
    sticky = StickyComment("main", when="changes")
    first = upsert_comment(repo, 7, "## one", sticky, state="exit=1")
    same = upsert_comment(repo, 7, "## two", sticky, state="exit=1")
    other = upsert_comment(repo, 7, "## three", sticky, state="exit=0")

    assert first.action == "created"
    assert (same.action, same.comment_id) == ("skipped", first.comment_id)
    assert same.reason is not None
    assert "last comment" in same.reason
    assert (other.action, other.comment_id) == ("updated", first.comment_id)
    assert fake.comments(7) == [
        (first.comment_id, BOT, with_marker("## three", "main", state="exit=0"))
    ]
    assert len(fake.requests_to("PATCH", ONE_COMMENT)) == 1


def test_changes_with_mode_new_compares_with_the_latest(repo: Repository, fake: FakeGitHub) -> None:
    sticky = StickyComment("main", mode="new", when="changes")
    upsert_comment(repo, 7, "## one", sticky, state="exit=1")
    upsert_comment(repo, 7, "## two", sticky, state="exit=0")
    again = upsert_comment(repo, 7, "## three", sticky, state="exit=0")

    assert again.action == "skipped"
    assert len(fake.comments(7)) == 2


def test_failures_posts_only_a_failure_and_updates_a_comment_there_when_it_passes(
    repo: Repository, fake: FakeGitHub
) -> None:
    sticky = StickyComment("main", when="failures")
    quiet = upsert_comment(repo, 7, "## passed", sticky, passed=True)
    assert quiet.action == "skipped"
    assert fake.comments(7) == []
    assert fake.requests_to("POST", COMMENTS) == []

    failed = upsert_comment(repo, 7, "## failed", sticky, passed=False)
    passed = upsert_comment(repo, 7, "## passed now", sticky, passed=True)

    assert failed.action == "created"
    assert (passed.action, passed.comment_id) == ("updated", failed.comment_id)
    assert fake.comments(7) == [(failed.comment_id, BOT, with_marker("## passed now", "main"))]


def test_comment_mode_off_touches_nothing(repo: Repository, fake: FakeGitHub) -> None:
    result = upsert_comment(repo, 7, "x", StickyComment("main", when="off"))

    assert result.action == "skipped"
    assert fake.work == []
    with pytest.raises(ValueError, match="comment_mode"):
        upsert_comment(repo, 7, "x", StickyComment("main", when="sometimes"))  # type: ignore[arg-type]


def test_never_asks_get_user(repo: Repository, fake: FakeGitHub) -> None:
    upsert_comment(repo, 7, "a", StickyComment("main"))
    upsert_comment(repo, 7, "b", StickyComment("main"))
    fake.read_only_token()
    upsert_comment(repo, 7, "c", StickyComment("main"))

    assert [r for r in fake.requests if r.path.endswith("/user")] == []


@pytest.mark.parametrize(("mode", "number"), [("sometimes", 7), ("update", 0), ("update", True)])
def test_bad_arguments_are_programming_errors(repo: Repository, mode: str, number: int) -> None:
    with pytest.raises(ValueError, match=r"comment mode|pull request number"):
        upsert_comment(repo, number, "x", StickyComment("main", mode=mode))  # type: ignore[arg-type]


# --- refusals become fallbacks -------------------------------------------------------------


def test_a_fork_token_falls_back_with_the_reason(repo: Repository, fake: FakeGitHub) -> None:
    fake.read_only_token()

    result = upsert_comment(repo, 7, "x", StickyComment("main"))

    assert result.fell_back
    assert result.reason == (
        "could not comment on pull request #7: GitHub answered 403 "
        f"({READ_ONLY_MESSAGE}); the token may be read-only (a pull request from a fork) "
        "or lack a permission."
    )
    assert fake.comments(7) == []
    assert len(fake.requests_to("POST", COMMENTS)) == 1  # a plain 403 is not retried


def test_a_fork_token_cannot_update_either(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_comment(7, with_marker("old", "main"), login=BOT)
    fake.read_only_token()

    result = upsert_comment(repo, 7, "new", StickyComment("main"))

    assert result.fell_back
    assert result.reason is not None
    assert result.reason.startswith("could not update the goldgate comment on pull request #7")


def test_a_missing_pull_request_falls_back(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("GET", COMMENTS, 404, message="Not Found")

    result = upsert_comment(repo, 404, "x", StickyComment("main"))

    assert result.fell_back
    assert result.reason is not None
    assert "404" in result.reason


def test_a_body_too_long_is_refused_before_sending(repo: Repository, fake: FakeGitHub) -> None:
    body = "x" * comment_budget("main")
    assert upsert_comment(repo, 7, body, StickyComment("main")).action == "created"

    with pytest.raises(CommentTooLong, match="65,536") as raised:
        upsert_comment(repo, 7, body + "x", StickyComment("main"))

    assert "\n" not in str(raised.value)
    assert len(fake.requests_to("POST", COMMENTS)) == 1
    assert fake.requests_to("PATCH", ONE_COMMENT) == []


def test_emoji_count_double_against_the_limit(repo: Repository) -> None:
    body = "😀" * (comment_budget("main") // 2 + 1)

    with pytest.raises(CommentTooLong):
        upsert_comment(repo, 7, body, StickyComment("main"))


def test_a_422_from_github_falls_back(repo: Repository, fake: FakeGitHub) -> None:
    fake.comment_limit = 100  # GitHub counting differently than goldgate does

    result = upsert_comment(repo, 7, "x" * 200, StickyComment("main"))

    assert result.fell_back
    assert result.reason == (
        "could not comment on pull request #7: GitHub answered 422 (Validation Failed: "
        "Body is too long (maximum is 100 characters)); GitHub refused the content."
    )


# --- retries ------------------------------------------------------------------------------


def test_a_502_then_success_creates_exactly_one_comment(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("POST", COMMENTS, 502, message="Server Error")

    result = upsert_comment(repo, 7, "x", StickyComment("main"))

    assert result.action == "created"
    assert len(fake.comments(7)) == 1
    assert len(fake.requests_to("POST", COMMENTS)) == 2


def test_a_502_after_github_stored_the_comment_still_leaves_one(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.fail("POST", COMMENTS, 502, message="Server Error", after=True)

    result = upsert_comment(repo, 7, "x", StickyComment("main"))

    [(ident, _, body)] = fake.comments(7)
    assert (result.action, result.comment_id) == ("created", ident)
    assert body == with_marker("x", "main")
    assert len(fake.requests_to("POST", COMMENTS)) == 1


def test_a_502_on_update_is_retried(repo: Repository, fake: FakeGitHub) -> None:
    sticky = fake.add_comment(7, with_marker("old", "main"), login=BOT)
    fake.fail("PATCH", ONE_COMMENT, 502, message="Server Error")

    result = upsert_comment(repo, 7, "new", StickyComment("main"))

    assert (result.action, result.comment_id) == ("updated", sticky)
    assert len(fake.requests_to("PATCH", ONE_COMMENT)) == 2


def test_5xx_that_does_not_stop_falls_back(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("POST", COMMENTS, 500, message="Server Error", times=None)

    result = upsert_comment(repo, 7, "x", StickyComment("main"))

    assert result.fell_back
    assert result.reason is not None
    assert "500" in result.reason
    assert fake.comments(7) == []


def test_a_secondary_rate_limit_on_create_waits_and_posts_once(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.secondary_rate_limit("POST", COMMENTS, retry_after=1)

    started = time.monotonic()
    result = upsert_comment(repo, 7, "x", StickyComment("main"))

    assert time.monotonic() - started >= 0.9
    assert result.action == "created"
    assert len(fake.comments(7)) == 1
    assert len(fake.requests_to("POST", COMMENTS)) == 2


@pytest.fixture
def impatient(fake: FakeGitHub) -> Repository:
    """A client that waits one second for an answer (the real one waits 20)."""
    from goldgate.github.client import connect, repository
    from helpers.fake_github import TOKEN

    from .conftest import FAST

    return repository(
        connect(TOKEN, base_url=fake.base_url, policy=FAST, timeout=1, paced=False),
        fake.repository,
    )


@pytest.mark.parametrize("mode", ["update", "new"])
def test_an_answer_that_comes_after_the_timeout_still_leaves_one_comment(
    impatient: Repository, fake: FakeGitHub, mode: str
) -> None:
    if mode == "new":  # new mode cannot look for the marker: it looks for its own body
        fake.add_comment(7, with_marker("an earlier run", "main"), login=BOT)
    fake.delay("POST", COMMENTS, 3.0, after=True)  # stored at once, answered 3 s later

    result = upsert_comment(impatient, 7, "x", StickyComment("main", mode=mode))  # type: ignore[arg-type]

    assert result.action == "created"
    mine = [c for c in fake.comments(7) if c[2] == with_marker("x", "main")]
    assert [ident for ident, _, _ in mine] == [result.comment_id]
    assert len(fake.requests_to("POST", COMMENTS)) == 1  # never sent twice by the client


# --- the sticky comment with any token: comment_authors ---------------------------------------

PERSONAL = "ghp_" + "PersonalAccessT0ken" + "0000000000000000"
APP = "ghs_" + "AppInstallationT0ken" + "000000000000000"


def _client(token: str, login: str) -> Iterator[tuple[FakeGitHub, Repository]]:
    with FakeGitHub(token=token, login=login) as server:
        github = connect(token, base_url=server.base_url, policy=FAST, paced=False)
        yield server, repository(github, server.repository)


def _twice(repo: Repository, authors: tuple[str, ...] | None) -> None:
    for body in ("run 1", "run 2"):
        upsert_comment(repo, 7, body, StickyComment("main", authors=authors or DEFAULT_AUTHORS))


@pytest.mark.slow  # _client starts a fake GitHub
def test_a_personal_token_s_login_is_read_from_get_user() -> None:
    for fake, repo in _client(PERSONAL, "octo-dev"):
        github = connect(PERSONAL, base_url=fake.base_url, policy=FAST, paced=False)
        authors = comment_authors(github, PERSONAL, None)
        _twice(repo, authors)

        assert authors == ("octo-dev",)
        assert [(login, body) for _, login, body in fake.comments(7)] == [
            ("octo-dev", with_marker("run 2", "main"))
        ]
        assert len(fake.requests_to("GET", r"/user")) == 1


@pytest.mark.slow  # _client starts a fake GitHub
def test_without_its_login_a_personal_token_adds_a_comment_every_run() -> None:
    """The bug comment_authors prevents: found by github-actions[bot] alone, a personal
    token's own comment is never found again."""
    for fake, repo in _client(PERSONAL, "octo-dev"):
        _twice(repo, DEFAULT_AUTHORS)

        assert len(fake.comments(7)) == 2


@pytest.mark.slow  # _client starts a fake GitHub
def test_an_app_token_is_not_asked_who_it_is_and_names_its_login_to_stay_sticky() -> None:
    """An installation token's comments are github-actions[bot]'s unless ``comment_author``
    names the App's login: never any bot's (see the planted-marker tests below)."""
    for fake, repo in _client(APP, "goldgate-app[bot]"):
        github = connect(APP, base_url=fake.base_url, policy=FAST, paced=False)
        planted = fake.add_comment(7, with_marker("fake verdict: passed", "main"), login="mallory")
        authors = comment_authors(github, APP, None)
        assert authors == DEFAULT_AUTHORS  # GET /user answers an installation token 403
        assert fake.requests_to("GET", r"/user") == []
        _twice(repo, comment_authors(github, APP, "goldgate-app[bot]"))

        [(_, who, old), (_, login, body)] = fake.comments(7)
        assert (who, old) == ("mallory", with_marker("fake verdict: passed", "main"))
        assert (login, body) == ("goldgate-app[bot]", with_marker("run 2", "main"))
        patched = [r.path.rsplit("/", 1)[-1] for r in fake.requests_to("PATCH", ONE_COMMENT)]
        assert str(planted) not in patched


@pytest.mark.slow  # _client starts a fake GitHub
@pytest.mark.parametrize("before", [0, 130], ids=["first page", "later page"])
@pytest.mark.parametrize("planter", ["other-bot[bot]", "mallory"])
def test_a_marker_comment_another_account_wrote_is_never_taken_as_goldgate_s(
    before: int, planter: str
) -> None:
    """Another bot (or a person) posts a comment carrying goldgate's marker and a hidden
    state line saying nothing changed: with the workflow's token (github-actions[bot]) it is
    neither edited nor read as goldgate's, on the first page or a later one."""
    state = "verdict=passed;regressed=0"
    for fake, repo in _client(APP, "github-actions[bot]"):
        github = connect(APP, base_url=fake.base_url, policy=FAST, paced=False)
        fake.add_comments(7, before)
        forged = with_marker("all good, nothing regressed", "main", state)
        planted = fake.add_comment(7, forged, login=planter)
        fake.add_comments(7, 5)
        authors = comment_authors(github, APP, None)

        first = upsert_comment(
            repo,
            7,
            "run 1",
            StickyComment("main", authors=authors, when="changes"),
            state=state,
        )
        second = upsert_comment(
            repo,
            7,
            "run 2",
            StickyComment("main", authors=authors, when="always"),
            state=state,
        )

        assert (first.action, first.author) == ("created", "github-actions[bot]")
        assert (second.action, second.comment_id) == ("updated", first.comment_id)
        assert second.author == "github-actions[bot]"
        mine = [(who, body) for ident, who, body in fake.comments(7) if ident == planted]
        assert mine == [(planter, forged)]
        patched = [r.path.rsplit("/", 1)[-1] for r in fake.requests_to("PATCH", ONE_COMMENT)]
        assert str(planted) not in patched
        ours = [c for c in fake.comments(7) if c[1] == "github-actions[bot]"]
        assert [(ident, body) for ident, _, body in ours] == [
            (first.comment_id, with_marker("run 2", "main", state))
        ]


@pytest.mark.slow  # _client starts a fake GitHub
def test_a_configured_login_is_used_as_given() -> None:
    for fake, repo in _client(PERSONAL, "release-bot"):
        github = connect(PERSONAL, base_url=fake.base_url, policy=FAST, paced=False)
        authors = comment_authors(github, PERSONAL, "release-bot")
        _twice(repo, authors)

        assert authors == ("release-bot",)
        assert fake.requests_to("GET", r"/user") == []
        assert len(fake.comments(7)) == 1


def test_a_get_user_github_refuses_falls_back_to_github_actions(
    fake: FakeGitHub, gh: Github
) -> None:
    # the fake's /user: 403; never "any bot"
    assert comment_authors(gh, "gho_" + "x" * 30, None) == DEFAULT_AUTHORS
