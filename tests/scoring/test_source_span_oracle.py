"""source_span offsets agree with the shared Unicode oracle (code points, end exclusive)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.scoring import Outcome, compare_source_span

REPO_ROOT = Path(__file__).resolve().parents[2]
ORACLE = REPO_ROOT / "tests" / "oracles" / "unicode_cases.json"


def _cases() -> list[dict[str, Any]]:
    # Bytes, not text mode: text mode would not change JSON escapes, but be exact anyway.
    cases: list[dict[str, Any]] = json.loads(ORACLE.read_bytes())["cases"]
    return cases


def _span(start: int, end: int, allowed: tuple[int, int] | None = None) -> dict[str, Any]:
    low, high = allowed or (start, end)
    return {"input_path": "/payload/text", "required": [start, end], "allowed": [low, high]}


def _spans() -> list[tuple[str, str, dict[str, Any]]]:
    return [(case["name"], case["text"], span) for case in _cases() for span in case["spans"]]


def test_oracle_is_there_and_self_consistent() -> None:
    spans = _spans()
    assert len(spans) >= 20
    for _, text, span in spans:
        assert text[span["start"] : span["end"]] == span["substring"]


def test_exact_oracle_spans_pass() -> None:
    for name, text, span in _spans():
        envelope = {"payload": {"text": text}, "metadata": {}}
        verdict = compare_source_span(
            span["substring"], _span(span["start"], span["end"]), envelope
        )
        assert verdict.outcome is Outcome.PASSED, (name, span)


def test_oracle_spans_pass_inside_wider_allowed_ranges() -> None:
    for name, text, span in _spans():
        envelope = {"payload": {"text": text}, "metadata": {}}
        expected = _span(span["start"], span["end"], (0, len(text)))
        verdict = compare_source_span(span["substring"], expected, envelope)
        assert verdict.outcome is Outcome.PASSED, (name, span)


@pytest.mark.parametrize("shift", [-1, 1, 2])
def test_shifted_oracle_spans_do_not_pass(shift: int) -> None:
    checked = 0
    for name, text, span in _spans():
        start, end = span["start"] + shift, span["end"] + shift
        if text[max(start, 0) : end] == span["substring"]:
            continue  # the substring genuinely occurs at the shifted place
        envelope = {"payload": {"text": text}, "metadata": {}}
        verdict = compare_source_span(span["substring"], _span(start, end), envelope)
        expected = Outcome.ERROR if start < 0 or end > len(text) else Outcome.FAILED
        assert verdict.outcome is expected, (name, span, shift)
        checked += 1
    assert checked >= 20


def test_utf16_offsets_do_not_pass_where_they_differ() -> None:
    checked = 0
    for name, text, span in _spans():
        start, end = span["utf16_start"], span["utf16_end"]
        if (start, end) == (span["start"], span["end"]) or text[start:end] == span["substring"]:
            continue
        envelope = {"payload": {"text": text}, "metadata": {}}
        verdict = compare_source_span(span["substring"], _span(start, end), envelope)
        assert verdict.outcome is not Outcome.PASSED, (name, span)
        checked += 1
    assert checked > 0
