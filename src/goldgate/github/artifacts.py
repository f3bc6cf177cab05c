"""The baseline: the report a push to the base branch uploaded as an artifact, found by the
pull request's merge-base commit, downloaded and unpacked without trusting the archive.

Which artifact: the baseline workflow (examples/workflows/baseline.yml) names it per commit,
``NAME-<commit sha>``. The newest unexpired ``NAME-<merge base>`` (or ``NAME``) whose workflow
run was for the merge-base commit; failing that, the newest ``NAME-<sha>`` or ``NAME`` from
the base branch, with a note naming its commit.
Only runs of this repository count: a pull request from a fork runs in this repository too
and can upload an artifact of any name, and its report must never become the baseline.

Downloading: within an overall deadline (a host that trickles a byte a second is given up
when it passes). The API answers ``archive_download_url`` with a 302 to a short-lived signed
URL on another host. The token goes to the API host only; the signed URL is fetched without it
(that host needs none, and must not see it). PyGithub has no download method, and its
stream helper would forward the token to a redirect on the API's own host.

Unpacking: the archive comes from a workflow run, so it is read as hostile: no absolute
paths, no ``..``, no links or devices, a cap on entries (read from the end records before
zipfile reads the directory) and on bytes actually written.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import ssl
import stat
import struct
import tempfile
import time
import urllib.parse
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from goldgate.github.client import GitHubUnavailable, describe_error, os_reason, reaching_github

if TYPE_CHECKING:
    from github import Github
    from github.Artifact import Artifact
    from github.Repository import Repository

_CHUNK = 64 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")
SCAN_LIMIT = 1_000
"""Artifacts of the repository looked through (newest first) for the base branch's newest."""
DOWNLOAD_DEADLINE = 120.0
"""Seconds a baseline download may take in all, however slowly the storage host answers."""
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
    name: str,
    merge_base_sha: str,
    base_branch: str,
    *,
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


def download_artifact(
    github: Github,
    artifact: ArtifactChoice,
    dest_dir: Path,
    *,
    max_bytes: int,
    deadline: float | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download ``artifact``'s zip into ``dest_dir`` and return its path.

    ``deadline`` (a ``time.monotonic()`` moment; default: ``DOWNLOAD_DEADLINE`` seconds from
    now) bounds the whole download, however slowly the storage host sends; ``timeout``
    bounds each wait for a byte. Refuses (``ArchiveRefused``) an archive over ``max_bytes``,
    by its declared size and by the bytes actually received; an expired artifact (410), the
    deadline, or any failure to reach GitHub or the storage host is ``GitHubUnavailable``.
    Nothing but the finished archive is left in ``dest_dir``, whatever happens."""
    if artifact.size_in_bytes > max_bytes:
        raise ArchiveRefused(
            f"the artifact {artifact.name!r} is {artifact.size_in_bytes:,} bytes, "
            f"over the {max_bytes:,}-byte cap."
        )
    until = time.monotonic() + DOWNLOAD_DEADLINE if deadline is None else deadline
    what = f"download the artifact {artifact.name!r}"
    path = f"/repos/{artifact.repository}/actions/artifacts/{artifact.artifact_id}/zip"
    remaining(until, what)
    with reaching_github(what):
        headers, _ = github.requester.requestJsonAndCheck("GET", path)
    location = {key.lower(): value for key, value in headers.items()}.get("location")
    if not isinstance(location, str) or not location:
        raise GitHubUnavailable(f"could not {what}: GitHub gave no download address.")
    _check_location(location, github.requester.base_url, what)
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / f"{artifact.id_name}.zip"
    _fetch(location, target, max_bytes=max_bytes, deadline=until, timeout=timeout, what=what)
    return target


def remaining(deadline: float, what: str) -> float:
    """Seconds left before ``deadline``, or ``GitHubUnavailable`` once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise GitHubUnavailable(f"could not {what}: it took longer than this run allows.")
    return left


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
    # Checked before zipfile reads the central directory: millions of tiny entries would
    # cost gigabytes of memory there before their number could be counted (and the count in
    # the end record can lie, so the directory's size is bounded too).
    end_record = _declared_entries(zip_path)
    if end_record is not None:
        count, directory = end_record
        if count > max_files:
            raise ArchiveRefused(
                f"the archive holds {count:,} entries, over the cap of {max_files:,}."
            )
        if directory > max_files * _DIRECTORY_BYTES_PER_FILE + _COMMENT_MAX:
            raise ArchiveRefused(
                f"the archive's central directory is {directory:,} bytes, more than "
                f"{max_files:,} entries need."
            )
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
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
                    f"the archive entry {entry.filename!r} cannot be written ({os_reason(error)})."
                ) from None
            total = _write_entry(archive, entry, target, total, max_bytes)
            written.append(target)
    return written


