"""Quoting data in messages: control characters shown visibly, JSON values written as JSON."""

from __future__ import annotations

import re
import sys
import unicodedata
from types import MappingProxyType

import pytest

from goldgate.base.textsafe import (
    escape_control,
    has_control,
    printable,
    quote,
    refuse_control,
    starts_command,
)


def test_every_control_character_is_shown_visibly() -> None:
    # Found in the test, not at import: the scan over every code point costs 0.3 s of CPU,
    # paid in each test process that only collects this module.
    controls = [
        chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cc"
    ]
    assert len(controls) == 65  # U+0000-U+001F and U+007F-U+009F: Unicode keeps Cc fixed
    for char in controls:
        shown = escape_control(f"a{char}b")
        assert shown.isprintable(), repr(char)
        assert has_control(char)
    assert escape_control("a\nb\r\tc") == "a\\nb\\r\\tc"
    assert escape_control("\x1b[31m\x7f\x85") == "\\x1b[31m\\x7f\\u0085"


def test_other_text_is_left_alone() -> None:
    text = "café 😀 \\n ab / ~ \" ' :: a ##"
    assert escape_control(text) == text
    assert not has_control(text)


@pytest.mark.parametrize(
    "char", ["\u2028", "\u2029", "\u200b", "\u200e", "\u202e", "\u2066", "\u2069", "\ufeff"]
)
def test_line_separators_and_invisible_marks_are_shown_visibly(char: str) -> None:
    shown = f"\\u{ord(char):04x}"
    assert escape_control(f"a{char}b") == f"a{shown}b"
    assert quote(f"a{char}b") == f'"a{shown}b"'


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (1.5, "1.5"),
        ("x", '"x"'),
        ("it's", '"it\'s"'),
        ("a\nb\x1b\x85\x7f", '"a\\nb\\u001b\\u0085\\u007f"'),
        (["a", None], '["a", null]'),
        (MappingProxyType({"k": (1, 2)}), '{"k": [1, 2]}'),
        ("é😀", '"é😀"'),
    ],
)
def test_quote_writes_json(value: object, shown: str) -> None:
    assert quote(value) == shown


def test_quote_elides_long_values() -> None:
    quoted = quote("x" * 1000)

    assert len(quoted) == 80
    assert quoted.startswith('"xxx')
    assert quoted.endswith("…")


def test_refuse_control() -> None:
    assert refuse_control("fine name") == "fine name"
    with pytest.raises(ValueError, match=r'found "a\\nb"$'):
        refuse_control("a\nb")


@pytest.mark.parametrize(
    "name",
    ["::error::x", " ::warning::x", "\t::add-mask::x", "\u00a0::notice::x", "\u200b::x",
     "\ufeff::stop-commands::t", "\u202e::x", "::"],
)  # fmt: skip
def test_a_name_that_would_start_a_workflow_command_is_refused(name: str) -> None:
    assert starts_command(name)
    with pytest.raises(ValueError, match=r"must not (start with '::'|hold control)"):
        refuse_control(name)


@pytest.mark.parametrize("name", ["a::b", ": :x", "x ::error::y", "#1", "##x"])
def test_colons_elsewhere_are_a_name_s_own(name: str) -> None:
    assert refuse_control(name) == name


@pytest.mark.parametrize("name", ["a\u2028b", "a\u2029b"])
def test_a_name_with_a_line_separator_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="control characters"):
        refuse_control(name)


# Lines as the runner reads a step's output (.NET ReadLine: CRLF, CR or LF), the command
# forms it obeys: ``::`` after blanks at a line's start, ``##[`` anywhere.
RUNNER_LINES = re.compile(r"\r\n|\r|\n")
HOSTILE = [
    "::error::x",
    "ok\n::add-mask::secret",
    "ok\r::stop-commands::token",
    "a\r\n  \t::warning::x",
    "\u00a0\u3000::notice::x",
    "\u200b\ufeff::error::x",
    "\u2028::error::x",
    "\x85::error::x",
    "x ##[error]old form",
    "##[add-mask]y\n##[set-output name=a;]b",
    "\x1b[31m::error::x",
    "\x1b[1;31m \u200b::warning::x\x1b[0m",
    "x\n::add-mask::a\r  ::error::b\n\u00a0::notice::c\n##[warning]d",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_no_printable_line_is_a_workflow_command(text: str) -> None:
    safe = printable(text)

    for line in RUNNER_LINES.split(safe):
        assert not starts_command(line), repr(line)
        assert not line.lstrip().startswith("::"), repr(line)
        assert "##[" not in line
    assert printable(safe) == safe  # nothing left to neutralise


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
def test_printable_breaks_each_command_at_its_start(text: str, expected: str) -> None:
    assert printable(text) == expected


def test_printable_leaves_other_text_as_it_is() -> None:
    text = "suite a: 3/4 attempts done\n  a::b :: c # #\r[###---] 1/2\n"
    assert printable(text) == text


def test_a_colour_sequence_does_not_hide_a_command() -> None:
    assert starts_command("\x1b[1m::error::x")
    assert printable("\x1b[1m::error::x\x1b[0m") == "\x1b[1m: :error::x\x1b[0m"
    assert not starts_command("\x1b[1mgoldgate: ok")
