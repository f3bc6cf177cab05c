"""A provider on loopback that misbehaves as each request asks: the answer's status, headers
(absurd ``Retry-After``, ``retry-after-ms``, ``x-ratelimit-*`` waits) and body come from the
request's ``envelope.payload`` (an http target's request), and ``bomb`` answers a few
kilobytes that inflate past a gibibyte (``Content-Encoding`` as given, nested or not).

Payload keys: ``delay`` (seconds before answering), ``status`` (default 200), ``headers``
(added to the answer), ``encoding`` (``gzip`` or ``gzip, gzip``: a small well-formed answer
sent so encoded), ``bomb`` (the ``Content-Encoding`` of a bomb: ``gzip``, ``gzip, gzip``,
``gzip, deflate``...). Without ``bomb``, the body is a result document echoing
``payload.message``, with a ``usage`` of ``tokens`` (a string of digits) input and output
tokens where the payload has it, or the payload's own ``usage`` as it is.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from tests.helpers import loopback

BOMB_MIB = 1536
"""What a bomb inflates to: 1.5 GiB of zeros."""


@cache
def gzip_bomb(mib: int = BOMB_MIB) -> bytes:
    """A well-formed gzip stream of ``mib`` MiB of zeros (about 1 KB a MiB), made without
    compressing them all: after a full flush, each MiB compresses to the same bytes."""
    zeros = bytes(1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    last = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()  # an empty final block
    return first + again * (mib - 1) + last + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)


def encoded(data: bytes, codings: str) -> bytes:
    """``data`` with ``codings`` applied in order (as ``Content-Encoding`` lists them)."""
    for coding in (part.strip() for part in codings.split(",")):
        if coding == "gzip":
            data = gzip.compress(data, 9)
        elif coding == "deflate":
            data = zlib.compress(data, 9)
        # any other coding (identity, br, ...) leaves the bytes as they are
    return data


def bomb(codings: str) -> bytes:
    """A bomb whose first coding (the innermost) is gzip: ``gzip, gzip`` is a gzip bomb
    gzipped again, ``gzip, deflate`` one deflated."""
    first, *after = [part.strip() for part in codings.split(",")]
    assert first == "gzip", codings
    return encoded(gzip_bomb(), ", ".join(after))


class _Handler(loopback.Handler):
    server: HostileServer

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        payload = request["envelope"]["payload"]
        with self.server.lock:
            self.server.requests.append(payload.get("message"))
            self.server.accept_encoding.append(self.headers.get("Accept-Encoding"))
        time.sleep(float(payload.get("delay", 0)))
        headers: dict[str, str] = dict(payload.get("headers", {}))
        if "bomb" in payload:
            body = bomb(payload["bomb"])
            headers["Content-Encoding"] = payload["bomb"]
        else:
            document: dict[str, Any] = {"payload": {"answer": payload.get("message")}}
            if "tokens" in payload:  # digits: a count as large as JSON can write
                count = int(payload["tokens"])
                document["usage"] = {"input_tokens": count, "output_tokens": count}
            if "usage" in payload:  # the usage as it is, counts or not
                document["usage"] = payload["usage"]
            body = json.dumps(document).encode("utf-8")
            if "encoding" in payload:
                body = encoded(body, payload["encoding"])
                headers["Content-Encoding"] = payload["encoding"]
        self.send_response(int(payload.get("status", 200)))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(OSError):  # the client stopped reading, as a bounded one does
            self.wfile.write(body)


class HostileServer(loopback.Server):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.requests: list[Any] = []
        self.accept_encoding: list[str | None] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/answer"


@contextmanager
def hostile_provider() -> Iterator[HostileServer]:
    server = HostileServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
