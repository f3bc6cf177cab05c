"""The sticky pull-request comment: one per pull request and per instance, updated in place.

Each run finds its earlier comment by a hidden marker at the start of the body and by its
author. The author check matters as much as the marker: anyone can paste the marker into a
comment of their own, another bot included (an App's ``other-bot[bot]``), and goldgate must
not try to edit (or be fooled by) it, whatever the marker and the hidden state line say.
Who the author is (``comment_authors``): the login the workflow names (``comment_author``);
else, for a personal token, the login ``GET /user`` answers; else (an installation token,
the workflow's ``GITHUB_TOKEN`` or a GitHub App's, which ``GET /user`` answers 403, or a
token GitHub does not say the login of) ``github-actions[bot]`` alone: a GitHub App's token
posts as ``NAME[bot]`` and must name it in ``comment_author`` to keep its comment sticky.
What goldgate posted or edited comes back with its id and its author as GitHub answered
them (``CommentResult``), which the action records in its outputs.
A busy pull request has more than one page of comments, so every page is read.

When to post (``When``, the action's ``comment_mode``): ``always``; ``changes``, only when
the verdict or the comparison's counts differ from those of the comment already there (a
hidden state line after the marker records them); ``failures``, only when the check did not
pass, except that a comment already there is updated to say it passed now; ``off``.

Nothing here raises because GitHub said no: a read-only token (a pull request from a fork),
a missing permission or a refused body come back as a result that says it fell back and
why, and the caller writes the body to a file instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from goldgate.github.client import reaching_github
from goldgate.github.errors import CommentTooLong, GitHubUnavailable

if TYPE_CHECKING:
    from collections.abc import Collection

    from github import Github
    from github.Issue import Issue
    from github.IssueComment import IssueComment
    from github.Repository import Repository

# GitHub refuses a comment body over 65,536 characters with 422.
COMMENT_LIMIT = 65_536
DEFAULT_AUTHORS = ("github-actions[bot]",)

Mode = Literal["update", "new", "off"]
MODES: tuple[Mode, ...] = ("update", "new", "off")
When = Literal["always", "changes", "failures", "off"]
WHEN: tuple[When, ...] = ("always", "changes", "failures", "off")
Action = Literal["updated", "created", "skipped", "fell_back"]

_STATE = re.compile(r"[A-Za-z0-9_.,;:=+-]{1,200}")
_STATE_LINE = re.compile(r"<!-- goldgate:state ([A-Za-z0-9_.,;:=+-]{1,200}) -->")

_ID_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/@+~")


@dataclass(frozen=True)
class CommentResult:
    """What became of the comment: ``updated`` or ``created`` (with its id and address),
    ``skipped`` (mode off) or ``fell_back`` (GitHub said no; ``reason`` says why, in one
    sentence, and the caller should write the body elsewhere)."""

    action: Action
    comment_id: int | None = None
    url: str | None = None
    reason: str | None = None
    author: str | None = None
    """The login GitHub answered as the comment's author (``updated`` or ``created``)."""

    @property
    def fell_back(self) -> bool:
        return self.action == "fell_back"


@dataclass(frozen=True)
class StickyComment:
    """Which comment is goldgate's and when to post it: the instance's marker id, how to
    post (``Mode``), whose comments carrying the marker are goldgate's own (``authors``,
    see ``comment_authors``) and when to post at all (``When``)."""

    instance_id: str
    mode: Mode = "update"
    authors: tuple[str, ...] = DEFAULT_AUTHORS
    when: When = "always"


def marker(instance_id: str) -> str:
    """The hidden HTML comment that starts every goldgate comment of ``instance_id``.

    Characters outside a small safe set are percent-encoded (``%`` itself included), so an
    id can neither close the HTML comment (``-->``) nor the attribute (``"``), and two
    different ids never give the same marker."""
    if not instance_id:
        raise ValueError("the comment instance id must not be empty.")
    encoded = "".join(
        char if char in _ID_SAFE else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        for char in instance_id
    )
    return f'<!-- goldgate:comment id="{encoded}" -->'


