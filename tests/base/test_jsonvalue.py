"""Strict JSON with positions, frozen values, JSON equality and RFC 6901 pointers."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import MappingProxyType

import pytest

from goldgate.base.errors import ExitCode, InvalidInputError, JsonSyntaxError, PointerSyntaxError
from goldgate.base.jsonvalue import (
    MISSING,
    canonical_json,
    freeze,
    json_equal,
    json_type_name,
    thaw,
)
from goldgate.base.pointers import format_pointer, parse_pointer, resolve, resolve_pointer
from goldgate.base.strictjson import decode_utf8, load_json_file, parse_json_text

# --- strict parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        pytest.param('{"a": 1, "a": 2}', 1, 10, 'duplicate key "a"', id="duplicate-key"),
        pytest.param('{"a": {"b": 1,\n  "b": 2}}', 2, 3, 'duplicate key "b"', id="nested-dup"),
        pytest.param("[NaN]", 1, 2, "NaN is not a JSON value", id="nan"),
        pytest.param("Infinity", 1, 1, "Infinity is not a JSON value", id="infinity"),
        pytest.param("[-Infinity]", 1, 2, "-Infinity is not a JSON value", id="minus-infinity"),
        pytest.param(
            "[1e999]", 1, 2, "number is out of range for a 64-bit float", id="float-overflow"
        ),
        pytest.param(
            "[-1.5E400]", 1, 2, "number is out of range for a 64-bit float", id="negative-overflow"
        ),
        pytest.param("{} x", 1, 4, "unexpected data after the JSON value", id="trailing-data"),
        pytest.param("[1,]", 1, 4, "expected a JSON value, found ']'", id="trailing-comma"),
        pytest.param(
            '{"a": 1,}', 1, 9, "expected a string key in double quotes, found '}'", id="obj-comma"
        ),
        pytest.param(
            "{'a': 1}",
            1,
            2,
            'expected a string key in double quotes, found "\'"',
            id="single-quoted-key",
        ),
        pytest.param('{"a" 1}', 1, 6, "expected ':' after a key, found '1'", id="no-colon"),
        pytest.param("[1 2]", 1, 4, "expected ',' or ']', found '2'", id="no-comma"),
        pytest.param('["abc', 1, 2, "unterminated string", id="unterminated"),
        pytest.param('["ab\nc"]', 1, 2, "unterminated string", id="newline-in-string"),
        pytest.param(
            '["a\x01"]', 1, 4, "control character U+0001 must be escaped in a string", id="ctrl"
        ),
        pytest.param('["a\\x"]', 1, 4, "invalid escape sequence in string", id="bad-escape"),
        pytest.param("[01]", 1, 3, "expected ',' or ']', found '1'", id="leading-zero"),
        pytest.param("[.5]", 1, 2, "expected a JSON value, found '.'", id="bare-fraction"),
        pytest.param("[-]", 1, 2, "expected a JSON value, found '-'", id="bare-minus"),
        pytest.param("[True]", 1, 2, "expected a JSON value, found 'T'", id="python-true"),
        pytest.param("", 1, 1, "expected a JSON value, found the end of the file", id="empty"),
        pytest.param("  \n ", 2, 2, "expected a JSON value, found the end of the file", id="blank"),
        pytest.param(
            '["\\ud800"]',
            1,
            2,
            "string holds a lone UTF-16 surrogate, which is not a character",
            id="lone-high-surrogate",
        ),
        pytest.param(
            '{"\\udc00": 1}',
            1,
            2,
            "string holds a lone UTF-16 surrogate, which is not a character",
            id="lone-low-surrogate-key",
        ),
        pytest.param(
            "[\n  😀, 1]", 2, 3, "expected a JSON value, found '😀'", id="astral-is-one-column"
        ),
    ],
)
def test_strict_syntax_errors(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse_json_text("gold.json", text)

    error = raised.value
    assert (error.source, error.line, error.column, error.message) == (
        "gold.json",
        line,
        column,
        message,
    )
    assert str(error) == f"gold.json:{line}:{column}: {message}"
    assert isinstance(error, InvalidInputError)
    assert error.exit_code is ExitCode.INVALID_INPUT


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        pytest.param('["a\\', 1, 4, "invalid escape sequence in string", id="lone-backslash-end"),
        pytest.param('["a\\\\', 1, 2, "unterminated string", id="escaped-backslash-at-end"),
        pytest.param('["a\\\\\\', 1, 6, "invalid escape sequence in string", id="odd-run-at-end"),
        pytest.param('["a\\u12"]', 1, 4, "invalid escape sequence in string", id="short-unicode"),
        pytest.param(
            '["\\ud83d\\uzzzz"]', 1, 9, "invalid escape sequence in string", id="bad-low-half"
        ),
        pytest.param('["\\n\\t\n"]', 1, 2, "unterminated string", id="newline-after-escapes"),
        pytest.param(
            '{"k\x1b": 1}', 1, 4, "control character U+001B must be escaped in a string", id="key"
        ),
    ],
)
def test_string_problems_are_placed_exactly(
    text: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse_json_text("gold.json", text)

    assert (raised.value.line, raised.value.column, raised.value.message) == (line, column, message)


@pytest.mark.parametrize(
    ("body", "suffix", "at", "message"),
    [
        pytest.param("x" * 300_000, '"}x', 2, "unexpected data after the JSON value", id="garbage"),
        pytest.param(
            "\\n" * 150_000,
            '\x01"}',
            0,
            "control character U+0001 must be escaped in a string",
            id="escapes-then-control",
        ),
        pytest.param(
            "\\u00e9" * 50_000, '\\q"}', 0, "invalid escape sequence in string", id="bad-escape"
        ),
    ],
)
def test_a_long_string_is_scanned_in_one_pass_to_its_problem(
    body: str, suffix: str, at: int, message: str
) -> None:
    # The slow path once kept backtracking state per character of a string (2.5 GB for a
    # 20 MB one); here only where the problem is placed is checked, not how fast.
    line_two = ' "long": "' + body + suffix
    text = '{"a": 1,\n' + line_two

    with pytest.raises(JsonSyntaxError) as raised:
        parse_json_text("gold.json", text)

    column = len(line_two) - len(suffix) + at + 1
    assert (raised.value.line, raised.value.column, raised.value.message) == (2, column, message)


def test_valid_surrogate_pairs_and_escaped_backslashes_are_fine() -> None:
    document = parse_json_text("x", '["\\ud83d\\ude00", "\\\\ud800"]')

    assert document.value == ["😀", "\\ud800"]


def test_nesting_limit_is_512_on_both_paths() -> None:
    assert parse_json_text("x", "[" * 512 + "]" * 512).value is not None
    for depth in (513, 3000):  # 513 loads in the stdlib; 3000 exhausts its recursion
        with pytest.raises(JsonSyntaxError) as raised:
            parse_json_text("x", "[" * depth + "]" * depth)
        assert (raised.value.line, raised.value.column) == (1, 513)
        assert raised.value.message == "nested deeper than 512 levels"


def test_deep_objects_are_limited_too() -> None:
    text = '{"a":' * 600 + "1" + "}" * 600

    with pytest.raises(JsonSyntaxError, match="nested deeper than 512 levels"):
        parse_json_text("x", text)


def test_large_integers_are_exact_and_bounded() -> None:
    assert parse_json_text("x", "[" + "9" * 40 + "]").value == [int("9" * 40)]
    with pytest.raises(JsonSyntaxError, match=r"integer has more than \d+ digits"):
        parse_json_text("x", "1" * 100_000)


def test_numbers_and_whitespace_that_are_fine() -> None:
    document = parse_json_text("x", ' \t\r\n{"n": -0.5e-3, "i": -0, "e": 1E+2}\r\n')

    assert document.value == {"n": -0.0005, "i": 0, "e": 100.0}
    assert isinstance(document.value["i"], int)


# --- bytes and files ------------------------------------------------------------------------------


def test_decode_utf8() -> None:
    assert decode_utf8("x", "é😀".encode()) == "é😀"
    with pytest.raises(JsonSyntaxError) as bom:
        decode_utf8("x", b"\xef\xbb\xbf{}")
    assert (bom.value.line, bom.value.column) == (1, 1)
    assert "byte order mark" in bom.value.message
    with pytest.raises(JsonSyntaxError) as invalid:
        decode_utf8("x", b'{\n  "\xc3\xa9\xc3": 1}')
    assert (invalid.value.line, invalid.value.column) == (2, 5)
    assert invalid.value.message == "invalid UTF-8 (byte 0xc3)"
    with pytest.raises(JsonSyntaxError, match="invalid UTF-8"):
        decode_utf8("x", "\ud800".encode("utf-8", "surrogatepass"))


def test_load_json_file(tmp_path: Path) -> None:
    path = tmp_path / "gold.json"
    path.write_bytes(b'{"a": [1, 2]}')

    assert load_json_file(path, display="shown.json").value == {"a": [1, 2]}
    assert load_json_file(path).source == str(path)
    with pytest.raises(InvalidInputError, match=r"^missing\.json: file not found\.$"):
        load_json_file(tmp_path / "missing.json", display="missing.json")
    with pytest.raises(InvalidInputError, match=r"is a folder, not a JSON file"):
        load_json_file(tmp_path)
    path.write_bytes(b'{"a": NaN}')
    with pytest.raises(JsonSyntaxError, match=r"^shown\.json:1:7: NaN is not a JSON value$"):
        load_json_file(path, display="shown.json")


# --- positions ------------------------------------------------------------------------------------

TEXT = """{
  "name": "gold",
  "suites": [
    {"id": "😀😀", "cases": [1, {"x": null}]},
    "second"
  ],
  "a/b": {"~": true}
}"""


@pytest.mark.parametrize(
    ("path", "where"),
    [
        pytest.param((), (1, 1), id="root"),
        pytest.param(("name",), (2, 3), id="member-is-its-key"),
        pytest.param(("suites", 0), (4, 5), id="array-item-is-its-value"),
        pytest.param(("suites", "0"), (4, 5), id="index-as-string"),
        pytest.param(("suites", 0, "cases"), (4, 18), id="after-astral-characters"),
        pytest.param(("suites", 0, "cases", 1), (4, 31), id="nested-item"),
        pytest.param(("suites", 0, "cases", 1, "x"), (4, 32), id="nested-key"),
        pytest.param(("suites", 1), (5, 5), id="string-item"),
        pytest.param(("a/b", "~"), (7, 11), id="odd-keys"),
        pytest.param(("suites", 0, "missing"), (4, 5), id="absent-key-nearest-ancestor"),
        pytest.param(("suites", 7, "x"), (3, 13), id="absent-index-nearest-ancestor"),
        pytest.param(("nothing", "at", "all"), (1, 1), id="absent-from-the-root"),
    ],
)
def test_positions(path: tuple[str | int, ...], where: tuple[int, int]) -> None:
    document = parse_json_text("x", TEXT)

    assert document.position(path) == where


def test_positions_count_code_points_not_utf16_units() -> None:
    document = parse_json_text("x", '["😀😀😀", "x"]')

    assert document.position((1,)) == (1, 9)  # UTF-16 would say 12


# --- values ---------------------------------------------------------------------------------------


def test_freeze_and_thaw() -> None:
    value = {"a": [1, {"b": [True, None]}], "c": "d"}

    frozen = freeze(value)

    assert isinstance(frozen, MappingProxyType)
    assert frozen["a"] == (1, MappingProxyType({"b": (True, None)}))
    with pytest.raises(TypeError):
        frozen["c"] = "e"  # type: ignore[index]
    assert thaw(frozen) == value
    assert json.loads(json.dumps(thaw(frozen))) == value


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        pytest.param(True, 1, False, id="true-is-not-1"),
        pytest.param(False, 0, False, id="false-is-not-0"),
        pytest.param(1, 1.0, True, id="1-equals-1.0"),
        pytest.param("1", 1, False, id="string-is-not-number"),
        pytest.param(None, False, False, id="null-is-not-false"),
        pytest.param(None, None, True, id="null"),
        pytest.param({"a": 1, "b": 2}, {"b": 2, "a": 1}, True, id="key-order-irrelevant"),
        pytest.param({"a": 1}, {"a": 1, "b": None}, False, id="extra-key"),
        pytest.param([1, 2], [2, 1], False, id="array-order-matters"),
        pytest.param([1, [True]], (1.0, (True,)), True, id="tuples-are-arrays"),
        pytest.param([True], [1], False, id="nested-bool"),
        pytest.param("é", "e\u0301", False, id="no-unicode-normalisation"),
        pytest.param({"a": [1]}, MappingProxyType({"a": (1,)}), True, id="frozen"),
        pytest.param([], {}, False, id="array-is-not-object"),
    ],
)
def test_json_equal(left: object, right: object, equal: bool) -> None:
    assert json_equal(left, right) is equal
    assert json_equal(right, left) is equal


def test_json_type_names() -> None:
    names = [json_type_name(v) for v in (MISSING, None, True, 1, 1.5, "s", {}, [], ())]

    assert names == [
        "nothing",
        "null",
        "boolean",
        "number",
        "number",
        "string",
        "object",
        "array",
        "array",
    ]


def test_canonical_json_ignores_key_order_and_keeps_characters() -> None:
    assert canonical_json({"b": [1, "é"], "a": None}) == '{"a":null,"b":[1,"é"]}'
    assert canonical_json(freeze({"b": 1, "a": 2})) == canonical_json({"a": 2, "b": 1})
    with pytest.raises(ValueError, match="Out of range float"):
        canonical_json([math.nan])


# --- pointers -------------------------------------------------------------------------------------


def test_missing_is_not_null() -> None:
    document = {"a": None, "list": [0]}

    assert resolve_pointer(document, "/a") is None
    assert resolve_pointer(document, "/b") is MISSING
    assert resolve_pointer(document, "/a/b") is MISSING
    assert resolve_pointer(document, "/list/-") is MISSING
    assert resolve_pointer(document, "/list/1") is MISSING
    assert resolve_pointer(document, "/list/00") is MISSING
    assert not MISSING
    assert repr(MISSING) == "MISSING"
    assert type(MISSING)() is MISSING


def test_resolve_walks_frozen_values() -> None:
    frozen = freeze({"a": [{"b": 1}]})

    assert resolve(frozen, ("a", "0", "b")) == 1
    assert resolve(frozen, ("a", "1")) is MISSING


@pytest.mark.parametrize(
    "tokens",
    [(), ("",), ("a/b", "~0", "~1"), ("a", "0", "-"), ("😀", " ", "")],
)
def test_format_and_parse_pointer_round_trip(tokens: tuple[str, ...]) -> None:
    assert parse_pointer(format_pointer(tokens)) == tokens


def test_format_pointer_escapes_tilde_before_slash() -> None:
    assert format_pointer(["a~/b", 3]) == "/a~0~1b/3"
    assert parse_pointer("/~01") == ("~1",)


@pytest.mark.parametrize("pointer", ["a", "#/a", "/a~", "/~2", 3])
def test_malformed_pointers(pointer: object) -> None:
    with pytest.raises(PointerSyntaxError):
        parse_pointer(pointer)  # type: ignore[arg-type]
