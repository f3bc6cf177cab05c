"""An eval's output as the report holds it: objects of scalars are copied without the orjson
round trip, and must come out exactly as that round trip gives them (where the round trip
would refuse or change a value: its keys as the round trip writes them and its values as they
are, for the runner to judge), whatever the scalars."""

from __future__ import annotations

import math
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.evals.runtime import json_output

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1),
)
KEYS = st.one_of(st.text(), st.integers(-5, 5), st.text(st.characters(max_codepoint=0x7F)))


def _round_trip(value: dict[Any, Any]) -> Any:
    """What the orjson round trip gives, where it keeps every value; else the object with
    its keys as orjson writes them and its values as they are (a lone surrogate, an integer
    past 64 bits, NaN: the runner decides whether a report can hold them)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        data = b"null"
    if b"null" not in data:
        return orjson.loads(data)
    return {_key(key): item for key, item in value.items()}


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    [written] = orjson.loads(orjson.dumps({key: 0}, option=orjson.OPT_NON_STR_KEYS))
    return str(written)


def _same(mine: Any, theirs: Any) -> bool:
    """Equal, of the same types, floats bit for bit (NaN included)."""
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, dict):
        return list(mine) == list(theirs) and all(_same(mine[key], theirs[key]) for key in mine)
    if isinstance(mine, float):
        return (math.isnan(mine) and math.isnan(theirs)) or mine == theirs
    return bool(mine == theirs)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, SCALARS, max_size=5))
def test_objects_of_scalars_come_out_as_the_round_trip_gives_them(value: dict[Any, Any]) -> None:
    before = dict(value)
    result = json_output(value)

    assert _same(result, _round_trip(value))
    assert _same(value, before)  # the eval's own output is left as it was
    if isinstance(result, dict):
        assert result is not value  # a copy: the eval may change its own afterwards
