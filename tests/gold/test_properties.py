"""Property tests: whatever bytes, text or JSON values reach the loader, the answer is a value,
violations, or an ``InvalidInputError`` with a place — never another exception."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from goldgate.base.errors import InvalidInputError, JsonSyntaxError
from goldgate.base.jsonvalue import json_equal
from goldgate.base.pointers import format_pointer, parse_pointer, resolve
from goldgate.base.strictjson import decode_utf8, parse_json_text
from goldgate.gold import check_gold
from goldgate.gold.settings import load_settings
from helpers.strategies import json_values

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSONISH = '[]{}",:0123456789.eE+- \n\ttrufalsn\\u\U0001f600é'
jsonish_text = st.text(alphabet=JSONISH, max_size=40)


def _paths(value: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, str(index))))
    return found


def _offset(text: str, line: int, column: int) -> int:
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    return starts[line - 1] + column - 1


def _attempt(function: Callable[..., Any], *args: Any) -> tuple[Any, JsonSyntaxError | None]:
    """The function's value, or the JsonSyntaxError it raised; anything else propagates."""
    try:
        return function(*args), None
    except JsonSyntaxError as error:
        return None, error


# --- the parser ---------------------------------------------------------------------------------


@PROPERTIES
@given(json_values, st.sampled_from([None, 2, "\t"]), st.booleans())
def test_dumps_then_parse_is_the_identity(value: Any, indent: Any, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)

    document = parse_json_text("v.json", text)

    assert document.value == value
    assert json_equal(document.value, value)


@PROPERTIES
@given(json_values, st.sampled_from([None, 2]))
def test_positions_point_at_each_value(value: Any, indent: Any) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    document = parse_json_text("v.json", text)
    decoder = json.JSONDecoder()

    for path in _paths(value):
        offset = _offset(text, *document.position(path))
        if path and isinstance(resolve(value, path[:-1]), dict):
            # An object member is found at its key: "key": value
            head = json.dumps(path[-1], ensure_ascii=False) + ":"
            assert text.startswith(head, offset), (path, text[offset : offset + 20])
            offset += len(head)
            offset += len(text[offset:]) - len(text[offset:].lstrip())
        found, _ = decoder.raw_decode(text, offset)
        assert found == resolve(value, path), path


@PROPERTIES
@given(st.lists(st.text(max_size=5), max_size=6))
def test_pointers_round_trip(tokens: list[str]) -> None:
    assert parse_pointer(format_pointer(tokens)) == tuple(tokens)


@PROPERTIES
@example("[1e999]")
@example("{}}")
@example('{"a":1,"a":2}')
@example("[" * 600)
@example('"\\ud800"')
@example("9" * 5000)
@given(jsonish_text)
def test_arbitrary_text_is_parsed_or_refused_with_a_place(text: str) -> None:
    document, error = _attempt(parse_json_text, "t.json", text)

    if error is not None:
        assert 1 <= error.line <= text.count("\n") + 1
        assert error.column >= 1
        assert str(error).startswith(f"t.json:{error.line}:{error.column}: ")
    else:  # what was accepted is JSON that the standard library reads the same way
        assert document.value == json.loads(text)


@PROPERTIES
@given(json_values, st.data())
def test_one_character_edits_are_parsed_or_refused_with_a_place(value: Any, data: Any) -> None:
    text = json.dumps(value, indent=1)
    position = data.draw(st.integers(min_value=0, max_value=len(text)))
    edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
    char = data.draw(st.sampled_from([*JSONISH, "\x00", "'", "N"]))
    if edit == "insert":
        text = text[:position] + char + text[position:]
    elif edit == "delete":
        text = text[:position] + text[position + 1 :]
    else:
        text = text[:position] + char + text[position + 1 :]

    document, error = _attempt(parse_json_text, "e.json", text)

    if error is not None:
        assert 1 <= error.line <= text.count("\n") + 1
        assert error.column >= 1
    else:
        assert document.value == json.loads(text)


