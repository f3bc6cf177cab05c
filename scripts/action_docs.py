"""Write the input and output tables of docs/action.md (the GitHub Action's page) from
action.yml. scripts/docs_gen.py, which regenerates every generated part of the docs, calls it.

The tables are those of the composite action (action.yml); the container action
(docker/action.yml) takes the same inputs, but ``python`` (``COMPOSITE_ONLY``), with the same
defaults and descriptions, and gives the same outputs: this script refuses to write the
tables while the two files disagree, so one pair of tables is true of both.

    .venv/bin/python scripts/action_docs.py           # rewrite the tables in docs/action.md
    .venv/bin/python scripts/action_docs.py --check   # exit 1 if they would change

The tables sit between ``<!-- action.yml inputs -->`` / ``<!-- action.yml outputs -->`` and
``<!-- end -->``; everything else on the page is left alone.
tests/app/action/test_action_metadata.py reads both files on its own and compares them.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "docs" / "action.md"
ACTION = ROOT / "action.yml"
DOCKER_ACTION = ROOT / "docker" / "action.yml"
COMPOSITE_ONLY = ("python",)
"""Inputs only the composite action has: the job's Python, which the container replaces."""


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


def disagreements(composite: dict[str, Any], docker: dict[str, Any]) -> list[str]:
    """Where docker/action.yml's inputs and outputs are not action.yml's (but ``python``)."""
    found = []
    shared = {k: v for k, v in composite["inputs"].items() if k not in COMPOSITE_ONLY}
    if list(docker["inputs"]) != list(shared):
        found.append(f"inputs {list(docker['inputs'])} are not {list(shared)}")
    for name, spec in shared.items():
        other = docker["inputs"].get(name, {})
        for key in ("default", "description"):
            if other.get(key) != spec.get(key):
                found.append(f"input {name}: the {key} differs")
    if list(docker["outputs"]) != list(composite["outputs"]):
        found.append(f"outputs {list(docker['outputs'])} are not {list(composite['outputs'])}")
    for name, spec in composite["outputs"].items():
        if docker["outputs"].get(name, {}).get("description") != spec["description"]:
            found.append(f"output {name}: the description differs")
    return found


def render(readme: str, action: dict[str, Any]) -> str:
    for kind, table in tables(action).items():
        pattern = re.compile(rf"(<!-- action\.yml {kind} -->\n).*?(<!-- end -->)", re.DOTALL)
        if not pattern.search(readme):
            raise SystemExit(
                f"docs/action.md has no '<!-- action.yml {kind} -->' ... '<!-- end -->'"
            )
        readme = pattern.sub(
            lambda match, t=table: f"{match.group(1)}{t}\n{match.group(2)}", readme
        )
    return readme


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if docs/action.md would change"
    )
    check = parser.parse_args().check
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    docker = yaml.safe_load(DOCKER_ACTION.read_text(encoding="utf-8"))
    for disagreement in disagreements(action, docker):
        print(f"docker/action.yml and action.yml disagree: {disagreement}")
    if disagreements(action, docker):
        return 1
    current = README.read_text(encoding="utf-8")
    updated = render(current, action)
    if check:
        if updated != current:
            print("docs/action.md's tables are out of date: run scripts/action_docs.py")
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
