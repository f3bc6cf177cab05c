"""The baseline: the report a push to the base branch uploaded as an artifact, found by the
pull request's merge-base commit (``find_baseline_artifact``), downloaded
(``goldgate.github.download``) and unpacked without trusting the archive
(``goldgate.github.archive``).

Which artifact: the baseline workflow (examples/workflows/baseline.yml) names it per commit,
``NAME-<commit sha>``. The newest unexpired ``NAME-<merge base>`` (or ``NAME``) whose workflow
run was for the merge-base commit; failing that, the newest ``NAME-<sha>`` or ``NAME`` from
the base branch, with a note naming its commit.
Only runs of this repository count: a pull request from a fork runs in this repository too
and can upload an artifact of any name, and its report must never become the baseline.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from goldgate.github.client import reaching_github
from goldgate.github.errors import GitHubUnavailable

if TYPE_CHECKING:
    from github.Artifact import Artifact
    from github.Repository import Repository

__all__ = ["SCAN_LIMIT", "ArtifactChoice", "find_baseline_artifact", "merge_base"]

_SHA = re.compile(r"[0-9a-f]{40}")
SCAN_LIMIT = 1_000
"""Artifacts of the repository looked through (newest first) for the base branch's newest."""


@dataclass(frozen=True)
class ArtifactChoice:
    """The artifact chosen as the baseline. ``exact`` says it was built from the merge-base
    commit itself; otherwise ``note`` says, in plain words, what was used instead."""

    repository: str
    artifact_id: int
    name: str
    head_sha: str
    head_branch: str | None
    created_at: datetime | None
    size_in_bytes: int
    exact: bool
    note: str | None = None

    @property
    def id_name(self) -> str:
        """A file name for this artifact that its name cannot steer out of a folder."""
        return f"artifact-{self.artifact_id}"


def merge_base(repo: Repository, base_sha: str, head_sha: str) -> str:
    """The merge-base commit of ``base_sha`` and ``head_sha``, from the compare API."""
    with reaching_github(f"compare {base_sha[:7]} with {head_sha[:7]}"):
        sha = repo.compare(base_sha, head_sha).merge_base_commit.sha
    if not isinstance(sha, str) or not sha:
        raise GitHubUnavailable(
            f"GitHub named no merge-base commit for {base_sha[:7]} and {head_sha[:7]}."
        )
    return sha


def find_baseline_artifact(
    repo: Repository,
    *,
    name: str,
    merge_base_sha: str,
    base_branch: str,
    now: datetime | None = None,
    scan_limit: int = SCAN_LIMIT,
) -> ArtifactChoice | None:
    """The baseline artifact for ``merge_base_sha``, else the newest from ``base_branch``
    (with a note naming its commit), else None.

    The baseline workflow names its artifact per commit, ``NAME-<commit sha>``; an artifact
    named ``NAME`` alone counts too. Exact: ``NAME-<merge base>`` or ``NAME`` whose run was
    for the merge-base commit. Fallback: the newest of the base branch named ``NAME`` or
    ``NAME-<40-hex sha>``, found among the newest ``scan_limit`` artifacts of the repository
    (GitHub filters by exact name only). An artifact whose name claims another commit than
    its run was for, an expired one, or one of a run from another repository (a fork) is
    never chosen."""
    moment = now or datetime.now(UTC)
    per_commit = f"{name}-{merge_base_sha}"
    exact: list[Artifact] = []
    branch: dict[int, Artifact] = {}

    def consider(artifact: Artifact) -> None:
        run = _run(artifact)
        sha = run.get("head_sha")
        if _expired(artifact, moment) or not _same_repository(run) or not isinstance(sha, str):
            return
        if not isinstance(artifact.name, str) or not _names_commit(artifact.name, name, sha):
            return
        if sha == merge_base_sha:
            exact.append(artifact)
        elif run.get("head_branch") == base_branch:
            branch[artifact.id] = artifact

    for wanted in (per_commit, name):
        with reaching_github(f"list the artifacts named {wanted!r}"):
            for artifact in repo.get_artifacts(name=wanted):
                if artifact.name == wanted:
                    consider(artifact)
        if exact:
            break
    if not exact:
        with reaching_github(f"list the artifacts of the repository to find {name!r}"):
            for index, artifact in enumerate(repo.get_artifacts()):
                if index >= scan_limit:
                    break
                if isinstance(artifact.name, str) and artifact.name.startswith(f"{name}-"):
                    consider(artifact)
    with reaching_github("name the repository"):
        full_name = _full_name(repo)
    if exact:
        return _choice(full_name, _newest(exact), exact=True)
    if branch:
        chosen = _newest(list(branch.values()))
        sha = str(_run(chosen).get("head_sha") or "")
        note = (
            f"no baseline artifact for the merge-base commit {merge_base_sha[:7]}; compared "
            f"with the newest from {base_branch} instead: {chosen.name!r}, of commit {sha[:7]}."
        )
        return _choice(full_name, chosen, exact=False, note=note)
    return None


def _names_commit(artifact_name: str, name: str, sha: str) -> bool:
    """Whether ``artifact_name`` is ``name``, or ``name-<sha>`` for the commit its run was
    for (a name that claims another commit is not trusted)."""
    if artifact_name == name:
        return True
    suffix = artifact_name.removeprefix(f"{name}-")
    return suffix != artifact_name and _SHA.fullmatch(suffix) is not None and suffix == sha


def _full_name(repo: Repository) -> str:
    """``owner/name`` from the repository's API address, which a lazy repository knows
    without a request; else from the repository itself."""
    path = urllib.parse.urlsplit(repo.url).path
    _, found, tail = path.rpartition("/repos/")
    if found and tail.count("/") == 1:
        return urllib.parse.unquote(tail)
    return repo.full_name


def _run(artifact: Artifact) -> dict[str, Any]:
    run = artifact.raw_data.get("workflow_run")
    return run if isinstance(run, dict) else {}


def _same_repository(run: dict[str, Any]) -> bool:
    repository, head = run.get("repository_id"), run.get("head_repository_id")
    return repository is not None and repository == head


def _expired(artifact: Artifact, moment: datetime) -> bool:
    if artifact.expired:
        return True
    expires = artifact.expires_at
    return expires is not None and _aware(expires) <= moment


def _newest(artifacts: list[Artifact]) -> Artifact:
    oldest = datetime.min.replace(tzinfo=UTC)
    return max(
        artifacts,
        key=lambda item: (_aware(item.created_at) if item.created_at else oldest, item.id),
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _choice(
    repository: str, artifact: Artifact, *, exact: bool, note: str | None = None
) -> ArtifactChoice:
    run = _run(artifact)
    branch = run.get("head_branch")
    return ArtifactChoice(
        repository=repository,
        artifact_id=artifact.id,
        name=artifact.name,
        head_sha=str(run.get("head_sha") or ""),
        head_branch=branch if isinstance(branch, str) else None,
        created_at=artifact.created_at,
        size_in_bytes=artifact.size_in_bytes,
        exact=exact,
        note=note,
    )
