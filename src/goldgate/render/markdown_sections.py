"""The sections of the Markdown report, in the order they are kept under a budget, each a
head and items that render lazily (``markdown`` fits them).

Every table has at most ``MAX_COLUMNS`` columns, so that it reads in a pull request's
800-pixel column without a horizontal scroll; what does not fit (checks by outcome, a
confusion matrix's cells) is a row of its own or sits in a ``<details>`` block. A list of
more than ``COLLAPSED_ROWS`` rows shows its first rows and collapses the rest.

Cells are plain values or ``Raw`` fragments (a link built here); the templates escape every
other cell, so data cannot forget to be escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from goldgate.render import rows, text
from goldgate.render.deltas import NOISE_RULE
from goldgate.render.judges import judge_sentences
from goldgate.render.rows import Cells
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    ReportView,
    SuiteView,
)
from goldgate.report.models import MetricResult

MAX_COLUMNS = 6
"""Columns of any table: six short columns fit GitHub's 800-pixel comment column."""
COLLAPSED_ROWS = 10
"""Rows of a list shown before the rest is collapsed into a ``<details>`` block."""


class Raw(str):
    """Text that is already safe Markdown: a rendered fragment or a link built here."""

    __slots__ = ()


@dataclass
class Section:
    """One section: its head (title, intro), its table's columns (none for a list of
    lines or blocks), its items (each one row group or block, rendered on demand), how many
    there are in all, and those the budget kept."""

    title: str
    head: str
    columns: tuple[str, ...]
    items: Iterator[str]
    total: int
    collapse: bool = True
    kept: list[str] = field(default_factory=list)
    rows: int = 0
    """Table rows of what was kept."""


def _rows_of(item: str) -> int:
    return item.count("\n")


