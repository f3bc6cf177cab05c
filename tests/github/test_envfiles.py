"""The environment files of GitHub Actions (``goldgate.github.envfiles``): outputs and the job
summary, checked against how the runner reads them."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from goldgate.github import envfiles
from goldgate.github.envfiles import append_summary, write_outputs


def read_env_file(text: str) -> dict[str, str]:
    """Parse a GITHUB_OUTPUT file as the runner does (actions/runner FileCommandManager on
    Linux): lines end at LF only; ``NAME=VALUE`` or ``NAME<<DELIM``, then the value's lines
    up to a line that is exactly the delimiter; the value is the text in between, minus the
    line break before the delimiter."""
    result: dict[str, str] = {}
    index = 0

    def read_line() -> tuple[str | None, bool]:
        nonlocal index
        if index >= len(text):
            return None, False
        end = text.find("\n", index)
        if end < 0:
            line, index = text[index:], len(text)
            return line, False
        line, index = text[index:end], end + 1
        return line, True

    line, _ = read_line()
    while line is not None:
        if line:
            equals, heredoc = line.find("="), line.find("<<")
            if equals >= 0 and (heredoc < 0 or equals < heredoc):
                key, value = line.split("=", 1)
            elif heredoc >= 0:
                key, delimiter = line.split("<<", 1)
                assert key, f"invalid heredoc line {line!r}"
                assert delimiter, f"invalid heredoc line {line!r}"
                start = end = index
                current, newline = read_line()
                while current != delimiter:
                    assert current is not None, f"delimiter {delimiter!r} not found"
                    assert newline, "EOF marker missing new line"
                    end = index - 1
                    current, newline = read_line()
                value = text[start:end] if end > start else ""
            else:
                raise AssertionError(f"invalid line {line!r}")
            result[key] = value
        line, _ = read_line()
    return result


# --- outputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "",
        "two\nlines",
        "trailing newline\n",
        "\n\nleading blank lines",
        "crlf\r\nkept\r\n",
        "lone \r carriage return",
        "looks=like an output",
        "other<<EOF\nEOF\nname<<x",
        "ghadelimiter_not-the-one\nghadelimiter_",
        "unicode \u2028 line separator 😀",
    ],
)
def test_outputs_read_back_exactly_as_written(tmp_path: Path, value: str) -> None:
    output = tmp_path / "github_output"
    output.write_text("earlier=1\n", encoding="utf-8")

    write_outputs(output, {"verdict": value, "exit-code": "0"})

    text = output.read_bytes().decode("utf-8")
    assert read_env_file(text) == {"earlier": "1", "verdict": value, "exit-code": "0"}


def test_every_output_gets_a_random_delimiter(tmp_path: Path) -> None:
    output = tmp_path / "out"

    write_outputs(output, {"a": "1", "b": "2"})

    delimiters = re.findall(r"^\w+<<(.+)$", output.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(delimiters) == 2
    assert delimiters[0] != delimiters[1]
    assert all(re.fullmatch(r"ghadelimiter_[0-9a-f-]{36}", d) for d in delimiters)


def test_a_value_holding_the_delimiter_gets_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = uuid.UUID(int=1), uuid.UUID(int=2)
    draws = iter([first, second])
    monkeypatch.setattr(envfiles.uuid, "uuid4", lambda: next(draws))
    value = f"a line\nghadelimiter_{first}\nname=injected"
    output = tmp_path / "out"

    write_outputs(output, {"report": value})

    assert read_env_file(output.read_text(encoding="utf-8")) == {"report": value}
    assert f"report<<ghadelimiter_{second}\n" in output.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["", "a b", "a=b", "a<<b", "1st", "new\nline"])
def test_output_names_that_the_runner_would_misread_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="output name"):
        write_outputs(tmp_path / "out", {name: "v"})


# --- job summary --------------------------------------------------------------------------


def test_summary_is_appended(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")

    assert append_summary(summary, "## goldgate\npassed")

    assert summary.read_text(encoding="utf-8") == "# earlier step\n## goldgate\npassed\n"


def test_summary_over_the_limit_is_cut_at_a_line_with_a_note(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("x" * 100 + "\n", encoding="utf-8")
    markdown = "".join(f"| row {i} | é |\n" for i in range(200))

    complete = append_summary(summary, markdown, limit=1500, rest_in="the report artifact")

    text = summary.read_bytes()
    assert not complete
    assert len(text) <= 1500
    body = text.decode("utf-8")
    assert body.endswith("the rest is in the report artifact.\n")
    kept = body.split("\n> The job summary was cut here")[0]
    assert kept.endswith("|\n")  # whole rows only
    assert markdown.startswith(kept[101:])


def test_summary_at_the_real_limit(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    line = "| case | passed |\n"

    append_summary(summary, line * (envfiles.SUMMARY_LIMIT // len(line) + 10))

    assert summary.stat().st_size <= envfiles.SUMMARY_LIMIT


def test_a_full_summary_is_left_alone(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"x" * 1000)

    assert not append_summary(summary, "more\n", limit=1000)

    assert summary.read_bytes() == b"x" * 1000
