"""Workflow commands and environment files, checked against how the runner reads them."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from goldgate.github import envfiles
from goldgate.github.envfiles import append_summary, write_outputs
from goldgate.render.workflow import (
    Annotation,
    add_mask,
    annotation,
    escape_data,
    escape_property,
    limit_annotations,
    neutralize_commands,
)


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


# --- escaping -----------------------------------------------------------------------------

ESCAPES = [
    # (text, as data, as property)
    ("plain", "plain", "plain"),
    ("100%", "100%25", "100%25"),
    ("%0A", "%250A", "%250A"),
    ("a\nb", "a%0Ab", "a%0Ab"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("\r", "%0D", "%0D"),
    ("key: value", "key: value", "key%3A value"),
    ("a,b", "a,b", "a%2Cb"),
    ("::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"),
    ("%:,\n", "%25:,%0A", "%25%3A%2C%0A"),
    ("😀 é", "😀 é", "😀 é"),
    ("", "", ""),
]


@pytest.mark.parametrize(("text", "data", "prop"), ESCAPES)
def test_escaping_follows_the_runner(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


@pytest.mark.parametrize(("text", "data", "prop"), ESCAPES)
def test_escaping_round_trips_through_the_runners_unescape(text: str, data: str, prop: str) -> None:
    def unescape(value: str, table: list[tuple[str, str]]) -> str:
        # The runner replaces escapes in this order, %25 last.
        for escaped, raw in table:
            value = value.replace(escaped, raw)
        return value

    data_table = [("%0D", "\r"), ("%0A", "\n"), ("%25", "%")]
    prop_table = [("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")]
    # Only exact when the text holds no literal escape-like sequences other than '%'.
    if "%0" not in text:
        assert unescape(data, data_table) == text
        assert unescape(prop, prop_table) == text


ANNOTATIONS = [
    (("error", "broke"), {}, "::error::broke"),
    (("warning", "two\nlines"), {}, "::warning::two%0Alines"),
    (
        ("error", "case a failed"),
        {"file": "gold/cases.json", "line": 12, "title": "suite: inline, case a"},
        "::error file=gold/cases.json,line=12,title=suite%3A inline%2C case a::case a failed",
    ),
    (("notice", "50% done"), {"title": "progress"}, "::notice title=progress::50%25 done"),
    (("error", "::add-mask::x"), {}, "::error::::add-mask::x"),
]


@pytest.mark.parametrize(("args", "kwargs", "expected"), ANNOTATIONS)
def test_annotation_commands(
    args: tuple[str, str], kwargs: dict[str, object], expected: str
) -> None:
    assert annotation(*args, **kwargs) == expected  # type: ignore[arg-type]


def test_a_message_from_data_cannot_start_a_second_command() -> None:
    command = annotation("error", "x\n::add-mask::secret\n::error::forged")

    assert "\n" not in command
    assert "\r" not in command
    assert command == "::error::x%0A::add-mask::secret%0A::error::forged"


@pytest.mark.parametrize(
    ("kind", "line"), [("fatal", None), ("error", 0), ("error", -3), ("error", True)]
)
def test_annotation_refuses_unknown_kinds_and_line_numbers(kind: str, line: object) -> None:
    with pytest.raises(ValueError, match="annotation"):
        annotation(kind, "m", line=line)  # type: ignore[arg-type]


def test_annotation_record_renders_the_same_command() -> None:
    item = Annotation("warning", "m", file="f.json", line=3, title="t")

    assert item.command() == annotation("warning", "m", file="f.json", line=3, title="t")


# --- limits -------------------------------------------------------------------------------


def test_at_most_ten_of_each_kind_and_a_notice_counts_the_rest() -> None:
    items = [Annotation("error", f"e{i}") for i in range(14)]
    items += [Annotation("warning", f"w{i}") for i in range(3)]
    items += [Annotation("notice", f"n{i}") for i in range(12)]

    kept = limit_annotations(items)

    kinds = [item.kind for item in kept]
    assert kinds.count("error") == 10
    assert kinds.count("warning") == 3
    assert kinds.count("notice") == 10  # nine of ours plus the one that counts the rest
    assert [item.message for item in kept if item.kind == "error"] == [f"e{i}" for i in range(10)]
    assert kept[-1].message == (
        "4 errors and 3 notices more than GitHub shows were left out; see the job summary."
    )


def test_no_notice_when_nothing_is_left_out() -> None:
    items = [
        Annotation(kind, f"{kind}{i}") for kind in ("error", "warning", "notice") for i in range(10)
    ]

    assert limit_annotations(items) == items


def test_the_count_notice_names_where_the_rest_is() -> None:
    items = [Annotation("warning", "w")] * 3

    kept = limit_annotations(items, per_kind=2, rest_in="the report")

    assert [item.kind for item in kept] == ["warning", "warning", "notice"]
    assert kept[-1].message == "1 warning more than GitHub shows were left out; see the report."


# --- masks and neutralizing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("s3cr3t", "::add-mask::s3cr3t"),
        ("50%off", "::add-mask::50%25off"),
        ("line one\nline two", "::add-mask::line one\n::add-mask::line two"),
        ("a\r\n\r\nb", "::add-mask::a\n::add-mask::b"),
        ("", ""),
        ("  \n ", ""),
    ],
)
def test_add_mask_masks_every_line(value: str, expected: str) -> None:
    assert add_mask(value) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("::add-mask::x", ": :add-mask::x"),
        ("   ::error::forged", "   : :error::forged"),
        ("\t::stop-commands::tok", "\t: :stop-commands::tok"),
        ("ok\n::warning::x\nok", "ok\n: :warning::x\nok"),
        ("ok\r::warning::x", "ok\r: :warning::x"),
        ("a\u2028::notice::x", "a\u2028: :notice::x"),
        ("##[error]old form", "# #[error]old form"),
        ("text ##[set-output name=a;]b", "text # #[set-output name=a;]b"),
        ("a :: b", "a :: b"),
        ("no commands here", "no commands here"),
        ("", ""),
    ],
)
def test_neutralize_commands(text: str, expected: str) -> None:
    assert neutralize_commands(text) == expected


def test_no_neutralized_line_is_a_command_to_the_runner() -> None:
    hostile = "x\n::add-mask::a\r  ::error::b\n\u00a0::notice::c\n##[warning]d"

    safe = neutralize_commands(hostile)

    for line in re.split(r"\r\n|\r|\n", safe):
        assert not line.lstrip().startswith("::")
        assert "##[" not in line


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
