"""The HTML report: one self-contained page (``goldgate report html``, and the action's
``html`` output) that a reviewer opens offline.

Its parts, in order: the verdict and what the exit code means; with a comparison, the
regressed, mixed, improved, flaky, gold changed and input changed cases with what flipped,
and every figure before and after; per suite its verdict, counts and thresholds, a
confusion heatmap per classification metric (rows gold, columns predicted, the unavailable
kinds as their own columns), precision, recall and F1 bars per label with the micro and
macro averages, per-label counts of a multilabel metric, a latency histogram; the
adjudication queue; and a case table that filters (suite, outcome, split, change, text) and
sorts. Figures are inline SVG (``htmlfigures`` says why); the table is built by the page's
own script from JSON (``htmlcases``).

Self-contained and offline: CSS and the script are inline, and the page's
Content-Security-Policy allows nothing else (``default-src 'none'``, the style and the
script by their hashes): the page can make no request, and markup that data could ever
smuggle in would not run. Safe by default, as the Markdown: every ``{{ expression }}`` goes
through ``text.one_line`` (one line, secrets redacted, bounded) and is HTML-escaped by the
environment; the table's data is JSON with ``<``, ``>`` and ``&`` escaped, so ``</script>``
in a case id stays text. ``details="values"`` adds expected and actual values of failing
checks, strings diffed, and the adjudicator's notes, never for held-out cases.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from goldgate.render import htmlsections, text
from goldgate.render._jinja import template_environment
from goldgate.render.fanout import baseline_latencies, feed, whole
from goldgate.render.htmlcases import CaseTableSink
from goldgate.render.judges import judge_sentences
from goldgate.render.registry import RenderContext
from goldgate.render.view import ReportView, build_view, exit_explanation

_CASE_DATA = "\x00goldgate case data\x00"
"""Where the case table's JSON goes in the page: text no rendered value can hold (``text``
drops control characters), replaced as the page is written."""


def _finalize(value: Any) -> Any:
    # Every {{ expression }} passes through here before it is escaped: data is made one
    # safe line (secrets redacted) unless it is markup built here.
    if isinstance(value, Markup):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return _number(value)
    return text.one_line(value)


def _number(value: float) -> str:
    """A count with thousands separators; a coordinate or measure with at most 2 decimals."""
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.2f}".rstrip("0").rstrip(".") or "0"


def _coordinate(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _shown(value: float | None, kind: str = "ratio") -> str:
    """A figure as the page writes it: a ratio to 4 decimals, a count, milliseconds."""
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{int(value):,}"
    if kind == "ms":
        return f"{value:,.1f} ms"
    return text.ratio(value)


def _signed(value: float | None, kind: str = "ratio") -> str:
    if value is None:
        return ""
    if value == 0:
        return "±0"
    return ("+" if value > 0 else "−") + _shown(abs(value), kind)


@cache
def environment() -> Environment:
    environment = template_environment(finalize=_finalize, autoescape=True, kind="html")
    environment.filters.update(
        at=_coordinate,
        shown=_shown,
        signed=_signed,
        percent=text.percent,
        ratio=text.ratio,
        bound=text.bound,
    )
    return environment


def _inline(name: str) -> tuple[Markup, str]:
    """A static template (the style or the script) and its CSP source, by its hash."""
    body = environment().get_template(name).render()
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
    return Markup(body), f"'sha256-{digest}'"


def render_html(context: RenderContext) -> str:
    """The HTML page of ``context.report`` (and of ``context.comparison``, whose candidate
    it is); ``links.full_report`` says where the report is (shown as text).
    ``context.baseline``, the comparison's baseline report where it is at hand, adds the
    baseline's side of the figures a comparison does not hold: its heatmaps, per-label
    counts and latencies."""
    view = build_view(context.report, context.comparison)
    rows: list[str] = []
    details: list[str] = []
    table = CaseTableSink(view.comparison, context.details == "values", rows.append, details.append)
    feed(whole(view.suites), (table,))
    baseline = context.baseline
    before = None if baseline is None else baseline_latencies(baseline.suites)
    page: list[str] = []
    write_page(
        PageParts(context, view, table, before),
        page.append,
        lambda: page.extend(rows),
        lambda: page.extend(details),
    )
    return "".join(page)


@dataclass(frozen=True)
class PageParts:
    """What the page is written from: the context, its view, the case table a pass over the
    cases made, and the baseline's latencies per suite where the baseline is at hand."""

    context: RenderContext
    view: ReportView
    table: CaseTableSink
    before: Mapping[str, Sequence[float]] | None


def write_page(
    parts: PageParts,
    write: Callable[[str], object],
    rows: Callable[[], None],
    details: Callable[[], None],
) -> None:
    """The page, in order, to ``write``; ``rows()`` and ``details()`` copy the case table's
    spooled rows and details (``CaseTableSink.assemble``)."""
    context, view, table = parts.context, parts.view, parts.table
    baseline = context.baseline
    values = context.details == "values"
    style, style_source = _inline("page.css.j2")
    script, script_source = _inline("page.js.j2")
    policy = (
        f"default-src 'none'; style-src {style_source}; script-src {script_source}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    report = view.report
    verdict = report.verdict
    queue, queued = htmlsections.queue(view, values, table.held)
    fields = {
        "view": view,
        "report": report,
        "verdict": verdict,
        "explanation": exit_explanation(verdict.exit_code, verdict.evaluated),
        "attempts": sum(suite.attempt_count for suite in report.suites),
        "values": values,
        "changes": htmlsections.change_lists(view),
        "overall": htmlsections.overall_pairs(view),
        "panels": list(htmlsections.suite_panels(view, baseline, (table.latencies, parts.before))),
        "baseline_shown": baseline is not None and view.comparison is not None,
        "queue": queue,
        "queued": queued,
        "judged": judge_sentences(report),
        "cases": {**table.names(), "rows": range(table.row_count)},
        "case_data": Markup(_CASE_DATA),
        "outcomes_present": table.present,
        "full_report": context.links.full_report,
        "policy": policy,
        "style": style,
        "script": script,
    }
    page = environment().get_template("page.html.j2").render(fields)
    head, tail = page.split(_CASE_DATA)
    write(head)
    table.assemble(write, rows, details)
    write(tail)
