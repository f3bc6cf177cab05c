"""The Markdown report: one renderer, two budgets (a pull-request comment, a job summary).

The first screen says what a reviewer needs first: line one is the verdict in words and what
changed in counts ("❌ goldgate: failed — 3 regressed, 2 improved, 1 new runtime failure
against main@abc1234", or the attempts' counts and "no baseline"); below it, why (the rule
that decided, in plain words: the action's ``fail_on``, else what the exit code means), the
notes of the run (a baseline not found...), links to the workflow run and the full report,
and, when something was left out to fit, what and where the rest is.

Then the sections, in the order they are kept (``markdown_sections``): regressions, runtime
failures and check errors, the suites (a six-column table, with a comparison its figures
before and after, and checks by outcome in a ``<details>`` block), thresholds, failing
cases, improvements, metrics (each in a ``<details>`` block), flaky cases, gold changes,
McNemar's test where it can say anything, a partial comparison's cases, skipped suites,
the adjudication queue.

Fitting the budget: whole items are kept in that order while they fit, and everything after
the first item that does not fit is left out, so that 5,000 failing cases still leave the
suite and threshold tables in the comment. Each list renders at most its first
``LIST_CAPS[budget]`` items, so that 100,000 failing attempts cost only the top items. An
item is a table row group (one attempt's rows), a whole table or a whole ``<details>``
block: a table or a block is never cut. A list of more than ten rows shows ten and collapses
the rest. What was left out is announced at the top, with where the full report is.

Safe by default: names, ids, statuses, reasons and numbers. ``details="values"`` adds the
expected and actual values of failing checks, except for held-out cases (``split`` is
``holdout``), whose gold never appears. Data is escaped by the template environment itself
(see ``escape``); case names link to their line in the gold file when ``link_base`` is given
(``sources`` maps a gold file as the report names it to its path in the repository).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from jinja2 import Environment

from goldgate.base.errors import EXIT_CODE_MEANINGS, ExitCode
from goldgate.render import escape, text
from goldgate.render._jinja import template_environment
from goldgate.render.markdown_sections import COLLAPSED_ROWS, Parts, Raw, Section
from goldgate.render.registry import Budget, RenderContext
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ReportView,
    exit_explanation,
    repository_path,
)
from goldgate.render.words import attempt_counts, headline, overall_pass_rate, verdict_word

__all__ = [
    "LIMITS",
    "Raw",
    "render_markdown",
    "size",
    "utf16_length",
    "verdict_word",
]

LIMITS: dict[Budget, int] = {"comment": 65_536, "summary": 1_048_576}
"""GitHub refuses a comment body over 65,536 characters and a job summary over 1 MiB."""
LIMIT_WORDS: dict[Budget, str] = {
    "comment": "GitHub's limit of 65,536 characters for a comment",
    "summary": "GitHub's limit of 1 MiB for a job summary",
}
LIST_CAPS: dict[Budget, int] = {"comment": 1_000, "summary": 5_000}
"""Items rendered per list at most: more than fit in the budget of realistic rows, so the
budget decides what is shown, while 100,000 failing attempts cost only the top few."""
_MARKER = re.compile(r"[A-Za-z0-9_.:-]{1,100}")


def size(document: str, budget: Budget) -> int:
    """How GitHub measures ``document``: UTF-16 code units for a comment (a character
    outside the Basic Multilingual Plane, most emoji, counts twice), bytes for a summary."""
    return utf16_length(document) if budget == "comment" else len(document.encode("utf-8"))


def utf16_length(text: str) -> int:
    """The length of ``text`` as GitHub counts a comment's: in UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _finalize(value: Any) -> Any:
    # Every {{ expression }} passes through here: data is escaped unless marked Raw.
    if isinstance(value, Raw):
        return value
    if value is None:
        return ""
    return escape.markdown(value)


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


@cache
def environment() -> Environment:
    environment = template_environment(
        finalize=_finalize, autoescape=False, keep_trailing_newline=True, kind="markdown"
    )
    environment.filters.update(
        raw=Raw,
        html=lambda value: Raw(escape.html(value)),
        num=_number,
    )
    return environment


# --- helpers the sections call ------------------------------------------------------------------


def _link(
    link_base: str | None, sources: Mapping[str, str | None] | None
) -> Callable[[AttemptItem | ChangeItem], Raw]:
    def link(item: AttemptItem | ChangeItem) -> Raw:
        label = item.label if isinstance(item, AttemptItem) else _change_label(item)
        shown = escape.markdown(label, text.NAME_LIMIT)
        location = item.location
        source = repository_path(location.source, sources)
        if link_base is None or source is None or location.line is None:
            return Raw(shown)
        return Raw(f"[{shown}]({link_base}/{escape.url_path(source)}#L{location.line})")

    return link


def _change_label(item: ChangeItem) -> str:
    return item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"


def _value(item: AttemptItem, value: Any, present: bool) -> str:
    return "(held out)" if item.holdout else text.json_value(value, present)


# --- the first screen ----------------------------------------------------------------------------


def _icon(view: ReportView, code: int) -> str:
    if code == ExitCode.INTERRUPTED or not view.report.complete:
        return "⏹️"
    if code == 0:
        return "✅" if view.report.verdict.evaluated else "⚪"
    return "❌"


