"""Golden files: every renderer over every report of the corpus (``corpus.py``).

After a deliberate change to a renderer, regenerate them with one command and review the
diff:

    GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/render

Timings, versions and latencies are normalized when the corpus is built, so the files only
change when the rendering does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from goldgate.render.annotations import render_annotations
from goldgate.render.html import render_html
from goldgate.render.junit import render_junit
from goldgate.render.markdown import render_markdown
from goldgate.render.terminal import render_terminal
from goldgate.report.models import Report

from .corpus import REPORTS
from .htmloutline import outline

LINK_BASE = "https://github.com/owner/repo/blob/0123abc"
FULL_REPORT = "out/report.json"

RENDERINGS: dict[str, Callable[[Report], str]] = {
    "junit.xml": render_junit,
    "comment.md": lambda r: render_markdown(r, full_report=FULL_REPORT),
    "summary.md": lambda r: render_markdown(r, budget="summary", full_report=FULL_REPORT),
    "values.md": lambda r: render_markdown(
        r, details="values", link_base=LINK_BASE, full_report=FULL_REPORT
    ),
    "annotations.txt": lambda r: render_annotations(r, full_report=FULL_REPORT),
    "terminal.txt": render_terminal,
    "terminal-rich.txt": lambda r: render_terminal(r, rich=True, color=False, width=120),
    # The HTML page's structure (htmloutline), not its bytes: the figures' geometry, the
    # style and the script may change without a golden file changing.
    "page.outline": lambda r: outline(render_html(r, full_report=FULL_REPORT)),
    "values-page.outline": lambda r: outline(
        render_html(r, details="values", full_report=FULL_REPORT)
    ),
}
LARGE = {
    "junit.xml",
    "summary.md",
    "terminal.txt",
    "terminal-rich.txt",
    "page.outline",
    "values-page.outline",
}
"""Renderings of the 5,000-case report too large to keep as golden files (they are still
validated by the other tests)."""


CASES = [
    (name, rendering)
    for name in sorted(REPORTS)
    for rendering in sorted(RENDERINGS)
    if not (name == "many" and rendering in LARGE)
]


@pytest.mark.parametrize(("name", "rendering"), CASES)
def test_golden(
    corpus: dict[str, Report], golden: Callable[[str, str], None], name: str, rendering: str
) -> None:
    golden(f"{name}/{rendering}", RENDERINGS[rendering](corpus[name]))
