"""The client: where the API is, how it retries and waits, and what its errors say."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from typing import TYPE_CHECKING

import pytest

from goldgate.github.client import (
    DEFAULT_API_URL,
    RetryPolicy,
    api_url,
    connect,
    reaching_github,
    repository,
)
from goldgate.github.errors import GitHubUnavailable
from helpers.fake_github import READ_ONLY_MESSAGE, TOKEN, FakeGitHub

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

FAST = RetryPolicy(retries=3, backoff=0.01, max_backoff=0.05, max_wait=5.0, secondary_wait=0.2)


def test_github_here_is_pygithub() -> None:
    # tests/github must stay a folder without __init__.py: as a package on sys.path it
    # would shadow PyGithub's top-level 'github' in every test.
    import github

    assert "site-packages" in (github.__file__ or "")


def test_importing_the_github_modules_does_not_load_pygithub() -> None:
    modules = "client, comments, artifacts, event"
    code = f"import sys; from goldgate.github import {modules}; print('github' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, DEFAULT_API_URL),
        ({"GITHUB_API_URL": ""}, DEFAULT_API_URL),
        ({"GITHUB_API_URL": "https://ghe.example.com/api/v3/"}, "https://ghe.example.com/api/v3"),
        ({"GITHUB_API_URL": " https://api.github.com "}, "https://api.github.com"),
    ],
)
def test_api_url_comes_from_the_runner(env: dict[str, str], expected: str) -> None:
    assert api_url(env) == expected


@pytest.mark.parametrize("value", ["ftp://ghe.example.com", "ghe.example.com", "https://"])
def test_a_bad_api_url_is_one_sentence(value: str) -> None:
    with pytest.raises(GitHubUnavailable, match="GITHUB_API_URL is not an http"):
        api_url({"GITHUB_API_URL": value})


def test_connect_reads_github_api_url(monkeypatch: pytest.MonkeyPatch, fake: FakeGitHub) -> None:
    monkeypatch.setenv("GITHUB_API_URL", fake.base_url)

    gh = connect(TOKEN, policy=FAST, paced=False)

    assert gh.requester.base_url == fake.base_url
    assert gh.per_page == 100


def test_reads_are_not_paced_and_writes_are_a_second_apart(fake: FakeGitHub) -> None:
    """PyGithub waits a quarter of a second before each read unless told not to; GitHub asks
    only for a second between writes. Thirteen reads in a row (three seconds, paced) are quick;
    two writes are at least a second apart (a bound a loaded machine cannot break)."""
    gh = connect(TOKEN, base_url=fake.base_url, policy=FAST)
    issue = gh.get_repo(fake.repository).get_issue(7)
    started = time.monotonic()
    for _ in range(13):
        issue.get_comments().totalCount  # noqa: B018 (the read is the point)
    reads = time.monotonic() - started
    issue.create_comment("first")
    first = time.monotonic()
    issue.create_comment("second")
    between = time.monotonic() - first

    assert len(fake.requests_to("GET", r"/issues/7/comments$")) == 13
    assert reads < 2.0, f"thirteen reads took {reads:.2f} s: paced"
    assert between >= 1.0, f"two writes {between:.2f} s apart"


def test_no_token_no_client() -> None:
    with pytest.raises(GitHubUnavailable, match="no GitHub token"):
        connect("  ")


@pytest.mark.parametrize("name", ["octo-repo", "a/b/c", "/b", "a/"])
def test_repository_names_are_owner_slash_name(gh: Github, name: str) -> None:
    with pytest.raises(GitHubUnavailable, match="owner/name"):
        repository(gh, name)


@pytest.mark.skipif(
    tuple(int(p) for p in version("PyGithub").split(".")[:2]) < (2, 9),
    reason="PyGithub before 2.9 reads the repository as soon as it builds it",
)
def test_a_repository_costs_no_request_until_read(repo: Repository, fake: FakeGitHub) -> None:
    assert fake.requests == []
    assert repo.default_branch == "main"  # now it is fetched
    assert [r.path for r in fake.requests] == ["/repos/octo-org/octo-repo"]


def test_enterprise_server_paths(enterprise: tuple[FakeGitHub, Github, Repository]) -> None:
    server, _, repo = enterprise
    server.add_comments(3, 150)

    comments = list(repo.get_issue(3).get_comments())

    assert len(comments) == 150
    assert len(server.work) == 2  # two pages of 100
    assert all(r.path.startswith("/api/v3/repos/") for r in server.requests)


# --- retries ------------------------------------------------------------------------------


def _comments(repo: Repository, number: int = 1) -> list[str]:
    with reaching_github("list comments"):
        return [c.body for c in repo.get_issue(number).get_comments()]


def test_a_5xx_on_a_read_is_retried(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_comment(1, "hello")
    fake.fail("GET", r"/comments$", 502, message="Server Error")

    assert _comments(repo) == ["hello"]
    assert len(fake.requests_to("GET", r"/comments$")) == 2


def test_5xx_after_every_retry_is_unavailable(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("GET", r"/comments$", 503, message="Service Unavailable", times=None)

    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repo)

    assert raised.value.status == 503
    assert raised.value.reason == (
        "could not list comments: GitHub answered 503 (Service Unavailable)."
    )
    assert len(fake.requests_to("GET", r"/comments$")) == 1 + FAST.retries


def test_a_secondary_rate_limit_waits_as_told_and_retries(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_comment(1, "hello")
    fake.secondary_rate_limit("GET", r"/comments$", retry_after=1)

    started = time.monotonic()
    assert _comments(repo) == ["hello"]

    assert time.monotonic() - started >= 0.9
    assert len(fake.requests_to("GET", r"/comments$")) == 2


def test_a_429_with_retry_after_is_retried(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_comment(1, "hello")
    fake.fail("GET", r"/comments$", 429, message="Too Many Requests", headers={"Retry-After": "0"})

    assert _comments(repo) == ["hello"]
    assert len(fake.requests_to("GET", r"/comments$")) == 2


def test_a_secondary_rate_limit_without_retry_after_waits_the_policy(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_comment(1, "hello")
    fake.fail(
        "GET",
        r"/comments$",
        403,
        message="You have exceeded a secondary rate limit. Please wait a few minutes.",
    )

    assert _comments(repo) == ["hello"]


def test_a_wait_longer_than_allowed_is_given_up_at_once(repo: Repository, fake: FakeGitHub) -> None:
    fake.secondary_rate_limit("GET", r"/comments$", retry_after=3600)

    started = time.monotonic()
    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repo)

    assert time.monotonic() - started < 3
    assert raised.value.reason == (
        "GitHub answered 403 and asked to wait 3600 s, longer than the 5 s this run allows."
    )
    assert len(fake.requests_to("GET", r"/comments$")) == 1


def test_a_primary_rate_limit_an_hour_away_is_given_up_at_once(
    repo: Repository, fake: FakeGitHub
) -> None:
    reset = str(int(time.time()) + 3600)
    fake.fail(
        "GET",
        r"/comments$",
        403,
        message="API rate limit exceeded for installation ID 1.",
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
    )

    with pytest.raises(GitHubUnavailable, match=r"asked to wait 36\d\d s"):
        _comments(repo)


def test_a_refused_connection_is_unavailable_after_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: nobody listens
    gh = connect(TOKEN, base_url=f"http://127.0.0.1:{port}", policy=FAST, paced=False)

    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repository(gh, "o/r"))

    assert raised.value.status is None
    # PyGithub before 2.9 already fails while opening the repository.
    assert re.fullmatch(
        r"could not (list comments|open the repository o/r): "
        r"the request failed \(ConnectionError\)\.",
        raised.value.reason,
    )


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "hint"),
    [
        (403, READ_ONLY_MESSAGE, "the token may be read-only"),
        (404, "Not Found", "does not exist or the token may not see it"),
        (410, "Gone", "it is gone"),
        (401, "Bad credentials", "the token is not valid"),
    ],
)
def test_refusals_are_one_sentence_with_a_hint(
    repo: Repository, fake: FakeGitHub, status: int, message: str, hint: str
) -> None:
    fake.fail("GET", r"/comments$", status, message=message)

    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repo)

    reason = raised.value.reason
    assert raised.value.status == status
    assert reason.startswith(f"could not list comments: GitHub answered {status} ({message})")
    assert hint in reason
    assert reason.endswith(".")
    assert reason.count(". ") == 0
    assert "\n" not in reason


def test_the_token_never_appears_in_an_error(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("GET", r"/comments$", 422, message=f"token {TOKEN} is\nnot welcome here")

    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repo)

    assert TOKEN not in str(raised.value)
    assert "[token]" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_an_answer_that_is_not_json_is_unavailable(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("GET", r"/comments$", 200, message="", raw=b'{"truncated": ')

    with pytest.raises(GitHubUnavailable) as raised:
        _comments(repo)

    assert raised.value.reason == "could not list comments: GitHub's answer was not JSON."


def test_never_asks_who_it_is(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_comment(1, "hello")
    _comments(repo)

    assert all(r.path != "/user" for r in fake.requests)
    assert all(r.headers["user-agent"].startswith("goldgate/") for r in fake.requests)
