"""Write the README's "GitHub Action" input and output tables from action.yml.

    .venv/bin/python scripts/action_docs.py           # rewrite the tables in README.md
    .venv/bin/python scripts/action_docs.py --check   # exit 1 if they would change

The tables sit between ``<!-- action.yml inputs -->`` / ``<!-- action.yml outputs -->`` and
``<!-- end -->``; everything else in the README is left alone.
tests/app/action/test_action_metadata.py reads both files on its own and compares them.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ACTION = ROOT / "action.yml"


def cell(text: str) -> str:
    """One Markdown table cell: on one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def tables(action: dict[str, Any]) -> dict[str, str]:
    inputs = ["| input | default | description |", "|---|---|---|"]
    for name, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        shown = f"`{default}`" if default else '`""`'
        inputs.append(f"| `{name}` | {cell(shown)} | {cell(spec['description'])} |")
    outputs = ["| output | description |", "|---|---|"]
    for name, spec in action["outputs"].items():
        outputs.append(f"| `{name}` | {cell(spec['description'])} |")
    return {"inputs": "\n".join(inputs), "outputs": "\n".join(outputs)}


def render(readme: str, action: dict[str, Any]) -> str:
    for kind, table in tables(action).items():
        pattern = re.compile(rf"(<!-- action\.yml {kind} -->\n).*?(<!-- end -->)", re.DOTALL)
        if not pattern.search(readme):
            raise SystemExit(f"README.md has no '<!-- action.yml {kind} -->' ... '<!-- end -->'")
        readme = pattern.sub(
            lambda match, t=table: f"{match.group(1)}{t}\n{match.group(2)}", readme
        )
    return readme


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md would change")
    check = parser.parse_args().check
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    current = README.read_text(encoding="utf-8")
    updated = render(current, action)
    if check:
        if updated != current:
            print("README.md's action tables are out of date: run scripts/action_docs.py")
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