_END = struct.Struct("<4s4H2LH")  # end of central directory: its record
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")
_COMMENT_MAX = 0xFFFF
_DIRECTORY_BYTES_PER_FILE = 1024  # 46 bytes of header, the name and extra fields


def _declared_entries(zip_path: Path) -> tuple[int, int] | None:
    """The number of entries and the size of the central directory that the archive's end
    records declare (zip64 too), read from its last 64 kB; None when they cannot be found
    (zipfile then refuses the archive)."""
    try:
        with open(zip_path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _END.size - _COMMENT_MAX - _END64_LOCATOR.size))
            tail = handle.read()
            at = tail.rfind(b"PK\x05\x06")
            if at < 0 or at + _END.size > len(tail):
                return None
            end = _END.unpack_from(tail, at)
            entries, directory = int(end[4]), int(end[5])
            locator = at - _END64_LOCATOR.size
            if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
                handle.seek(int(_END64_LOCATOR.unpack_from(tail, locator)[2]))
                record = handle.read(_END64.size)
                if len(record) == _END64.size and record[:4] == b"PK\x06\x06":
                    end64 = _END64.unpack(record)
                    entries, directory = max(entries, int(end64[7])), max(directory, int(end64[8]))
            return entries, directory
    except (OSError, struct.error):
        return None


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
            f"the archive entry {entry.filename!r} cannot be written ({os_reason(error)})."
        ) from None
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        # A CRC or size mismatch (a header that lies), a truncated entry, an unknown method.
        raise ArchiveRefused(
            f"the archive entry {entry.filename!r} cannot be read "
            f"({describe_error(error).rstrip('.')})."
        ) from None
    return total


def _fetch(
    location: str, target: Path, *, max_bytes: int, deadline: float, timeout: float, what: str
) -> None:
    """GET ``location`` with no credentials into ``target``, at most ``max_bytes`` bytes,
    done by ``deadline``: every wait on the socket is cut to the time left, so a host that
    trickles a byte a second is given up at the deadline, not after the whole archive."""
    partial = target.with_name(target.name + ".part")
    connection: http.client.HTTPConnection | None = None
    try:
        connection, response = _open(location, deadline, timeout, what)
        declared = response.getheader("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise ArchiveRefused(
                f"the artifact archive is {int(declared):,} bytes, over the {max_bytes:,}-byte cap."
            )
        received = 0
        with open(partial, "wb") as out:
            while True:
                if connection.sock is not None:
                    connection.sock.settimeout(min(timeout, remaining(deadline, what)))
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                received += len(chunk)
                if received > max_bytes:
                    raise ArchiveRefused(
                        f"the artifact archive is over the {max_bytes:,}-byte cap."
                    )
                out.write(chunk)
        if response.length:  # the host closed the connection before the declared length
            raise GitHubUnavailable(f"could not {what}: the download was cut short.")
        remaining(deadline, what)
        partial.replace(target)
    except TimeoutError:
        if time.monotonic() >= deadline:
            raise GitHubUnavailable(
                f"could not {what}: it took longer than this run allows."
            ) from None
        raise GitHubUnavailable(
            f"could not {what}: the storage host stopped answering for {timeout:g} s."
        ) from None
    except (http.client.HTTPException, OSError) as error:
        raise GitHubUnavailable(
            f"could not {what}: the download failed ({type(error).__name__})."
        ) from None
    finally:
        if connection is not None:
            connection.close()
        partial.unlink(missing_ok=True)


def _open(
    location: str, deadline: float, timeout: float, what: str, redirects: int = 3
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """The connection and the 200 answer for ``location``, following at most ``redirects``
    redirects (each checked as the first one was); ``GitHubUnavailable`` for any other."""
    for _ in range(redirects + 1):
        parts = urllib.parse.urlsplit(location)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise GitHubUnavailable(f"could not {what}: the storage host sent a non-http address.")
        wait = min(timeout, remaining(deadline, what))
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=wait, context=ssl.create_default_context()
            )
        else:
            connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=wait)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        try:
            connection.request("GET", target, headers={"User-Agent": "goldgate"})
            if connection.sock is not None:
                connection.sock.settimeout(min(timeout, remaining(deadline, what)))
            response = connection.getresponse()
        except BaseException:
            connection.close()
            raise
        if response.status == 200:
            return connection, response
        connection.close()
        next_location = response.getheader("Location")
        if response.status in (301, 302, 303, 307, 308) and next_location:
            location = urllib.parse.urljoin(location, next_location)
            if urllib.parse.urlsplit(location).scheme != parts.scheme and parts.scheme == "https":
                raise GitHubUnavailable(f"could not {what}: the storage host redirected to http.")
            continue
        gone = " (the artifact has expired)" if response.status == 410 else ""
        raise GitHubUnavailable(
            f"could not {what}: the storage host answered {response.status}{gone}.",
            status=response.status,
        )
    raise GitHubUnavailable(f"could not {what}: the storage host redirected too many times.")


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
