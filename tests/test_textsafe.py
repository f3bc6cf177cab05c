"""Quoting data in messages: control characters shown visibly, JSON values written as JSON."""

from __future__ import annotations

import sys
import unicodedata
from types import MappingProxyType

import pytest

from goldgate.textsafe import escape_control, has_control, quote, refuse_control

CONTROLS = [
    chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cc"
]


def test_every_control_character_is_shown_visibly() -> None:
    for char in CONTROLS:
        shown = escape_control(f"a{char}b")
        assert shown.isprintable(), repr(char)
        assert has_control(char)
    assert escape_control("a\nb\r\tc") == "a\\nb\\r\\tc"
    assert escape_control("\x1b[31m\x7f\x85") == "\\x1b[31m\\x7f\\u0085"


def test_other_text_is_left_alone() -> None:
    text = "café 😀 \\n a\u2028b / ~ \" '"
    assert escape_control(text) == text
    assert not has_control(text)


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
