"""render.registry: every renderer keeps the one contract (``RenderContext`` in, text out), a
renderer added by one registry line renders a real report file through
``app.render.render_report`` (what each ``goldgate report`` command calls), and the registry
imports no renderer before it is used."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from goldgate.app.render import RenderRequest, render, render_function, render_report
from goldgate.render import registry
from goldgate.render.registry import RENDERERS, Links, RenderContext, RendererEntry
from goldgate.render.view import build_view
from goldgate.report.io import report_bytes
from goldgate.report.models import Report

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")


def render_counts(context: RenderContext) -> str:
    """The toy renderer: the run's attempts per problem, and where the report is."""
    counts = context.view().counts
    listed = ", ".join(f"{name} {count}" for name, count in counts.items() if count)
    return f"{listed} ({context.links.full_report})\n"


@pytest.fixture
def counts_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy, registered as a new renderer is: one line (restored after the test)."""
    monkeypatch.setitem(RENDERERS, "counts", RendererEntry(f"{__name__}:render_counts"))


@pytest.mark.usefixtures("counts_renderer")
def test_a_renderer_added_to_the_registry_renders_a_report_file(
    corpus: dict[str, Report], tmp_path: Path
) -> None:
    path = tmp_path / "repeats.json"
    path.write_bytes(report_bytes(corpus["repeats"]))
    output = tmp_path / "counts.txt"
    expected = build_view(corpus["repeats"]).counts

    render_report(RenderRequest("counts", path, output=output, details="values"))

    listed, _, where = output.read_text("utf-8").rstrip("\n").partition(" (")
    assert dict(item.split(" ") for item in listed.split(", ")) == {
        name: str(count) for name, count in expected.items() if count
    }
    assert where == f"{path})"
    assert output.stat().st_mode & 0o777 == 0o600  # values: the owner's alone
    assert not registry.renderer("counts").commands


@pytest.mark.usefixtures("counts_renderer")
def test_a_renderer_added_to_the_registry_renders_a_context(corpus: dict[str, Report]) -> None:
    context = RenderContext(corpus["example"], links=Links(full_report="r.json"))
    assert render("counts", context) == render_counts(context)
    assert render("counts", context).endswith(" (r.json)\n")


def test_an_unknown_renderer_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no renderer 'pdf'; known: annotations, html, junit"):
        registry.renderer("pdf")


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_each_renderer_takes_one_render_context(name: str) -> None:
    parameters = list(inspect.signature(render_function(name)).parameters.values())
    assert [(p.name, p.annotation) for p in parameters] == [("context", "RenderContext")]


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_each_renderer_renders_a_bare_context(name: str, corpus: dict[str, Report]) -> None:
    assert render(name, RenderContext(corpus["repeats"])).strip()


def test_the_registry_imports_no_renderer_until_one_is_used() -> None:
    heavy = ("jinja2", "junit_xml", "rich", "goldgate.render.markdown", "goldgate.render.view")
    code = (
        "import sys, goldgate.render.registry, goldgate.app.render\n"
        f"print([name for name in {heavy!r} if name in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
