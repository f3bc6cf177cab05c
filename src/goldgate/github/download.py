"""Downloading an artifact's zip archive, within an overall deadline (a host that trickles a
byte a second is given up when it passes).

The API answers ``archive_download_url`` with a 302 to a short-lived signed URL on another
host. The token goes to the API host only; the signed URL is fetched without it (that host
needs none, and must not see it), and a redirect never downgrades to plain http. PyGithub has
no download method, and its stream helper would forward the token to a redirect on the
API's own host. An archive over the cap is ``errors.ArchiveRefused``; every failure to
reach GitHub or the storage host, the deadline included, is ``GitHubUnavailable``.
"""

from __future__ import annotations

import http.client
import ssl
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.github.client import reaching_github
from goldgate.github.errors import ArchiveRefused, GitHubUnavailable

if TYPE_CHECKING:
    from github import Github

    from goldgate.github.artifacts import ArtifactChoice

__all__ = ["DOWNLOAD_DEADLINE", "download_artifact", "remaining"]

_CHUNK = 64 * 1024
DOWNLOAD_DEADLINE = 120.0
"""Seconds a baseline download may take in all, however slowly the storage host answers."""


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


def _fetch(
    location: str, target: Path, *, max_bytes: int, deadline: float, timeout: float, what: str
) -> None:
    """GET ``location`` with no credentials into ``target``, at most ``max_bytes`` bytes,
    done by ``deadline``: every wait on the socket is cut to the time left, so a host that
    trickles a byte a second is given up at the deadline, not after the whole archive."""
    partial = target.with_name(target.name + ".part")
    connection: http.client.HTTPConnection | None = None
    try:
        connection, response = _open(
            location=location, deadline=deadline, timeout=timeout, what=what
        )
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
    *, location: str, deadline: float, timeout: float, what: str, redirects: int = 3
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
