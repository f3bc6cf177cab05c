"""Golden files: every renderer over every report of the corpus (``corpus.py``).

After a deliberate change to a renderer, regenerate them with one command and review the
diff:

    GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/render

Timings, versions and latencies are normalized when the corpus is built, so the files only
change when the rendering does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from goldgate.render.registry import Links, RenderContext
from goldgate.report.models import Report

from .corpus import REPORTS
from .renderings import Rendering, page, without_golden_files

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")

LINK_BASE = "https://github.com/owner/repo/blob/0123abc"
FULL = Links(full_report="out/report.json")


@dataclass(frozen=True)
class Golden:
    """A golden file of each corpus report: ``rendering`` over ``context`` of the report."""

    rendering: Rendering
    context: Callable[[Report], RenderContext] = field(default=RenderContext)


RENDERINGS: dict[str, Golden] = {
    "junit.xml": Golden(Rendering("junit")),
    "comment.md": Golden(Rendering("markdown"), lambda r: RenderContext(r, links=FULL)),
    "summary.md": Golden(
        Rendering("markdown"), lambda r: RenderContext(r, budget="summary", links=FULL)
    ),
    "values.md": Golden(
        Rendering("markdown"),
        lambda r: RenderContext(
            r, details="values", links=Links(link_base=LINK_BASE, full_report=FULL.full_report)
        ),
    ),
    "annotations.txt": Golden(Rendering("annotations"), lambda r: RenderContext(r, links=FULL)),
    "terminal.txt": Golden(Rendering("show")),
    "terminal-rich.txt": Golden(
        Rendering("show"), lambda r: RenderContext(r, rich=True, color=False, width=120)
    ),
    "page.outline": Golden(Rendering("html", page), lambda r: RenderContext(r, links=FULL)),
    "values-page.outline": Golden(
        Rendering("html", page), lambda r: RenderContext(r, details="values", links=FULL)
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
    chosen = RENDERINGS[rendering]
    golden(f"{name}/{rendering}", chosen.rendering.text(chosen.context(corpus[name])))


def test_every_registered_renderer_has_golden_files() -> None:
    assert without_golden_files(golden.rendering for golden in RENDERINGS.values()) == []


def test_a_renderer_added_without_golden_files_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from goldgate.render.registry import RENDERERS, RendererEntry

    monkeypatch.setitem(RENDERERS, "pdf", RendererEntry("somewhere:render_pdf"))
    assert without_golden_files(golden.rendering for golden in RENDERINGS.values()) == ["pdf"]
