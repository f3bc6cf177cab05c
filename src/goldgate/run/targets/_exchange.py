"""One JSON POST over httpx, as the http and model targets make it, with every guarantee
they share: a pooled client per target, no redirects followed (a 3xx is a failure, so
headers never travel to another host), no proxy unless one is configured (httpx would read
``HTTP_PROXY`` and the like from the environment: ``trust_env`` is off), TLS verified by the
system's certificates, answers read up to a bound (``max_bytes``, the target's
``max_result_bytes``: on the wire and once each content encoding is undone, ``_inflate``),
and failures as safe sentences that name
kinds and status codes, never a URL, a header or a body. Transient failures (429, 5xx, a
timeout, a failed connection) are ``TransientFailure`` with their kind and ``Retry-After``,
for the live layer to retry (``goldgate.run.live``).
"""

from __future__ import annotations

import datetime
import email.utils
import ssl
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from goldgate.base.errors import MissingDependencyError
from goldgate.run.errors import Refused, TargetFailure, TransientFailure
from goldgate.run.targets._inflate import ACCEPT_ENCODING, Inflater

if TYPE_CHECKING:
    import httpx

MAX_CONNECTIONS = 64
"""As many as a run has attempts in flight at most (``--max-concurrency``)."""

_RATE_PREFIX = "x-ratelimit-"


def import_httpx(who: str) -> None:
    """Say how to install httpx (exit 3) when it cannot be imported: it is a dependency of
    goldgate, but an environment installed without dependencies may lack it. Found, not
    imported: a run whose answers all come from the cache never needs it."""
    from importlib.util import find_spec

    try:
        found = find_spec("httpx") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules["httpx"] is None
        found = False
    if not found:
        raise MissingDependencyError(
            f"the {who} needs httpx, which is not installed: pip install 'httpx>=0.27'"
        )


class Exchange:
    """POSTs JSON bodies through one pooled httpx client, made on first use (inside the
    run's event loop) and closed by ``aclose``."""

    def __init__(self, who: str, *, timeout: float, max_bytes: int, proxy: str | None) -> None:
        self.who = who
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.proxy = proxy
        self._client: httpx.AsyncClient | None = None

    def _make_client(self) -> httpx.AsyncClient:
        import httpx

        return httpx.AsyncClient(
            trust_env=False,  # no proxy, .netrc or certificate paths from the environment
            follow_redirects=False,
            verify=ssl.create_default_context(),
            proxy=self.proxy,
            timeout=httpx.Timeout(self.timeout),
            limits=httpx.Limits(
                max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS
            ),
        )

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str]
    ) -> tuple[bytes, dict[str, str]]:
        """The 2xx answer's body and its rate-limit headers; ``TargetFailure`` (or
        ``TransientFailure``) otherwise, raised outside any handler so that no exception text,
        which could hold a URL or a header, travels with it."""
        import httpx

        if self._client is None:
            self._client = self._make_client()
        if not any(name.lower() == "accept-encoding" for name in headers):
            headers = {**headers, "Accept-Encoding": ACCEPT_ENCODING}
        failure: TargetFailure
        try:
            async with self._client.stream("POST", url, content=body, headers=headers) as answer:
                rates = {
                    name: value
                    for name, value in answer.headers.items()
                    if name.lower().startswith(_RATE_PREFIX)
                }
                status = answer.status_code
                if 200 <= status < 300:
                    try:
                        return await self._bounded(answer), rates
                    except Refused as refused:
                        failure = TargetFailure(f"{self.who} answer {refused.reason}")
                else:
                    failure = status_failure(self.who, status, answer.headers, rates)
        except httpx.HTTPError as error:
            failure = transport_failure(self.who, error)
        raise failure

    async def _bounded(self, answer: httpx.Response) -> bytes:
        """The answer's body, its content encodings undone (``_inflate``): ``Refused`` past
        ``max_bytes`` on the wire or at any layer, read no further than that."""
        declared = answer.headers.get("Content-Length", "")
        if declared.strip().isdigit() and int(declared) > self.max_bytes:
            raise Refused(f"exceeded {self.max_bytes} bytes")
        codings = answer.headers.get_list("Content-Encoding", split_commas=True)
        inflater = Inflater(codings, self.max_bytes)
        data = bytearray()
        async for chunk in answer.aiter_raw():
            data += inflater.feed(chunk)
        return bytes(data)


