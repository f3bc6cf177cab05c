"""An http target: POST the request as JSON, read the result document back.

Uses the standard library (``http.client``) in a worker thread that a deadline abandons; on
cancellation the socket is shut down so the thread ends promptly. Redirects are not
followed (a 3xx is a failure, so headers never travel to another host) and no proxy is used.
Header values may come from environment variables, read at call time; no header value ever
appears in a reason, in ``describe()`` or in an exception's text, and neither do the URL's
user information or query values (``describe()`` shows ``https://host/path?key=…``).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import http.client
import os
import re
import socket
import ssl
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import anyio
import anyio.to_thread

from goldgate.base.errors import InvalidInputError
from goldgate.base.textsafe import redact_url
from goldgate.gold.settings.models import DEFAULT_MAX_RESULT_BYTES, EnvHeader, HttpEndpoint
from goldgate.run.targets._documents import document_from_bytes, encode_request
from goldgate.run.targets.base import TargetContext, TargetFailure, TargetRequest, TargetResponse

DEFAULT_HTTP_TIMEOUT = 300.0
"""Seconds a socket may wait for the server (connecting, or between bytes of the answer)."""

_CHUNK = 64 * 1024
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_RESERVED = {"content-length", "host", "transfer-encoding", "connection"}


class _Aborted(Exception):
    """The caller gave up before the connection was made; the worker thread just ends."""


class _Exchange:
    """One request's connection, so that a cancelled caller can cut it from the outside."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sock: socket.socket | None = None
        self.aborted = False

    def connected(self, connection: http.client.HTTPConnection) -> None:
        """Called by the worker once connected: from now on ``abort`` can cut the socket."""
        with self.lock:
            if self.aborted:
                connection.close()
                raise _Aborted
            self.sock = connection.sock

    def abort(self) -> None:
        """Called by the cancelled caller; wakes a worker blocked on the socket."""
        with self.lock:
            self.aborted = True
            sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class HttpTarget:
    """POSTs each request to ``url`` (see the module docstring)."""

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str | EnvHeader] | None = None,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        environ: Mapping[str, str] = os.environ,
        *,
        timeout: float = DEFAULT_HTTP_TIMEOUT,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidInputError("an http target needs an http:// or https:// URL.")
        try:
            port = parts.port
        except ValueError:
            raise InvalidInputError("the http target's URL has an invalid port.") from None
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._basic = (
            None
            if parts.username is None
            else (unquote(parts.username), unquote(parts.password or ""))
        )
        host = f"[{self._host}]" if ":" in self._host else self._host
        # What describe() records: no user information, query values redacted.
        self.url = redact_url(
            f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{self._path}"
        )
        self.headers: dict[str, str | EnvHeader] = dict(headers or {})
        for name, value in self.headers.items():
            if not _TOKEN.fullmatch(name):
                raise InvalidInputError(f"http target header {name!r} is not a valid header name.")
            if name.lower() in _RESERVED:
                raise InvalidInputError(
                    f"http target header {name!r} is set by goldgate and cannot be configured."
                )
            if isinstance(value, str) and not _valid_value(value):
                raise InvalidInputError(
                    f"http target header {name!r} has a value that is not a valid header value."
                )
        self.max_result_bytes = max_result_bytes
        self.environ = environ
        self.timeout = timeout

    def load(self) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        """Kind, URL without user information or query values, and header names (never
        their values)."""
        return {"kind": "http", "url": self.url, "headers": sorted(self.headers)}

    async def aclose(self) -> None:
        return None

    def _resolved_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._basic is not None:
            token = base64.b64encode(":".join(self._basic).encode("utf-8")).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
        for name, value in self.headers.items():
            if isinstance(value, EnvHeader):
                if value.env not in self.environ:
                    raise TargetFailure(
                        f"http target header {name!r} needs the environment variable "
                        f"{value.env}, which is not set"
                    )
                text = value.prefix + self.environ[value.env]
                if not _valid_value(text):
                    raise TargetFailure(
                        f"http target header {name!r} from the environment variable "
                        f"{value.env} is not a valid header value"
                    )
            else:
                text = value
            for existing in [key for key in headers if key.lower() == name.lower()]:
                del headers[existing]  # configured headers replace goldgate's defaults
            headers[name] = text
        return headers

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        headers = self._resolved_headers()
        body = encode_request(request.as_json())
        exchange = _Exchange()
        try:
            status, data = await anyio.to_thread.run_sync(
                self._post, body, headers, exchange, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            exchange.abort()
            raise
        if not 200 <= status < 300:
            note = " (redirects are not followed)" if 300 <= status < 400 else ""
            raise TargetFailure(f"http target answered {status}{note}")
        if data is None:
            raise TargetFailure(f"http target answer exceeded {self.max_result_bytes} bytes")
        return TargetResponse(document_from_bytes(data, origin="http target answer"))

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self.timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def _post(
        self, body: bytes, headers: dict[str, str], exchange: _Exchange
    ) -> tuple[int, bytes | None]:
        """In a worker thread: (status, body), body ``None`` when over the limit. Every
        failure is a ``TargetFailure`` raised outside any handler, so no exception text (which
        could hold a header) travels with it."""
        reason: str
        try:
            return self._exchange(body, headers, exchange)
        except Exception as error:
            reason = _connection_reason(error)
        raise TargetFailure(reason)

    def _exchange(
        self, body: bytes, headers: dict[str, str], exchange: _Exchange
    ) -> tuple[int, bytes | None]:
        connection = self._connection()
        try:
            connection.connect()
            exchange.connected(connection)
            connection.request("POST", self._path, body=body, headers=headers)
            response = connection.getresponse()
            status = response.status
            if not 200 <= status < 300:
                return status, b""
            declared = response.getheader("Content-Length")
            if declared and declared.strip().isdigit() and int(declared) > self.max_result_bytes:
                return status, None
            data = bytearray()
            while len(data) <= self.max_result_bytes:
                chunk = response.read(min(_CHUNK, self.max_result_bytes + 1 - len(data)))
                if not chunk:
                    return status, bytes(data)
                data += chunk
            return status, None
        finally:
            connection.close()


def build(endpoint: HttpEndpoint, context: TargetContext) -> HttpTarget:
    """The http target of ``http: {url, headers}`` (``factory.TARGET_KINDS``): header values
    are read from the context's environment itself at each call, never copied."""
    timeout = DEFAULT_HTTP_TIMEOUT if context.http_timeout is None else context.http_timeout
    return HttpTarget(
        endpoint.url,
        endpoint.headers,
        context.max_result_bytes,
        context.environ,
        timeout=timeout,
    )


def _valid_value(value: str) -> bool:
    if _BAD_VALUE.search(value):
        return False
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _connection_reason(error: Exception) -> str:
    """A safe sentence for what went wrong talking to the server: the kind, never the text."""
    if isinstance(error, socket.gaierror):
        return "http target host could not be resolved"
    if isinstance(error, ConnectionRefusedError):
        return "http target refused the connection"
    if isinstance(error, TimeoutError):
        return "http target timed out"
    if isinstance(error, ssl.SSLCertVerificationError):
        return "http target's TLS certificate could not be verified"
    if isinstance(error, ssl.SSLError):
        return f"TLS with the http target failed ({type(error).__name__})"
    if isinstance(error, http.client.RemoteDisconnected):
        return "http target closed the connection without answering"
    if isinstance(error, http.client.IncompleteRead):
        return "http target's answer was cut short"
    if isinstance(error, http.client.HTTPException):
        return f"http target's answer is not valid HTTP ({type(error).__name__})"
    if isinstance(error, ConnectionError):
        return f"connection to the http target failed ({type(error).__name__})"
    if isinstance(error, OSError):
        kind = errno.errorcode.get(error.errno or 0, type(error).__name__)
        return f"connection to the http target failed ({kind})"
    return f"http request failed ({type(error).__name__})"
