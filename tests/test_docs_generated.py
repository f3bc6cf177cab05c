"""Nothing in the docs contradicts --help, action.yml or the schemas (issue 45): the generated
parts (the action's tables, the CLI reference, schemas/, the compiled templates) are what
``scripts/docs_gen.py`` writes today, so a changed option, input, output, model or template
that was not regenerated fails here."""

from __future__ import annotations

from pathlib import Path

from app.action.support import load_script


def test_every_generated_part_is_up_to_date(repo_root: Path) -> None:
    docs_gen = load_script("docs_gen")

    assert docs_gen.stale(repo_root) == [], "run .venv/bin/python scripts/docs_gen.py"


def test_the_cli_reference_holds_every_command(repo_root: Path) -> None:
    page = (repo_root / "docs" / "cli.md").read_text("utf-8")
    reference = page.split("<!-- cli reference -->", 1)[1]

    commands = ("evaluate", "report junit", "evals run", "adjudication apply", "schema", "publish")
    for command in (f"goldgate {name}" for name in commands):
        assert f"### `{command}`" in reference, command
    assert "Usage: goldgate report html [OPTIONS]" in reference


def test_a_stale_part_is_found(repo_root: Path, tmp_path: Path) -> None:
    docs_gen = load_script("docs_gen")
    schemas = [path.relative_to(repo_root).as_posix() for path in repo_root.glob("schemas/*")]
    precompiled = "src/goldgate/render/_precompiled.py"
    for name in ("action.yml", "docs/action.md", "docs/cli.md", precompiled, *schemas):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((repo_root / name).read_text("utf-8"), "utf-8")
    cli = tmp_path / "docs" / "cli.md"
    cli.write_text(cli.read_text("utf-8").replace("--max-concurrency", "--max-workers"), "utf-8")
    action = tmp_path / "action.yml"
    action.write_text(action.read_text("utf-8").replace("Case workers per suite", "Workers"))

    (tmp_path / "schemas" / "cases.schema.json").write_text("{}\n", "utf-8")
    (tmp_path / precompiled).write_text("CODE = {}\n", "utf-8")

    assert docs_gen.stale(tmp_path) == [
        "docs/action.md",
        "docs/cli.md",
        "schemas/cases.schema.json",
        precompiled,
    ]
