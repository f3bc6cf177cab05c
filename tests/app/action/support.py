"""Where the repository is, and a way to import one of its scripts/ as a module."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[3]


def why(markdown: str) -> str:
    """The sentence under the verdict of a comment or summary that says which fail_on rule
    decided (after ``**Why:** ``)."""
    assert "**Why:** " in markdown, markdown[:300]
    line = markdown.split("**Why:** ", 1)[1].split("\n", 1)[0]
    return re.sub(r"\\(.)", r"\1", line)  # as it reads: Markdown's escapes undone


def load_script(name: str) -> Any:
    """``scripts/<name>.py`` imported as a module (scripts/ is no package)."""
    path = REPO_ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
