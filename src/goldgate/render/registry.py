"""The renderers by name, and the one contract every renderer keeps.

A renderer is a pure function ``(context: RenderContext) -> str`` (the ``Renderer``
protocol): the context holds the report, its comparison view, and everything a caller may
choose (how much detail, which budget, the links, the gate's decision, a terminal's width).
Every caller, the ``goldgate report`` commands, the action's publishing and a fork's
comment alike, builds a ``RenderContext`` and renders through ``app.render.render``.

Each entry of ``RENDERERS`` names its function by import path (``module:function``):
``app.render`` imports it only when that renderer is used (render/ itself imports nothing at
run time, and this module imports no renderer), so that ``goldgate --help`` and a run never
load jinja2, junit-xml or rich. A new renderer is its module plus one line in ``RENDERERS``
(see docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, get_args

if TYPE_CHECKING:
    from goldgate.render.view import Collected, ComparisonView, ReportView
    from goldgate.report.models import Report

Details = Literal["safe", "values"]
"""``safe``: names, ids, statuses, reasons and numbers; ``values``: also the expected and
actual values of failing checks (never a held-out case's)."""
DETAILS: tuple[Details, ...] = get_args(Details)

Budget = Literal["comment", "summary"]
"""Which GitHub limit the Markdown fits: a pull-request comment's or a job summary's."""

ANNOTATION_LIMIT = 10
"""Annotations of one kind GitHub shows per step: the default ``maximum``."""
TERMINAL_WIDTH = 80
"""The terminal's width when it does not say: the default ``width``."""


@dataclass(frozen=True)
class Links:
    """Where a reader goes from the rendering."""

    link_base: str | None = None
    """The repository's blob URL at a commit: each case links to its gold line."""
    run_url: str | None = None
    """The workflow run's page."""
    full_report: str | None = None
    """Where the whole report is: a path (shown as text) or a URL (linked)."""


@dataclass(frozen=True)
class RenderContext:
    """Everything a renderer is given; each renderer reads the fields it shows."""

    report: Report
    comparison: ComparisonView | None = None
    """The comparison whose candidate ``report`` is (``render.compared.comparison_view``)."""
    details: Details = "safe"
    budget: Budget = "comment"
    """Markdown: the comment's limit (65,536 UTF-16 units) or the summary's (1 MiB)."""
    links: Links = field(default_factory=Links)
    limit: int | None = None
    """Markdown: a smaller limit than the budget's, in its unit (room kept for a footer)."""
    marker: str | None = None
    """Markdown: starts the body with a hidden ``<!-- goldgate:MARKER -->``."""
    rule: str | None = None
    """Markdown: the sentence saying which rule decided (default: what the exit code means)."""
    exit_code: int | None = None
    """Markdown: the gate's code (the action's under ``fail_on``; default: the report's)."""
    notes: Sequence[str] = ()
    """Markdown: sentences shown under the verdict."""
    sources: Mapping[str, str | None] | None = None
    """Each gold file as the report names it → its path in the repository (None: outside)."""
    maximum: int = ANNOTATION_LIMIT
    """Annotations: error annotations at most; a notice counts the rest."""
    rich: bool = False
    """Terminal: tables for a terminal, else plain text."""
    color: bool = True
    """Terminal (with ``rich``): in colour."""
    width: int = TERMINAL_WIDTH
    """Terminal: its width in columns."""
    baseline: Report | None = None
    """HTML: the comparison's baseline report where it is at hand (the baseline's figures)."""
    collected: Collected | None = None
    """The report's cases as one pass over them kept them (``render.fanout``) where the
    report was streamed (its suites hold no cases): what the listing renderers read."""

    def view(self) -> ReportView:
        """The view of the report every renderer reads (``render.view``): its counts and
        problems whether the report is held whole or was streamed (``collected``)."""
        from goldgate.render.view import build_view

        return build_view(self.report, self.comparison, self.collected)


class Renderer(Protocol):
    """A renderer: the text of ``context``; pure (no I/O), ``ValueError`` for a malformed
    link or marker."""

    def __call__(self, context: RenderContext, /) -> str: ...


@dataclass(frozen=True)
class RendererEntry:
    """One renderer in the registry: where its function is, and what its text is."""

    function: str
    """``module:function``, a ``Renderer``, imported on first use."""
    commands: bool = False
    """Its text is goldgate's own workflow commands, printed as they are."""
    shows_baseline: bool = False
    """It shows the baseline report's own figures (``RenderContext.baseline``): only then is
    that report read, a second whole report the others never need."""


RENDERERS: dict[str, RendererEntry] = {
    "junit": RendererEntry("goldgate.render.junit:render_junit"),
    "markdown": RendererEntry("goldgate.render.markdown:render_markdown"),
    "annotations": RendererEntry("goldgate.render.annotations:render_annotations", commands=True),
    "html": RendererEntry("goldgate.render.html:render_html", shows_baseline=True),
    "show": RendererEntry("goldgate.render.terminal:render_terminal"),
}
"""Name → renderer; ``show`` is the terminal view (``goldgate report show``), ``html`` the
self-contained page (``goldgate report html``)."""


def renderer(name: str) -> RendererEntry:
    """The renderer called ``name``; ``ValueError`` naming the known ones otherwise."""
    found = RENDERERS.get(name)
    if found is None:
        raise ValueError(f"no renderer {name!r}; known: {', '.join(sorted(RENDERERS))}")
    return found
