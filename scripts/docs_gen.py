"""Regenerate every generated part of the documentation, in one command.

    .venv/bin/python scripts/docs_gen.py           # rewrite them, and the screenshots
    .venv/bin/python scripts/docs_gen.py --check   # exit 1, naming each, if one would change
    .venv/bin/python scripts/docs_gen.py --no-screenshots   # all but the screenshots

The generated parts:

- the action's input and output tables (``scripts/action_docs.py``, from ``action.yml``) in
  ``docs/action.md`` (``<!-- action.yml inputs -->`` ... ``<!-- end -->``);
- the CLI reference in ``docs/cli.md``, between ``<!-- cli reference -->`` and
  ``<!-- end -->``: ``--help`` of every command of the typer app, as click prints it at 100
  columns;
- the JSON Schemas in ``schemas/`` (what ``goldgate schema NAME`` prints), which the gold
  page's examples are validated against and editors read;
- the renderers' Jinja templates compiled ahead, ``src/goldgate/render/_precompiled.py``
  (``goldgate.render.precompile``; ``scripts/precompile_templates.py`` writes it alone);
- the screenshots in ``docs/images/`` (``scripts/screenshots.py``, which needs Chromium; left
  out with ``--no-screenshots`` and by ``--check``, since ``tests/test_screenshots.py`` checks
  them).

``tests/test_docs_generated.py`` fails when a text part is stale, ``tests/app/test_schemas.py``
when a schema is, ``tests/render/test_precompiled.py`` when the compiled templates are.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION_PAGES = ("docs/action.md",)
CLI_PAGE = "docs/cli.md"
PRECOMPILED = "src/goldgate/render/_precompiled.py"
WIDTH = 100


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands(command: Any, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every command's path under ``command`` (a click group: typer's own copy of click)."""
    found = [path]
    for name in getattr(command, "commands", {}):
        found += _commands(command.commands[name], (*path, name))
    return found


def cli_reference() -> str:
    """Every command's ``--help``, as Markdown sections."""
    import typer.main

    from goldgate.cli import app

    root = typer.main.get_command(app)
    sections = []
    for path in _commands(root, ("goldgate",)):
        context = root.context_class(root, info_name="goldgate", terminal_width=WIDTH)
        command = root
        for name in path[1:]:
            command = command.commands[name]
            context = command.context_class(
                command, info_name=name, parent=context, terminal_width=WIDTH
            )
        text = command.get_help(context).rstrip()
        sections.append(f"### `{' '.join(path)}`\n\n```text\n{text}\n```\n")
    return "\n".join(sections)


def _between(text: str, marker: str, content: str, page: str) -> str:
    pattern = re.compile(rf"(<!-- {re.escape(marker)} -->\n).*?(<!-- end -->)", re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{page} has no '<!-- {marker} -->' ... '<!-- end -->'")
    return pattern.sub(lambda match: f"{match.group(1)}{content}\n{match.group(2)}", text)


def generated(root: Path = ROOT) -> dict[str, str]:
    """Each page that holds a generated part, as it should read (relative path: text)."""
    action_docs = _script("action_docs")
    action: dict[str, Any] = yaml.safe_load((root / "action.yml").read_text("utf-8"))
    pages = {}
    for page in ACTION_PAGES:
        text = (root / page).read_text("utf-8")
        if "<!-- action.yml inputs -->" in text:
            pages[page] = action_docs.render(text, action)
    cli = pages.get(CLI_PAGE) or (root / CLI_PAGE).read_text("utf-8")
    pages[CLI_PAGE] = _between(cli, "cli reference", cli_reference(), CLI_PAGE)
    from goldgate.app.schema import SCHEMA_NAMES, schema_text

    for name in SCHEMA_NAMES:
        pages[f"schemas/{name}.schema.json"] = schema_text(name)
    from goldgate.render.precompile import precompiled_module

    pages[PRECOMPILED] = precompiled_module()
    return pages


def stale(root: Path = ROOT) -> list[str]:
    """The pages whose generated parts are out of date."""
    pages = generated(root).items()
    return [page for page, text in pages if (root / page).read_text("utf-8") != text]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a part would change")
    parser.add_argument("--no-screenshots", action="store_true", help="leave docs/images alone")
    arguments = parser.parse_args()
    if arguments.check:
        for page in stale():
            print(f"{page}: a generated part is out of date: run scripts/docs_gen.py")
        return 1 if stale() else 0
    for page, text in generated().items():
        (ROOT / page).write_text(text, encoding="utf-8")
    if not arguments.no_screenshots:
        return int(_script("screenshots").main())
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
