"""The comment as GitHub renders it (cmark-gfm, ``gfm.py``): the first screen says the
verdict, what changed in counts and where to look; every table has at most six columns
and reads at 800 pixels without a horizontal scroll; lists past ten rows are collapsed.

    .venv/bin/python -m pytest tests/render/test_gfm.py
"""

from __future__ import annotations

import pytest

from goldgate.github.comments import with_marker
from goldgate.render.markdown import render_markdown
from goldgate.render.registry import Links, RenderContext
from goldgate.render.view import ComparisonView
from goldgate.report.models import Report

from . import gfm
from .corpus import REPORTS
from .test_comparison import Compared, compared, view  # noqa: F401 (fixtures)

# The reports are made by the real console script; one worker makes the session's corpus
# (tests/render/conftest.py) for the modules that read it, not each worker that draws one of
# their tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("render_corpus")]

RUN_URL = "https://github.com/owner/repo/actions/runs/42"
LINK_BASE = "https://github.com/owner/repo/blob/0123abc"


def _comment(value: Report, comparison: ComparisonView | None = None) -> str:
    body = render_markdown(
        RenderContext(
            value,
            comparison,
            links=Links(run_url=RUN_URL, full_report="out/report.json", link_base=LINK_BASE),
        )
    )
    return with_marker(body, "goldgate")


def _tables_fit(document: str) -> None:
    for table in gfm.tables(gfm.render(document)):
        assert 0 < len(table.columns) <= 6, table.columns
        assert all(len(row) == len(table.columns) for row in table.rows), table.columns
        assert table.narrowest_width() <= gfm.COLUMN_PX, (table.columns, table.narrowest_width())


# The hostile reports' names are built of words no column can hold (a 40-digit hex word
# among them): they test escaping, not layout.
@pytest.mark.parametrize("name", sorted(set(REPORTS) - {"hostile", "hostile_run"}))
def test_every_table_reads_at_800_pixels(corpus: dict[str, Report], name: str) -> None:
    _tables_fit(_comment(corpus[name]))


def test_the_compared_comment_s_tables_read_at_800_pixels(
    compared: Compared,  # noqa: F811
    view: ComparisonView,  # noqa: F811
) -> None:
    document = _comment(compared.candidate, view)
    _tables_fit(document)
    rendered = gfm.render(document)
    suites = next(t for t in gfm.tables(rendered) if t.columns[:2] == ("suite", "verdict"))
    # The suite table wraps at most its prose columns ("decided by", and what "checks
    # passed" does not count: "2 of 3, 1 awaits review"): its figures stay on one line each.
    prose = {suites.columns.index("decided by"), suites.columns.index("checks passed")}
    figures = gfm.Table(
        tuple(c for i, c in enumerate(suites.columns) if i not in prose),
        tuple(tuple(c for i, c in enumerate(row) if i not in prose) for row in suites.rows),
    )
    assert figures.natural_width() < 0.75 * gfm.COLUMN_PX
    assert "2 of 3, 1 awaits review" in {row[3] for row in suites.rows}


def test_the_first_screen_says_verdict_counts_and_links(
    compared: Compared,  # noqa: F811
    view: ComparisonView,  # noqa: F811
) -> None:
    rendered = gfm.render(_comment(compared.candidate, view))
    screen = gfm.first_screen(rendered)
    text = " ".join(element.text_content() for element in screen)

    heading = screen[0]
    assert heading.tag == "h2"
    assert heading.text_content().replace("\u200d", "") == (
        "❌ goldgate: failed — 2 regressed, 1 mixed, 4 improved against settings@base"
    )
    # No word of the heading runs off the 800-pixel column (a 64-digit digest did).
    assert max(len(word) for word in heading.text_content().split()) <= 24
    # The overall pass rate before and after, on the first screen (issue 44, item 5).
    assert "attempts passed 73.9% → 82.6% (+8.7 pts)" in text
    assert "Why: Exit code 1 (gold disagreement)." in text
    links = [a.get("href") for element in screen for a in element.iter("a")]
    assert links == [RUN_URL]
    assert "Full report: out/report.json" in text
    assert len(text) < 1_000  # a screen, not a page


def test_without_a_baseline_the_first_line_says_so(corpus: dict[str, Report]) -> None:
    rendered = gfm.render(_comment(corpus["repeats"]))
    heading = gfm.first_screen(rendered)[0]

    assert heading.text_content().endswith(
        "failed — 6 passed, 6 failing, 3 runtime failures, 3 check errors; no baseline"
    )


def test_a_cut_is_announced_on_the_first_screen(corpus: dict[str, Report]) -> None:
    rendered = gfm.render(_comment(corpus["many"]))
    text = " ".join(element.text_content() for element in gfm.first_screen(rendered))
    headings = [element.text_content() for element in rendered.iter("h3")]

    assert "Shortened to fit GitHub's limit of 65,536 characters for a comment" in text
    assert "the full report has them all: out/report.json" in text
    assert headings == ["Suites", "Thresholds", "Failing cases"]


def test_lists_past_ten_rows_are_collapsed(corpus: dict[str, Report]) -> None:
    rendered = gfm.render(_comment(corpus["many"]))
    failing = next(t for t in rendered.iter("h3") if t.text_content() == "Failing cases")
    shown = failing.getnext()
    block = shown.getnext()

    assert shown.tag == "table"
    assert len(shown.findall("tbody/tr")) == 10
    assert block.tag == "details"
    assert block.find("summary").text_content().endswith("more rows of failing cases")
    assert len(block.findall("table/tbody/tr")) > 100
