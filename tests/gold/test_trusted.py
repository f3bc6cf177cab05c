"""``trusted_case`` builds exactly the ``Case`` that validation builds, without validating:
the run reads a streamed case file's checked cases back this way."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from goldgate.base.textsafe import starts_command
from goldgate.gold.models import Case, Envelope, Expectation, constructed, trusted_case

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
# Names validation takes (printable ASCII, not starting as a workflow command: "::...").
_name = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=6).filter(
    lambda name: not starts_command(name)
)


@st.composite
def _expectation(draw: st.DrawFn) -> dict[str, Any]:
    raw: dict[str, Any] = {"name": draw(_name), "path": "/a", "expected": draw(_json)}
    if draw(st.booleans()):
        raw["comparison"] = draw(st.sampled_from(["exact", "set", "custom", "text"]))
    if draw(st.booleans()):
        raw["scorer"] = draw(_name)
    keys = list(raw)
    order = draw(st.permutations(keys))
    return {key: raw[key] for key in order}


@st.composite
def _case(draw: st.DrawFn) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "id": draw(_name),
        "input": {
            "payload": draw(st.dictionaries(st.text(max_size=3), _json, max_size=3)),
            "metadata": draw(st.dictionaries(st.text(max_size=3), _json, max_size=2)),
        },
        "expectations": draw(st.lists(_expectation(), min_size=1, max_size=3)),
    }
    for key in ("family", "split", "source"):
        if draw(st.booleans()):
            raw[key] = draw(_name)
    if draw(st.booleans()):
        raw["note"] = draw(st.text(max_size=5))
    order = draw(st.permutations(list(raw)))
    return {key: raw[key] for key in order}


def _same(built: Any, validated: Any) -> None:
    assert type(built) is type(validated)
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert list(vars(built)) == list(vars(validated))  # declaration order: dumps alike
    assert built.model_dump(by_alias=True) == validated.model_dump(by_alias=True)
    assert built.model_dump_json() == validated.model_dump_json()


@given(_case())
def test_trusted_case_is_the_validated_case(raw: dict[str, Any]) -> None:
    validated = Case.model_validate(raw)
    built = trusted_case(raw)
    _same(built, validated)
    _same(built.input, validated.input)
    for mine, theirs in zip(built.expectations, validated.expectations, strict=True):
        _same(mine, theirs)
        assert isinstance(mine, Expectation)


def test_constructed_is_model_construct() -> None:
    values = {"payload": {"a": 1}, "metadata": {}}
    built = constructed(Envelope, dict(values), ["payload"])
    reference = Envelope.model_construct(_fields_set={"payload"}, **values)
    assert built == reference
    assert built.model_fields_set == reference.model_fields_set == {"payload"}
    assert built.__pydantic_extra__ is reference.__pydantic_extra__
    assert built.__pydantic_private__ is reference.__pydantic_private__


def test_trusted_case_is_frozen_like_a_validated_one() -> None:
    raw = {
        "id": "c",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "n", "path": "", "expected": 1}],
    }
    built = trusted_case(raw)
    with pytest.raises(ValidationError, match="frozen"):
        built.id = "other"  # type: ignore[misc]