def status_failure(
    who: str, status: int, headers: Mapping[str, str], rates: Mapping[str, str]
) -> TargetFailure:
    """The failure a non-2xx answer is: 429 and 5xx transient, the rest final."""
    if status == 429:
        return TransientFailure(
            f"{who} answered 429 (too many requests)",
            kind="429",
            retry_after=retry_after(headers),
            headers=rates,
        )
    if 500 <= status < 600:
        return TransientFailure(
            f"{who} answered {status}", kind="5xx", retry_after=retry_after(headers), headers=rates
        )
    note = " (redirects are not followed)" if 300 <= status < 400 else ""
    return TargetFailure(f"{who} answered {status}{note}")


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked to wait: ``retry-after-ms`` (OpenAI's), else ``Retry-After``
    as seconds or an HTTP date; None when it said nothing usable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        seconds = _number(millis)
        if seconds is not None:
            return seconds / 1000
    text = headers.get("retry-after")
    if text is None:
        return None
    seconds = _number(text)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(text.strip())
        if when.tzinfo is None:  # "-0000": UTC (RFC 5322), never the runner's own zone
            when = when.replace(tzinfo=datetime.UTC)
        at = when.timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


def _number(text: str) -> float | None:
    """A number of seconds at least 0; one too large for a float is infinite (a wait no
    deadline holds), NaN and negative numbers are None (no wait asked for)."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def transport_failure(who: str, error: Exception) -> TargetFailure:
    """A safe sentence, and a transient kind, for what went wrong reaching the server."""
    import httpx

    if isinstance(error, httpx.TimeoutException):
        if isinstance(error, httpx.ConnectTimeout | httpx.PoolTimeout):
            return TransientFailure(f"{who} could not be connected to in time", kind="connect")
        return TransientFailure(f"{who} timed out", kind="timeout")
    if isinstance(error, httpx.ConnectError):
        return TransientFailure(_connect_reason(who, error), kind="connect")
    if isinstance(error, httpx.RemoteProtocolError):
        if "without sending" in str(error) or "Server disconnected" in str(error):
            return TransientFailure(
                f"{who} closed the connection without answering", kind="connect"
            )
        if "incomplete" in str(error).lower() or "peer closed" in str(error).lower():
            return TargetFailure(f"{who}'s answer was cut short")
        return TargetFailure(f"{who}'s answer is not valid HTTP ({type(error).__name__})")
    if isinstance(error, httpx.ReadError | httpx.WriteError):
        return TransientFailure(
            f"connection to the {who} failed ({type(error).__name__})", kind="connect"
        )
    if isinstance(error, httpx.ProxyError):
        return TargetFailure(f"the proxy refused the {who}'s request")
    if isinstance(error, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return TargetFailure(f"the {who}'s URL cannot be used ({type(error).__name__})")
    return TargetFailure(f"{who} request failed ({type(error).__name__})")


def _connect_reason(who: str, error: Exception) -> str:
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return f"{who} refused the connection"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"{who}'s TLS certificate could not be verified"
        if isinstance(cause, ssl.SSLError):
            return f"TLS with the {who} failed ({type(cause).__name__})"
        if _is_resolution_failure(cause):
            return f"{who} host could not be resolved"
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    if "Name or service not known" in text or "nodename nor servname" in text:
        return f"{who} host could not be resolved"
    if "Connection refused" in text or "Errno 111" in text:
        return f"{who} refused the connection"
    return f"connection to the {who} failed ({type(error).__name__})"


def _is_resolution_failure(error: BaseException) -> bool:
    import socket

    return isinstance(error, socket.gaierror)
