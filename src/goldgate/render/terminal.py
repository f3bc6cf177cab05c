"""``goldgate report show``: the Markdown report's content for a terminal or a CI log.

The content is built once as a few blocks (lines and tables, from ``rows``, so that it says
what the Markdown says) and then written either with rich (tables, colour: for a terminal)
or as plain text (for a log or a pipe), within ``width`` columns (80 when the terminal does
not say): a table that fits is drawn, one that does not is folded into a list, one entry a
row; lines are wrapped between words, never inside one. The verdict is the first and the
last line, so that it is on screen after a long report scrolled by.

Plain text never starts a line with data: the runner reads a line whose text starts with
``::`` (after leading spaces) as a workflow command, so every line starts with a word,
``-`` or ``|`` chosen here, and a wrapped line's continuation is indented and never starts
with ``::`` or ``##`` (the word is kept on the line before). Data is put on one line and
stripped of control characters in both modes, and rich never interprets it as markup.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from goldgate.render import rows, text
from goldgate.render.deltas import NOISE_RULE
from goldgate.render.judges import judge_sentences
from goldgate.render.registry import RenderContext
from goldgate.render.terminal_values import exception_lines, value_lines
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    ReportView,
    exit_explanation,
)
from goldgate.render.words import attempt_counts, headline, overall_pass_rate, verdict_word

LIST_CAP = 1_000
"""Rows shown per list: the rest are counted, and are in the report file and JUnit."""

_GOOD = {"passed"}
_BAD = {"failed", "error", "runtime failure", "check error", "timed_out"}
_BEFORE_GLUED = re.compile(r"\s+(?=::|##)")
"""The spaces before a word that must never start a line (a workflow command's start):
the word stays on the line before."""


@dataclass(frozen=True)
class _Line:
    text: str
    style: str = ""


@dataclass(frozen=True)
class _Table:
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    left_out: int = 0


_Block = _Line | _Table


def _cell(value: object) -> str:
    return text.one_line("" if value is None else value)


def _where(item: AttemptItem | ChangeItem) -> str:
    location = item.location
    if location.source is None:
        return ""
    return location.source + (f":{location.line}" if location.line is not None else "")


def _name(item: AttemptItem | ChangeItem) -> str:
    return item.label if isinstance(item, AttemptItem) else rows.change_label(item)


def _list(
    title: str,
    columns: tuple[str, ...],
    items: Iterable[AttemptItem | ChangeItem],
    total: int,
    cells: Callable[[Any], Iterable[rows.Cells]],
) -> _Table:
    """A table of the first ``LIST_CAP`` of ``total`` items (each one or more rows), with
    where each case's gold is."""
    table: list[tuple[str, ...]] = []
    shown = 0
    for item in islice(items, LIST_CAP):
        for row in cells(item):
            table.append((*(_cell(cell) for cell in row), _cell(_where(item))))
        shown += 1
    return _Table(f"{title} ({total:,})", (*columns, "gold"), table, total - shown)


def _table(title: str, columns: Sequence[str], cells: Iterable[rows.Cells]) -> _Table:
    return _Table(title, tuple(columns), [tuple(_cell(cell) for cell in row) for row in cells])


def _changes(title: str, items: Sequence[ChangeItem]) -> _Table:
    return _list(
        title, rows.CHANGE_COLUMNS, items, len(items), lambda item: [rows.change_row(item, _name)]
    )


def _head(view: ReportView, code: int) -> list[_Block]:
    report = view.report
    verdict = report.verdict
    counts = view.counts
    style = "bold green" if code == 0 and verdict.evaluated else "bold red"
    if code == 0 and not verdict.evaluated:
        style = "bold yellow"
    blocks: list[_Block] = [
        _Line(f"goldgate: {verdict_word(code, verdict.evaluated)} — {headline(view)}", style),
        _Line(
            f"Exit code {verdict.exit_code} ({_cell(verdict.meaning)}): "
            f"{exit_explanation(verdict.exit_code, verdict.evaluated)}"
        ),
    ]
    if not verdict.evaluated and verdict.exit_code != 0:
        blocks.append(_Line("Nothing was evaluated: no check ran.", "bold yellow"))
    if not report.complete:
        signal = f" ({_cell(report.interruption)})" if report.interruption else ""
        blocks.append(
            _Line(
                f"The run was interrupted{signal} and this report is incomplete: "
                f"{text.count(counts['cancelled'], 'attempt')} cancelled.",
                "bold yellow",
            )
        )
    attempts = sum(suite.attempt_count for suite in report.suites)
    blocks.append(
        _Line(
            f"Dataset {_cell(report.dataset.name)} at revision {_cell(report.dataset.revision)}: "
            f"{text.count(len(report.suites), 'suite')}, {text.count(attempts, 'attempt')}: "
            f"{attempt_counts(counts)}."
        )
    )
    comparison = view.comparison
    if comparison is not None:
        overall = overall_pass_rate(comparison)
        whole = "" if overall is None else f"{overall}; "
        blocks.append(_Line(f"Against the baseline: {whole}{_cell(comparison.counts)}."))
        if comparison.rule:
            blocks.append(_Line(f"With --repeat, {_cell(comparison.rule)}."))
    return blocks


def _blocks(view: ReportView, values: bool, code: int) -> list[_Block]:
    counts = view.counts
    comparison = view.comparison
    blocks = _head(view, code)
    if comparison is not None and comparison.regressions:
        blocks.append(_changes("Regressions", comparison.regressions))
    runtime = counts["runtime"] + counts["check_error"]
    if runtime:
        problems = view.problems(("runtime", "check_error"))
        blocks.append(
            _list(
                "Runtime failures and check errors",
                rows.PROBLEM_COLUMNS,
                problems,
                runtime,
                lambda item: rows.problem_rows(item, _name),
            )
        )
    blocks.append(_table("Suites", rows.SUITE_COLUMNS, rows.suite_rows(view)))
    figures = rows.figure_rows(comparison)
    if figures:
        blocks.append(_table("Against the baseline, per suite", rows.FIGURE_COLUMNS, figures))
    folded = rows.figure_rows(comparison, noise=True)
    if folded:
        within = text.count(len(folded), "figure")
        blocks.append(_Line(f"{within} within noise not shown ({NOISE_RULE})."))
    counted = rows.count_rows(view)
    blocks.append(_table("Checks by outcome, per suite", rows.COUNT_COLUMNS, counted))
    if any(suite.thresholds for suite in view.suites):
        columns, table = rows.threshold_table(view)
        blocks.append(_table("Thresholds", columns, table))
    if counts["failure"]:
        failures = view.problems(("failure",))
        blocks.append(
            _list(
                "Failing cases",
                rows.FAILURE_COLUMNS,
                failures,
                counts["failure"],
                lambda item: rows.failure_rows(item, _name),
            )
        )
    if values and counts["failure"] + counts["check_error"] + counts["runtime"]:
        blocks.extend(_values(view))
    if comparison is not None and comparison.improvements:
        blocks.append(_changes("Improvements", comparison.improvements))
    for suite in view.suites:
        for metric in suite.metrics:
            columns, table = rows.metric_table(metric)
            title = f"Metric {rows.metric_title(view, suite, metric)}"
            blocks.append(_table(title, columns, table))
    if comparison is not None:
        blocks.extend(_comparison_tail(comparison))
    for suite in view.skipped_suites:
        blocks.append(_Line(f"- skipped {_cell(suite.name)}: {_cell(suite.record.skip_reason)}"))
    for line in judge_sentences(view.report):
        blocks.append(_Line(f"Judges: {_cell(line)}"))
    adjudication = view.report.verdict.adjudication
    if adjudication:
        waiting = "waits" if adjudication == 1 else "wait"
        checks = text.count(adjudication, "check")
        blocks.append(_Line(f"Adjudication: {checks} {waiting} for a human verdict."))
    # The verdict again, short enough for one line: what is on screen after the rest.
    first = blocks[0]
    verdict = view.report.verdict
    last = f"goldgate: {verdict_word(code, verdict.evaluated)} (exit code {verdict.exit_code}: "
    style = first.style if isinstance(first, _Line) else ""
    blocks.extend([_Line(""), _Line(f"{last}{_cell(verdict.meaning)})", style)])
    return blocks


def _comparison_tail(comparison: ComparisonView) -> Iterator[_Block]:
    listed = (("Flaky cases", comparison.flaky), ("Gold changes", comparison.gold_changes))
    for title, items in listed:
        if items:
            yield _changes(title, items)
    tests = [item for item in comparison.mcnemar if item.meaningful]
    if tests:
        yield _Line("")
        yield _Line("McNemar's test")
        for item in tests:
            yield _Line(f"- {_cell(item.suite)}: {item.sentence}")
    if comparison.partial:
        for label, ids in (
            ("added", comparison.added),
            ("removed", comparison.removed),
            ("input changed", comparison.changed),
        ):
            if ids:
                yield _Line(f"- not compared, {label}: {_cell(', '.join(ids))}")


def _values(view: ReportView) -> Iterator[_Block]:
    """Every failing check's expected and actual values, one under the other, with where two
    strings first differ (``--details values``: private, for a person at a terminal)."""
    yield _Line("")
    yield _Line("Values and exceptions of what failed (never for held-out cases)")
    for item in islice(view.problems(("runtime", "failure", "check_error")), LIST_CAP):
        if item.problem == "runtime":
            yield _Line(f"- {_cell(item.suite)} / {_cell(item.label)}: {_cell(item.reason)}")
            for line in exception_lines(item.record.exception, item.holdout):
                yield _Line(line)
            continue
        for check in item.checks(("failed", "error")):
            yield _Line(
                f"- {_cell(item.suite)} / {_cell(item.label)}, check {_cell(check.name)} "
                f"at {_cell(check.path)}: {_cell(check.reason or check.outcome)}"
            )
            for line in value_lines(check, item.holdout):
                yield _Line(line)


# --- writing -------------------------------------------------------------------------------------


def _glued(line: str) -> str:
    # A no-break space keeps a word that must not start a line on the line before:
    # textwrap breaks at ASCII whitespace only.
    return _BEFORE_GLUED.sub("\u00a0", line)


def wrap(line: str, width: int, indent: str = "  ") -> list[str]:
    """``line`` in lines of at most ``width`` columns, broken between words only (a word
    longer than the width stays whole), continuation lines indented."""
    if len(line) <= width or not line.strip():
        return [line]
    lead = len(line) - len(line.lstrip(" "))
    wrapper = textwrap.TextWrapper(
        width=max(width, 20),
        subsequent_indent=" " * lead + indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )
    return [part.replace("\u00a0", " ") for part in wrapper.wrap(_glued(line))] or [line]


def _widths(block: _Table) -> list[int]:
    table = (block.columns, *block.rows)
    return [max(len(row[i]) for row in table) for i in range(len(block.columns))]


def _fits(block: _Table, width: int) -> bool:
    """Whether the table, drawn with a border and a space each side of every cell, fits."""
    widths = _widths(block)
    return sum(widths) + 3 * len(widths) + 1 <= width


def _folded(block: _Table) -> Iterator[str]:
    """A table as a list, one entry a row: its first cell, then each other column named."""
    for row in block.rows:
        named = zip(block.columns[1:], row[1:], strict=False)
        rest = ", ".join(f"{column} {cell}" for column, cell in named if cell)
        yield f"- {row[0]}: {rest}" if rest else f"- {row[0]}"


def _plain(blocks: Sequence[_Block], width: int) -> str:
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, _Line):
            lines.extend(wrap(block.text, width))
            continue
        lines.extend(["", *wrap(_cell(block.title), width)])
        if _fits(block, width):
            widths = _widths(block)
            table = [block.columns, tuple("-" * w for w in widths), *block.rows]
            for row in table:
                cells = (cell.ljust(w) for cell, w in zip(row, widths, strict=False))
                lines.append("| " + " | ".join(cells) + " |")
        else:
            for entry in _folded(block):
                lines.extend(wrap(entry, width))
        if block.left_out:
            lines.append(f"- {block.left_out:,} more not shown: see the report file.")
    return "\n".join(lines) + "\n"


