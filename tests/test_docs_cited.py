"""The docs tell the truth about the code: every file docs/extending.md names is there (but
the new ones a reader would add, which say NAME or ``(new)``), and no file of the project
cites a document the project does not hold."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

_PATH = re.compile(r"`([\w.-]+(?:/[\w.*-]+)+\.(?:py|md|json|yml|j2))`")
_WRITTEN = {"IMPORTED.md"}
"""Documents goldgate writes into a team's project (``goldgate import promptfoo`` writes
``evaluation/IMPORTED.md``), which the project itself need not hold."""
_DOCUMENT = re.compile(r"(?<![\w/.-])(docs/[\w-]+\.md|[A-Z][A-Z0-9_]+\.md)\b")


@pytest.fixture(scope="module")
def tracked(repo_root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "ls-files"], cwd=repo_root, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def named_paths(text: str) -> list[str]:
    """The repository paths ``text`` names in backticks, but on lines about new files."""
    return [
        path
        for line in text.splitlines()
        if "(new)" not in line
        for path in _PATH.findall(line)
        if "NAME" not in path
    ]


def test_every_file_extending_names_is_there(repo_root: Path) -> None:
    text = (repo_root / "docs/extending.md").read_text("utf-8")
    names = named_paths(text)
    missing = [
        name
        for name in names
        if not any(list(repo_root.glob(place)) for place in (name, f"src/goldgate/{name}"))
    ]

    assert len(names) > 30  # the three file lists and the prose around them
    assert missing == []


def test_a_path_on_a_line_about_a_new_file_is_not_required() -> None:
    text = "| `src/goldgate/render/NAME.py` (new) | x |\n| `src/a/b.py` | `tests/c.py` |\n"
    assert named_paths(text) == ["src/a/b.py", "tests/c.py"]


@pytest.mark.slow  # asks git which files the repository tracks
def test_no_file_cites_a_document_the_project_does_not_hold(
    repo_root: Path, tracked: list[str]
) -> None:
    held = set(tracked)
    names = {Path(path).name for path in tracked}
    cited: dict[str, str] = {}
    for path in tracked:
        if not path.endswith((".py", ".md", ".yml", ".toml")) or "/golden/" in path:
            continue
        if path == "tests/test_docs_cited.py":  # its own example of a missing document
            continue
        for document in _DOCUMENT.findall((repo_root / path).read_text("utf-8")):
            found = document in held if document.startswith("docs/") else document in names
            if not found and document not in _WRITTEN:
                cited.setdefault(document, path)

    assert cited == {}


def test_a_missing_document_would_be_found() -> None:
    assert _DOCUMENT.findall("see DESIGN.md and docs/extending.md, not my_docs/x.md") == [
        "DESIGN.md",
        "docs/extending.md",
    ]
