"""An http target: POST the request as JSON, read the result document back.

Uses httpx (``_exchange``): one pooled client per target, cancelled within the attempt's
deadline like any other await. Redirects are not followed (a 3xx is a failure, so headers
never travel to another host) and no proxy is used unless ``proxy`` is configured (the
environment's proxy variables are not read). Header values may come from environment
variables, read at call time; no header value ever appears in a reason, in ``describe()``
or in an exception's text, and neither do the URL's (or the proxy's) user information or
query values (``describe()`` shows ``https://host/path?key=…``).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from goldgate.base.errors import InvalidInputError
from goldgate.base.textsafe import redact_url
from goldgate.gold.settings.models import DEFAULT_MAX_RESULT_BYTES, EnvHeader, HttpEndpoint
from goldgate.run.errors import TargetFailure
from goldgate.run.limits import DEFAULT_TIMEOUT
from goldgate.run.targets._documents import document_from_bytes, encode_request
from goldgate.run.targets._exchange import Exchange, import_httpx
from goldgate.run.targets.base import TargetContext, TargetRequest, TargetResponse

DEFAULT_HTTP_TIMEOUT = DEFAULT_TIMEOUT
"""Seconds a socket may wait for the server (connecting, or between bytes of the answer)."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_RESERVED = {"content-length", "host", "transfer-encoding", "connection"}


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
        proxy: str | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidInputError("an http target needs an http:// or https:// URL.")
        try:
            port = parts.port
        except ValueError:
            raise InvalidInputError("the http target's URL has an invalid port.") from None
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._basic = (
            None
            if parts.username is None
            else (unquote(parts.username), unquote(parts.password or ""))
        )
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        origin = f"{parts.scheme}://{host}{'' if port is None else f':{port}'}"
        self._target_url = origin + path  # what is POSTed to: no user information
        # What describe() records: no user information, query values redacted.
        self.url = redact_url(origin + path)
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
        self.proxy = proxy
        self._exchange = Exchange(
            "http target", timeout=timeout, max_bytes=max_result_bytes, proxy=proxy
        )

    def load(self) -> None:
        """httpx imported now: exit 3 naming the install command when it is missing."""
        import_httpx("http target")

    def describe(self) -> dict[str, Any]:
        """Kind, URL without user information or query values, and header names (never
        their values); whether a proxy is used (never its address)."""
        described: dict[str, Any] = {
            "kind": "http",
            "url": self.url,
            "headers": sorted(self.headers),
        }
        if self.proxy is not None:
            described["proxy"] = True
        return described

    def cache_identity(self) -> dict[str, Any]:
        """What decides an answer, for the response cache's key (only hashed, never stored
        or shown): the URL as POSTed, query values included, any user information in it,
        each literal header's value, and for a header read from the environment the
        variable's name and prefix, never its value."""
        return {
            "kind": "http",
            "url": self._target_url,
            "user": None if self._basic is None else list(self._basic),
            "headers": {
                name: {"env": value.env, "prefix": value.prefix}
                if isinstance(value, EnvHeader)
                else value
                for name, value in self.headers.items()
            },
        }

    async def aclose(self) -> None:
        await self._exchange.aclose()

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
        data, rates = await self._exchange.post(self._target_url, body, headers)
        document = document_from_bytes(data, origin="http target answer")
        return TargetResponse(document, headers=rates or None)


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
        proxy=endpoint.proxy,
    )


def _valid_value(value: str) -> bool:
    if _BAD_VALUE.search(value):
        return False
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True
