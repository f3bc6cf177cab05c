"""One way to reach the GitHub REST API, and one error for when it cannot be reached.

GitHub is an edge of goldgate, never its judge: a pull request's verdict must not depend on
whether a comment could be posted. So every failure to talk to GitHub (a read-only fork
token, a missing permission, an expired artifact, a refused body, a network error after
retries) becomes ``GitHubUnavailable``: one sentence that the caller prints as a warning
before it falls back (a comment file, the job summary, "no baseline").

PyGithub is imported inside the functions, so that ``import goldgate`` and ``goldgate --help``
do not load it (and requests and urllib3 with it).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from goldgate.github.errors import GitHubUnavailable, one_sentence

if TYPE_CHECKING:
    from github import Github
    from github.GithubRetry import GithubRetry
    from github.Repository import Repository

DEFAULT_API_URL = "https://api.github.com"

# Installation tokens (ghs_), personal tokens (ghp_, github_pat_), OAuth and refresh tokens.


@dataclass(frozen=True)
class RetryPolicy:
    """How long goldgate keeps trying before GitHub counts as unavailable.

    Server errors (5xx) and rate limits (403 or 429 that say so, or carry ``Retry-After``) are
    retried at most ``retries`` times, with exponential backoff (``backoff`` seconds doubling,
    capped at ``max_backoff``) or the wait GitHub asks for. A rate limit that asks for more
    than ``max_wait`` seconds is given up at once, so a run waits at most
    ``retries * max(max_wait, max_backoff)`` seconds in all, plus the request timeouts.
    ``secondary_wait`` is the pause after a secondary rate limit that names no wait (GitHub
    asks for at least a minute)."""

    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 16.0
    max_wait: float = 60.0
    secondary_wait: float = 60.0


def api_url(env: Mapping[str, str] | None = None) -> str:
    """The REST API root: ``GITHUB_API_URL`` (set by the runner; on Enterprise Server it is
    ``https://HOST/api/v3``), or api.github.com."""
    environ = os.environ if env is None else env
    url = (environ.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GitHubUnavailable("GITHUB_API_URL is not an http(s) URL, so GitHub is out of reach.")
    return url


def connect(
    token: str,
    *,
    base_url: str | None = None,
    policy: RetryPolicy | None = None,
    timeout: int = 20,
    paced: bool = True,
) -> Github:
    """A PyGithub client for ``base_url`` (default: ``api_url()``) that retries as ``policy``
    says, asks for 100 items a page, and builds objects lazily (a repository or an issue
    costs no request until something of it is read).

    ``paced`` keeps a second between writes, as GitHub asks of clients that write (to stay
    clear of its secondary rate limits); tests turn it off. Reads are not paced: PyGithub's
    own quarter of a second before each one cost a run of the action a second or two of
    waiting for its handful of reads, and GitHub asks nothing of the kind."""
    from github import Auth, Github

    from goldgate._version import __version__

    if not token.strip():
        raise GitHubUnavailable("no GitHub token was given, so GitHub cannot be reached.")
    chosen = policy or RetryPolicy()
    pace: dict[str, Any] = {"seconds_between_requests": None}
    if not paced:
        pace["seconds_between_writes"] = None
    return Github(
        auth=Auth.Token(token),
        base_url=base_url or api_url(),
        timeout=timeout,
        user_agent=f"goldgate/{__version__}",
        per_page=100,
        retry=bounded_retry(chosen),
        lazy=True,
        **pace,
    )


def repository(github: Github, full_name: str) -> Repository:
    """The repository ``owner/name``, as a lazy object: from PyGithub 2.9 on, no request is
    made here (older versions fetch it at once, hence the error handling)."""
    if full_name.count("/") != 1 or not all(full_name.split("/")):
        raise GitHubUnavailable(f"{full_name!r} is not a repository name of the form owner/name.")
    with reaching_github(f"open the repository {full_name}"):
        return github.get_repo(full_name)


def bounded_retry(policy: RetryPolicy) -> GithubRetry:
    """PyGithub's ``GithubRetry`` for ``policy``; see ``_retry_class`` for what it adds."""
    return _retry_class()(
        total=policy.retries,
        backoff_factor=policy.backoff,
        backoff_max=policy.max_backoff,
        secondary_rate_wait=policy.secondary_wait,
        max_wait=policy.max_wait,
        # 429 is GitHub's other rate-limit status; GithubRetry adds 403 itself.
        status_forcelist=[*range(500, 600), 429],
        # PATCH is idempotent here (the same body again); PyGithub's default leaves it out.
        allowed_methods=frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "POST"}),
        # After the last retry, hand back GitHub's answer (a GithubException with its status)
        # instead of urllib3's MaxRetryError.
        raise_on_status=False,
    )


