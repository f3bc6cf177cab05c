"""``goldgate report show``: the Markdown report's content for a terminal or a CI log.

The content is built once as a few blocks (lines and tables) and then written either with
rich (tables, colour: for a terminal) or as plain text (for a log or a pipe). Plain text
never starts a line with data: the runner reads a line whose text starts with ``::`` (after
leading spaces) as a workflow command, so every line starts with a word, ``-`` or ``|``
chosen here. Data is put on one line and stripped of control characters in both modes, and
rich never interprets it as markup.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import islice

from goldgate.render import text
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    ReportView,
    build_view,
    exit_explanation,
)
from goldgate.report.models import MetricResult, Report
from goldgate.scoring.metrics import ClassificationMetricResult

LIST_CAP = 1_000
"""Rows shown per list: the rest are counted, and are in the report file and JUnit."""

_GOOD = {"passed"}
_BAD = {"failed", "error", "runtime failure", "check error", "timed_out"}


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


def _where(item: AttemptItem) -> str:
    location = item.location
    if location.source is None:
        return ""
    return location.source + (f":{location.line}" if location.line is not None else "")


def _list(
    title: str,
    columns: tuple[str, ...],
    items: Iterable[AttemptItem],
    total: int,
    rows: Callable[[AttemptItem], Iterable[tuple[str, ...]]],
) -> _Table:
    """A table of the first ``LIST_CAP`` of ``total`` items (each one or more rows)."""
    table = _Table(f"{title} ({total:,})", columns)
    shown = 0
    for item in islice(items, LIST_CAP):
        table.rows.extend(rows(item))
        shown += 1
    return _Table(table.title, columns, table.rows, total - shown)


def _problem_rows(item: AttemptItem) -> Iterable[tuple[str, ...]]:
    if item.problem == "runtime":
        yield item.suite, item.label, item.status, item.record.reason or item.status, _where(item)
        return
    for check in item.checks(("error", "failed")):
        problem = "check error" if check.outcome == "error" else "failed"
        reason = check.reason or check.outcome
        yield item.suite, item.label, f"{problem}: {check.name}", reason, _where(item)


def _failure_rows(item: AttemptItem) -> Iterable[tuple[str, ...]]:
    for check in item.checks(("failed",)):
        yield item.suite, item.label, check.name, check.reason or check.outcome, _where(item)


def _changes(title: str, items: Sequence[ChangeItem]) -> _Table:
    table = _Table(f"{title} ({len(items):,})", ("suite", "case", "change", "detail", "gold"))
    for item in items[:LIST_CAP]:
        label = item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"
        location = item.location
        where = "" if location.source is None else location.source
        if where and location.line is not None:
            where += f":{location.line}"
        table.rows.append((item.suite, label, item.change, item.detail, where))
    return _Table(table.title, table.columns, table.rows, max(len(items) - LIST_CAP, 0))


def _comparison_blocks(comparison: ComparisonView) -> list[_Block]:
    blocks: list[_Block] = [_Line(f"Compared with {_cell(comparison.baseline)}.")]
    if comparison.counts:
        blocks.append(_Line(f"Against the baseline: {_cell(comparison.counts)}."))
    if comparison.rule:
        blocks.append(_Line(f"With --repeat, {_cell(comparison.rule)}."))
    for title, items in (
        ("Regressions", comparison.regressions),
        ("Improvements", comparison.improvements),
        ("Flaky cases", comparison.flaky),
        ("Gold changes", comparison.gold_changes),
    ):
        if items:
            blocks.append(_changes(title, items))
    if comparison.mcnemar:
        table = _Table("McNemar's test", ("suite", "baseline only", "candidate only", "p-value"))
        for test in comparison.mcnemar:
            table.rows.append(
                (
                    test.suite,
                    f"{test.baseline_only:,}",
                    f"{test.candidate_only:,}",
                    text.ratio(test.p_value),
                )
            )
        blocks.append(table)
    if comparison.partial:
        for label, ids in (
            ("added", comparison.added),
            ("removed", comparison.removed),
            ("input changed", comparison.changed),
        ):
            if ids:
                blocks.append(_Line(f"- not compared, {label}: {_cell(', '.join(ids))}"))
    return blocks


def _blocks(view: ReportView) -> list[_Block]:
    report = view.report
    verdict = report.verdict
    counts = view.counts
    style = "bold green" if verdict.passed and verdict.evaluated else "bold red"
    if verdict.passed and not verdict.evaluated:
        style = "bold yellow"
    blocks: list[_Block] = [
        _Line(
            f"goldgate: {view.verdict_word} (exit code {verdict.exit_code}: "
            f"{_cell(verdict.meaning)})",
            style,
        ),
        _Line(exit_explanation(verdict.exit_code, verdict.evaluated)),
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
            f"{text.count(len(report.suites), 'suite')}, {text.count(attempts, 'attempt')} "
            f"({counts['passed']:,} passed, {counts['failure']:,} failing, "
            f"{counts['runtime'] + counts['check_error']:,} with runtime failures or check "
            f"errors, {counts['skipped']:,} skipped, {counts['cancelled']:,} cancelled)."
        )
    )
    if view.comparison is not None:
        blocks.extend(_comparison_blocks(view.comparison))
    runtime = counts["runtime"] + counts["check_error"]
    if runtime:
        blocks.append(
            _list(
                "Runtime failures and check errors",
                ("suite", "case", "problem", "reason", "gold"),
                view.problems(("runtime", "check_error")),
                runtime,
                _problem_rows,
            )
        )
    if counts["failure"]:
        blocks.append(
            _list(
                "Failing cases",
                ("suite", "case", "check", "reason", "gold"),
                view.problems(("failure",)),
                counts["failure"],
                _failure_rows,
            )
        )
    suites = _Table(
        "Suites",
        (
            "suite",
            "verdict",
            "cases",
            "attempts",
            "passed",
            "failed",
            "error",
            "not run",
            "pass rate",
            "decided by",
        ),
    )
    for suite in view.suites:
        record = suite.record
        checks = record.counts.checks
        suites.rows.append(
            (
                record.name,
                record.verdict,
                f"{record.case_count:,}",
                f"{record.attempt_count:,}",
                f"{checks['passed']:,}",
                f"{checks['failed']:,}",
                f"{checks['error']:,}",
                f"{checks['not_run']:,}",
                text.percent(record.summary.get("pass_rate")),
                suite.decided_by,
            )
        )
    blocks.append(suites)
    gated = [suite for suite in view.suites if suite.thresholds]
    if gated:
        table = _Table("Thresholds", ("suite", "threshold", "minimum", "actual", "held", "decided"))
        for suite in gated:
            for item in suite.thresholds:
                t = item.record
                table.rows.append(
                    (
                        suite.name,
                        t.key,
                        text.ratio(t.minimum)
                        if t.maximum is None
                        else f"at most {text.ratio(t.maximum)}",
                        text.ratio(t.actual),
                        "yes" if t.held else "no",
                        "yes" if item.decided else "no",
                    )
                )
        blocks.append(table)
    for suite in view.suites:
        for metric in suite.metrics:
            blocks.append(_metric(suite.name, metric))
    for suite in view.skipped_suites:
        blocks.append(_Line(f"- skipped {_cell(suite.name)}: {_cell(suite.record.skip_reason)}"))
    if verdict.adjudication:
        blocks.append(
            _Line(
                f"Adjudication: {text.count(verdict.adjudication, 'check')} "
                "waiting for a human verdict."
            )
        )
    return blocks


def _metric(suite: str, metric: MetricResult) -> _Table:
    if isinstance(metric, ClassificationMetricResult):
        title = (
            f"Metric {suite} · {metric.name} (classification): accuracy "
            f"{text.ratio(metric.accuracy)}, coverage {text.ratio(metric.coverage)}, "
            f"macro F1 {text.ratio(metric.macro.f1)}, support {metric.support:,}"
        )
        labels = tuple("null" if c is None else c for c in metric.confusion.columns)
        table = _Table(title, ("gold \\ predicted", *labels))
        for row, cells in zip(metric.confusion.rows, metric.confusion.matrix, strict=False):
            table.rows.append(("null" if row is None else row, *(f"{c:,}" for c in cells)))
        return table
    title = (
        f"Metric {suite} · {metric.name} (multilabel): exact-set accuracy "
        f"{text.ratio(metric.exact_set_accuracy)}, coverage {text.ratio(metric.coverage)}, "
        f"macro F1 {text.ratio(metric.macro.f1)}, support {metric.support:,}"
    )
    table = _Table(title, ("label", "precision", "recall", "F1", "support", "TP", "FP", "FN", "TN"))
    for s in metric.per_label:
        table.rows.append(
            (
                s.label,
                text.ratio(s.precision),
                text.ratio(s.recall),
                text.ratio(s.f1),
                f"{s.support:,}",
                f"{s.tp:,}",
                f"{s.fp:,}",
                f"{s.fn:,}",
                f"{s.tn:,}",
            )
        )
    return table


# --- writing -------------------------------------------------------------------------------------


def _plain(blocks: Sequence[_Block]) -> str:
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, _Line):
            lines.append(block.text)
            continue
        lines.extend(["", _cell(block.title)])
        rows = [tuple(_cell(c) for c in row) for row in (block.columns, *block.rows)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(block.columns))]
        rows.insert(1, tuple("-" * width for width in widths))
        for row in rows:
            lines.append(
                "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + " |"
            )
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
    for block in blocks:
        # soft_wrap: a long line stays one line (the terminal wraps it), so no line rich
        # writes starts with data; table rows start with a border.
        if isinstance(block, _Line):
            console.print(Text(block.text, style=block.style), soft_wrap=True)
            continue
        console.print()
        console.print(Text(_cell(block.title), style="bold"), soft_wrap=True)
        table = Table(box=box.ROUNDED)
        for column in block.columns:
            table.add_column(Text(_cell(column)), overflow="fold")
        for row in block.rows:
            table.add_row(*(Text(_cell(c), style=_cell_style(_cell(c))) for c in row))
        console.print(table)
        if block.left_out:
            console.print(Text(f"{block.left_out:,} more not shown: see the report file."))
    return output.getvalue()


def render_terminal(
    report: Report,
    comparison: ComparisonView | None = None,
    *,
    rich: bool = False,
    color: bool = True,
    width: int = 120,
) -> str:
    """The report for a person: with ``rich``, tables (and ``color``) for a terminal of
    ``width`` columns; otherwise plain text, safe for a CI log."""
    return terminal_from_view(build_view(report, comparison), rich=rich, color=color, width=width)


def terminal_from_view(
    view: ReportView, *, rich: bool = False, color: bool = True, width: int = 120
) -> str:
    blocks = _blocks(view)
    return _rich(blocks, color, width) if rich else _plain(blocks)
