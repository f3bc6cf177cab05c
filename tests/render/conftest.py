"""Fixtures for the renderer tests: the corpus of reports (built once per session), the
junit-10 schema from tests/oracles, golden files and a browser."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from goldgate.report.models import Report

from .corpus import build_all

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("GOLDGATE_REGENERATE") == "1"
JUNIT_XSD = Path(__file__).resolve().parents[1] / "oracles" / "junit_xsd"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    return build_all(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def chrome() -> Iterator[Any]:
    """One headless Chromium for the session's browser tests (tests/helpers/browser.py);
    skipped, saying why, where there is none."""
    from helpers.browser import MISSING, browser, chromium

    if chromium() is None:
        pytest.skip(MISSING)
    with browser() as started:
        yield started


@pytest.fixture(scope="session")
def junit_schema() -> Any:
    """The junit-10 schema (vendored in tests/oracles) as an lxml validator."""
    from lxml import etree

    path = JUNIT_XSD / "jenkins_xunit_junit-10.xsd"
    return etree.XMLSchema(etree.parse(str(path)))


@pytest.fixture(scope="session")
def golden() -> Callable[[str, str], None]:
    """Compare ``text`` with the golden file ``name``; GOLDGATE_REGENERATE=1 rewrites it."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if REGENERATE:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
            return
        if not path.is_file():
            pytest.fail(
                f"no golden file {path}; create it with "
                "GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/render"
            )
        expected = path.read_bytes().decode("utf-8")
        assert text == expected, (
            f"{name} differs from its golden file; if the change is meant, regenerate with "
            "GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/render and review the diff"
        )

    return check
