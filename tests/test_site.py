"""The documentation site (issue 45, item 2): every page of the built site renders in headless
Chromium (tests/helpers/browser.py) with its theme, no internal link is broken (to a page or
to an anchor of one), nothing is fetched from outside the site, and the search index holds
every page.

The site is built once: ``.ci/run`` builds it (``mkdocs build --strict``) and names the folder
in ``GOLDGATE_SITE``; without it (a developer's run) the module fixture builds it into a
temporary folder. Every page is opened once, in one module fixture, and the tests read what it
found."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from helpers.browser import MISSING, browser, chromium, open_page

# One worker opens the site once (--dist loadgroup keeps the module's tests together).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium() is None, reason=MISSING),
    pytest.mark.xdist_group("site"),
]

_READ = """(() => ({
  title: (document.querySelector('article h1') || {}).textContent || '',
  themed: getComputedStyle(document.querySelector('.md-header')).position,
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
  images: [...document.querySelectorAll('article img')].map(i => [i.src, i.naturalWidth]),
  search: !!document.querySelector('input.md-search__input'),
}))()"""


@dataclasses.dataclass(frozen=True)
class Page:
    name: str
    title: str
    themed: str
    links: list[str]
    ids: list[str]
    images: list[list[Any]]
    search: bool
    requests: list[str]


@dataclasses.dataclass(frozen=True)
class Site:
    folder: Path
    pages: dict[str, Page]
    nav: list[str]


def _nav_pages(entries: list[Any]) -> list[str]:
    found: list[str] = []
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found += _nav_pages(value) if isinstance(value, list) else [value]
    return found


@pytest.fixture(scope="module")
def site(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Site:
    config = yaml.safe_load((repo_root / "mkdocs.yml").read_text("utf-8"))
    built = os.environ.get("GOLDGATE_SITE")
    if built:
        folder = repo_root / built  # absolute, or relative to the checkout
    else:
        folder = tmp_path_factory.mktemp("site") / "site"
        done = subprocess.run(
            # not --quiet: it hides the warnings --strict counts
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(folder)],
            cwd=repo_root,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    nav = _nav_pages(config["nav"])
    pages = {}
    with browser() as chrome:
        chrome.allowed.update(path.as_uri() for path in folder.rglob("*") if path.is_file())
        for name in nav:
            page = open_page(chrome, folder / name.replace(".md", ".html"))
            read = page.evaluate(_READ)
            pages[name] = Page(name=name, requests=page.requests, **read)
    return Site(folder=folder, pages=pages, nav=nav)


def test_every_page_renders_with_the_theme(site: Site) -> None:
    assert len(site.pages) >= 20
    for page in site.pages.values():
        assert page.title.strip(), page.name
        assert page.themed == "sticky", page.name  # Material's stylesheet applied
        assert page.search, page.name


def test_every_page_of_docs_is_in_the_navigation(repo_root: Path, site: Site) -> None:
    held = sorted(path.name for path in (repo_root / "docs").glob("*.md"))
    assert sorted(site.nav) == held


def test_no_internal_link_is_broken(site: Site) -> None:
    ids = {
        (site.folder / name.replace(".md", ".html")).resolve(): set(page.ids)
        for name, page in site.pages.items()
    }
    broken = []
    checked = 0
    for page in site.pages.values():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme != "file":
                continue
            target = Path(unquote(parts.path))
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            anchor = unquote(parts.fragment)
            known = ids.get(target.resolve(), {anchor}) if target.is_file() else set()
            if not target.is_file() or (anchor and anchor not in known):
                broken.append((page.name, link))
    assert checked > 100
    assert broken == []


def test_images_load_and_nothing_is_fetched_from_outside(site: Site) -> None:
    images = [image for page in site.pages.values() for image in page.images]
    assert images
    assert [src for src, width in images if not width] == []
    outside = {
        page.name: [url for url in page.requests if not url.startswith(("file:", "data:"))]
        for page in site.pages.values()
    }
    assert {name: urls for name, urls in outside.items() if urls} == {}


def test_the_search_index_holds_every_page(site: Site) -> None:
    index = json.loads((site.folder / "search" / "search_index.json").read_text("utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    pages = {name.replace(".md", ".html") for name in site.nav}
    assert pages - {"index.html"} <= locations
    assert "" in locations or "index.html" in locations
    words = " ".join(doc["text"] for doc in index["docs"])
    assert "merge-base" in words
