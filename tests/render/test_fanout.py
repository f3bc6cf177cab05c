"""One pass over a report's cases for every renderer (issue 43, ``render.fanout`` and
``app.renderpass``): what the pass keeps renders what the whole report does."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from goldgate.app.render import render
from goldgate.app.renderpass import PassRequest, render_pass
from goldgate.render.checkrun import check_annotations
from goldgate.render.fanout import ProblemSink, feed, whole
from goldgate.render.registry import Links, RenderContext
from goldgate.render.view import Problem, build_view
from goldgate.report.io import report_bytes
from goldgate.report.models import Report
from goldgate.report.streamread import streamed_report

from .corpus import REPORTS

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")

KINDS: tuple[tuple[Problem, ...], ...] = (
    ("runtime", "check_error"),
    ("failure",),
    ("runtime", "check_error", "failure"),
    ("runtime", "failure", "check_error"),
    ("cancelled", "skipped"),
)


def _written(report: Report, tmp_path: Path) -> tuple[Path, Links, RenderContext]:
    """``report`` written into ``tmp_path``: where, the links of its renderings, and the
    context that renders it read whole."""
    path = tmp_path / "report.json"
    path.write_bytes(report_bytes(report))
    links = Links(full_report="out/report.json")
    return path, links, RenderContext(report, links=links, details="values", maximum=3)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_a_pass_keeps_the_counts_and_the_first_problems_of_every_kind(
    corpus: dict[str, Report], name: str
) -> None:
    """Kept 2 of each kind, the problems of any kinds are the first 2 a whole read lists,
    in the same order, and the counts are the whole report's."""
    view = build_view(corpus[name])
    sink = ProblemSink(2)
    feed(whole(view.suites), (sink,))
    collected = sink.collected
    assert collected is not None
    assert collected.counts == view.counts
    for kinds in KINDS:
        kept = [(i.suite, i.label, i.problem) for i in islice(collected.problems(kinds), 2)]
        listed = [(i.suite, i.label, i.problem) for i in islice(view.problems(kinds), 2)]
        assert kept == listed, kinds


# "many" is large (the caps are the other test's); "interrupted" is built by hand with
# completed attempts that have no result, which a reader refuses.
STREAMED = sorted(set(REPORTS) - {"many", "interrupted"})


@pytest.mark.parametrize("name", STREAMED)
def test_every_rendering_of_a_streamed_report_is_the_whole_reports(
    corpus: dict[str, Report], name: str, tmp_path: Path
) -> None:
    """The report written, then read as a stream (its suites hold no cases) and rendered
    from one pass: every renderer's text, byte for byte, as from the report read whole."""
    report = corpus[name]
    path, links, whole_context = _written(report, tmp_path)
    with streamed_report(path) as streamed:
        context = RenderContext(streamed.report, links=links, details="values", maximum=3)
        request = PassRequest(junit=True, html=True, check_run=2)
        with render_pass(streamed, context, None, request) as rendered:
            junit: list[str] = []
            page: list[str] = []
            rendered.write_junit(junit.append)
            rendered.write_html(page.append)
            assert "".join(junit) == render("junit", whole_context)
            assert "".join(page) == render("html", whole_context)
            for kind in ("markdown", "annotations", "show"):
                assert render(kind, rendered.context) == render(kind, whole_context), kind
            assert rendered.check_annotations(2) == check_annotations(whole_context, 2)


def test_the_places_a_pass_keeps_are_found_as_a_dictionary_finds_them() -> None:
    """``Locations`` (16 bytes a listed case) answers every look-up as a dictionary of the
    same additions does: the last addition of a key wins, a line may be absent or past what
    40 bits hold, each suite has its own gold file, a key never added is not found."""
    import random

    from goldgate.render.fanout import Locations
    from goldgate.render.view import Location

    rng = random.Random(7)
    kept, expected = Locations(), {}
    for number in range(3000):
        suite = f"suite-{number % 3}"
        key = (suite, f"case-{rng.randrange(2000)}")
        line = rng.choice([None, 1, rng.randrange(1, 10**6), 1 << 41, 10**30])
        source = None if suite == "suite-2" else f"evaluation/{suite}.json"
        kept.add(key, source, line)
        expected[key] = Location(source, line)
    nowhere = Location(None, None)
    for suite in ("suite-0", "suite-1", "suite-2", "other"):
        for case in range(2100):
            key = (suite, f"case-{case}")
            assert kept.get(key, nowhere) == expected.get(key, nowhere), key
    assert len(kept) == 3000


@pytest.mark.slow  # forks helpers
@pytest.mark.parametrize("helper", ["answers", "fails"])
def test_a_case_table_made_by_a_helper_is_the_one_made_here(
    corpus: dict[str, Report], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: str
) -> None:
    """Issue 43: the HTML page's case table made by a forked helper while this process
    feeds the other renderings is, byte for byte, the page made in one process; where the
    helper fails, the table is made here, the same."""
    import os

    from goldgate.app import renderpass
    from goldgate.base import accelerators
    from goldgate.report import background

    if not hasattr(os, "fork"):
        pytest.skip("the case table's helper is forked: no fork here")
    # An xdist worker runs threads of its own (execnet's), for which fork_possible says
    # no: the helper's claim is about what it makes, which no thread of this one touches.
    monkeypatch.setattr(background, "fork_possible", lambda: True)
    monkeypatch.setattr(renderpass, "FORK_FROM", 0)
    if helper == "fails":  # after writing a part of the table: the spools are emptied

        def failing(table: renderpass._TableElsewhere, *_: object) -> None:
            for spool in table._spools:
                spool.write('["a row"],' * 10_000)
                spool.flush()
            os._exit(1)

        monkeypatch.setattr(renderpass._TableElsewhere, "_serve", failing)
    report = corpus[STREAMED[0]]
    path, links, whole_context = _written(report, tmp_path)
    with streamed_report(path) as streamed:
        context = RenderContext(streamed.report, links=links, details="values", maximum=3)
        with render_pass(streamed, context, None, PassRequest(junit=True, html=True)) as done:
            page: list[str] = []
            done.write_html(page.append)
    assert "html case table helper" in accelerators.used()
    assert "".join(page) == render("html", whole_context)
