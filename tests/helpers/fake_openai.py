"""A fake OpenAI-compatible chat completions server on loopback, for the live tests and the
live benchmark (benchmarks/live.py runs this file as a process of its own).

It serves ``POST /v1/chat/completions`` (answering ``echo: <the last user message>`` with a
usage of one token a word), ``POST /v1/responses`` (OpenAI's Responses API: the same answer
to the last user ``input``, ``instructions`` counted in the usage) and ``POST /app``
(goldgate's http target contract: the request in,
``{"execution": ..., "payload": {"answer": ...}}`` out, or what ``app`` makes of the
request), and behaves as a provider does under load:

- a requests-per-window limit (``rpm`` requests in any ``window`` seconds, 60 by default)
  counted over the requests it accepted; past it, ``429`` with ``Retry-After`` (whole
  seconds) and ``retry-after-ms``;
- injected failures: ``faults={500: 40, 503: 70}`` answers 500 to every 40th request and
  503 to every 70th (deterministic, so runs compare);
- a latency of its own per answer (``latency`` seconds);
- ``x-ratelimit-limit-requests``, ``-remaining-requests`` and ``-reset-requests`` when
  ``rate_headers`` is set;
- an API key it checks when given (``401`` otherwise).

Every request is recorded (arrival time, path, status); ``stats()`` (or ``GET /_stats``)
gives the counts and the most requests accepted in any window.

    python tests/helpers/fake_openai.py --rpm 600 --latency 0.05 --faults 500:40,503:70
        prints {"url": "http://127.0.0.1:PORT"} and serves until stdin closes
"""

from __future__ import annotations

import argparse
import bisect
import collections
import contextlib
import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

try:
    from . import loopback
except ImportError:  # run as a script (benchmarks/live.py): its folder is first on sys.path
    import loopback  # type: ignore[no-redef]


@dataclass
class Behaviour:
    rpm: int | None = None
    window: float = 60.0
    latency: float = 0.0
    faults: dict[int, int] = field(default_factory=dict)
    rate_headers: bool = False
    api_key: str | None = None
    app: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The result document ``POST /app`` answers to a request (default: the echo above)."""
    chat: Callable[[dict[str, Any]], str] | None = None
    """The content a chat completion answers to a request body (default: the echo above):
    how a test plants a judge's verdicts."""


