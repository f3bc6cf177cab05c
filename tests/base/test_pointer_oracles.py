"""goldgate's pointers and source-span ranges against third-party oracles in tests/oracles.

The oracle files stay where they are (beside the repository); without them these tests skip
with the reason shown."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.jsonvalue import MISSING, json_equal
from goldgate.base.pointers import parse_pointer, resolve_pointer
from goldgate.gold import check_gold
from goldgate.gold.settings import load_settings

Oracle = Callable[[str], Any]


def test_pointer_resolution_agrees_with_every_oracle_case(oracle: Oracle) -> None:
    cases = oracle("pointer_cases.json")
    assert len(cases) >= 40

    disagreements = []
    for case in cases:
        try:
            outcome: Any = resolve_pointer(case["doc"], case["pointer"])
        except PointerSyntaxError:
            outcome = PointerSyntaxError
        if case.get("error"):
            agrees = outcome is PointerSyntaxError or outcome is MISSING
        else:
            agrees = outcome is not MISSING and json_equal(outcome, case["expected"])
        if not agrees:
            disagreements.append((case["id"], case["pointer"], outcome))

    assert disagreements == []


def test_past_the_end_is_absent_not_an_error(oracle: Oracle) -> None:
    cases = {case["pointer"]: case for case in oracle("pointer_cases.json")}

    case = cases["/foo/-"]
    assert case["error"] is True
    assert resolve_pointer(case["doc"], "/foo/-") is MISSING


def test_null_resolves_to_null_not_missing(oracle: Oracle) -> None:
    nulls = [c for c in oracle("pointer_cases.json") if "expected" in c and c["expected"] is None]

    assert nulls
    for case in nulls:
        assert resolve_pointer(case["doc"], case["pointer"]) is None


def test_pointer_syntax_agrees_with_every_oracle_case(oracle: Oracle) -> None:
    cases = oracle("pointer_syntax_cases.json")
    assert any(case["valid"] for case in cases)
    assert not all(case["valid"] for case in cases)

    disagreements = []
    for case in cases:
        try:
            parse_pointer(case["pointer"])
            accepted = True
        except PointerSyntaxError:
            accepted = False
        if accepted is not case["valid"]:
            disagreements.append((case["pointer"], case["description"]))

    assert disagreements == []


# --- source_span ranges, in code points --------------------------------------------------------


def _spans(oracle: Oracle) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    data = oracle("unicode_cases.json")
    return [
        (case["name"], index, case, span)
        for case in data["cases"]
        for index, span in enumerate(case["spans"])
    ]


def _span_case(case_id: str, text: str, required: list[int], allowed: list[int]) -> dict[str, Any]:
    return {
        "id": case_id,
        "input": {"payload": {"message": text}, "metadata": {}},
        "expectations": [
            {
                "name": "span",
                "path": "/payload/extract",
                "expected": {
                    "input_path": "/payload/message",
                    "required": required,
                    "allowed": allowed,
                },
                "comparison": "source_span",
            }
        ],
    }


def _check(project: Any, cases: list[dict[str, Any]]) -> Any:
    project.cases = cases
    project.manifest["suites"] = [copy.deepcopy(project.manifest["suites"][1])]
    project.write()
    return check_gold(load_settings(project.root / project.SETTINGS))


def test_oracle_offsets_are_code_points(oracle: Oracle) -> None:
    for name, _, case, span in _spans(oracle):
        assert case["text"][span["start"] : span["end"]] == span["substring"], name
        assert len(case["text"]) == case["len_codepoints"], name


def test_source_spans_at_oracle_offsets_pass_the_check(oracle: Oracle, gold_project: Any) -> None:
    spans = _spans(oracle)
    cases = [
        _span_case(f"{name}-{index}", case["text"], [s["start"], s["end"]], [s["start"], s["end"]])
        for name, index, case, s in spans
    ]

    result = _check(gold_project, cases)

    assert [v.render() for v in result.violations] == []
    assert result.case_count == len(spans)


def test_allowed_one_past_the_end_fails_the_check(oracle: Oracle, gold_project: Any) -> None:
    spans = _spans(oracle)
    cases = [
        _span_case(
            f"{name}-{index}",
            case["text"],
            [s["start"], s["end"]],
            [s["start"], case["len_codepoints"] + 1],
        )
        for name, index, case, s in spans
    ]

    result = _check(gold_project, cases)

    by_position = {v.pointer: v.message for v in result.violations}
    assert len(result.violations) == len(spans)
    for position, (_, _, case, _) in enumerate(spans):
        length = case["len_codepoints"]
        assert by_position[f"/{position}/expectations/0/expected/allowed"] == (
            f"'allowed' ends at {length + 1}, past the source's {length} code points"
        )


def test_utf16_lengths_are_not_code_points(oracle: Oracle, gold_project: Any) -> None:
    """Where a text has astral characters, its UTF-16 length is past its end in code points."""
    astral = [
        case
        for case in oracle("unicode_cases.json")["cases"]
        if case["len_utf16"] > case["len_codepoints"]
    ]
    assert astral, "the oracle has astral-plane texts"
    cases = [
        _span_case(case["name"], case["text"], [0, 1], [0, case["len_utf16"]]) for case in astral
    ]

    result = _check(gold_project, cases)

    assert len(result.violations) == len(astral)
    assert all("past the source's" in v.message for v in result.violations)
