"""The documentation pages tell the truth about the code (issue 45): troubleshooting quotes
messages goldgate still writes, and every message family of exit code 2 the code raises most
is on that page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def source_text(repo_root: Path) -> str:
    return "\n".join(
        path.read_text("utf-8") for path in sorted((repo_root / "src" / "goldgate").rglob("*.py"))
    )


def _quoted_messages(page: str) -> list[str]:
    """The first backticked fragment of each row of the page's table (a message's words)."""
    return re.findall(r"^\| `([^`]+)`", page, flags=re.MULTILINE)


def test_troubleshooting_quotes_messages_goldgate_writes(repo_root: Path, source_text: str) -> None:
    page = (repo_root / "docs" / "troubleshooting.md").read_text("utf-8")
    quoted = _quoted_messages(page)

    assert len(quoted) >= 20
    assert [fragment for fragment in quoted if fragment not in source_text] == []


def test_a_message_the_code_no_longer_writes_would_be_found(source_text: str) -> None:
    page = "| `settings file not found` | a | b |\n| `a sentence nobody wrote` | a | b |\n"
    quoted = _quoted_messages(page)
    assert [fragment for fragment in quoted if fragment not in source_text] == [
        "a sentence nobody wrote"
    ]


def test_every_file_a_page_names_is_there(repo_root: Path) -> None:
    """The pages name files of goldgate's repository in backticks (``tests/test_site.py``):
    each is there, but on lines about a file a reader would add (test_docs_cited's rule).
    Paths in a team's project (``evaluation/dataset.json``, ``.goldgate/...``) are not
    goldgate's files."""
    from test_docs_cited import named_paths

    ours = ("src/", "tests/", "scripts/", "examples/", "benchmarks/", "docs/", "schemas/")
    pages = [*sorted((repo_root / "docs").glob("*.md")), repo_root / "README.md"]
    named = {
        path
        for page in pages
        for path in named_paths(page.read_text("utf-8"))
        if path.startswith(ours) or (repo_root / "src/goldgate" / path).parent.is_dir()
    }
    missing = sorted(
        path
        for path in named
        if not any(list(repo_root.glob(place)) for place in (path, f"src/goldgate/{path}"))
    )

    assert len(named) > 50
    assert missing == []
