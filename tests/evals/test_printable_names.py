"""An eval's name and dataset are printed like gold names: one that would start a workflow
command is refused (exit 2, one sentence), through the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from run.support import run_cli

EVAL = """
from goldgate.evals import eval


def subject(ctx):
    ctx.output = "ok"


subject.__name__ = {name!r}
subject = eval(cases=[{{"input": "a"}}])(subject)
"""


@pytest.mark.parametrize(
    ("file", "name", "what"),
    [
        ("eval_named.py", "::error::forged", 'the eval name "::error::forged"'),
        ("::stop-commands::t_eval.py", "fine", 'the dataset "::stop-commands::t_eval"'),
    ],
)
def test_an_eval_name_or_dataset_that_would_start_a_command_is_refused(
    tmp_path: Path, file: str, name: str, what: str
) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / file).write_text(EVAL.format(name=name), "utf-8")

    result = run_cli("evals", "run", file, cwd=tmp_path)

    assert result.code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert what in line
    assert "must not hold control characters nor start with '::'" in line
    assert not any(part.lstrip().startswith("::") for part in result.output.splitlines())
