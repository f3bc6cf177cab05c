"""What triggered this workflow run, from the event payload the runner wrote to disk.

The action needs a handful of facts: is this a pull request (and which), what are its base and
head commits, does it come from a fork (then the token is read-only and there are no
secrets), which repository and default branch. They sit in different places for
``pull_request``, ``push`` and ``workflow_run`` payloads; this module reads them once, into
one frozen record, and refuses a payload it cannot read with one sentence.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goldgate.base._scanner import MAX_DEPTH
from goldgate.base.strictjson import nests_too_deep
from goldgate.github.client import os_reason
from goldgate.github.errors import EventError

_PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
_NO_COMMIT = "0" * 40
_PAYLOAD_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True)
class GitHubEvent:
    """The facts of one event. For a pull request, ``base_*`` and ``head_*`` are its base
    and head; for a push, the commit before and after it and the pushed ref; for a
    ``workflow_run``, the triggering run's head and, when GitHub lists one, its pull
    request. Unknown facts are None."""

    name: str
    repository: str | None
    default_branch: str | None
    pr_number: int | None = None
    base_sha: str | None = None
    base_ref: str | None = None
    head_sha: str | None = None
    head_ref: str | None = None
    from_fork: bool = False
    run_id: int | None = None

    @property
    def is_pull_request(self) -> bool:
        return self.pr_number is not None


def read_event(env: Mapping[str, str] | None = None) -> GitHubEvent:
    """The event of this run: ``GITHUB_EVENT_NAME`` and the payload at ``GITHUB_EVENT_PATH``."""
    environ = os.environ if env is None else env
    name = environ.get("GITHUB_EVENT_NAME", "").strip()
    location = environ.get("GITHUB_EVENT_PATH", "").strip()
    if not name or not location:
        raise EventError(
            "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not both set: this is not a "
            "GitHub Actions run."
        )
    payload = _load(Path(location))
    event = parse_event(name, payload)
    if event.repository is None and environ.get("GITHUB_REPOSITORY"):
        event = _with_repository(event, environ["GITHUB_REPOSITORY"])
    return event


def parse_event(name: str, payload: Mapping[str, Any]) -> GitHubEvent:
    """The facts of a ``name`` event (``pull_request``, ``push``, ``workflow_run``, ...)."""
    repository = _dict(payload.get("repository"))
    full_name = _str(repository.get("full_name"))
    default_branch = _str(repository.get("default_branch"))
    if name in _PULL_REQUEST_EVENTS:
        return _pull_request(name, payload, full_name, default_branch)
    if name == "push":
        return _push(payload, full_name, default_branch)
    if name == "workflow_run":
        return _workflow_run(payload, full_name, default_branch)
    return GitHubEvent(name, full_name, default_branch)


def _pull_request(
    name: str, payload: Mapping[str, Any], full_name: str | None, default_branch: str | None
) -> GitHubEvent:
    pull = _dict(payload.get("pull_request"))
    number = pull.get("number", payload.get("number"))
    if not isinstance(number, int) or isinstance(number, bool):
        raise EventError(f"the {name} payload has no pull request number.")
    base, head = _dict(pull.get("base")), _dict(pull.get("head"))
    base_repo, head_repo = _dict(base.get("repo")), _dict(head.get("repo"))
    return GitHubEvent(
        name,
        full_name or _str(base_repo.get("full_name")),
        default_branch,
        pr_number=number,
        base_sha=_str(base.get("sha")),
        base_ref=_str(base.get("ref")),
        head_sha=_str(head.get("sha")),
        head_ref=_str(head.get("ref")),
        from_fork=_is_fork(base_repo, head_repo),
    )


def _is_fork(base_repo: Mapping[str, Any], head_repo: Mapping[str, Any]) -> bool:
    """A pull request from another repository. The head repository is gone (null) when the
    fork was deleted: still a fork. ``head.repo.fork`` alone is not enough: in a repository
    that is itself a fork, every pull request's head repository is a fork."""
    if not head_repo:
        return True
    head_name, base_name = _str(head_repo.get("full_name")), _str(base_repo.get("full_name"))
    if head_name and base_name:
        return head_name.lower() != base_name.lower()
    head_id, base_id = head_repo.get("id"), base_repo.get("id")
    if head_id is not None and base_id is not None:
        return bool(head_id != base_id)
    return bool(head_repo.get("fork")) and not base_repo.get("fork")


