"""A fake GitHub REST API: a real HTTP server on loopback that PyGithub reaches through
``base_url``, so the code under test runs its real requests, retries and pagination.

It serves what goldgate uses, in the shapes of GitHub's own description
(``tests/oracles/github_api/``; ``tests/github/test_fake_github.py`` validates every answer
against it): issue comments (list with ``per_page``/``page`` and a ``Link`` header, get,
create, update), artifacts (list by name, of one run, get, download through a 302 to a
second path of this server that plays the storage host, which can be made to trickle),
workflow runs, compare (``merge_base_commit``), ``repos/{owner}/{repo}``, pull requests
(get, with the head ``add_pull`` gave), check runs (``POST /repos/{o}/{r}/check-runs`` and
``PATCH /repos/{o}/{r}/check-runs/{id}``, which refuse more than 50 annotations a request
with 422 and record everything: ``check_runs``), and ``GET /user`` answering 403 as it does to an
installation token (``login`` a bot's, the default) or the account of a personal token (any
other ``login``: the author of the comments it creates). Beside the API,
``POST /_runtime/artifacts``
plays the Actions runtime's artifact upload (GitHub's is no REST endpoint): the artifact
stand-in of the act tests (tests/app/action/standins/) stores through it what the REST API
then lists and serves. It records every request and can be scripted to fail: see ``fail``
and the helpers below it, and to hold a request or its answer (``delay``: a stall, or an
answer that comes after the client's timeout).
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from helpers import loopback

# Shaped like an installation token, so that the redaction of token shapes is exercised too.
TOKEN = "ghs_" + "Fak3InstallationT0ken" + "000000000000000"
BOT = "github-actions[bot]"
DOCS = "https://docs.github.com/rest"
# The fake's clock: artifacts expire 90 days after creation, so it must be near real time.
EPOCH = datetime.now(UTC).replace(microsecond=0)

READ_ONLY_MESSAGE = "Resource not accessible by integration"
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
_REPOSITORY_URLS = [
    "archive_url",
    "assignees_url",
    "blobs_url",
    "branches_url",
    "collaborators_url",
    "comments_url",
    "commits_url",
    "compare_url",
    "contents_url",
    "contributors_url",
    "deployments_url",
    "downloads_url",
    "events_url",
    "forks_url",
    "git_commits_url",
    "git_refs_url",
    "git_tags_url",
    "hooks_url",
    "issue_comment_url",
    "issue_events_url",
    "issues_url",
    "keys_url",
    "labels_url",
    "languages_url",
    "merges_url",
    "milestones_url",
    "notifications_url",
    "pulls_url",
    "releases_url",
    "stargazers_url",
    "statuses_url",
    "subscribers_url",
    "subscription_url",
    "tags_url",
    "teams_url",
    "trees_url",
]


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it. ``path`` excludes the query and keeps any API
    prefix; ``headers`` have lower-case names."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: str


@dataclass
class Fault:
    """Answer ``status`` to ``method`` requests whose path (after the API prefix) matches
    ``pattern``, ``times`` times (None: always). With ``after``, the request is carried out
    first and the fault replaces its answer (GitHub stored the comment, then failed)."""

    method: str
    pattern: re.Pattern[str]
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    times: int | None = 1
    after: bool = False


@dataclass
class Delay:
    """Hold ``method`` requests whose path matches ``pattern`` for ``seconds`` (or until
    ``FakeGitHub.release``), ``times`` times (None: always). With ``after``, the request is
    carried out first and only its answer is held (GitHub stored the comment, then the
    answer came too late)."""

    method: str
    pattern: re.Pattern[str]
    seconds: float
    times: int | None = 1
    after: bool = False


@dataclass
class _Artifact:
    id: int
    name: str
    head_sha: str
    head_branch: str
    zip_bytes: bytes
    created_at: datetime
    expired: bool
    gone: bool
    from_fork: bool
    run_id: int


@dataclass
class CheckRun:
    """A check run as the fake holds it: what the requests said, the annotations in the
    order they came (``PATCH`` appends, as GitHub's does), and how many each request
    carried."""

    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None = None
    details_url: str | None = None
    title: str | None = None
    summary: str | None = None
    annotations: list[dict[str, Any]] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)


@dataclass
class _Comment:
    id: int
    issue: int
    body: str
    login: str
    created_at: datetime
    updated_at: datetime


class FakeGitHub:
    """The server and its state. Use as a context manager, or ``start()``/``close()``."""

    def __init__(
        self,
        *,
        prefix: str = "",
        token: str = TOKEN,
        login: str = BOT,
        repository: str = "octo-org/octo-repo",
        default_branch: str = "main",
        comment_limit: int = 65_536,
    ) -> None:
        self.prefix = prefix.rstrip("/")
        self.token = token
        self.login = login
        self.repository = repository
        self.default_branch = default_branch
        self.comment_limit = comment_limit
        # When set, the storage host refuses every signed address, as once they lapse.
        self.download_links_expire = False
        # When set, the storage host sends no Content-Length: only the bytes tell the size.
        self.unsized_downloads = False
        # When set, the storage host sends the archive one byte per this many seconds.
        self.trickle_seconds: float | None = None
        # When set, the API sends every answer one byte per this many seconds.
        self.trickle_api_seconds: float | None = None
        # What the Actions runtime's artifact upload (``/_runtime/``) accepts instead of the
        # API token: a job's steps never hold it, as they never hold the runner's own.
        self.runtime_token = "actions-runtime-" + secrets.token_hex(12)
        self.repository_id = 300029405
        self.fork_repository_id = 700000001
        self._lock = threading.Lock()
        self._ids = iter(range(1001, 10**9))
        self._requests: list[Recorded] = []
        self._faults: list[Fault] = []
        self._delays: list[Delay] = []
        self._released = threading.Event()
        self._comments: dict[int, _Comment] = {}
        self._check_runs: dict[int, CheckRun] = {}
        self._artifacts: dict[int, _Artifact] = {}
        self._merge_bases: dict[tuple[str, str], str] = {}
        self._pulls: dict[int, tuple[str, str]] = {}
        self._signatures: dict[str, int] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.end_connections()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def root(self) -> str:
        assert self._server is not None, "the fake GitHub is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        """What PyGithub gets as ``base_url`` (and ``GITHUB_API_URL`` would hold)."""
        return self.root + self.prefix

    # --- state ----------------------------------------------------------------------------

    def add_comment(self, issue: int, body: str, *, login: str = "octocat") -> int:
        with self._lock:
            return self._store_comment(issue, body, login).id

    def add_comments(self, issue: int, count: int, *, login: str = "octocat") -> None:
        with self._lock:
            for index in range(count):
                self._store_comment(issue, f"comment {index + 1}", login)

    def comments(self, issue: int) -> list[tuple[int, str, str]]:
        """``(id, author login, body)`` of each comment on ``issue``, oldest first."""
        with self._lock:
            return [(c.id, c.login, c.body) for c in self._comments.values() if c.issue == issue]

    def add_artifact(
        self,
        name: str,
        *,
        head_sha: str,
        head_branch: str = "main",
        zip_bytes: bytes = b"",
        age: timedelta = timedelta(hours=1),
        expired: bool = False,
        gone: bool = False,
        from_fork: bool = False,
        run_id: int | None = None,
    ) -> int:
        """An artifact of a run for ``head_sha`` on ``head_branch``, created ``age`` before
        the fake's clock. ``gone``: listed as unexpired, but its download answers 410 (it
        expired between the listing and the download). ``from_fork``: the run's head
        repository is a fork. ``run_id``: the run that uploaded it (default: a new one)."""
        with self._lock:
            artifact = _Artifact(
                id=next(self._ids),
                name=name,
                head_sha=head_sha,
                head_branch=head_branch,
                zip_bytes=zip_bytes,
                created_at=EPOCH - age,
                expired=expired,
                gone=gone,
                from_fork=from_fork,
                run_id=next(self._ids) if run_id is None else run_id,
            )
            self._artifacts[artifact.id] = artifact
            return artifact.id

    def artifacts(self) -> list[dict[str, Any]]:
        """Every artifact as the API lists it, in the order they were added."""
        with self._lock:
            return [self._artifact_json(a) for a in self._artifacts.values()]

    def archive(self, name: str, *, run_id: int) -> bytes:
        """The zip of the artifact ``name`` that run ``run_id`` uploaded."""
        with self._lock:
            (found,) = [
                a for a in self._artifacts.values() if a.name == name and a.run_id == run_id
            ]
            return found.zip_bytes

    def set_merge_base(self, base: str, head: str, merge_base: str) -> None:
        with self._lock:
            self._merge_bases[(base, head)] = merge_base

    def add_pull(self, number: int, *, head_sha: str, head_repository: str) -> None:
        """Pull request ``number``, whose head is ``head_sha`` of ``head_repository`` (a
        fork's ``owner/name``, or this repository's)."""
        with self._lock:
            self._pulls[number] = (head_sha, head_repository)

    # --- faults ---------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        pattern: str,
        status: int,
        *,
        message: str,
        headers: dict[str, str] | None = None,
        times: int | None = 1,
        after: bool = False,
        errors: list[dict[str, Any]] | None = None,
        raw: bytes | None = None,
    ) -> None:
        """Script a fault; ``raw`` replaces the JSON error body with these bytes."""
        body: Any = {"message": message, "documentation_url": DOCS}
        if errors is not None:
            body["errors"] = errors
        body["status"] = str(status)
        if raw is not None:
            body = raw
        with self._lock:
            self._faults.append(
                Fault(method, re.compile(pattern), status, body, headers or {}, times, after)
            )

    def read_only_token(self) -> None:
        """The token of a pull request from a fork: reading works, writing comments and
        check runs is 403."""
        for method in ("POST", "PATCH"):
            self.fail(method, r"/issues/.*comments", 403, message=READ_ONLY_MESSAGE, times=None)
            self.fail(method, r"/check-runs", 403, message=READ_ONLY_MESSAGE, times=None)

    def check_runs(self) -> list[CheckRun]:
        """Every check run created, in order."""
        with self._lock:
            return list(self._check_runs.values())

    def clear_faults(self) -> None:
        """Answer every request normally again (a fork's run is over; the next one runs with
        this repository's token)."""
        with self._lock:
            self._faults.clear()

    def secondary_rate_limit(self, method: str, pattern: str, *, retry_after: int = 1) -> None:
        self.fail(
            method,
            pattern,
            403,
            message=SECONDARY_MESSAGE,
            headers={"Retry-After": str(retry_after)},
        )

    def delay(
        self,
        method: str,
        pattern: str,
        seconds: float = 3600.0,
        *,
        times: int | None = 1,
        after: bool = False,
    ) -> None:
        """Hold matching requests (see ``Delay``); the default is a stall that lasts until
        ``release`` (or ``close``). ``pattern`` is searched in the whole path, so the storage
        host's ``/_blob/`` can be held too."""
        with self._lock:
            self._delays.append(Delay(method, re.compile(pattern), seconds, times, after))

    def release(self) -> None:
        """End every hold now and from now on."""
        self._released.set()

    def wait_for(self, method: str, pattern: str, timeout: float = 30.0) -> Recorded:
        """The first request seen that matches, waiting up to ``timeout`` seconds for it."""
        limit = time.monotonic() + timeout
        while time.monotonic() < limit:
            found = self.requests_to(method, pattern)
            if found:
                return found[0]
            time.sleep(0.02)
        raise AssertionError(f"the fake GitHub saw no {method} {pattern} in {timeout} s")

    # --- what happened --------------------------------------------------------------------

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._requests)

    @property
    def work(self) -> list[Recorded]:
        """The requests that do the work: all but the reads of the repository and the issue
        that PyGithub before 2.9 makes as soon as it builds those objects."""
        repo = re.escape(self.repository)
        completion = re.compile(rf"{re.escape(self.prefix)}/repos/{repo}(/issues/\d+)?")
        return [
            r for r in self.requests if not (r.method == "GET" and completion.fullmatch(r.path))
        ]

    def requests_to(self, method: str, pattern: str) -> list[Recorded]:
        compiled = re.compile(pattern)
        return [r for r in self.requests if r.method == method and compiled.search(r.path)]

    # --- the server side ------------------------------------------------------------------

    def _respond(self, handler: _Handler) -> None:
        split = urlsplit(handler.path)
        path = unquote(split.path)
        query = dict(parse_qsl(split.query))
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length).decode("utf-8") if length else ""
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self._lock:
            self._requests.append(Recorded(handler.command, path, query, headers, body))
        held = self._take_delay(handler.command, path)
        if held is not None and not held.after:
            self._released.wait(held.seconds)
        if path.startswith("/_blob/"):
            handler.send(*self._blob(path, query, headers))
            return
        if path == "/_runtime/artifacts" and handler.command == "POST":
            handler.send(*self._runtime_upload(headers, body))
            return
        if not path.startswith(self.prefix + "/"):
            handler.send(404, {"message": "Not Found", "documentation_url": DOCS})
            return
        api_path = path[len(self.prefix) :]
        fault = self._take_fault(handler.command, api_path)
        if fault is not None and not fault.after:
            handler.send(fault.status, fault.body, fault.headers)
            return
        if headers.get("authorization") not in (f"token {self.token}", f"Bearer {self.token}"):
            handler.send(401, {"message": "Bad credentials", "documentation_url": DOCS})
            return
        with self._lock:
            answer = self._route(handler.command, api_path, query, body)
        if held is not None and held.after:
            self._released.wait(held.seconds)
        if fault is not None:
            handler.send(fault.status, fault.body, fault.headers)
            return
        if self.trickle_api_seconds is not None:
            status, data, extra = answer
            answer = (status, data, {**extra, "X-Fake-Trickle": str(self.trickle_api_seconds)})
        handler.send(*answer)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.method == method and fault.pattern.search(path):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    def _take_delay(self, method: str, path: str) -> Delay | None:
        with self._lock:
            for held in self._delays:
                if held.method == method and held.pattern.search(path):
                    if held.times is not None:
                        held.times -= 1
                        if held.times <= 0:
                            self._delays.remove(held)
                    return held
        return None

    def _route(
        self, method: str, path: str, query: dict[str, str], body: str
    ) -> tuple[int, Any, dict[str, str]]:
        repo = re.escape(self.repository)
        routes: list[tuple[str, str, Any]] = [
            ("GET", r"/user", self._user),
            ("GET", rf"/repos/{repo}", self._repo),
            ("GET", rf"/repos/{repo}/issues/(\d+)", self._issue),
            ("GET", rf"/repos/{repo}/issues/(\d+)/comments", self._list_comments),
            ("POST", rf"/repos/{repo}/issues/(\d+)/comments", self._create_comment),
            ("GET", rf"/repos/{repo}/issues/comments/(\d+)", self._get_comment),
            ("PATCH", rf"/repos/{repo}/issues/comments/(\d+)", self._update_comment),
            ("GET", rf"/repos/{repo}/actions/artifacts", self._list_artifacts),
            ("GET", rf"/repos/{repo}/actions/artifacts/(\d+)", self._get_artifact),
            ("GET", rf"/repos/{repo}/actions/artifacts/(\d+)/(\w+)", self._download),
            ("GET", rf"/repos/{repo}/actions/runs", self._list_runs),
            ("GET", rf"/repos/{repo}/actions/runs/(\d+)/artifacts", self._list_run_artifacts),
            ("GET", rf"/repos/{repo}/compare/([^/]+)", self._compare),
            ("GET", rf"/repos/{repo}/pulls/(\d+)", self._pull),
            ("POST", rf"/repos/{repo}/check-runs", self._create_check_run),
            ("GET", rf"/repos/{repo}/check-runs/(\d+)", self._get_check_run),
            ("PATCH", rf"/repos/{repo}/check-runs/(\d+)", self._update_check_run),
        ]
        for verb, pattern, action in routes:
            match = re.fullmatch(pattern, path)
            if match and verb == method:
                return action(path, query, body, *match.groups())  # type: ignore[no-any-return]
        return 404, {"message": "Not Found", "documentation_url": DOCS}, {}

    # --- endpoints ------------------------------------------------------------------------

    def _user(self, *_: Any) -> tuple[int, Any, dict[str, str]]:
        if self.login.endswith("[bot]"):  # an installation token, the workflow's or an App's
            return 403, {"message": READ_ONLY_MESSAGE, "documentation_url": DOCS}, {}
        return 200, self._user_json(self.login), {}  # a personal token: its own account

    def _repo(self, *_: Any) -> tuple[int, Any, dict[str, str]]:
        data = self._repository_json(self.repository, self.repository_id, fork=False)
        data.update(default_branch=self.default_branch, visibility="public")
        return 200, data, {}

    def _issue(self, path: str, query: dict[str, str], body: str, number: str) -> Any:
        url = f"{self.base_url}/repos/{self.repository}/issues/{number}"
        return (
            200,
            {
                "id": 5000 + int(number),
                "node_id": f"I_{number}",
                "number": int(number),
                "url": url,
                "html_url": f"https://github.com/{self.repository}/pull/{number}",
                "comments_url": f"{url}/comments",
                "title": f"Pull request {number}",
                "state": "open",
                "user": self._user_json("octocat"),
                "pull_request": {"url": f"{self.base_url}/repos/{self.repository}/pulls/{number}"},
                "created_at": _time(EPOCH),
                "updated_at": _time(EPOCH),
            },
            {},
        )

    def _list_comments(self, path: str, query: dict[str, str], body: str, number: str) -> Any:
        items = [self._comment_json(c) for c in self._comments.values() if c.issue == int(number)]
        page, link = self._page(items, path, query)
        return 200, page, link

    def _create_comment(self, path: str, query: dict[str, str], body: str, number: str) -> Any:
        text, refusal = self._comment_body(body)
        if refusal is not None:
            return refusal
        comment = self._store_comment(int(number), text, self.login)
        data = self._comment_json(comment)
        return 201, data, {"Location": data["url"]}

    def _get_comment(self, path: str, query: dict[str, str], body: str, ident: str) -> Any:
        comment = self._comments.get(int(ident))
        if comment is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        return 200, self._comment_json(comment), {}

    def _update_comment(self, path: str, query: dict[str, str], body: str, ident: str) -> Any:
        comment = self._comments.get(int(ident))
        if comment is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        text, refusal = self._comment_body(body)
        if refusal is not None:
            return refusal
        comment.body = text
        comment.updated_at = EPOCH + timedelta(seconds=len(self._requests))
        return 200, self._comment_json(comment), {}

    def _list_artifacts(self, path: str, query: dict[str, str], body: str) -> Any:
        chosen = [a for a in self._artifacts.values() if a.name == query.get("name", a.name)]
        chosen.sort(key=lambda a: (a.created_at, a.id), reverse=True)  # newest first
        items = [self._artifact_json(a) for a in chosen]
        page, link = self._page(items, path, query)
        return 200, {"total_count": len(items), "artifacts": page}, link

    def _list_run_artifacts(self, path: str, query: dict[str, str], body: str, run: str) -> Any:
        chosen = [
            a
            for a in self._artifacts.values()
            if a.run_id == int(run) and a.name == query.get("name", a.name)
        ]
        items = [self._artifact_json(a) for a in chosen]
        page, link = self._page(items, path, query)
        return 200, {"total_count": len(items), "artifacts": page}, link

    def _get_artifact(self, path: str, query: dict[str, str], body: str, ident: str) -> Any:
        artifact = self._artifacts.get(int(ident))
        if artifact is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        return 200, self._artifact_json(artifact), {}

    def _download(
        self, path: str, query: dict[str, str], body: str, ident: str, archive: str
    ) -> Any:
        artifact = self._artifacts.get(int(ident))
        if artifact is None or archive != "zip":
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        if artifact.expired or artifact.gone:
            return 410, {"message": "Artifact has expired", "documentation_url": DOCS}, {}
        signature = secrets.token_hex(8)
        self._signatures[signature] = artifact.id
        location = f"{self.root}/_blob/{artifact.id}.zip?sig={signature}&se=2099-01-01"
        return 302, None, {"Location": location}

    def _blob(
        self, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        # The storage host refuses a request that carries an Authorization header, as a
        # signed-URL store does; the tests also assert it never receives one.
        if "authorization" in headers:
            return 403, {"message": "Authorization header not accepted"}, {}
        with self._lock:
            ident = self._signatures.get(query.get("sig", ""))
            artifact = self._artifacts.get(ident) if ident is not None else None
        if artifact is None or path != f"/_blob/{artifact.id}.zip" or self.download_links_expire:
            return 403, {"message": "Signature not valid or expired"}, {}
        headers = {"Content-Type": "application/zip"}
        if self.unsized_downloads:
            headers["X-Fake-Unsized"] = "1"
        if self.trickle_seconds is not None:
            headers["X-Fake-Trickle"] = str(self.trickle_seconds)
        return 200, artifact.zip_bytes, headers

    def _runtime_upload(
        self, headers: dict[str, str], body: str
    ) -> tuple[int, Any, dict[str, str]]:
        """An artifact uploaded by a job: JSON with ``name``, ``run_id``, ``head_sha``,
        ``head_branch`` and the archive as ``zip_base64``. A name already uploaded by the same
        run is a conflict, as with upload-artifact without ``overwrite``."""
        if headers.get("authorization") != f"Bearer {self.runtime_token}":
            return 401, {"message": "Bad runtime token"}, {}
        try:
            data = json.loads(body)
            name, run_id = str(data["name"]), int(data["run_id"])
            archive = base64.b64decode(data["zip_base64"], validate=True)
            head_sha, head_branch = str(data["head_sha"]), str(data["head_branch"])
        except (ValueError, KeyError, TypeError):
            return 400, {"message": "name, run_id, head_sha, head_branch, zip_base64"}, {}
        with self._lock:
            if any(a.name == name and a.run_id == run_id for a in self._artifacts.values()):
                return 409, {"message": f"an artifact {name} exists in run {run_id}"}, {}
        ident = self.add_artifact(
            name,
            head_sha=head_sha,
            head_branch=head_branch,
            zip_bytes=archive,
            age=timedelta(0),
            run_id=run_id,
        )
        with self._lock:
            return 201, self._artifact_json(self._artifacts[ident]), {}

    def _list_runs(self, path: str, query: dict[str, str], body: str) -> Any:
        runs = [self._run_json(a) for a in self._artifacts.values()]
        for key in ("head_sha", "branch", "event", "status"):
            if key in query:
                field_name = "head_branch" if key == "branch" else key
                runs = [run for run in runs if run[field_name] == query[key]]
        runs.sort(key=lambda run: run["created_at"], reverse=True)
        page, link = self._page(runs, path, query)
        return 200, {"total_count": len(runs), "workflow_runs": page}, link

    def _compare(self, path: str, query: dict[str, str], body: str, basehead: str) -> Any:
        base, _, head = basehead.partition("...")
        merge_base = self._merge_bases.get((base, head))
        if merge_base is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        url = f"{self.base_url}/repos/{self.repository}/compare/{basehead}"
        html = f"https://github.com/{self.repository}/compare/{basehead}"
        return (
            200,
            {
                "url": url,
                "html_url": html,
                "permalink_url": html,
                "diff_url": html + ".diff",
                "patch_url": html + ".patch",
                "base_commit": self._commit_json(base),
                "merge_base_commit": self._commit_json(merge_base),
                "status": "diverged",
                "ahead_by": 1,
                "behind_by": 1,
                "total_commits": 1,
                "commits": [],
                "files": [],
            },
            {},
        )

    def _pull(self, path: str, query: dict[str, str], body: str, number: str) -> Any:
        if int(number) not in self._pulls:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        head_sha, head_repository = self._pulls[int(number)]
        fork = head_repository != self.repository
        ident = self.fork_repository_id if fork else self.repository_id
        head = self._repository_json(head_repository, ident, fork=fork)
        base = self._repository_json(self.repository, self.repository_id, fork=False)
        data = {
            "id": 9000 + int(number),
            "node_id": f"PR_{number}",
            "number": int(number),
            "url": f"{self.base_url}/repos/{self.repository}/pulls/{number}",
            "html_url": f"https://github.com/{self.repository}/pull/{number}",
            "state": "open",
            "title": f"Pull request {number}",
            "user": self._user_json("octocat"),
            "head": _branch(head, "changes", head_sha),
            "base": _branch(base, self.default_branch, "f" * 40),
            "created_at": _time(EPOCH),
            "updated_at": _time(EPOCH),
        }
        return 200, data, {}

    def _create_check_run(self, path: str, query: dict[str, str], body: str) -> Any:
        data = _json_object(body)
        name, sha = data.get("name"), data.get("head_sha")
        if not isinstance(name, str) or not name or not isinstance(sha, str) or not sha:
            return 422, _validation("name", "missing_field", "name and head_sha are required"), {}
        run = CheckRun(next(self._ids), name, sha, str(data.get("status") or "queued"))
        refusal = self._apply_check_run(run, data)
        if refusal is not None:
            return refusal
        self._check_runs[run.id] = run
        return 201, self._check_run_json(run), {}

    def _get_check_run(self, path: str, query: dict[str, str], body: str, ident: str) -> Any:
        run = self._check_runs.get(int(ident))
        if run is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        return 200, self._check_run_json(run), {}

    def _update_check_run(self, path: str, query: dict[str, str], body: str, ident: str) -> Any:
        run = self._check_runs.get(int(ident))
        if run is None:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        refusal = self._apply_check_run(run, _json_object(body))
        if refusal is not None:
            return refusal
        return 200, self._check_run_json(run), {}

    def _apply_check_run(
        self, run: CheckRun, data: dict[str, Any]
    ) -> tuple[int, Any, dict[str, str]] | None:
        """Apply a create or update; GitHub's 422 for more than 50 annotations, for a
        summary over 65,535 characters, or for a completed run without its conclusion."""
        output = data.get("output") or {}
        annotations = output.get("annotations") or []
        if len(annotations) > 50:
            message = "Only 50 annotations are allowed per request"
            return 422, _validation("annotations", "too_long", message), {}
        summary = output.get("summary")
        if isinstance(summary, str) and len(summary) > 65_535:
            return 422, _validation("summary", "too_long", "summary is too long"), {}
        if data.get("status") == "completed" and not data.get("conclusion"):
            return 422, _validation("conclusion", "missing_field", "conclusion is required"), {}
        for key in ("status", "conclusion", "details_url"):
            if data.get(key) is not None:
                setattr(run, key, data[key])
        if "title" in output:
            run.title = output["title"]
        if "summary" in output:
            run.summary = summary
        run.annotations.extend(annotations)
        run.batches.append(len(annotations))
        return None

    def _check_run_json(self, run: CheckRun) -> dict[str, Any]:
        url = f"{self.base_url}/repos/{self.repository}/check-runs/{run.id}"
        return {
            "id": run.id,
            "node_id": f"CR_{run.id}",
            "head_sha": run.head_sha,
            "external_id": "",
            "url": url,
            "html_url": f"https://github.com/{self.repository}/runs/{run.id}",
            "details_url": run.details_url,
            "status": run.status,
            "conclusion": run.conclusion,
            "started_at": _time(EPOCH),
            "completed_at": _time(EPOCH) if run.status == "completed" else None,
            "output": {
                "title": run.title,
                "summary": run.summary,
                "text": None,
                "annotations_count": len(run.annotations),
                "annotations_url": f"{url}/annotations",
            },
            "name": run.name,
            "check_suite": {"id": 5},
            "app": None,
            "pull_requests": [],
        }

    # --- helpers --------------------------------------------------------------------------

    def _store_comment(self, issue: int, body: str, login: str) -> _Comment:
        moment = EPOCH + timedelta(seconds=len(self._comments))
        comment = _Comment(next(self._ids), issue, body, login, moment, moment)
        self._comments[comment.id] = comment
        return comment

    def _comment_body(self, body: str) -> tuple[str, tuple[int, Any, dict[str, str]] | None]:
        try:
            text = json.loads(body)["body"]
        except (ValueError, KeyError, TypeError):
            text = None
        if not isinstance(text, str):
            return "", (422, _validation("body", "missing_field", "body is missing"), {})
        if len(text.encode("utf-16-le", "surrogatepass")) // 2 > self.comment_limit:
            # GitHub counts a body's length in UTF-16 code units: an emoji counts two
            message = f"Body is too long (maximum is {self.comment_limit} characters)"
            return "", (422, _validation("body", "custom", message), {})
        return text, None

    def _page(
        self, items: list[Any], path: str, query: dict[str, str]
    ) -> tuple[list[Any], dict[str, str]]:
        per_page = max(1, min(100, int(query.get("per_page", 30))))
        page = max(1, int(query.get("page", 1)))
        last = max(1, -(-len(items) // per_page))
        rels = {"prev": page - 1, "next": page + 1, "last": last, "first": 1}
        links = []
        for rel, number in rels.items():
            if (rel in ("prev", "first") and page > 1) or (rel in ("next", "last") and page < last):
                params = {**query, "per_page": str(per_page), "page": str(number)}
                links.append(f'<{self.base_url}{path}?{urlencode(params)}>; rel="{rel}"')
        start = (page - 1) * per_page
        return items[start : start + per_page], ({"Link": ", ".join(links)} if links else {})

    def _user_json(self, login: str) -> dict[str, Any]:
        url = f"{self.base_url}/users/{login}"
        return {
            "login": login,
            "id": 41898282 if login == BOT else 583231,
            "node_id": f"U_{login}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{login}",
            "gravatar_id": "",
            "url": url,
            "html_url": f"https://github.com/{login}",
            "followers_url": f"{url}/followers",
            "following_url": f"{url}/following{{/other_user}}",
            "gists_url": f"{url}/gists{{/gist_id}}",
            "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{url}/subscriptions",
            "organizations_url": f"{url}/orgs",
            "repos_url": f"{url}/repos",
            "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events",
            "type": "Bot" if login.endswith("[bot]") else "User",
            "site_admin": False,
        }

    def _comment_json(self, comment: _Comment) -> dict[str, Any]:
        repo_url = f"{self.base_url}/repos/{self.repository}"
        return {
            "id": comment.id,
            "node_id": f"IC_{comment.id}",
            "url": f"{repo_url}/issues/comments/{comment.id}",
            "html_url": (
                f"https://github.com/{self.repository}/pull/{comment.issue}"
                f"#issuecomment-{comment.id}"
            ),
            "body": comment.body,
            "user": self._user_json(comment.login),
            "created_at": _time(comment.created_at),
            "updated_at": _time(comment.updated_at),
            "issue_url": f"{repo_url}/issues/{comment.issue}",
            "author_association": "NONE" if comment.login == BOT else "CONTRIBUTOR",
        }

    def _artifact_json(self, artifact: _Artifact) -> dict[str, Any]:
        url = f"{self.base_url}/repos/{self.repository}/actions/artifacts/{artifact.id}"
        return {
            "id": artifact.id,
            "node_id": f"A_{artifact.id}",
            "name": artifact.name,
            "size_in_bytes": len(artifact.zip_bytes),
            "url": url,
            "archive_download_url": f"{url}/zip",
            "expired": artifact.expired,
            "created_at": _time(artifact.created_at),
            "expires_at": _time(artifact.created_at + timedelta(days=90)),
            "updated_at": _time(artifact.created_at),
            "digest": None,
            "workflow_run": {
                "id": artifact.run_id,
                "repository_id": self.repository_id,
                "head_repository_id": (
                    self.fork_repository_id if artifact.from_fork else self.repository_id
                ),
                "head_branch": artifact.head_branch,
                "head_sha": artifact.head_sha,
            },
        }

    def _run_json(self, artifact: _Artifact) -> dict[str, Any]:
        repo_url = f"{self.base_url}/repos/{self.repository}"
        run_url = f"{repo_url}/actions/runs/{artifact.run_id}"
        head_name = "fork-owner/octo-repo" if artifact.from_fork else self.repository
        head_id = self.fork_repository_id if artifact.from_fork else self.repository_id
        person = {"name": "Monalisa Octocat", "email": "mona@example.com"}
        return {
            "id": artifact.run_id,
            "name": "goldgate",
            "node_id": f"WFR_{artifact.run_id}",
            "head_branch": artifact.head_branch,
            "head_sha": artifact.head_sha,
            "path": ".github/workflows/goldgate.yml",
            "display_title": "goldgate",
            "run_number": artifact.run_id % 1000,
            "event": "pull_request" if artifact.from_fork else "push",
            "status": "completed",
            "conclusion": "success",
            "workflow_id": 159038,
            "url": run_url,
            "html_url": f"https://github.com/{self.repository}/actions/runs/{artifact.run_id}",
            "pull_requests": [],
            "created_at": _time(artifact.created_at),
            "updated_at": _time(artifact.created_at),
            "jobs_url": f"{run_url}/jobs",
            "logs_url": f"{run_url}/logs",
            "check_suite_url": f"{repo_url}/check-suites/{artifact.run_id}",
            "artifacts_url": f"{run_url}/artifacts",
            "cancel_url": f"{run_url}/cancel",
            "rerun_url": f"{run_url}/rerun",
            "workflow_url": f"{repo_url}/actions/workflows/159038",
            "head_commit": {
                "id": artifact.head_sha,
                "tree_id": "d23f6eedb1e1b9610bbc754ddb5197bfe7271223",
                "message": "Update the gold",
                "timestamp": _time(artifact.created_at),
                "author": person,
                "committer": person,
            },
            "repository": self._repository_json(self.repository, self.repository_id, fork=False),
            "head_repository": self._repository_json(head_name, head_id, fork=artifact.from_fork),
        }

    def _repository_json(self, full_name: str, ident: int, *, fork: bool) -> dict[str, Any]:
        owner, name = full_name.split("/")
        url = f"{self.base_url}/repos/{full_name}"
        data: dict[str, Any] = {
            key: f"{url}/{key.removesuffix('_url')}" for key in _REPOSITORY_URLS
        }
        data.update(
            id=ident,
            node_id=f"R_{ident}",
            name=name,
            full_name=full_name,
            owner=self._user_json(owner),
            private=False,
            html_url=f"https://github.com/{full_name}",
            description=None,
            fork=fork,
            url=url,
        )
        return data

    def _commit_json(self, sha: str) -> dict[str, Any]:
        url = f"{self.base_url}/repos/{self.repository}/commits/{sha}"
        person = {"name": "Monalisa Octocat", "email": "mona@example.com", "date": _time(EPOCH)}
        return {
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": url,
            "html_url": f"https://github.com/{self.repository}/commit/{sha}",
            "comments_url": f"{url}/comments",
            "commit": {
                "url": f"{self.base_url}/repos/{self.repository}/git/commits/{sha}",
                "author": person,
                "committer": person,
                "message": "A commit",
                "tree": {"sha": "d23f6eedb1e1b9610bbc754ddb5197bfe7271223", "url": url},
                "comment_count": 0,
            },
            "author": None,
            "committer": None,
            "parents": [],
        }


class _Server(loopback.Server):
    """Ends, on close, the connections its clients kept alive: a request thread left
    waiting on one would outlive the fake and, in the test process, stop goldgate from
    forking the helpers it forks only while it runs one thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: dict[socket.socket, threading.Thread] = {}
        self._open_lock = threading.Lock()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open[request] = threading.current_thread()
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open.pop(request, None)

    def end_connections(self) -> None:
        with self._open_lock:
            open_now = list(self._open.items())
        for connection, _ in open_now:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for _, thread in open_now:
            thread.join(5.0)


class _Handler(loopback.Handler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def do_GET(self) -> None:
        try:
            self.server.fake._respond(self)  # type: ignore[attr-defined]
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
            self.close_connection = True

    do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

    def send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(body, bytes):
            payload = body
        elif body is None:
            payload = b""
        else:
            payload = json.dumps(body).encode("utf-8")
        self.send_response(status)
        extra = dict(headers or {})
        if payload and "Content-Type" not in extra:
            extra["Content-Type"] = "application/json; charset=utf-8"
        extra.setdefault("X-RateLimit-Limit", "1000")
        extra.setdefault("X-RateLimit-Remaining", "999")
        extra.setdefault("X-RateLimit-Reset", str(int(EPOCH.timestamp()) + 3600))
        unsized = extra.pop("X-Fake-Unsized", None) is not None
        trickle = extra.pop("X-Fake-Trickle", None)
        for name, value in extra.items():
            self.send_header(name, value)
        if unsized:  # the length is told by closing the connection, as HTTP/1.0 did
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if not payload or self.command == "HEAD":
            return
        if trickle is None:
            self.wfile.write(payload)
            return
        released = self.server.fake._released  # type: ignore[attr-defined]
        try:
            for index in range(len(payload)):  # one byte at a time, as a choked host sends
                self.wfile.write(payload[index : index + 1])
                self.wfile.flush()
                if released.wait(float(trickle)):
                    self.wfile.write(payload[index + 1 :])
                    return
        except OSError:  # the client gave up: that is what a trickle is for
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read ``FakeGitHub.requests`` instead."""


def _json_object(body: str) -> dict[str, Any]:
    try:
        value = json.loads(body) if body else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _validation(field_name: str, code: str, message: str) -> dict[str, Any]:
    return {
        "message": "Validation Failed",
        "errors": [
            {"resource": "IssueComment", "code": code, "field": field_name, "message": message}
        ],
        "documentation_url": DOCS,
    }


def _branch(repository: dict[str, Any], ref: str, sha: str) -> dict[str, Any]:
    """A pull request's ``head`` or ``base``."""
    label = f"{repository['owner']['login']}:{ref}"
    return {"label": label, "ref": ref, "sha": sha, "repo": repository, "user": repository["owner"]}


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def iter_links(header: str) -> Iterator[tuple[str, str]]:
    """``(rel, url)`` of each entry of a ``Link`` header."""
    for part in header.split(", "):
        url, _, rel = part.partition("; ")
        yield rel.removeprefix('rel="').removesuffix('"'), url.strip("<>")