def with_marker(body: str, instance_id: str, state: str | None = None) -> str:
    """``body`` as it is sent: the marker, a line break, then (with ``state``) the hidden
    state line and a line break, then the body."""
    tag = marker(instance_id)
    if body.startswith(tag):
        return body
    return f"{tag}\n{state_line(state)}{body}" if state else f"{tag}\n{body}"


def state_line(state: str | None) -> str:
    """The hidden line that records what a comment said (``comment_state`` reads it back):
    ``ValueError`` for a state of anything but letters, digits and ``_.,;:=+-``."""
    if not state:
        return ""
    if not _STATE.fullmatch(state):
        raise ValueError(f"a comment state is 1 to 200 of A-Z a-z 0-9 _.,;:=+-, not {state!r}")
    return f"<!-- goldgate:state {state} -->\n"


def comment_state(body: str | None) -> str | None:
    """The state a goldgate comment recorded on its second line, if any."""
    lines = (body or "").split("\n", 2)
    found = _STATE_LINE.fullmatch(lines[1]) if len(lines) > 1 else None
    return found.group(1) if found else None


def comment_length(text: str) -> int:
    """The length GitHub's limit is checked against here, in UTF-16 code units: a
    character outside the Basic Multilingual Plane (most emoji) counts twice. That is never
    less than the number of characters, so a body that passes here is not refused there.
    The one count the Markdown budget uses too (``render.markdown.size``)."""
    from goldgate.render.markdown import utf16_length

    return utf16_length(text)


def comment_budget(instance_id: str, state: str | None = None) -> int:
    """How long (``comment_length``) the Markdown may be once the marker (and the state
    line) is added."""
    return COMMENT_LIMIT - comment_length(marker(instance_id)) - 1 - len(state_line(state))


def upsert_comment(
    repo: Repository,
    pr_number: int,
    body: str,
    sticky: StickyComment,
    *,
    state: str | None = None,
    passed: bool = True,
) -> CommentResult:
    """Post ``body`` (Markdown) on pull request ``pr_number`` under the marker of
    ``sticky.instance_id``.

    Mode ``update`` edits the earliest comment that starts with the marker and was written
    by one of ``sticky.authors`` (found on any page), or creates one; ``new`` always creates
    one; ``off`` does nothing. ``sticky.when`` decides whether to post at all: ``changes``
    skips when the comment there (the latest, in mode ``new``) recorded the same ``state``
    (the verdict and the comparison's counts); ``failures`` skips when ``passed`` unless a
    comment is there, which is then updated to say so. Raises ``CommentTooLong`` before
    sending a body GitHub would refuse; anything GitHub refuses or fails comes back as
    ``fell_back`` with the reason."""
    instance_id, mode, when = sticky.instance_id, sticky.mode, sticky.when
    if mode not in MODES:
        raise ValueError(f"comment mode {mode!r} is not one of update, new, off.")
    if when not in WHEN:
        raise ValueError(f"comment_mode {when!r} is not one of {', '.join(WHEN)}.")
    if mode == "off" or when == "off":
        return CommentResult("skipped", reason="pull-request comments are turned off.")
    full = with_marker(body, instance_id, state)
    length = comment_length(full)
    if length > COMMENT_LIMIT:
        budget = comment_budget(instance_id, state)
        raise CommentTooLong(
            f"the comment is {length:,} characters long with its marker; GitHub accepts at "
            f"most {COMMENT_LIMIT:,}, so the Markdown must be cut to {budget:,}."
        )
    tag = marker(instance_id)
    try:
        issue = _issue(repo, pr_number)
        existing = None
        if mode == "update" or when != "always":
            existing = _find(issue, tag, sticky.authors, pr_number, latest=mode == "new")
        if when == "changes" and existing is not None and comment_state(existing.body) == state:
            return CommentResult(
                "skipped",
                existing.id,
                existing.html_url,
                reason="the verdict and the comparison's counts are those of the last comment.",
            )
        if when == "failures" and passed:
            if existing is None:
                return CommentResult(
                    "skipped", reason="the check passed and there is no comment to update."
                )
            return _edit(existing, full, pr_number)  # say that it passes now
        if mode == "update" and existing is not None:
            return _edit(existing, full, pr_number)
        return _create(
            issue,
            full=full,
            pr_number=pr_number,
            tag=tag,
            authors=sticky.authors,
            look_first=mode == "update",
        )
    except GitHubUnavailable as error:
        return CommentResult("fell_back", reason=error.reason)


