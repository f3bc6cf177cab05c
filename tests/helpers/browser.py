"""A real browser for the tests: Debian's headless Chromium, driven over the DevTools
protocol through ``--remote-debugging-pipe`` (file descriptors 3 and 4, one JSON message per
NUL-terminated chunk), by the small client here.

Why a client of our own: the pipe needs no port, no websocket and no dependency (playwright
would want to download browsers of its own; a websocket client would be a new dependency for
a hundred lines), and it dies with the browser: nothing listens on the machine meanwhile.

A page opens with the network off (``Network.emulateNetworkConditions`` offline) and every
request but the page's own file intercepted (``Fetch``), recorded and failed: a test asserts
that none was made. Console messages, uncaught exceptions and log entries of level error
(a Content-Security-Policy violation is one) are kept for a test to assert there are none.
Waiting is on the pipe (``select`` with a deadline), never a sleep.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",  # as root in a container, Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT = 60.0
"""Seconds an answer of the browser may take (a shared, busy machine)."""


def chromium() -> str | None:
    """The Chromium to run: ``GOLDGATE_CHROMIUM``, else ``chromium`` on PATH (Debian's)."""
    return os.environ.get("GOLDGATE_CHROMIUM") or shutil.which("chromium")


MISSING = (
    "no chromium here: .ci/run installs Debian's chromium (apt-get, as root); elsewhere "
    "install it or set GOLDGATE_CHROMIUM to a Chromium binary"
)


class DevToolsError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


class Browser:
    """One headless Chromium with a fresh profile; ``call`` sends a command and returns its
    result, keeping the events that arrive meanwhile in ``events``."""

    def __init__(self, executable: str, profile: Path) -> None:
        to_browser, self._writer = os.pipe()
        self._reader, from_browser = os.pipe()

        def descriptors() -> None:  # in the child: its ends as fd 3 (commands) and 4 (answers)
            commands, answers = os.dup(to_browser), os.dup(from_browser)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=descriptors,  # noqa: PLW1509 - a test helper, no threads at that point
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.allowed: set[str] = set()
        """URLs whose requests go through (the pages' own files); every other one fails."""

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> int:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._writer, json.dumps(message).encode("utf-8") + b"\0")
        return self._next

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        wanted = self.send(method, params, session)
        while True:
            message = self.receive()
            if message.get("id") == wanted:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._keep(message)

    def _keep(self, event: dict[str, Any]) -> None:
        """Keep an event; a paused request is answered at once (the page waits for it)."""
        self.events.append(event)
        if event.get("method") == "Fetch.requestPaused":
            params = event["params"]
            if params["request"]["url"] in self.allowed:
                self.send(
                    "Fetch.continueRequest",
                    {"requestId": params["requestId"]},
                    event.get("sessionId"),
                )
            else:
                self.send(
                    "Fetch.failRequest",
                    {"requestId": params["requestId"], "errorReason": "BlockedByClient"},
                    event.get("sessionId"),
                )

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._reader], [], [], timeout)
            if not ready:
                raise DevToolsError(f"no message from the browser in {timeout:.0f} s")
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                raise DevToolsError("the browser closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def wait_for(self, method: str, session: str | None = None) -> dict[str, Any]:
        """The first event ``method`` (of ``session``), kept or yet to come."""
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        while True:
            event = self.receive()
            self._keep(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    def close(self) -> None:
        with contextlib.suppress(OSError):  # it is gone already
            self.send("Browser.close")
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._writer)
        os.close(self._reader)


class Page:
    """A tab of ``browser`` showing one local file, the network off (see the module)."""

    def __init__(self, browser: Browser, session: str, url: str) -> None:
        self.browser = browser
        self.session = session
        self.url = url

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited, returned by value)."""
        answer = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in answer:
            raise DevToolsError(f"{expression!r} raised: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, scale: float = 0.25) -> bytes:
        """The top of the page as a PNG, at ``scale`` (small: it is only ever told from a
        blank one)."""
        size = self.evaluate("[innerWidth, innerHeight]")
        clip = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": scale}
        answer = self.call("Page.captureScreenshot", {"format": "png", "clip": clip})
        return base64.b64decode(answer["data"])

    def _mine(self, method: str) -> Iterator[dict[str, Any]]:
        for event in self.browser.events:
            if event.get("method") == method and event.get("sessionId") == self.session:
                yield event["params"]

    @property
    def requests(self) -> list[str]:
        """Every request the page made or tried, but the load of its own file."""
        urls = [event["request"]["url"] for event in self._mine("Network.requestWillBeSent")]
        urls += [event["request"]["url"] for event in self._mine("Fetch.requestPaused")]
        return sorted({url for url in urls if url != self.url})

    @property
    def errors(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and log entries of level error."""
        found = [
            " ".join(str(arg.get("value", arg.get("description", ""))) for arg in event["args"])
            for event in self._mine("Runtime.consoleAPICalled")
            if event["type"] in ("error", "assert", "warning")
        ]
        found += [str(event["exceptionDetails"]) for event in self._mine("Runtime.exceptionThrown")]
        found += [
            f"{event['entry']['source']}: {event['entry']['text']}"
            for event in self._mine("Log.entryAdded")
            if event["entry"]["level"] in ("error", "warning")
        ]
        return found


@contextmanager
def browser() -> Iterator[Browser]:
    """A fresh headless Chromium (``chromium()`` must not be None), closed afterwards."""
    executable = chromium()
    assert executable is not None, MISSING
    with tempfile.TemporaryDirectory(prefix="goldgate-chromium-") as profile:
        started = Browser(executable, Path(profile))
        try:
            yield started
        finally:
            started.close()


def open_page(browser: Browser, path: Path, width: int = 1280, height: int = 900) -> Page:
    """A new tab showing the file at ``path``, loaded with the network off (see the module)."""
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    url = path.resolve().as_uri()
    page = Page(browser, session, url)
    for domain in ("Page", "Runtime", "Log", "Network"):
        page.call(f"{domain}.enable")
    page.call(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    page.call("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
    page.call("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False,
    })  # fmt: skip
    browser.allowed.add(url)
    page.call("Page.navigate", {"url": url})
    browser.wait_for("Page.loadEventFired", session)
    return page


# --- PNG, to tell a blank screenshot --------------------------------------------------------------


def png_colours(png: bytes, limit: int = 64) -> int:
    """How many distinct colours an 8-bit RGB or RGBA PNG holds (counting stops at
    ``limit``): a blank page has one."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, chunks, header = 8, [], b""
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        body = png[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8, f"a PNG of depth {depth}"
    assert colour in (2, 6), f"a PNG of colour type {colour}"
    pixel = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * pixel
    previous = bytearray(stride)
    seen: set[bytes] = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - pixel] if i >= pixel else 0
            up = previous[i]
            corner = previous[i - pixel] if i >= pixel else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                near = min(
                    (abs(estimate - left), 0, left),
                    (abs(estimate - up), 1, up),
                    (abs(estimate - corner), 2, corner),
                )[2]
                line[i] = (line[i] + near) & 0xFF
        if row % 8 == 0:  # a sample of rows is enough to tell colours apart
            for i in range(0, stride, pixel * 4):
                seen.add(bytes(line[i : i + 3]))
                if len(seen) >= limit:
                    return len(seen)
        previous = line
    return len(seen)
