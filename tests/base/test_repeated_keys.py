"""A repeated key is told apart without the decoder's per-object hook (``keys_surely_unique``):
never wrongly (a value it passes has no repeated key), and for all ordinary gold (a value
without one, written without an escaped colon, passes)."""

from __future__ import annotations

import gc
import io
import json
import weakref
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.base.errors import JsonRejected
from goldgate.base.strictjson import (
    finite_float,
    keyless_decoder,
    keys_surely_unique,
    strict_decoder,
)
from goldgate.gold._stream.casefile import ElementReader, strict_value
from goldgate.gold.errors import NotStreamable

KEYS = st.sampled_from(["a", "b", "a:b", ":", "::", "é:", ""])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["x", "x:y", ":", "", "é", "\\", '"', "\ud800", "a\u003ab"]),
)


class Obj(list[tuple[str, Any]]):
    """An object as written: its members in order, a key perhaps repeated."""


TREES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(st.tuples(KEYS, inner), max_size=4).map(Obj),
    ),
    max_leaves=12,
)


def _string(text: str, escape_colons: bool, ascii_only: bool) -> str:
    written = json.dumps(text, ensure_ascii=ascii_only)
    return written.replace(":", "\\u003a") if escape_colons else written


def _write(tree: Any, escape_colons: bool, ascii_only: bool, space: str) -> str:
    if isinstance(tree, Obj):
        members = (
            f"{_string(key, escape_colons, ascii_only)}{space}:{space}"
            f"{_write(value, escape_colons, ascii_only, space)}"
            for key, value in tree
        )
        return "{" + f",{space}".join(members) + "}"
    if isinstance(tree, list):
        items = (_write(item, escape_colons, ascii_only, space) for item in tree)
        return "[" + f",{space}".join(items) + "]"
    if isinstance(tree, str):
        return _string(tree, escape_colons, ascii_only)
    return json.dumps(tree)


def _repeats(tree: Any) -> bool:
    if isinstance(tree, Obj):
        keys = [key for key, _ in tree]
        return len(set(keys)) != len(keys) or any(_repeats(value) for _, value in tree)
    if isinstance(tree, list):
        return any(_repeats(item) for item in tree)
    return False


def _exact_refuses(text: str) -> bool:
    try:
        strict_decoder().raw_decode(text)
    except JsonRejected:
        return True
    return False


@settings(max_examples=1500, deadline=None)
@given(TREES, st.booleans(), st.booleans(), st.sampled_from(["", " ", "\n  "]), st.integers(0, 3))
def test_a_value_passed_has_no_repeated_key_and_ordinary_gold_passes(
    tree: Any, escape_colons: bool, ascii_only: bool, space: str, lead: int
) -> None:
    text = "[" * lead + _write(tree, escape_colons, ascii_only, space)
    start = lead  # the value starts inside a buffer, as a case does in its file
    value, end = keyless_decoder(finite_float).raw_decode(text, start)
    passed = keys_surely_unique(text, start, end, value)
    if passed:
        assert not _repeats(tree)
        assert not _exact_refuses(text[start:end])
    if _repeats(tree):
        assert not passed
    elif not escape_colons and _orjson_writes(value):
        assert passed, text


def _orjson_writes(value: Any) -> bool:
    """Whether orjson can write ``value`` at all (not a lone surrogate, not past 64 bits)."""
    import orjson

    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize(
    "element",
    [
        '{"a": 1, "a": 2}',
        '{"a": "x:y:z", "a": 1}',
        '{"k": {"a": ":", "b": [{"c": 1, "c": 1}]}}',
        '{"a": "\\u003a", "a": "::"}',
        '{"a\\u003a": 1, "a:": 2}',
    ],
)
def test_the_stream_refuses_a_repeated_key_however_the_colons_fall(element: str) -> None:
    data = f'[{{"ok": 1}},\n {element}]'.encode()
    reader = ElementReader(io.BytesIO(data))
    assert reader.next() is not None
    with pytest.raises(NotStreamable):
        reader.next()
    with pytest.raises(NotStreamable):
        strict_value(element.encode())


def test_escaped_colons_without_a_repeated_key_still_stream() -> None:
    element = '{"a\\u003a": "b\\u003Ac", "c:": ":"}'
    assert strict_value(element.encode()) == ({"a:": "b:c", "c:": ":"}, False)


def test_parsing_a_case_leaves_no_reference_cycle_behind() -> None:
    """The check runs with the cyclic collector paused: a parser that is a reference cycle
    (its decoders holding a bound method of it) was never freed, and a helper that built one
    per case grew by megabytes a thousand cases."""
    element = b'{"id": "c-1", "values": [1.5, {"a": ":"}]}'
    paused = gc.isenabled()
    gc.disable()
    try:
        strict_value(element)
        before = len(gc.get_objects())
        for _ in range(200):
            assert strict_value(element)[1] is True
        assert len(gc.get_objects()) <= before + 5

        reader = ElementReader(io.BytesIO(b"[" + element + b"]"))
        assert reader.next() is not None
        parser = weakref.ref(reader._strict)
        del reader
        assert parser() is None  # freed by reference counting alone
    finally:
        if paused:
            gc.enable()
