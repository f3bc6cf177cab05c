"""The README, --help and the code say the same thing: options, exit codes, schema names, and
the two commands a fresh machine starts with."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goldgate.app.schema import SCHEMA_NAMES
from goldgate.base.errors import EXIT_CODE_MEANINGS


@pytest.fixture(scope="module")
def readme(repo_root: Path) -> str:
    return (repo_root / "README.md").read_text(encoding="utf-8")


def _options(run_cli: Any, *command: str) -> set[str]:
    result = run_cli(*command, "--help")
    assert result.code == 0, result.output
    return set(re.findall(r"(--[a-z][a-z-]+)", result.stdout)) - {"--help"}


_COMMANDS = [
    ("init",),
    ("import", "promptfoo"),
    ("evaluate",),
    ("validate",),
    ("report", "junit"),
    ("report", "markdown"),
    ("report", "annotations"),
    ("report", "html"),
    ("report", "fork-comment"),
    ("report", "show"),
    ("evals", "run"),
    ("evals", "regrade"),
    ("adjudication", "export"),
    ("adjudication", "apply"),
    ("judge", "calibrate"),
    ("action",),
    ("publish",),
]


@pytest.mark.parametrize("command", _COMMANDS)
def test_every_option_in_help_is_in_the_readme(
    run_cli: Any, readme: str, command: tuple[str, ...]
) -> None:
    options = _options(run_cli, *command)

    assert options, "no options found in --help"
    missing = sorted(option for option in options if option not in readme)
    assert missing == [], f"README does not mention {missing} of goldgate {' '.join(command)}"


def test_every_option_the_readme_names_exists(run_cli: Any, readme: str) -> None:
    known = {"--version"}.union(*(_options(run_cli, *command) for command in _COMMANDS))
    named = set(re.findall(r"`goldgate [^`]*`", readme))
    options = {option for text in named for option in re.findall(r"(--[a-z][a-z-]+)", text)}

    assert options
    assert sorted(options - known) == []


def test_exit_codes_in_readme_and_help_match_the_code(run_cli: Any, readme: str) -> None:
    table = dict(re.findall(r"^\| (\d+) \| ([^|]+?)(?::| —|\|)", readme, flags=re.MULTILINE))
    help_text = " ".join(run_cli("--help").stdout.split())

    assert {int(code) for code in table} == {int(code) for code in EXIT_CODE_MEANINGS}
    for code, meaning in EXIT_CODE_MEANINGS.items():
        assert table[str(int(code))].strip().startswith(meaning), (code, table[str(int(code))])
        assert f"{int(code)} {meaning}" in help_text


def test_schema_names_agree(run_cli: Any, readme: str) -> None:
    usage = run_cli("schema", "--help").stdout
    listed = re.search(r"`goldgate schema ([a-z|\\]+)`", readme)

    assert listed is not None
    assert listed.group(1).replace("\\", "").split("|") == list(SCHEMA_NAMES)
    assert all(name in usage for name in SCHEMA_NAMES)


def test_readme_starts_with_the_example_command_and_the_test_command(
    repo_root: Path, readme: str
) -> None:
    blocks = re.findall(r"```sh\n(.+?)\n```", readme, flags=re.DOTALL)
    ci_run = (repo_root / ".ci" / "run").read_text(encoding="utf-8")
    workflow = (repo_root / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")

    assert "goldgate evaluate --config examples/support_triage/config/settings.yaml" in blocks[0]
    test_steps = blocks[1].split(" && ")[2:]
    assert test_steps == [
        ".venv/bin/ruff check src tests",
        ".venv/bin/mypy",
        ".venv/bin/python -m pytest -q -n auto --dist loadgroup",
    ]
    for step in test_steps:
        assert step in ci_run, f".ci/run does not run the README's {step!r}"
        assert step in workflow, f"the CI workflow does not run the README's {step!r}"


def test_help_imports_nothing_heavy() -> None:
    # --help must start fast: the models, YAML, anyio and (later) jinja2 or PyGithub load
    # only inside the commands that use them. Import-based, so it does not depend on timing.
    heavy = ("pydantic", "anyio", "yaml", "jinja2", "github", "goldgate.gold")
    code = f"import sys; import goldgate.cli; print([m for m in {heavy!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"


def test_the_readme_python_example_runs(
    repo_root: Path, readme: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    import anyio

    code = re.search(r"## Python API.*?```python\n(.*?)```", readme, flags=re.DOTALL)
    assert code is not None
    monkeypatch.chdir(repo_root)
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)
    anyio.run(namespace["main"])

    assert capsys.readouterr().out == "passed\n"


def test_the_report_format_page_names_every_field(repo_root: Path) -> None:
    from goldgate.report import models
    from goldgate.report.records import REPORT_FORMAT_VERSION

    page = (repo_root / "docs" / "report-format.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_.]+)`", page))
    records = (
        models.Report,
        models.SuiteRecord,
        models.CaseRecord,
        models.ExpectationRecord,
        models.AttemptRecord,
        models.CheckRecord,
    )
    fields = {field.name for record in records for field in dataclasses.fields(record)}

    assert sorted(fields - documented) == []
    assert f"goldgate.report/{REPORT_FORMAT_VERSION}" in page


def test_the_comparison_format_page_names_every_field(repo_root: Path) -> None:
    from goldgate.comparison import models

    page = (repo_root / "docs" / "comparison-format.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_0-9.]+)`", page))
    records = [
        value
        for value in vars(models).values()
        if isinstance(value, type)
        and issubclass(value, models.BaseModel)
        and value.__module__ == models.__name__
    ]
    fields = {name for record in records for name in record.model_fields}

    assert len(records) > 10
    assert sorted(fields - documented) == []
    assert models.COMPARISON_FORMAT in page


def test_the_readme_shows_the_comment_the_renderer_writes(repo_root: Path, readme: str) -> None:
    """The README's sample comment is the start of the golden comment of the example's
    comparison, so it shows what goldgate writes today."""
    golden = (repo_root / "tests/render/golden/compared/comment.md").read_text("utf-8")
    quoted = re.search(r"### What the check looks like\n.*?\n\n((?:>[^\n]*\n)+)", readme, re.DOTALL)
    assert quoted is not None
    shown = [line.removeprefix(">").removeprefix(" ") for line in quoted.group(1).splitlines()]
    assert shown == golden.splitlines()[: len(shown)]
    assert len(shown) >= 5


def test_the_readme_states_the_engines_limits_as_the_code_sets_them(readme: str) -> None:
    from goldgate.gold._stream.parallel import MAX_HELPERS, PARALLEL_BYTES, PARALLEL_FROM
    from goldgate.gold._stream.store import KEPT_BYTES, KEPT_PATTERN_BYTES
    from goldgate.run.runner import RUN_AHEAD

    text = " ".join(readme.split())
    cores = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}[MAX_HELPERS + 1]
    for stated in (
        f"a case file of more than {PARALLEL_FROM:,} cases (or of {PARALLEL_BYTES // 2**20} MiB, "
        "from its first case) is checked on every core",
        f"up to {cores}: helper processes forked from goldgate",
        f"keeps at most {RUN_AHEAD:,} finished attempts waiting",
        f"up to {KEPT_BYTES // 2**20} MiB of it",
        f"compiled, up to {KEPT_PATTERN_BYTES // 2**20} MiB of them",
    ):
        assert stated in text, stated