class State:
    """What the server has seen, under one lock."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.lock = threading.Lock()
        self.count = 0
        self.accepted: collections.deque[float] = collections.deque()
        self.log: list[tuple[float, str, int]] = []
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    def admit(self, path: str) -> tuple[int, float | None, int | None, float]:
        """(status, retry_after, remaining, reset) for a request arriving now; ``reset``:
        seconds until the oldest accepted request leaves the window (a slot frees)."""
        behaviour = self.behaviour
        now = time.monotonic()
        with self.lock:
            self.count += 1
            number = self.count
            while self.accepted and self.accepted[0] <= now - behaviour.window:
                self.accepted.popleft()
            status, wait = 200, None
            if behaviour.rpm is not None and len(self.accepted) >= behaviour.rpm:
                status = 429
                wait = self.accepted[0] + behaviour.window - now
            else:
                for code, every in sorted(behaviour.faults.items()):
                    if every and number % every == 0:
                        status = code
                        break
                if status != 429:
                    self.accepted.append(now)
            remaining = None if behaviour.rpm is None else behaviour.rpm - len(self.accepted)
            reset = self.accepted[0] + behaviour.window - now if self.accepted else 0.0
            self.log.append((now, path, status))
        return status, wait, remaining, reset

    def stats(self) -> dict[str, Any]:
        with self.lock:
            log = list(self.log)
        by_status = collections.Counter(str(status) for _, _, status in log)
        accepted = [when for when, _, status in log if status != 429]
        return {
            "requests": len(log),
            "by_status": dict(by_status),
            "max_in_window": max_in_window(accepted, self.behaviour.window),
            "first": log[0][0] if log else None,
            "last": log[-1][0] if log else None,
        }


def max_in_window(times: list[float], window: float) -> int:
    """The most of ``times`` in any half-open window ``[t, t + window)``."""
    ordered = sorted(times)
    most = 0
    for index, start in enumerate(ordered):
        end = bisect.bisect_left(ordered, start + window, lo=index)
        most = max(most, end - index)
    return most


def _answer_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    users = [
        m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "user"
    ]
    return f"echo: {users[-1] if users else ''}"


def _responses_answer(body: dict[str, Any], number: int) -> dict[str, Any]:
    given = body.get("input")
    items = given if isinstance(given, list) else [{"role": "user", "content": given or ""}]
    users = [i.get("content", "") for i in items if isinstance(i, dict) and i.get("role") == "user"]
    answer = f"echo: {users[-1] if users else ''}"
    prompt = sum(_words(str(i.get("content", ""))) for i in items if isinstance(i, dict))
    prompt += _words(body["instructions"]) if isinstance(body.get("instructions"), str) else 0
    return {
        "id": f"resp_{number}",
        "object": "response",
        "status": "completed",
        "model": body.get("model", "fake"),
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer, "annotations": []}],
            }
        ],
        "usage": {
            "input_tokens": prompt,
            "output_tokens": _words(answer),
            "total_tokens": prompt + _words(answer),
        },
    }


def _words(text: str) -> int:
    return max(1, len(str(text).split()))


class Handler(loopback.Handler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients pool their connections
    state: State  # set on the server's own subclass

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, document: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/_stats":
            self._send(200, self.state.stats())
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        state, behaviour = self.state, self.state.behaviour
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": {"message": "not JSON"}})
            return
        with state.lock:
            state.bodies.append(body)
            state.headers.append(dict(self.headers))
        if behaviour.api_key is not None:
            given = self.headers.get("Authorization", "")
            if given != f"Bearer {behaviour.api_key}":
                self._send(401, {"error": {"message": "invalid api key"}})
                return
        status, wait, remaining, reset = state.admit(self.path)
        headers = self._rate_headers(remaining, reset)
        if status == 429:
            seconds = max(wait or 0.0, 0.001)
            headers["Retry-After"] = str(math.ceil(seconds))
            headers["retry-after-ms"] = str(math.ceil(seconds * 1000))
            self._send(429, {"error": {"message": "rate limit reached"}}, headers)
            return
        if behaviour.latency:
            time.sleep(behaviour.latency)
        if status != 200:
            self._send(status, {"error": {"message": f"injected {status}"}}, headers)
        elif self.path == "/app" and behaviour.app is not None:
            self._send(200, behaviour.app(body), headers)
        elif self.path.split("?")[0].endswith("/responses"):
            self._send(200, _responses_answer(body, state.count), headers)
        elif self.path == "/app":
            message = body.get("envelope", {}).get("payload", {}).get("message", "")
            words = _words(message)
            document = {
                "execution": {"status": "completed"},
                "payload": {"answer": f"echo: {message}"},
                "usage": {"input_tokens": words, "output_tokens": 1 + words},
            }
            self._send(200, document, headers)
        else:
            answer = behaviour.chat(body) if behaviour.chat else _answer_text(body)
            prompt = sum(_words(m.get("content", "")) for m in body.get("messages") or [])
            completion = {
                "id": f"chatcmpl-{state.count}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": _words(answer),
                    "total_tokens": prompt + _words(answer),
                },
            }
            self._send(200, completion, headers)

    def _rate_headers(self, remaining: int | None, reset: float) -> dict[str, str]:
        behaviour = self.state.behaviour
        if not behaviour.rate_headers or behaviour.rpm is None or remaining is None:
            return {}
        # The limit per minute, as providers state it, whatever the window is scaled to.
        per_minute = round(behaviour.rpm * 60 / behaviour.window)
        return {
            "x-ratelimit-limit-requests": str(per_minute),
            "x-ratelimit-remaining-requests": str(max(0, remaining)),
            "x-ratelimit-reset-requests": f"{max(reset, 0.0) * 1000:.0f}ms",
        }


class _Server(loopback.Server):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hung up (cancelled, interrupted) is no error of the server's.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeOpenAI:
    """The server, started on loopback in a thread of this process."""

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.state = State(behaviour or Behaviour())
        handler = type("BoundHandler", (Handler,), {"state": self.state})
        self.server = _Server(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stats(self) -> dict[str, Any]:
        return self.state.stats()

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def serving(**behaviour: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(Behaviour(**behaviour)) as fake:
        yield fake


def _faults(text: str) -> dict[int, int]:
    pairs = (item.split(":") for item in text.split(",") if item)
    return {int(code): int(every) for code, every in pairs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpm", type=int, default=None)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--faults", type=_faults, default={})
    parser.add_argument("--rate-headers", action="store_true")
    parser.add_argument("--api-key", default=None)
    options = parser.parse_args()
    behaviour = Behaviour(
        options.rpm, options.window, options.latency, options.faults, options.rate_headers,
        options.api_key,
    )  # fmt: skip
    with FakeOpenAI(behaviour) as fake:
        print(json.dumps({"url": fake.url}), flush=True)
        sys.stdin.read()  # serves until whoever started it closes stdin (or ends it)


if __name__ == "__main__":
    main()
