"""render.registry: each renderer's entry agrees with its function, a renderer added by one
registry line renders a real report through ``app.render.rendered``, and the registry
imports no renderer before it is used."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from goldgate.app.render import render, render_function, rendered
from goldgate.render import registry
from goldgate.render.registry import RENDERERS, Renderer
from goldgate.render.view import ComparisonView, build_view
from goldgate.report.io import report_bytes
from goldgate.report.models import Report


def render_counts(
    report: Report,
    comparison: ComparisonView | None = None,
    *,
    full_report: str | None = None,
    separator: str = ", ",
) -> str:
    """The toy renderer: the run's attempts per problem, and where the report is."""
    counts = build_view(report, comparison).counts
    listed = separator.join(f"{name} {count}" for name, count in counts.items() if count)
    return f"{listed} ({full_report})\n"


@pytest.fixture
def counts_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy, registered as a new renderer would be: one line (restored after the test)."""
    entry = Renderer(f"{__name__}:render_counts", frozenset({"separator"}), full_report=True)
    monkeypatch.setitem(RENDERERS, "counts", entry)


@pytest.mark.usefixtures("counts_renderer")
def test_a_renderer_added_to_the_registry_renders_a_report_file(
    corpus: dict[str, Report], tmp_path: Path
) -> None:
    path = tmp_path / "repeats.json"
    path.write_bytes(report_bytes(corpus["repeats"]))
    expected = build_view(corpus["repeats"]).counts

    text = rendered("counts", path, None, separator="; ")

    listed, _, where = text.rstrip("\n").partition(" (")
    assert dict(item.split(" ") for item in listed.split("; ")) == {
        name: str(count) for name, count in expected.items() if count
    }
    assert where == f"{path})"
    assert not registry.renderer("counts").commands


@pytest.mark.usefixtures("counts_renderer")
def test_an_option_the_renderer_does_not_take_is_refused(corpus: dict[str, Report]) -> None:
    with pytest.raises(TypeError, match="the counts renderer takes no option width"):
        render("counts", corpus["example"], width=80)


def test_an_unknown_renderer_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no renderer 'pdf'; known: annotations, html, junit"):
        registry.renderer("pdf")


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_each_entry_says_what_its_function_takes(name: str) -> None:
    entry = RENDERERS[name]
    parameters = inspect.signature(render_function(name)).parameters
    keywords = {p for p, v in parameters.items() if v.kind is inspect.Parameter.KEYWORD_ONLY}

    assert list(parameters)[:2] == ["report", "comparison"]
    assert entry.options == keywords - {"full_report", "baseline"}
    assert entry.full_report == ("full_report" in keywords)
    assert entry.baseline == ("baseline" in keywords)


def test_the_registry_imports_no_renderer_until_one_is_used() -> None:
    heavy = ("jinja2", "junit_xml", "rich", "goldgate.render.markdown", "goldgate.render.view")
    code = (
        "import sys, goldgate.render.registry, goldgate.app.render\n"
        f"print([name for name in {heavy!r} if name in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
