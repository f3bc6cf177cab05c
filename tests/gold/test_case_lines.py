"""Each case's line in its gold file: found by one C-speed pass, agreeing with the
position-aware scanner that error messages use, and carried into the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.base.strictjson import parse_json_text
from goldgate.gold.lines import element_lines
from goldgate.gold.load import load_gold
from goldgate.gold.settings.load import load_settings

_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    elements=st.lists(_VALUES, max_size=6),
    indent=st.none() | st.integers(0, 3),
    wrap=st.booleans(),
)
def test_lines_agree_with_the_scanner(elements: list[Any], indent: int | None, wrap: bool) -> None:
    value: Any = {"z": [1, "]"], "suites": [{"cases": elements}]} if wrap else elements
    path: tuple[str | int, ...] = ("suites", 0, "cases") if wrap else ()
    text = json.dumps(value, indent=indent)
    document = parse_json_text("gold.json", text)

    expected = tuple(document.position((*path, i))[0] for i in range(len(elements)))
    assert element_lines(text, path) == expected


def test_lines_of_hand_formatted_text() -> None:
    text = '[\n  {"id": "a"},\n\n  {"id": "b \\" {"}, {"id": "c"}\n]'

    assert element_lines(text, ()) == (2, 4, 4)


def test_loaded_gold_knows_each_case_line(gold_project: Any) -> None:
    project = gold_project.write()
    dataset = load_gold(load_settings(project.root / project.SETTINGS))
    inline, filed = dataset.suites
    manifest = parse_json_text("m", project.text(project.DATASET))
    cases = parse_json_text("c", project.text(project.CASE_FILE))

    assert inline.lines == tuple(
        manifest.position(("suites", 0, "cases", i))[0] for i in range(len(inline.cases))
    )
    assert list(filed.lines) == [cases.position((i,))[0] for i in range(len(filed.cases))]
    assert filed.lines[0] == 2
    assert Path(filed.cases_source).name == "filed.json"