def _cell_style(value: str) -> str:
    if value in _GOOD:
        return "green"
    if value in _BAD or value.startswith(("failed", "check error")):
        return "red"
    if value in ("skipped", "incomplete", "cancelled"):
        return "yellow"
    return ""


def _rich(blocks: Sequence[_Block], color: bool, width: int) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    output = io.StringIO()
    console = Console(
        file=output,
        force_terminal=True,
        color_system="standard" if color else None,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
    )

    def lines(line: str, style: str = "") -> None:
        # Wrapped here, between words; soft_wrap: rich adds no break of its own.
        for part in wrap(line, width):
            console.print(Text(part, style=style), soft_wrap=True)

    for block in blocks:
        if isinstance(block, _Line):
            lines(block.text, block.style)
            continue
        console.print()
        lines(_cell(block.title), "bold")
        if _fits(block, width):
            table = Table(box=box.ROUNDED)
            for column in block.columns:
                table.add_column(Text(_cell(column)), no_wrap=True)
            for row in block.rows:
                table.add_row(*(Text(c, style=_cell_style(c)) for c in row))
            console.print(table)
        else:
            for entry in _folded(block):
                lines(entry)
        if block.left_out:
            lines(f"{block.left_out:,} more not shown: see the report file.")
    return output.getvalue()


def render_terminal(context: RenderContext) -> str:
    """The report for a person: with ``context.rich``, tables (and ``color``) for a terminal
    of ``width`` columns; otherwise plain text, safe for a CI log. ``details="values"`` adds
    every failing check's expected and actual values (private: for a person, never CI)."""
    view = context.view()
    width = max(context.width, 40)
    blocks = _blocks(view, context.details == "values", view.report.verdict.exit_code)
    return _rich(blocks, context.color, width) if context.rich else _plain(blocks, width)