@cache
def _retry_class() -> type[GithubRetry]:
    """Define the retry class on first use (it subclasses a PyGithub class)."""
    from types import TracebackType

    from github.GithubRetry import GithubRetry
    from urllib3 import Retry
    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import HTTPResponse

    class BoundedRetry(GithubRetry):
        """GithubRetry with two changes.

        A wait longer than ``max_wait`` (a ``Retry-After`` or a primary rate limit's reset an
        hour away) is not slept through: it raises ``GitHubUnavailable`` at once.

        A POST that failed with 5xx, or whose answer did not come (a read timeout, a
        connection dropped after the request was sent), is not retried here: GitHub may
        have created the comment, and posting again would leave two. The caller looks for
        it first (see ``comments.upsert_comment``). Rate-limited POSTs created nothing and
        are retried, and so are POSTs that never reached GitHub (a refused connection).
        """

        def __init__(self, *, max_wait: float = 60.0, **kwargs: Any) -> None:
            self.max_wait = max_wait
            super().__init__(**kwargs)

        def new(self, **kw: Any) -> BoundedRetry:
            kw["max_wait"] = self.max_wait
            return super().new(**kw)

        def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
            if method.upper() == "POST" and status_code >= 500:
                return False
            return super().is_retry(method, status_code, has_retry_after)

        def increment(  # type: ignore[override]
            self,
            method: str | None = None,
            url: str | None = None,
            response: HTTPResponse | None = None,
            error: Exception | None = None,
            _pool: ConnectionPool | None = None,
            _stacktrace: TracebackType | None = None,
        ) -> Retry:
            sent = error is not None and not self._is_connection_error(error)
            if sent and method is not None and method.upper() == "POST":
                assert error is not None
                raise error.with_traceback(_stacktrace)
            retry = super().increment(method, url, response, error, _pool, _stacktrace)
            if response is not None:
                wait = retry.get_retry_after(response) if retry.respect_retry_after_header else None
                if wait is None:
                    wait = retry.get_backoff_time()
                if wait > self.max_wait:
                    raise GitHubUnavailable(
                        f"GitHub answered {response.status} and asked to wait {wait:.0f} s, "
                        f"longer than the {self.max_wait:.0f} s this run allows.",
                        status=response.status,
                    )
            return retry

    return BoundedRetry


def unavailable(error: BaseException, action: str) -> GitHubUnavailable:
    """``error`` (raised while trying to ``action``) as one sentence for a warning.

    ``action`` completes "could not ...", e.g. "list the comments of pull request #7"."""
    from github import GithubException

    if isinstance(error, GitHubUnavailable):
        return error
    if isinstance(error, GithubException):
        status = error.status
        message = _server_message(error.data)
        hint = _HINTS.get(status, "")
        said = f" ({message})" if message else ""
        return GitHubUnavailable(
            f"could not {action}: GitHub answered {status}{said}{hint}.", status=status
        )
    name = type(error).__name__
    return GitHubUnavailable(f"could not {action}: the request failed ({name}).")


_HINTS = {
    401: "; the token is not valid",
    403: "; the token may be read-only (a pull request from a fork) or lack a permission",
    404: "; it does not exist or the token may not see it",
    410: "; it is gone (an expired artifact, or comments turned off)",
    422: "; GitHub refused the content",
}


@contextmanager
def reaching_github(action: str) -> Iterator[None]:
    """Turn whatever PyGithub or the network raises inside into ``GitHubUnavailable``."""
    from github import GithubException

    try:
        yield
    except GitHubUnavailable:
        raise
    except GithubException as error:
        raise unavailable(error, action) from None
    except OSError as error:  # requests' errors are OSErrors: DNS, refused, reset, timeout
        raise unavailable(error, action) from None
    except json.JSONDecodeError:  # a proxy or a broken server answering half a JSON body
        raise GitHubUnavailable(f"could not {action}: GitHub's answer was not JSON.") from None


def describe_error(error: BaseException) -> str:
    """One sentence for a warning about ``error``: goldgate's and GitHub's own errors as
    they say it; any other exception named by its type and what it says, never a bare
    number (``KeyError(5)`` says ``5``, an ``OSError`` with an errno alone says ``5``)."""
    from goldgate.base.errors import GoldgateError

    if isinstance(error, GitHubUnavailable | GoldgateError):
        text = str(error)
    elif isinstance(error, OSError):
        text = f"{type(error).__name__}: {os_reason(error)}"
    else:
        said = " ".join(str(error).split())
        if not said or said.strip("'\"").lstrip("-").replace(".", "", 1).isdigit():
            said = "an unexpected error, with no message of its own"
        text = f"{type(error).__name__}: {said}"
    return one_sentence(text)


def os_reason(error: OSError) -> str:
    """What went wrong, in words: the system's message for the error number when the error
    carries none of its own (``OSError(5)``), with the file it names."""
    reason = error.strerror
    number = error.errno
    if number is None and len(error.args) == 1 and isinstance(error.args[0], int):
        number = error.args[0]  # OSError(5): the number alone, as an errno
    if not reason and isinstance(number, int):
        reason = f"{os.strerror(number)} (errno {number})"
    if not reason:
        said = " ".join(str(error).split())
        reason = said if said and not said.isdigit() else f"{type(error).__name__}, with no message"
    if error.filename is not None:
        reason += f" ({error.filename})"
    return reason


def _server_message(data: Any) -> str:
    if isinstance(data, dict):
        message = data.get("message")
        errors = data.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            detail = errors[0].get("message")
            if isinstance(detail, str) and detail:
                message = f"{message}: {detail}" if isinstance(message, str) else detail
        if isinstance(message, str):
            # Keep it inside one sentence: GitHub's messages can hold several.
            return message.strip().rstrip(".").replace(". ", "; ")
    return ""
