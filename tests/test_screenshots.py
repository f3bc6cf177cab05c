"""The documentation's screenshots are not stale (issue 45, item 1): the comment and HTML
report of the bundled example with one planted regression, made again as
``scripts/screenshots.py`` made them (tests/helpers/screenshots.py), are exactly what the PNGs
were rendered from (``docs/images/*.source.*``). No pixels are compared: the sources decide.
When this fails after a deliberate change to what a pull request shows, run
``.venv/bin/python scripts/screenshots.py`` and look at the new pictures."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from helpers.browser import png_colours
from helpers.screenshots import IMAGES, Sources, sources

# The example runs through the console script, twice: on one worker, once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("screenshots")]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Sources:
    return sources(tmp_path_factory.mktemp("screenshots"))


def test_the_screenshots_were_made_from_today_s_renderings(made: Sources) -> None:
    for name, text in made.digests().items():
        assert (IMAGES / name).read_text("utf-8") == text, (
            f"docs/images/{name} is stale: run .venv/bin/python scripts/screenshots.py"
        )


def test_the_comment_shows_one_planted_regression(made: Sources) -> None:
    first = made.comment.splitlines()[0]
    assert first.startswith("## ❌ goldgate: failed — 1 regressed against main@"), first
    assert "positive\\_cancellation\\_de" in made.comment


@pytest.mark.parametrize("name", ["comment.png", "report.png"])
def test_the_screenshots_are_pictures(name: str) -> None:
    png = (IMAGES / name).read_bytes()
    width, height = struct.unpack(">II", png[16:24])

    assert width >= 800, width
    assert height >= 600, height
    assert png_colours(png) >= 16  # text and tables, not a blank page
    assert len(png) < 400_000


def test_the_pages_show_the_screenshots(repo_root: Path) -> None:
    for page in ("docs/index.md", "docs/action.md"):
        text = (repo_root / page).read_text("utf-8")
        assert "images/comment.png" in text, page
        assert "images/report.png" in text, page
