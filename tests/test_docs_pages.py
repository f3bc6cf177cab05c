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
