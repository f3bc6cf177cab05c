"""``goldgate report show``: the same content as the Markdown report, as plain text for a log
(no escape codes, no line starting with data) or with rich tables and colour."""

from __future__ import annotations

import re

import pytest

from goldgate.render.registry import RenderContext
from goldgate.render.terminal import render_terminal, wrap
from goldgate.report.models import Report

from .checks import no_workflow_commands
from .corpus import REPORTS

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_plain_and_rich_never_start_a_line_with_data(corpus: dict[str, Report], name: str) -> None:
    plain = render_terminal(RenderContext(corpus[name]))
    rich = render_terminal(RenderContext(corpus[name], rich=True, color=True, width=80))

    assert "\x1b" not in plain
    no_workflow_commands(plain)
    no_workflow_commands(_ANSI.sub("", rich))
    for line in plain.splitlines():
        # A wrapped line goes on indented, with a word that is never a command's start.
        assert line == "" or re.match(r"(goldgate:|[A-Z]|\| |- |  +[^ :#])", line), line


def test_the_same_content_as_the_markdown_report(corpus: dict[str, Report]) -> None:
    plain = render_terminal(RenderContext(corpus["repeats"], width=200))

    assert plain.startswith(
        "goldgate: failed — 6 passed, 6 failing, 3 runtime failures, 3 check errors; no baseline\n"
    )
    assert plain.endswith("\ngoldgate: failed (exit code 4: runtime failure)\n")
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


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_80_columns_fit_or_fold_and_no_word_is_broken(corpus: dict[str, Report], name: str) -> None:
    for rich in (False, True):
        shown = _ANSI.sub(
            "", render_terminal(RenderContext(corpus[name], rich=rich, color=False, width=80))
        )
        for line in shown.splitlines():
            # Only a word longer than the line (a long id) may stand past column 80.
            assert len(line) <= 80 or " " not in line.strip(), line


def test_a_table_too_wide_folds_into_a_list(corpus: dict[str, Report]) -> None:
    plain = render_terminal(RenderContext(corpus["repeats"], width=80))

    assert "| python | wrong#1  | category |" not in plain
    assert (
        "\nFailing cases (6)\n- python: case wrong#1, check category, reason the string has"
        in plain
    )
    assert "\nSuites\n| suite  | verdict |" not in plain
    assert "- python: verdict error, attempts 12, checks passed 12 of 24, 6 not run, pass" in plain


@pytest.mark.parametrize("width", [20, 40, 80])
@pytest.mark.parametrize(
    "line",
    [
        "Dataset a at revision b: 5 suites, 24 attempts: 20 passed, 3 failing, 1 skipped.",
        "- x: reason ::error::injected ##[warning]x and a verylongwordthatcannotbebrokenatall",
        "short",
    ],
)
def test_wrap_breaks_between_words_only(line: str, width: int) -> None:
    parts = wrap(line, width)

    assert " ".join(part.strip() for part in parts) == " ".join(line.split())
    for part in parts[1:]:
        assert part.startswith("  ")
        assert not part.strip().startswith(("::", "##"))
    for part in parts:
        # A word that must not start a line stays with the one before, past the width.
        glued = " ::" in part or " ##" in part
        assert len(part) <= max(width, 20) or " " not in part.strip() or glued


def test_plural_forms(corpus: dict[str, Report]) -> None:
    hostile = render_terminal(RenderContext(corpus["hostile"], width=200))
    example = render_terminal(RenderContext(corpus["example"], width=200))

    assert "0 passed, 2 failing, 1 runtime failure, 1 skipped" in hostile
    assert "Adjudication: 2 checks wait for a human verdict." in example


def test_colour_only_when_asked(corpus: dict[str, Report]) -> None:
    coloured = render_terminal(RenderContext(corpus["repeats"], rich=True, color=True))
    uncoloured = render_terminal(RenderContext(corpus["repeats"], rich=True, color=False))

    assert "\x1b[" in coloured
    assert "\x1b" not in uncoloured
    assert _ANSI.sub("", coloured).split() == uncoloured.split()
    assert "╭" in uncoloured


def test_rich_does_not_read_data_as_markup(corpus: dict[str, Report]) -> None:
    rich = render_terminal(RenderContext(corpus["hostile"], rich=True, color=True, width=300))

    assert "[l](http://e.com)" in _ANSI.sub("", rich)
    assert "\x1b[31mred" not in rich  # the report's escape sequence was made text


def test_lists_are_capped_and_say_so(corpus: dict[str, Report]) -> None:
    plain = render_terminal(RenderContext(corpus["many"]))

    assert "Failing cases (5,000)" in plain
    assert "- 4,000 more not shown: see the report file." in plain


def test_a_target_s_exception_safe_where_values_what(corpus: dict[str, Report]) -> None:
    from goldgate.render.markdown import render_markdown

    safe = render_terminal(RenderContext(corpus["repeats"], width=200))
    values = render_terminal(RenderContext(corpus["repeats"], width=200, details="values"))
    comment = render_markdown(RenderContext(corpus["repeats"]))

    # The type and the application's line, everywhere; the message only with values.
    assert "python target raised ValueError at fixture_app.py:40" in safe
    assert "python target raised ValueError at fixture\\_app.py:40" in comment
    assert "    raised ValueError: the application broke" in values
    assert "    in handle, fixture_app.py:40" in values
    for shown in (safe, comment):
        assert "the application broke" not in shown
