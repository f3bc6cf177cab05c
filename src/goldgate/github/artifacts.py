"""The baseline: the report a push to the base branch uploaded as an artifact, found by the
pull request's merge-base commit, downloaded and unpacked without trusting the archive.

Which artifact: the newest unexpired one of that exact name whose workflow run was for the
merge-base commit; failing that, the newest from the base branch, with a note saying so.
Only runs of this repository count: a pull request from a fork runs in this repository too
and can upload an artifact of any name, and its report must never become the baseline.

Downloading: the API answers ``archive_download_url`` with a 302 to a short-lived signed URL
on another host. The token goes to the API host only; the signed URL is fetched without it
(that host needs none, and must not see it). PyGithub has no download method, and its
stream helper would forward the token to a redirect on the API's own host.

Unpacking: the archive comes from a workflow run, so it is read as hostile: no absolute
paths, no ``..``, no links or devices, a cap on entries and on bytes actually written.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from goldgate.github.client import GitHubUnavailable, reaching_github

if TYPE_CHECKING:
    from github import Github
    from github.Artifact import Artifact
    from github.Repository import Repository

_CHUNK = 64 * 1024
_ALLOWED_TYPES = (0, stat.S_IFREG, stat.S_IFDIR)  # 0: an archiver that records no type


class ArchiveRefused(Exception):
    """The artifact's archive is too large, not a zip, or holds an entry that could write
    outside the destination; the message is one sentence naming the entry."""


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
    name: str,
    merge_base_sha: str,
    base_branch: str,
    *,
    now: datetime | None = None,
) -> ArtifactChoice | None:
    """The baseline artifact named ``name`` for ``merge_base_sha``, else the newest from
    ``base_branch`` (with a note), else None. Expired artifacts and artifacts of runs from
    another repository (forks) are never chosen."""
    moment = now or datetime.now(UTC)
    exact: list[Artifact] = []
    branch: list[Artifact] = []
    with reaching_github(f"list the artifacts named {name!r}"):
        for artifact in repo.get_artifacts(name=name):
            run = _run(artifact)
            if artifact.name != name or _expired(artifact, moment) or not _same_repository(run):
                continue
            if run.get("head_sha") == merge_base_sha:
                exact.append(artifact)
            elif run.get("head_branch") == base_branch:
                branch.append(artifact)
        full_name = _full_name(repo)
    if exact:
        return _choice(full_name, _newest(exact), exact=True)
    if branch:
        note = (
            f"no baseline for the merge-base commit {merge_base_sha[:7]}; "
            f"using the newest from {base_branch}"
        )
        chosen = _newest(branch)
        sha = str(_run(chosen).get("head_sha") or "")
        return _choice(full_name, chosen, exact=False, note=f"{note} ({sha[:7]})." if sha else note)
    return None


def download_artifact(
    github: Github,
    artifact: ArtifactChoice,
    dest_dir: Path,
    *,
    max_bytes: int,
    timeout: float = 60.0,
) -> Path:
    """Download ``artifact``'s zip into ``dest_dir`` and return its path.

    Refuses (``ArchiveRefused``) an archive over ``max_bytes``, by its declared size and by
    the bytes actually received; an expired artifact (410) or any failure to reach GitHub
    or the storage host is ``GitHubUnavailable``."""
    if artifact.size_in_bytes > max_bytes:
        raise ArchiveRefused(
            f"the artifact {artifact.name!r} is {artifact.size_in_bytes:,} bytes, "
            f"over the {max_bytes:,}-byte cap."
        )
    what = f"download the artifact {artifact.name!r}"
    path = f"/repos/{artifact.repository}/actions/artifacts/{artifact.artifact_id}/zip"
    with reaching_github(what):
        headers, _ = github.requester.requestJsonAndCheck("GET", path)
    location = {key.lower(): value for key, value in headers.items()}.get("location")
    if not isinstance(location, str) or not location:
        raise GitHubUnavailable(f"could not {what}: GitHub gave no download address.")
    _check_location(location, github.requester.base_url, what)
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / f"{artifact.name}-{artifact.artifact_id}.zip"
    _fetch(location, target, max_bytes=max_bytes, timeout=timeout, what=what)
    return target


def extract_zip_safely(
    zip_path: Path, dest_dir: Path, *, max_bytes: int, max_files: int
) -> list[Path]:
    """Unpack ``zip_path`` into ``dest_dir`` (which must not exist yet) and return the files
    written, or refuse the whole archive with ``ArchiveRefused`` and write nothing.

    Refused: absolute paths, ``..`` components, backslashes and drive letters, symbolic
    links, devices and other special entries (by their Unix mode bits), encrypted or
    duplicate entries, more than ``max_files`` entries, and more than ``max_bytes`` bytes in
    all, counted both from the headers and while writing. An entry whose header understates
    its size is refused as unreadable: zipfile stops at the stated size and the checksum
    then fails."""
    if dest_dir.exists():
        raise ArchiveRefused(f"the destination {dest_dir} already exists.")
    if not zip_path.is_file():
        raise ArchiveRefused(f"{zip_path} is not a regular file.")
    dest_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unzip-", dir=dest_dir.parent))
    try:
        written = _extract(zip_path, staging, max_bytes=max_bytes, max_files=max_files)
        staging.rename(dest_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [dest_dir / path.relative_to(staging) for path in written]


def _extract(zip_path: Path, root: Path, *, max_bytes: int, max_files: int) -> list[Path]:
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError):
        raise ArchiveRefused(f"{zip_path.name} is not a readable zip archive.") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > max_files:
            raise ArchiveRefused(
                f"the archive holds {len(entries):,} entries, over the cap of {max_files:,}."
            )
        declared = sum(entry.file_size for entry in entries)
        if declared > max_bytes:
            raise ArchiveRefused(
                f"the archive unpacks to {declared:,} bytes, over the {max_bytes:,}-byte cap."
            )
        seen: set[str] = set()
        for entry in entries:
            parts = _safe_parts(entry)
            key = "/".join(parts)
            if key in seen:
                raise ArchiveRefused(f"the archive holds the entry {entry.filename!r} twice.")
            seen.add(key)
        written: list[Path] = []
        total = 0
        for entry in entries:
            target = root.joinpath(*_safe_parts(entry))
            if entry.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ArchiveRefused(
                    f"the archive entry {entry.filename!r} cannot be written ({error.strerror})."
                ) from None
            total = _write_entry(archive, entry, target, total, max_bytes)
            written.append(target)
    return written


def _safe_parts(entry: zipfile.ZipInfo) -> tuple[str, ...]:
    """The path components of ``entry``, or ``ArchiveRefused`` naming why it is unsafe."""
    name = entry.filename
    kind = stat.S_IFMT(entry.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise ArchiveRefused(f"the archive entry {name!r} is a symbolic link.")
    if kind not in _ALLOWED_TYPES:
        raise ArchiveRefused(f"the archive entry {name!r} is not a regular file or folder.")
    if entry.flag_bits & 0x1:
        raise ArchiveRefused(f"the archive entry {name!r} is encrypted.")
    if "\\" in name or "\x00" in name or (len(name) > 1 and name[1] == ":"):
        raise ArchiveRefused(f"the archive entry {name!r} has a Windows or malformed path.")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ArchiveRefused(f"the archive entry {name!r} has an absolute path.")
    parts = tuple(part for part in path.parts if part not in ("", "."))
    if ".." in parts:
        raise ArchiveRefused(f"the archive entry {name!r} climbs out with '..'.")
    if not parts:
        raise ArchiveRefused(f"the archive entry {name!r} has no name.")
    return parts


def _write_entry(
    archive: zipfile.ZipFile, entry: zipfile.ZipInfo, target: Path, total: int, max_bytes: int
) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        with archive.open(entry) as source, os.fdopen(os.open(target, flags, 0o600), "wb") as out:
            while chunk := source.read(_CHUNK):
                total += len(chunk)
                if total > max_bytes:
                    raise ArchiveRefused(
                        f"the archive entry {entry.filename!r} takes the archive over the "
                        f"{max_bytes:,}-byte cap."
                    )
                out.write(chunk)
    except OSError as error:  # a folder and a file of the same name, for instance
        raise ArchiveRefused(
            f"the archive entry {entry.filename!r} cannot be written ({error.strerror})."
        ) from None
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        # A CRC or size mismatch (a header that lies), a truncated entry, an unknown method.
        raise ArchiveRefused(
            f"the archive entry {entry.filename!r} cannot be read ({error})."
        ) from None
    return total


def _fetch(location: str, target: Path, *, max_bytes: int, timeout: float, what: str) -> None:
    """GET ``location`` with no credentials into ``target``, at most ``max_bytes`` bytes."""
    request = urllib.request.Request(location, headers={"User-Agent": "goldgate"})
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                raise ArchiveRefused(
                    f"the artifact archive is {int(declared):,} bytes, "
                    f"over the {max_bytes:,}-byte cap."
                )
            received = 0
            with open(partial, "wb") as out:
                while chunk := response.read(_CHUNK):
                    received += len(chunk)
                    if received > max_bytes:
                        raise ArchiveRefused(
                            f"the artifact archive is over the {max_bytes:,}-byte cap."
                        )
                    out.write(chunk)
        partial.replace(target)
    except urllib.error.HTTPError as error:
        gone = " (the artifact has expired)" if error.code == 410 else ""
        raise GitHubUnavailable(
            f"could not {what}: the storage host answered {error.code}{gone}.", status=error.code
        ) from None
    except (urllib.error.URLError, OSError) as error:
        raise GitHubUnavailable(
            f"could not {what}: the download failed ({type(error).__name__})."
        ) from None
    finally:
        partial.unlink(missing_ok=True)


def _check_location(location: str, api_base: str, what: str) -> None:
    """The signed URL must be https, or plain http only when the API itself is (a test
    server or an Enterprise Server without TLS): a redirect never downgrades."""
    scheme = urllib.parse.urlsplit(location).scheme
    allowed = {"https"} | ({"http"} if api_base.startswith("http://") else set())
    if scheme not in allowed:
        raise GitHubUnavailable(f"could not {what}: GitHub redirected to a {scheme!r} address.")


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