@PROPERTIES
@example(b"\xef\xbb\xbf{}")
@example(b"\xed\xa0\x80")
@given(st.binary(max_size=40))
def test_arbitrary_bytes_are_decoded_or_refused_with_a_place(data: bytes) -> None:
    text, error = _attempt(decode_utf8, "b.json", data)

    if error is not None:
        assert error.line >= 1
        assert error.column >= 1
    else:
        assert text == data.decode("utf-8")
        assert not text.startswith("\ufeff")


# --- the whole check -----------------------------------------------------------------------------
# One project per test, its files overwritten completely by every example.
ON_ONE_PROJECT = settings(
    PROPERTIES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


def _check(project: Any) -> Any:
    loaded = load_settings(project.root / project.SETTINGS)
    try:
        result = check_gold(loaded)
    except InvalidInputError:  # allowed, though the check reports files as violations
        return None
    for violation in result.violations:
        assert violation.line >= 1
        assert violation.column >= 1
        assert violation.message
        assert violation.pointer == "" or violation.pointer.startswith("/")
    assert (result.violations == ()) == (result.dataset is not None)
    return result


def _value_paths(value: Any) -> list[tuple[str | int, ...]]:
    found: list[tuple[str | int, ...]] = [()]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend((key, *rest) for rest in _value_paths(item))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend((index, *rest) for rest in _value_paths(item))
    return found


def _replace(document: Any, path: tuple[str | int, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(document)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return copied


@ON_ONE_PROJECT
@given(value=json_values, as_manifest=st.booleans())
def test_any_json_value_as_a_gold_file(gold_project: Any, value: Any, as_manifest: bool) -> None:
    gold_project.put(gold_project.SETTINGS, gold_project.settings)
    gold_project.put(gold_project.DATASET, value if as_manifest else gold_project.manifest)
    gold_project.put(gold_project.CASE_FILE, gold_project.cases if as_manifest else value)

    result = _check(gold_project)

    assert result is not None
    assert result.violations


@ON_ONE_PROJECT
@given(data=st.data(), value=json_values)
def test_any_value_anywhere_in_valid_gold(gold_project: Any, data: Any, value: Any) -> None:
    manifest, cases = gold_project.manifest, gold_project.cases
    if data.draw(st.booleans(), label="in the manifest"):
        path = data.draw(st.sampled_from(_value_paths(manifest)), label="path")
        manifest = _replace(manifest, path, value)
    else:
        path = data.draw(st.sampled_from(_value_paths(cases)), label="path")
        cases = _replace(cases, path, value)
    gold_project.put(gold_project.SETTINGS, gold_project.settings)
    gold_project.put(gold_project.DATASET, manifest)
    gold_project.put(gold_project.CASE_FILE, cases)

    assert _check(gold_project) is not None


@ON_ONE_PROJECT
@example(data=b"")
@example(data=b"\xef\xbb\xbf[]")
@example(data=b'[{"id": "\\udc00"}]')
@given(data=st.binary(max_size=60) | jsonish_text.map(str.encode))
def test_any_bytes_as_a_case_file(gold_project: Any, data: bytes) -> None:
    gold_project.put(gold_project.SETTINGS, gold_project.settings)
    gold_project.put(gold_project.DATASET, gold_project.manifest)
    gold_project.put(gold_project.CASE_FILE, data)

    result = _check(gold_project)

    assert result is not None
    assert result.violations


YAMLISH = "abc:-[]{}#'\"!&*|>?,\n 0123456789.~\\\t%@`"


@ON_ONE_PROJECT
@example(text="a: [1\n")
@example(text="x: 2020-13-01\n")
@example(text="x: !!python/object/apply:os.getcwd []\n")
@example(text="x: &a [*a]\n")
@given(text=st.text(alphabet=YAMLISH, max_size=40))
def test_any_text_as_settings(gold_project: Any, text: str) -> None:
    path = gold_project.put(gold_project.SETTINGS, text)

    try:
        outcome: Any = load_settings(path)
    except InvalidInputError as error:  # one sentence per violation, each with its place
        outcome = str(error)

    assert outcome
