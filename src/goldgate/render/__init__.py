"""Rendering: pure functions from a report (and a comparison) to text for CI.

- ``junit``: JUnit XML for the checks tab;
- ``markdown``: a pull-request comment or a job summary, within GitHub's size limits;
- ``annotations``: GitHub workflow commands pointing at each failing case's gold line;
- ``checkrun``: a check run's every annotation (by severity, bounded), title and summary;
- ``workflow_commands``: the one writer of workflow commands (escaping, one command a line, masks);
- ``terminal``: ``goldgate report show``, for people at a terminal or reading a CI log;
- ``html``: ``goldgate report html``, one self-contained page with figures (``htmlfigures``:
  inline SVG), a filterable case table (``htmlcases``) and the sections beside it
  (``htmlsections``), for a reviewer who would rather look than read.

``registry`` holds the one contract, a ``Renderer`` is a function of a frozen
``RenderContext`` (the report, its comparison view, the details, the budget, the links and
the rest a renderer reads), and names the renderers (``junit``, ``markdown``,
``annotations``, ``show``, ``html``) by import path: every caller (``goldgate report NAME``,
the action's publishing, a fork's comment) renders through it, and a module is imported only
when its renderer is used. A new renderer is its module plus one line there
(docs/extending.md).

Each renderer reads a ``view.ReportView`` built once from the report, so a comparison can
be added to the view without restructuring the renderers. A report read as a stream of
cases is walked once (``fanout``: one ``CaseSink`` per renderer, fed each case in turn):
the listing renderers then read what the pass kept (``RenderContext.collected``), JUnit
(``junit.JUnitSink``) and the HTML page (``htmlcases.CaseTableSink``) are written as they
go through a writer the caller gives, the same bytes as their ``render_*`` functions.
Nothing here reads or writes a file or talks to the network: ``goldgate.app`` does the I/O
and ``goldgate.github`` posts.
"""

__all__ = [
    "annotations",
    "checkrun",
    "compared",
    "costrow",
    "deltas",
    "escape",
    "fanout",
    "html",
    "htmlcases",
    "htmlfigures",
    "htmlsections",
    "junit",
    "markdown",
    "markdown_sections",
    "registry",
    "rows",
    "terminal",
    "terminal_values",
    "text",
    "view",
    "words",
    "workflow_commands",
]
