"""``goldgate report show``: the same content as the Markdown report, as plain text for a log
(no escape codes, no line starting with data) or with rich tables and colour."""

from __future__ import annotations

import re

import pytest

from goldgate.render.terminal import render_terminal
from goldgate.report.models import Report

from .checks import no_workflow_commands
from .corpus import REPORTS

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_plain_and_rich_never_start_a_line_with_data(corpus: dict[str, Report], name: str) -> None:
    plain = render_terminal(corpus[name])
    rich = render_terminal(corpus[name], rich=True, color=True, width=80)

    assert "\x1b" not in plain
    no_workflow_commands(plain)
    no_workflow_commands(_ANSI.sub("", rich))
    for line in plain.splitlines():
        assert line == "" or re.match(r"(goldgate:|[A-Z]|\| |- )", line), line


def test_the_same_content_as_the_markdown_report(corpus: dict[str, Report]) -> None:
    plain = render_terminal(corpus["repeats"])

    assert plain.startswith("goldgate: failed (exit code 4: runtime failure)\n")
    for heading in (
        "Runtime failures and check errors (6)",
        "Failing cases (6)",
        "Suites",
        "Thresholds",
        "Metric python · queue (classification): accuracy 0.5",
        "Metric labels · tags (multilabel): exact-set accuracy 0.5",
    ):
        assert f"\n{heading}" in plain
    assert "| python | wrong#1  | category |" in plain
    assert "evaluation/dataset.json:31" in plain


def test_colour_only_when_asked(corpus: dict[str, Report]) -> None:
    coloured = render_terminal(corpus["repeats"], rich=True, color=True)
    uncoloured = render_terminal(corpus["repeats"], rich=True, color=False)

    assert "\x1b[" in coloured
    assert "\x1b" not in uncoloured
    assert _ANSI.sub("", coloured).split() == uncoloured.split()
    assert "╭" in uncoloured


def test_rich_does_not_read_data_as_markup(corpus: dict[str, Report]) -> None:
    rich = render_terminal(corpus["hostile"], rich=True, color=True, width=300)

    assert "[l](http://e.com)" in _ANSI.sub("", rich)
    assert "\x1b[31mred" not in rich  # the report's escape sequence was made text


def test_lists_are_capped_and_say_so(corpus: dict[str, Report]) -> None:
    plain = render_terminal(corpus["many"])

    assert "Failing cases (5,000)" in plain
    assert "- 4,000 more not shown: see the report file." in plain
