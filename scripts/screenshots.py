"""Render and photograph the documentation's screenshots (docs/images/).

    .venv/bin/python scripts/screenshots.py

- ``comment.png``: the sticky comment of the bundled example on a failing pull request (one
  planted regression), as GitHub renders it (cmark-gfm, a github.com-like stylesheet, the
  800-pixel comment column; its emoji need a colour emoji font: Debian's
  fonts-noto-color-emoji);
- ``report.png``: the first screen of the HTML report of the same run.

Beside each PNG it writes what it was made from (``comment.source.md``, the comment's
Markdown; ``report.source.sha256``, the page's digest): ``tests/test_screenshots.py`` makes
the sources again and fails when they differ, so a change to the renderers that changes what
a pull request shows asks for new screenshots. The sources are made by
``tests/helpers/screenshots.py``; the browser is the tests' headless Chromium
(``tests/helpers/browser.py``), so this needs ``chromium``.
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "src")]

from helpers.browser import Browser, browser, open_page  # noqa: E402
from helpers.screenshots import COMMENT_WIDTH, IMAGES, comment_page, sources  # noqa: E402

MAX_HEIGHT = 1400
"""The comment's picture stops here: its first screens, the verdict and the regressions."""


def _photograph(chrome: Browser, page_file: Path, width: int, height: int) -> bytes:
    page = open_page(chrome, page_file, width=width, height=900)
    full = page.evaluate("document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": width, "height": min(int(full), height), "scale": 1}
    answer = page.call(
        "Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True}
    )
    return base64.b64decode(answer["data"])


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="goldgate-screenshots-") as scratch:
        work = Path(scratch)
        made = sources(work)
        (work / "comment.html").write_text(comment_page(made.comment), "utf-8")
        (work / "report.html").write_text(made.report, "utf-8")
        IMAGES.mkdir(parents=True, exist_ok=True)
        with browser() as chrome:
            comment = _photograph(chrome, work / "comment.html", COMMENT_WIDTH + 32, MAX_HEIGHT)
            report = _photograph(chrome, work / "report.html", 1280, 900)
        (IMAGES / "comment.png").write_bytes(comment)
        (IMAGES / "report.png").write_bytes(report)
        for name, text in made.digests().items():
            (IMAGES / name).write_text(text, "utf-8")
    print(f"wrote {IMAGES}/comment.png, report.png and their sources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
