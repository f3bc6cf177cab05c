"""HTTP targets against a real local server: answers, failures, deadlines, secret headers."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.gold.settings.models import EnvHeader
from goldgate.run.targets import HttpTarget, Target, TargetFailure, TargetRequest
from helpers import loopback

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "s3cr3t-PAYLOAD-value-7731"  # what conftest.request_ carries

TOKEN = "tok-HEADER-SECRET-0192"
LITERAL = "literal-HEADER-SECRET-5567"


class Handler(loopback.Handler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real server: clients may pool
    seen: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        received = json.loads(self.rfile.read(length))
        self.seen.append({"path": self.path, "headers": dict(self.headers), "body": received,
                          "client_port": self.client_address[1]})  # fmt: skip
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(received)

    def _answer(self, received: dict[str, Any]) -> None:
        if self.path.startswith("http://"):  # asked as a proxy: the absolute form
            self._send(200, json.dumps({"proxied": self.path}).encode())
        elif self.path == "/ok?mode=echo":
            document = {"execution": {"status": "completed"}, "request": received}
            self._send(200, json.dumps(document).encode())
        elif self.path == "/fail":
            self._send(500, json.dumps({"error": SECRET}).encode())
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://example.invalid/")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/slow":
            time.sleep(2)
            self._send(200, b"{}")
        elif self.path == "/huge":
            self._send(200, b'{"x": "' + b"y" * 300_000 + b'"}')
        elif self.path == "/huge-chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(50):
                chunk = b"z" * 10_000
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/not-json":
            self._send(200, f"<html>{SECRET}</html>".encode(), "text/html")
        elif self.path == "/array":
            self._send(200, json.dumps([SECRET]).encode())
        elif self.path == "/empty":
            self.send_response(204)
            self.end_headers()
        elif self.path == "/hangup":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        else:
            self._send(404, b"{}")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = loopback.Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def http(url: str, **kw: Any) -> HttpTarget:
    kw.setdefault("max_result_bytes", 100_000)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("environ", {"GG_TOKEN": TOKEN})
    kw.setdefault(
        "headers",
        {"Authorization": EnvHeader(env="GG_TOKEN", prefix="Bearer "), "X-Literal": LITERAL},
    )
    return HttpTarget(url, **kw)


def assert_safe(failure: TargetFailure) -> None:
    for text in (failure.reason, str(failure), repr(failure)):
        for secret in (SECRET, TOKEN, LITERAL):
            assert secret not in text
    assert failure.__context__ is None
    assert failure.__cause__ is None


@pytest.mark.slow
async def test_success_with_headers_from_the_environment(
    server: str, request_: TargetRequest, secret: str
) -> None:
    assert secret == SECRET
    target = http(f"{server}/ok?mode=echo")
    assert isinstance(target, Target)
    response = await target(request_)
    assert response.document == {
        "execution": {"status": "completed"},
        "request": request_.as_json(),
    }
    headers = Handler.seen[-1]["headers"]
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["X-Literal"] == LITERAL
    assert headers["Content-Type"] == "application/json"
    described = json.dumps(target.describe())
    assert TOKEN not in described
    assert LITERAL not in described
    assert target.describe() == {
        "kind": "http",
        "url": f"{server}/ok?mode=…",
        "headers": ["Authorization", "X-Literal"],
    }
    await target.aclose()


@pytest.mark.slow
async def test_user_information_becomes_basic_auth_and_leaves_describe(
    server: str, request_: TargetRequest
) -> None:
    url = server.replace("http://", "http://alice:pw-SECRET@") + "/ok?mode=echo"
    target = http(url, headers={})
    await target(request_)
    assert Handler.seen[-1]["headers"]["Authorization"] == "Basic YWxpY2U6cHctU0VDUkVU"
    assert "SECRET" not in json.dumps(target.describe())
    assert "alice" not in json.dumps(target.describe())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/fail", "http target answered 500"),
        ("/missing", "http target answered 404"),
        ("/redirect", "http target answered 302 (redirects are not followed)"),
        ("/huge", "http target answer exceeded 100000 bytes"),
        ("/huge-chunked", "http target answer exceeded 100000 bytes"),
        ("/not-json", "http target answer is not strict JSON (line 1, column 1)"),
        ("/array", "http target answer is a JSON array, not a JSON object"),
        ("/empty", "http target answer is empty, not a JSON object"),
        ("/hangup", "http target closed the connection without answering"),
    ],
)
async def test_answers_that_are_not_result_documents(
    server: str, request_: TargetRequest, path: str, reason: str
) -> None:
    with pytest.raises(TargetFailure) as caught:
        await http(f"{server}{path}")(request_)
    assert caught.value.reason == reason
    assert_safe(caught.value)


@pytest.mark.slow
async def test_slow_answer_past_the_deadline(server: str, request_: TargetRequest) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.5):
            await http(f"{server}/slow")(request_)
    assert time.monotonic() - started < 1.5


@pytest.mark.slow
async def test_socket_timeout(server: str, request_: TargetRequest) -> None:
    with pytest.raises(TargetFailure) as caught:
        await http(f"{server}/slow", timeout=0.3)(request_)
    assert caught.value.reason == "http target timed out"
    assert_safe(caught.value)


async def test_connection_refused(request_: TargetRequest) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TargetFailure) as caught:
        await http(f"http://127.0.0.1:{port}/")(request_)
    assert caught.value.reason == "http target refused the connection"
    assert_safe(caught.value)


async def test_unresolvable_host(request_: TargetRequest) -> None:
    with pytest.raises(TargetFailure) as caught:
        await http("http://gg-no-such-host.invalid/")(request_)
    assert caught.value.reason == "http target host could not be resolved"


@pytest.mark.slow
async def test_missing_environment_variable_is_named_not_valued(
    server: str, request_: TargetRequest
) -> None:
    target = http(f"{server}/ok?mode=echo", environ={"OTHER": TOKEN})
    before = len(Handler.seen)
    with pytest.raises(TargetFailure) as caught:
        await target(request_)
    assert caught.value.reason == (
        "http target header 'Authorization' needs the environment variable GG_TOKEN, "
        "which is not set"
    )
    assert_safe(caught.value)
    assert len(Handler.seen) == before  # nothing was sent


@pytest.mark.slow
async def test_environment_is_read_at_call_time(server: str, request_: TargetRequest) -> None:
    environ: dict[str, str] = {}
    target = http(f"{server}/ok?mode=echo", environ=environ)
    with pytest.raises(TargetFailure):
        await target(request_)
    environ["GG_TOKEN"] = "later"
    await target(request_)
    assert Handler.seen[-1]["headers"]["Authorization"] == "Bearer later"


@pytest.mark.slow
async def test_header_value_with_a_line_break_is_refused_safely(
    server: str, request_: TargetRequest
) -> None:
    target = http(f"{server}/ok?mode=echo", environ={"GG_TOKEN": TOKEN + "\r\nX-Evil: 1"})
    with pytest.raises(TargetFailure) as caught:
        await target(request_)
    assert caught.value.reason == (
        "http target header 'Authorization' from the environment variable GG_TOKEN "
        "is not a valid header value"
    )
    assert_safe(caught.value)


@pytest.mark.parametrize(
    ("url", "headers", "message"),
    [
        ("ftp://example.com/", {}, "an http target needs an http:// or https:// URL."),
        ("http://example.com:99999/", {}, "the http target's URL has an invalid port."),
        (
            "http://example.com/",
            {"Bad Name": "x"},
            "http target header 'Bad Name' is not a valid header name.",
        ),
        (
            "http://example.com/",
            {"Content-Length": "1"},
            "http target header 'Content-Length' is set by goldgate and cannot be configured.",
        ),
        (
            "http://example.com/",
            {"X-Literal": LITERAL + "\n"},
            "http target header 'X-Literal' has a value that is not a valid header value.",
        ),
    ],
)
def test_bad_configuration(url: str, headers: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        HttpTarget(url, headers)
    assert str(caught.value) == message


@pytest.mark.slow
async def test_no_proxy_from_the_environment_and_the_configured_one_is_used(
    server: str, request_: TargetRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy nobody listens on, as the environment names it: never used (trust_env off).
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    direct = http(f"{server}/ok?mode=echo")
    assert (await direct(request_)).document["execution"] == {"status": "completed"}
    await direct.aclose()

    proxied = http("http://app.invalid/ok", proxy=server.replace("http://", "http://u:SECRET@"))
    answer = await proxied(request_)
    assert answer.document == {"proxied": "http://app.invalid/ok"}
    assert proxied.describe()["proxy"] is True
    assert "SECRET" not in json.dumps(proxied.describe())
    assert "127.0.0.1" not in json.dumps(proxied.describe())
    await proxied.aclose()


@pytest.mark.slow
async def test_one_connection_serves_many_requests(server: str, request_: TargetRequest) -> None:
    target = http(f"{server}/ok?mode=echo")
    before = len(Handler.seen)
    for _ in range(5):
        await target(request_)
    ports = {entry["client_port"] for entry in Handler.seen[before:]}
    assert len(ports) == 1  # pooled: one keep-alive connection, not one per request
    await target.aclose()
