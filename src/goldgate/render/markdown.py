"""The Markdown report: one renderer, two budgets (a pull-request comment, a job summary).

The document reads, in order (which is also its priority):

1. the verdict and what the exit code means (and, when no check ran, that nothing was
   evaluated; when the run was interrupted, that it is incomplete) — always shown;
2. regressions (with a comparison);
3. runtime failures and check errors;
4. failing cases;
5. improvements, flaky cases and gold changes (with a comparison: the comparison's one
   classification, whose counts follow the verdict);
6. the per-suite table (cases, attempts, checks by outcome, pass rate, thresholds, what
   decided the verdict) and the thresholds table;
7. McNemar's test and the cases a partial comparison left out (with a comparison);
8. metrics (a confusion table per classification metric, a per-label table per multilabel
   metric), each in a ``<details>`` block;
9. suites that were skipped and why;
10. the size of the adjudication queue.

Fitting the budget: whole items are kept in priority order while they fit, and everything
after the first item that does not fit is left out (so a long list of failing cases can push
the tables after it out of a comment: the footer says so). Each list renders at most its
first ``LIST_CAPS[budget]`` items, more than its budget holds of realistic rows, so that
100,000 failing attempts cost only the top items. An item is a table row group
(one attempt's rows), a whole table or a whole ``<details>`` block: a table or a block is
never cut. The footer says how many items of each section were left out and where the full
report is.

Safe by default: names, ids, statuses, reasons and numbers. ``details="values"`` adds the
expected and actual values of failing checks, except for held-out cases (``split`` is
``holdout``), whose gold never appears. Data is escaped by the template environment itself
(see ``escape``); case names link to their line in the gold file when ``link_base`` is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import islice
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined

from goldgate.render import escape, text
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    ReportView,
    SuiteView,
    build_view,
    exit_explanation,
)
from goldgate.report.models import MetricResult, Report

Budget = Literal["comment", "summary"]
Details = Literal["safe", "values"]

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


class Raw(str):
    """Text that is already safe Markdown: a rendered fragment or a link built here."""

    __slots__ = ()


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
def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("goldgate.render", "templates"),
        autoescape=False,
        finalize=_finalize,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(
        raw=Raw,
        html=lambda value: Raw(escape.html(value)),
        num=_number,
        ratio=text.ratio,
        percent=text.percent,
    )
    return environment


# --- helpers the templates call -----------------------------------------------------------------


def _link(link_base: str | None) -> Callable[[AttemptItem | ChangeItem], Raw]:
    def link(item: AttemptItem | ChangeItem) -> Raw:
        label = item.label if isinstance(item, AttemptItem) else _change_label(item)
        shown = escape.markdown(label, text.NAME_LIMIT)
        location = item.location
        source = location.source
        if (
            link_base is None
            or source is None
            or location.line is None
            or source.startswith(("/", "..", "\\"))
            or ":" in source
        ):
            return Raw(shown)
        return Raw(f"[{shown}]({link_base}/{escape.url_path(source)}#L{location.line})")

    return link


def _change_label(item: ChangeItem) -> str:
    return item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"


def _value(item: AttemptItem, value: Any, present: bool) -> str:
    return "(held out)" if item.holdout else text.json_value(value, present)


def _held(suite: SuiteView) -> str:
    thresholds = suite.record.thresholds
    if not thresholds:
        return "none"
    return f"{sum(t.held for t in thresholds)}/{len(thresholds)} held"


def _label(value: str | None) -> str:
    return "null" if value is None else value


def _metric_summary(metric: MetricResult) -> str:
    if metric.kind == "classification":
        head = f"accuracy {text.ratio(metric.accuracy)}"
    else:
        head = f"exact-set accuracy {text.ratio(metric.exact_set_accuracy)}"
    return (
        f"{head}, coverage {text.ratio(metric.coverage)}, micro F1 {text.ratio(metric.micro.f1)},"
        f" macro F1 {text.ratio(metric.macro.f1)}, support {metric.support:,}"
    )


# --- sections ------------------------------------------------------------------------------------


@dataclass
class _Section:
    title: str
    head: str
    items: Iterator[str]
    total: int
    kept: list[str]


@dataclass(frozen=True)
class _Sections:
    """Every section with something to say, in priority order; items render lazily, at most
    ``cap`` per list."""

    view: ReportView
    fragments: Any
    cap: int
    values: bool

    def all(self) -> Iterator[_Section]:
        comparison = self.view.comparison
        if comparison is not None:
            yield from self._changes("Regressions", comparison.regressions)
        yield from self._problems()
        if comparison is not None:
            yield from self._changes("Improvements", comparison.improvements)
            yield from self._changes("Flaky cases", comparison.flaky)
            yield from self._changes("Gold changes", comparison.gold_changes)
        yield from self._suites()
        if comparison is not None:
            yield from self._comparison_tables(comparison)
        yield from self._metrics()
        yield from self._tail()

    def _section(
        self, title: str, items: Iterable[str], total: int, columns: tuple[str, ...] = (),
        intro: str = "",
    ) -> _Section:  # fmt: skip
        return _Section(title, self.fragments.head(title, columns, intro), iter(items), total, [])

    def _changes(self, title: str, items: tuple[ChangeItem, ...]) -> Iterator[_Section]:
        if items:
            rows = (self.fragments.change_row(item) for item in islice(items, self.cap))
            yield self._section(title, rows, len(items), ("suite", "case", "change", "detail"))

    def _problems(self) -> Iterator[_Section]:
        view, fragments, counts = self.view, self.fragments, self.view.counts
        runtime = counts["runtime"] + counts["check_error"]
        if runtime:
            items = islice(view.problems(("runtime", "check_error")), self.cap)
            yield self._section(
                "Runtime failures and check errors",
                map(fragments.problem_rows, items),
                runtime,
                ("suite", "case", "problem", "reason"),
            )
        if counts["failure"]:
            columns: tuple[str, ...] = ("suite", "case", "check", "reason")
            intro = ""
            if self.values:
                columns += ("expected", "actual")
                intro = "Expected and actual values of failing checks; never for held-out cases."
            items = islice(view.problems(("failure",)), self.cap)
            rows = (fragments.failure_rows(item, self.values) for item in items)
            yield self._section("Failing cases", rows, counts["failure"], columns, intro)

    def _suites(self) -> Iterator[_Section]:
        suites = self.view.suites
        if suites:
            yield self._section("Suites", [self.fragments.suite_table(suites)], 1)
        gated = [suite for suite in suites if suite.thresholds]
        if gated:
            yield self._section("Thresholds", [self.fragments.threshold_table(gated)], 1)

    def _comparison_tables(self, comparison: ComparisonView) -> Iterator[_Section]:
        if comparison.mcnemar:
            table = self.fragments.mcnemar_table(comparison.mcnemar)
            yield self._section("McNemar's test", [table], 1)
        if comparison.cost:
            yield self._section("Cost", [self.fragments.cost_table(comparison.cost)], 1)
        if comparison.partial and (comparison.added or comparison.removed or comparison.changed):
            intro = "Not compared: added, removed, or their input changed in this change."
            listing = self.fragments.partial_list(comparison)
            yield self._section("Partial comparison", [listing], 1, intro=intro)

    def _metrics(self) -> Iterator[_Section]:
        metrics = [(suite, metric) for suite in self.view.suites for metric in suite.metrics]
        if metrics:
            blocks = (self.fragments.metric_block(suite, metric) for suite, metric in metrics)
            yield self._section("Metrics", blocks, len(metrics))

    def _tail(self) -> Iterator[_Section]:
        skipped = self.view.skipped_suites
        if skipped:
            items = map(self.fragments.skipped_item, skipped)
            yield self._section("Skipped suites", items, len(skipped))
        queue = self.view.report.verdict.adjudication
        if queue:
            yield self._section("Adjudication", [self.fragments.adjudication_line(queue)], 1)


# --- the document -----------------------------------------------------------------------------


def render_markdown(
    report: Report,
    comparison: ComparisonView | None = None,
    *,
    budget: Budget = "comment",
    details: Details = "safe",
    link_base: str | None = None,
    full_report: str | None = None,
    marker: str | None = None,
    limit: int | None = None,
) -> str:
    """The Markdown report of ``report`` within ``budget`` (or ``limit``, in its unit).

    ``full_report`` says where the whole report is (a path or URL, shown as text);
    ``marker`` starts the body with a hidden ``<!-- goldgate:MARKER -->`` comment so that a
    sticky comment can be found again. ``ValueError`` for a malformed ``link_base`` or
    ``marker``."""
    return markdown_from_view(
        build_view(report, comparison),
        budget=budget,
        details=details,
        link_base=link_base,
        full_report=full_report,
        marker=marker,
        limit=limit,
    )


def markdown_from_view(
    view: ReportView,
    *,
    budget: Budget = "comment",
    details: Details = "safe",
    link_base: str | None = None,
    full_report: str | None = None,
    marker: str | None = None,
    limit: int | None = None,
) -> str:
    """``render_markdown`` for a view already built."""
    if link_base is not None:
        link_base = escape.check_link_base(link_base)
    if marker is not None and not _MARKER.fullmatch(marker):
        raise ValueError("a marker is 1 to 100 letters, digits, '_', '.', ':' or '-'")
    maximum = LIMITS[budget] if limit is None else limit
    environment = _environment()
    helpers = {
        "link": _link(link_base),
        "value": _value,
        "held": _held,
        "label": _label,
        "metric_summary": _metric_summary,
    }
    fragments: Any = environment.get_template("sections.md.j2").make_module(vars=helpers)
    document = environment.get_template("report.md.j2")
    report = view.report
    context = {
        "view": view,
        "report": report,
        "verdict": report.verdict,
        "explanation": exit_explanation(report.verdict.exit_code, report.verdict.evaluated),
        "icon": Raw(_icon(view)),
        "attempts": sum(suite.attempt_count for suite in report.suites),
        "marker": Raw(f"<!-- goldgate:{marker} -->") if marker else None,
    }
    where = text.one_line(full_report) if full_report else None
    sections = list(_Sections(view, fragments, LIST_CAPS[budget], details == "values").all())

    def render(kept: list[_Section], footer: str | None) -> str:
        shown = [{"head": s.head, "rows": s.kept} for s in kept if s.kept]
        return str(document.render(context, sections=shown, footer=footer))

    worst_footer = fragments.footer(
        {s.title: s.total for s in sections}, where, LIMIT_WORDS[budget]
    )
    used = size(render([], None), budget) + size(worst_footer, budget)
    full = False
    for section in sections:
        for item in section.items:
            cost = size(item, budget) + (0 if section.kept else size(section.head, budget) + 2)
            if used + cost > maximum:
                full = True
                break
            section.kept.append(item)
            used += cost
        if full:
            break
    while True:
        left_out = {s.title: s.total - len(s.kept) for s in sections if s.total > len(s.kept)}
        footer = (
            fragments.footer(left_out, where, LIMIT_WORDS[budget]) if left_out or where else None
        )
        result = render(sections, footer)
        if size(result, budget) <= maximum:
            return result
        # The estimate is a few characters off only where whitespace joins differ: drop the
        # last kept item and measure again.
        last = next((s for s in reversed(sections) if s.kept), None)
        if last is None:
            return result
        last.kept.pop()


def _icon(view: ReportView) -> str:
    verdict = view.report.verdict
    if not view.report.complete:
        return "⏹️"
    if verdict.passed:
        return "✅" if verdict.evaluated else "⚪"
    return "❌"