def comment_authors(github: Github, token: str, configured: str | None) -> tuple[str, ...]:
    """Whose marker comments are this token's own: ``configured`` (a login the workflow
    names); else the login ``GET /user`` answers for the token; else ``DEFAULT_AUTHORS``
    (``github-actions[bot]``): for an installation token (``ghs_``: ``GET /user`` answers it
    403, so it is not asked) or when GitHub does not say. Never any other bot: one that
    copied the marker would be taken for goldgate."""
    if configured:
        return (configured,)
    if token.startswith("ghs_"):
        return DEFAULT_AUTHORS
    try:
        with reaching_github("read who the token belongs to"):
            login = github.get_user().login
    except GitHubUnavailable:
        return DEFAULT_AUTHORS
    return (login,) if isinstance(login, str) and login else DEFAULT_AUTHORS


def _by(comment: IssueComment, authors: Collection[str]) -> bool:
    user = comment.user
    return user is not None and user.login in authors


def _author(comment: IssueComment) -> str | None:
    user = comment.user
    login = None if user is None else user.login
    return login if isinstance(login, str) else None


def _find(
    issue: Issue,
    tag: str,
    authors: Collection[str],
    pr_number: int,
    *,
    latest: bool = False,
) -> IssueComment | None:
    """The earliest (``latest``: the newest) comment on ``issue`` whose body starts with
    ``tag`` and whose author's login is one of ``authors``, reading every page (100
    comments each)."""
    found: IssueComment | None = None
    with reaching_github(f"list the comments of pull request #{pr_number}"):
        for comment in issue.get_comments():
            if _by(comment, authors) and (comment.body or "").startswith(tag):
                if not latest:
                    return comment
                found = comment
    return found


def _issue(repo: Repository, pr_number: int) -> Issue:
    if isinstance(pr_number, bool) or not isinstance(pr_number, int) or pr_number < 1:
        raise ValueError(f"pull request number {pr_number!r} is not a positive integer.")
    with reaching_github(f"open pull request #{pr_number}"):
        return repo.get_issue(pr_number)


def _edit(comment: IssueComment, full: str, pr_number: int) -> CommentResult:
    with reaching_github(f"update the goldgate comment on pull request #{pr_number}"):
        comment.edit(full)
        return CommentResult("updated", comment.id, comment.html_url, author=_author(comment))


def _create(
    issue: Issue,
    *,
    full: str,
    pr_number: int,
    tag: str,
    authors: Collection[str],
    look_first: bool,
) -> CommentResult:
    """Create the comment. A POST that failed with 5xx, or whose answer never came (a
    timeout, a connection reset), is not retried by the client (see
    ``client._retry_class``): GitHub may have stored the comment before failing. So look
    again before posting once more: in ``update`` mode for the marker (none was there
    before the POST, so one there now is this one), in ``new`` mode for this very body."""
    from github import GithubException

    with reaching_github(f"comment on pull request #{pr_number}"):
        try:
            created = issue.create_comment(full)
        except (GithubException, OSError) as error:
            if isinstance(error, GithubException) and error.status < 500:
                raise
            stored = (
                _find(issue, tag, authors, pr_number)
                if look_first
                else _find_body(issue, full, authors, pr_number)
            )
            if stored is not None:
                if stored.body != full:
                    stored.edit(full)
                return CommentResult("created", stored.id, stored.html_url, author=_author(stored))
            created = issue.create_comment(full)
        return CommentResult("created", created.id, created.html_url, author=_author(created))


def _find_body(
    issue: Issue, full: str, authors: Collection[str], pr_number: int
) -> IssueComment | None:
    """The newest comment on ``issue`` by one of ``authors`` whose body is ``full``."""
    found: IssueComment | None = None
    with reaching_github(f"list the comments of pull request #{pr_number}"):
        for comment in issue.get_comments():
            if _by(comment, authors) and comment.body == full:
                found = comment
    return found