def _links(run_url: str | None, where: str | None) -> Raw | None:
    parts = []
    if run_url is not None:
        parts.append(f"[Workflow run]({escape.check_link_base(run_url)})")
    if where is not None:
        if escape.LINK_BASE.fullmatch(where):
            parts.append(f"[Full report]({where})")
        else:
            parts.append(f"Full report: {escape.markdown(where)}")
    return Raw(" · ".join(parts)) if parts else None


# --- the document -----------------------------------------------------------------------------


def render_markdown(context: RenderContext) -> str:
    """The Markdown report of ``context.report`` within ``context.budget`` (or
    ``context.limit``, in its unit).

    ``links.full_report`` says where the whole report is (a path, shown as text, or a URL,
    linked); ``marker`` starts the body with a hidden ``<!-- goldgate:MARKER -->`` comment
    so that a sticky comment can be found again. ``exit_code`` and ``rule`` are the gate's
    (the action's code under ``fail_on`` and the sentence saying which rule decided; by
    default the report's own code and what it means), ``links.run_url`` the workflow run's
    page, ``notes`` sentences shown under the verdict, ``sources`` where each gold file is in
    the repository. ``ValueError`` for a malformed ``link_base``, ``run_url`` or ``marker``."""
    view = context.view()
    budget, marker, links = context.budget, context.marker, context.links
    link_base = None if links.link_base is None else escape.check_link_base(links.link_base)
    if marker is not None and not _MARKER.fullmatch(marker):
        raise ValueError("a marker is 1 to 100 letters, digits, '_', '.', ':' or '-'")
    maximum = LIMITS[budget] if context.limit is None else context.limit
    templates = environment()
    fragments: Any = templates.get_template("sections.md.j2").make_module()
    document = templates.get_template("report.md.j2")
    report = view.report
    verdict = report.verdict
    code = verdict.exit_code if context.exit_code is None else context.exit_code
    where = text.one_line(links.full_report) if links.full_report else None
    rule = context.rule
    if rule is None:
        meaning = {int(key): value for key, value in EXIT_CODE_MEANINGS.items()}.get(code, "")
        rule = f"Exit code {code} ({meaning}). {exit_explanation(code, verdict.evaluated)}"
    attempts = sum(suite.attempt_count for suite in report.suites)
    fields = {
        "view": view,
        "report": report,
        "verdict": verdict,
        "verdict_word": verdict_word(code, verdict.evaluated),
        "headline": headline(view),
        "overall": None if view.comparison is None else overall_pass_rate(view.comparison),
        "why": rule,
        "notes": list(context.notes),
        "links": _links(links.run_url, where),
        "icon": Raw(_icon(view, code)),
        "marker": Raw(f"<!-- goldgate:{marker} -->") if marker else None,
        "counts_line": (
            f"Dataset {text.name(report.dataset.name)} at revision "
            f"{text.name(report.dataset.revision)}: {text.count(len(report.suites), 'suite')}, "
            f"{text.count(attempts, 'attempt')}: {attempt_counts(view.counts)}."
        ),
    }
    parts = Parts(
        view,
        fragments,
        LIST_CAPS[budget],
        context.details == "values",
        _link(link_base, context.sources),
        _value,
    )
    sections = list(parts.all())

    def render(kept: list[Section], left_out: str | None) -> str:
        shown = [parts.render(section) for section in kept if section.kept]
        return str(document.render(fields, sections=shown, left_out=left_out))

    def notice(counts: dict[str, int]) -> Raw | None:
        return Raw(fragments.left_out(counts, where, LIMIT_WORDS[budget])) if counts else None

    worst = notice({section.title: section.total for section in sections})
    used = size(render([], worst), budget)
    full = False
    for section in sections:
        for item in section.items:
            cost = size(item, budget) + (0 if section.kept else size(section.head, budget) + 2)
            cost += _structure_cost(parts, section, item, budget)
            if used + cost > maximum:
                full = True
                break
            section.kept.append(item)
            section.rows += item.count("\n")
            used += cost
        if full:
            break
    while True:
        left_out = {s.title: s.total - len(s.kept) for s in sections if s.total > len(s.kept)}
        result = render(sections, notice(left_out))
        if size(result, budget) <= maximum:
            return result
        # The estimate is a few characters off only where whitespace joins differ: drop the
        # last kept item and measure again.
        last = next((s for s in reversed(sections) if s.kept), None)
        if last is None:
            return result
        last.rows -= last.kept.pop().count("\n")


def _structure_cost(parts: Parts, section: Section, item: str, budget: Budget) -> int:
    """What keeping ``item`` adds besides itself: the table head of its section (for the
    first item shown, and again for the first collapsed one) and the collapsed block."""
    if not section.columns:
        return 0
    if not section.kept:
        return size(str(parts.fragments.table_head(section.columns)), budget)
    rows = section.rows
    if section.collapse and rows <= COLLAPSED_ROWS < rows + item.count("\n"):
        head = size(str(parts.fragments.table_head(section.columns)), budget)
        return head + 120  # the <details> block around the rest, with its summary
    return 0
