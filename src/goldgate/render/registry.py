"""The renderers by name: what ``goldgate report NAME`` and ``app.render.rendered`` can produce.

Each entry names its function by import path (``module:function``): ``app.render`` imports
it only when that renderer is used (render/ itself imports nothing at run time), so that
``goldgate --help`` and a run never load jinja2, junit-xml or rich. A renderer is a pure
function ``(report, comparison_view | None, **options) -> str``; its entry says which
keyword options it accepts, whether it is given ``full_report`` (where the whole report is,
shown as text) or ``baseline`` (a comparison's baseline report) and whether its text is
GitHub workflow commands, which the CLI prints as they are. A new renderer is its module
here plus one line in ``RENDERERS`` (see docs/extending.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Renderer:
    """One renderer: its function's import path and what the function is called with."""

    function: str
    """``module:function``, imported on first use."""
    options: frozenset[str] = frozenset()
    """The keyword options a caller may pass (``full_report`` is never one of them)."""
    full_report: bool = False
    """Whether the function takes ``full_report=``: the report's path as the reader sees it."""
    commands: bool = False
    """Whether its text is goldgate's own workflow commands, printed as they are."""
    baseline: bool = False
    """Whether the function takes ``baseline=``: with a comparison, its baseline report
    where it is still on disk as the comparison recorded it (else None)."""


RENDERERS: dict[str, Renderer] = {
    "junit": Renderer("goldgate.render.junit:render_junit"),
    "markdown": Renderer(
        "goldgate.render.markdown:render_markdown",
        frozenset(
            {
                "budget",
                "details",
                "link_base",
                "marker",
                "limit",
                "rule",
                "exit_code",
                "run_url",
                "notes",
                "sources",
            }
        ),
        full_report=True,
    ),
    "annotations": Renderer(
        "goldgate.render.annotations:render_annotations",
        frozenset({"maximum", "sources"}),
        full_report=True,
        commands=True,
    ),
    "html": Renderer(
        "goldgate.render.html:render_html",
        frozenset({"details"}),
        full_report=True,
        baseline=True,
    ),
    "show": Renderer(
        "goldgate.render.terminal:render_terminal",
        frozenset({"rich", "color", "width", "details"}),
    ),
}
"""Name → renderer; ``show`` is the terminal view (``goldgate report show``), ``html`` the
self-contained page (``goldgate report html``)."""


def renderer(name: str) -> Renderer:
    """The renderer called ``name``; ``ValueError`` naming the known ones otherwise."""
    found = RENDERERS.get(name)
    if found is None:
        raise ValueError(f"no renderer {name!r}; known: {', '.join(sorted(RENDERERS))}")
    return found