@dataclass(frozen=True)
class Parts:
    """What the sections are built from: the view, the template fragments, the list cap,
    whether values are shown, and how a case is linked."""

    view: ReportView
    fragments: Any
    cap: int
    values: bool
    link: Callable[[AttemptItem | ChangeItem], Raw]
    value: Callable[[AttemptItem, Any, bool], str]

    # --- building blocks ------------------------------------------------------------------

    def row_text(self, cells: Iterable[Cells]) -> str:
        return "".join(self.fragments.row(row) for row in cells)

    def table(self, columns: Sequence[str], cells: Sequence[Cells], what: str) -> str:
        """A whole table; past ``COLLAPSED_ROWS`` rows the rest is in a ``<details>`` block
        that counts them (``what`` is the noun of one: "3 more figures", "1 more row")."""
        assert len(columns) <= MAX_COLUMNS, columns
        head = str(self.fragments.table_head(columns))
        shown = head + self.row_text(cells[:COLLAPSED_ROWS])
        rest = cells[COLLAPSED_ROWS:]
        if rest:
            more = text.count(len(rest), f"more {what}")
            shown += self.collapsed(more, head + self.row_text(rest))
        return shown

    def collapsed(self, summary: str, body: str) -> str:
        """``body`` (a table) in a closed ``<details>`` block after what is shown."""
        return "\n" + str(self.fragments.block(summary, body))

    def section(
        self,
        *,
        title: str,
        items: Iterable[str],
        total: int,
        columns: tuple[str, ...] = (),
        intro: str = "",
        collapse: bool = True,
    ) -> Section:
        assert len(columns) <= MAX_COLUMNS, columns
        head = str(self.fragments.head(title, intro))
        return Section(title, head, columns, iter(items), total, collapse)

    def render(self, section: Section) -> str:
        """A section as the document shows it: its first ``COLLAPSED_ROWS`` rows, then the
        rest of what was kept in a ``<details>`` block (never cut inside it)."""
        if not section.columns:
            kept = section.kept
            if not section.collapse or len(kept) <= COLLAPSED_ROWS:
                return section.head + "".join(kept)
            rest = kept[COLLAPSED_ROWS:]
            more = f"{len(rest):,} more of {section.title.lower()}"
            listed = section.head + "".join(kept[:COLLAPSED_ROWS])
            return listed + self.collapsed(more, "".join(rest))
        head = str(self.fragments.table_head(section.columns))
        shown: list[str] = []
        rows = 0
        index = 0
        if section.collapse:
            for index, item in enumerate(section.kept):  # noqa: B007
                if rows + _rows_of(item) > COLLAPSED_ROWS:
                    break
                shown.append(item)
                rows += _rows_of(item)
            else:
                index = len(section.kept)
        else:
            shown, index = list(section.kept), len(section.kept)
        hidden = section.kept[index:]
        document = section.head + (head + "".join(shown) if shown else "")
        if hidden:
            count = sum(map(_rows_of, hidden))
            more = f"{text.count(count, 'more row')} of {section.title.lower()}"
            document += self.collapsed(more, head + "".join(hidden))
        return document

    # --- the sections, in the order they are kept -----------------------------------------

    def all(self) -> Iterator[Section]:
        comparison = self.view.comparison
        if comparison is not None:
            yield from self._changes("Regressions", comparison.regressions)
        yield from self._runtime()
        yield from self._suites()
        yield from self._judges()
        yield from self._thresholds()
        yield from self._failures()
        if comparison is not None:
            yield from self._changes("Improvements", comparison.improvements)
        yield from self._metrics()
        if comparison is not None:
            yield from self._changes("Flaky cases", comparison.flaky)
            yield from self._changes("Gold changes", comparison.gold_changes)
            yield from self._comparison_lines(comparison)
        yield from self._tail()

    def _changes(self, title: str, items: Sequence[ChangeItem]) -> Iterator[Section]:
        if items:
            shown = islice(items, self.cap)
            groups = (self.row_text([rows.change_row(item, self.link)]) for item in shown)
            yield self.section(
                title=title, items=groups, total=len(items), columns=rows.CHANGE_COLUMNS
            )

    def _runtime(self) -> Iterator[Section]:
        counts = self.view.counts
        total = counts["runtime"] + counts["check_error"]
        if total:
            items = islice(self.view.problems(("runtime", "check_error")), self.cap)
            yield self.section(
                title="Runtime failures and check errors",
                items=(
                    self.row_text(rows.problem_rows(item, self.link, self.values)) for item in items
                ),
                total=total,
                columns=rows.PROBLEM_COLUMNS,
            )

    def _failures(self) -> Iterator[Section]:
        if not self.view.counts["failure"]:
            return
        columns: tuple[str, ...] = rows.FAILURE_COLUMNS
        intro = ""
        value = None
        if self.values:
            columns += rows.VALUE_COLUMNS
            intro = "Expected and actual values of failing checks; never for held-out cases."
            value = self.value
        items = islice(self.view.problems(("failure",)), self.cap)
        groups = (self.row_text(rows.failure_rows(item, self.link, value)) for item in items)
        yield self.section(
            title="Failing cases",
            items=groups,
            total=self.view.counts["failure"],
            columns=columns,
            intro=intro,
        )

    def _suites(self) -> Iterator[Section]:
        view = self.view
        if not view.suites:
            return
        blocks = [self.table(rows.SUITE_COLUMNS, rows.suite_rows(view), "suite")]
        blocks += self._figures()
        head = str(self.fragments.table_head(rows.COUNT_COLUMNS))
        body = head + self.row_text(rows.count_rows(view))
        blocks.append("\n" + str(self.fragments.block("Checks by outcome, per suite", body)))
        yield self.section(title="Suites", items=blocks, total=len(blocks), collapse=False)

    def _figures(self) -> list[str]:
        """The figures before and after whose change is a finding under the noise rule,
        then, folded, those within it (``deltas.NOISE_RULE``)."""
        comparison = self.view.comparison
        figures = rows.figure_rows(comparison)
        folded = rows.figure_rows(comparison, noise=True)
        if not (figures or folded):
            return []
        said = "Against the baseline, per suite:" if figures else "Against the baseline, per"
        if not figures:
            said += " suite, no latency or usage change beyond noise."
        block = str(self.fragments.paragraph(said))
        if figures:
            block += "\n" + self.table(rows.FIGURE_COLUMNS, figures, "figure")
        if folded:
            head = str(self.fragments.table_head(rows.FIGURE_COLUMNS))
            summary = f"{text.count(len(folded), 'figure')} within noise ({NOISE_RULE})"
            block += self.collapsed(summary, head + self.row_text(folded))
        return ["\n" + block]

    def _judges(self) -> Iterator[Section]:
        said = judge_sentences(self.view.report)
        if said:
            lines = [str(self.fragments.line(text)) for text in said]
            yield self.section(title="Judges", items=lines, total=len(lines), collapse=False)

    def _thresholds(self) -> Iterator[Section]:
        if any(suite.thresholds for suite in self.view.suites):
            columns, table = rows.threshold_table(self.view)
            yield self.section(
                title="Thresholds",
                items=[self.table(columns, table, "threshold")],
                total=1,
                collapse=False,
            )

    def _metrics(self) -> Iterator[Section]:
        view = self.view
        metrics = [(suite, metric) for suite in view.suites for metric in suite.metrics]
        if metrics:

            def block(suite: SuiteView, metric: MetricResult) -> str:
                columns, table = rows.metric_table(metric)
                body = self.table(columns, table, "row")
                return str(self.fragments.block(rows.metric_title(view, suite, metric), body))

            blocks = (block(suite, metric) for suite, metric in metrics)
            yield self.section(title="Metrics", items=blocks, total=len(metrics), collapse=False)

    def _comparison_lines(self, comparison: ComparisonView) -> Iterator[Section]:
        tests = [item for item in comparison.mcnemar if item.meaningful]
        if tests:
            lines = [self.fragments.line(f"{item.suite}: {item.sentence}") for item in tests]
            yield self.section(title="McNemar's test", items=lines, total=len(lines))
        if comparison.partial and (comparison.added or comparison.removed or comparison.changed):
            intro = "Not compared: added, removed, or their input changed in this change."
            listed = (
                ("added", comparison.added),
                ("removed", comparison.removed),
                ("input changed", comparison.changed),
            )
            lines = [
                self.fragments.line(f"{label}: {', '.join(ids)}") for label, ids in listed if ids
            ]
            yield self.section(
                title="Partial comparison", items=["".join(lines)], total=1, intro=intro
            )

    def _tail(self) -> Iterator[Section]:
        skipped = self.view.skipped_suites
        if skipped:
            lines = (
                self.fragments.line(f"{suite.name}: {suite.record.skip_reason or 'skipped'}")
                for suite in skipped
            )
            yield self.section(title="Skipped suites", items=map(str, lines), total=len(skipped))
        queue = self.view.report.verdict.adjudication
        if queue:
            waits = "check waits" if queue == 1 else "checks wait"
            line = self.fragments.paragraph(
                f"{queue:,} {waits} for a human verdict (the adjudication queue)."
            )
            yield self.section(title="Adjudication", items=[str(line)], total=1)
