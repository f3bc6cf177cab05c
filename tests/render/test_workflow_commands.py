"""Workflow commands (``goldgate.render.workflow_commands``), checked against how the runner
reads them: escaping, one command per line, masks."""

from __future__ import annotations

import pytest

from goldgate.render.workflow_commands import add_mask, command, escape_data, escape_property

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


COMMANDS = [
    (("error", "broke"), {}, "::error::broke"),
    (
        ("error", "case a failed"),
        {"file": "gold/cases.json", "line": 12, "title": "suite: inline, case a"},
        "::error file=gold/cases.json,line=12,title=suite%3A inline%2C case a::case a failed",
    ),
    (("notice", "50% done"), {"title": "progress"}, "::notice title=progress::50%25 done"),
    (("error", "::add-mask::x"), {}, "::error::::add-mask::x"),
    (("warning", "m"), {"file": None, "line": 3}, "::warning line=3::m"),
]


@pytest.mark.parametrize(("args", "kwargs", "expected"), COMMANDS)
def test_commands(
    args: tuple[str, str], kwargs: dict[str, str | int | None], expected: str
) -> None:
    assert command(*args, **kwargs) == expected


def test_a_message_from_data_cannot_start_a_second_command() -> None:
    line = command("error", "x\n::add-mask::secret\r::error::forged", title="a\nb")

    assert "\n" not in line
    assert "\r" not in line
    assert line == "::error title=a b::x ::add-mask::secret ::error::forged"


# --- masks --------------------------------------------------------------------------------


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
