"""The action's one writer of workflow commands (``app.action.commands.WorkflowCommands``):
one escaping for every sentence, one way to refuse a bad input, and no other module of
goldgate that formats a workflow command."""

from __future__ import annotations

import ast
from pathlib import Path

from goldgate.app.action.commands import WorkflowCommands
from goldgate.base.textsafe import note_secret_values

from .conftest import parse_outputs

SRC = Path(__file__).resolve().parents[3] / "src" / "goldgate"
WRITER = SRC / "render" / "workflow_commands.py"


def _writer(env: dict[str, str] | None = None) -> tuple[WorkflowCommands, list[str]]:
    lines: list[str] = []
    return WorkflowCommands(env or {}, lines.append), lines


def test_every_kind_escapes_its_sentence_one_way() -> None:
    commands, lines = _writer()
    commands.error("50% done\nthen ::stop", file="a,b.yaml", line=3)
    commands.warning("x\ry")
    commands.notice("plain")
    assert lines == [
        "::error title=goldgate,file=a%2Cb.yaml,line=3::50%25 done\\nthen ::stop\n",
        "::warning title=goldgate::x\\ry\n",
        "::notice title=goldgate::plain\n",
    ]


def test_a_known_secret_is_redacted_and_masked_line_by_line() -> None:
    commands, lines = _writer()
    note_secret_values(["s3cr3t-value-for-the-writer"])
    commands.error("the token s3cr3t-value-for-the-writer was refused")
    commands.mask("one\ntwo")
    commands.mask("  ")
    assert lines == [
        "::error title=goldgate::the token *** was refused\n",
        "::add-mask::one\n::add-mask::two\n",
    ]


def test_refuse_is_the_error_the_exit_code_output_and_2(tmp_path: Path) -> None:
    output = tmp_path / "output"
    output.write_text("", "utf-8")
    commands, lines = _writer({"GITHUB_OUTPUT": str(output)})

    assert commands.refuse("input mode must be one of a, b, not 'c'.") == 2
    assert lines == ["::error title=goldgate::input mode must be one of a, b, not 'c'.\n"]
    assert parse_outputs(output.read_text("utf-8")) == {"exit_code": "2"}


def test_a_file_that_cannot_be_written_is_a_warning(tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "such" / "file")
    commands, lines = _writer({"GITHUB_OUTPUT": missing, "GITHUB_STEP_SUMMARY": missing})
    commands.output({"exit_code": "0"})
    commands.summary("# hi\n")
    assert [line.split("::")[1] for line in lines] == ["warning title=goldgate"] * 2
    assert "outputs could not be written" in lines[0]
    assert "job summary could not be written" in lines[1]


def _command_lines(source: str) -> list[int]:
    """The lines of ``source`` with a string constant (plain, or the first text part of an
    f-string) that starts with ``::``: a workflow command (``"::"`` alone is a separator)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and str(first.value).startswith("::"):
                found.add(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(
                [node.lineno] if node.value.startswith("::") and node.value != "::" else []
            )
    return sorted(found)


def test_no_module_but_the_writer_formats_a_workflow_command() -> None:
    formatting = sorted(
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if _command_lines(path.read_text("utf-8"))
    )
    assert formatting == [str(WRITER.relative_to(SRC))]


def test_the_check_sees_a_command_in_a_plain_string_and_an_f_string() -> None:
    source = 'a = "::error::x"\nb = f"::warning title={a}::y"\nc = "a::b"\nd = "::"\n'
    assert _command_lines(source) == [1, 2]
    assert _command_lines('e = f"{a}::{b}"\nf = "::".join(x)\n') == []