def _push(
    payload: Mapping[str, Any], full_name: str | None, default_branch: str | None
) -> GitHubEvent:
    ref = _str(payload.get("ref"))
    branch = ref.removeprefix("refs/heads/") if ref and ref.startswith("refs/heads/") else ref
    return GitHubEvent(
        "push",
        full_name,
        default_branch,
        base_sha=_commit(payload.get("before")),
        head_sha=_commit(payload.get("after")),
        head_ref=branch,
    )


def _workflow_run(
    payload: Mapping[str, Any], full_name: str | None, default_branch: str | None
) -> GitHubEvent:
    run = _dict(payload.get("workflow_run"))
    run_id = run.get("id")
    head_repository = _dict(run.get("head_repository"))
    head_name = _str(head_repository.get("full_name"))
    fork = bool(head_name and full_name and head_name.lower() != full_name.lower())
    pulls = run.get("pull_requests")
    # GitHub lists no pull request here when its head is in a fork: the caller must find
    # the number elsewhere (the comment file the pull request's run uploaded).
    pull = _dict(pulls[0]) if isinstance(pulls, list) and pulls else {}
    base, head = _dict(pull.get("base")), _dict(pull.get("head"))
    number = pull.get("number")
    pull_fork = bool(pull) and _is_fork(_dict(base.get("repo")), _dict(head.get("repo")))
    return GitHubEvent(
        "workflow_run",
        full_name,
        default_branch,
        pr_number=number if isinstance(number, int) and not isinstance(number, bool) else None,
        base_sha=_str(base.get("sha")),
        base_ref=_str(base.get("ref")),
        head_sha=_str(run.get("head_sha")) or _str(head.get("sha")),
        head_ref=_str(run.get("head_branch")) or _str(head.get("ref")),
        from_fork=fork or pull_fork,
        run_id=run_id if isinstance(run_id, int) and not isinstance(run_id, bool) else None,
    )


_TOO_DEEP: Any = object()


def _load(path: Path) -> Mapping[str, Any]:
    try:
        info = path.stat()
    except OSError as error:
        raise EventError(f"the event payload {path} cannot be read ({os_reason(error)}).") from None
    if not stat.S_ISREG(info.st_mode):
        raise EventError(f"the event payload {path} is not a regular file.")
    if info.st_size > _PAYLOAD_LIMIT:
        raise EventError(f"the event payload {path} is larger than 64 MiB.")
    try:
        payload = json.loads(path.read_bytes())
    except OSError as error:
        raise EventError(f"the event payload {path} cannot be read ({os_reason(error)}).") from None
    except json.JSONDecodeError as error:
        raise EventError(
            f"the event payload {path} is not valid JSON (line {error.lineno}, column "
            f"{error.colno}: {error.msg})."
        ) from None
    except ValueError:  # not UTF-8
        raise EventError(f"the event payload {path} is not valid JSON.") from None
    except RecursionError:
        payload = _TOO_DEEP
    if payload is _TOO_DEEP or nests_too_deep(payload):
        raise EventError(
            f"the event payload {path} nests deeper than {MAX_DEPTH} levels; no GitHub event does."
        )
    if not isinstance(payload, dict):
        raise EventError(f"the event payload {path} is not a JSON object.")
    return payload


def _with_repository(event: GitHubEvent, full_name: str) -> GitHubEvent:
    return replace(event, repository=full_name)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _commit(value: Any) -> str | None:
    sha = _str(value)
    return None if sha is None or sha == _NO_COMMIT else sha
