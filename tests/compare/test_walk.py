"""The comparison's walk (``comparison.walk``, issue 43): candidate and baseline walked place
by place where no id repeats, an index of ids made only from the first place where their
orders differ. Whatever the orders, added, removed, input-changed, re-scored and repeated
cases, the comparison is byte for byte the one of matching every case by an index of ids
(the way taken where an id repeats, and by every suite with ``SIDE_BY_SIDE`` off), and a
refusal says the same.

The sides are made from the example's reports' plain JSON, edited and not verified (the
walk is what is tested, not the reading): in process, one read of each report a module.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import ExampleReports
from goldgate.base.errors import InvalidInputError
from goldgate.comparison import comparison_bytes
from goldgate.comparison import walk as walk_module
from goldgate.comparison.compute import compare_sides
from goldgate.comparison.opened import ReportSide, SuiteSide
from goldgate.report.models import Report, validated

pytestmark = pytest.mark.xdist_group("example_reports")  # the example's reports, one worker

NOW = datetime(2026, 1, 2, tzinfo=UTC)
Value = dict[str, Any]
Edit = Callable[[Value, Value, random.Random], None]


@pytest.fixture(scope="module")
def plain(example_reports: ExampleReports) -> tuple[Value, Value]:
    candidate = json.loads(example_reports.candidate.read_bytes())
    baseline = json.loads(example_reports.baseline.read_bytes())
    return candidate, baseline


class _Reads:
    """Counts the cases read, by side."""

    def __init__(self) -> None:
        self.count = 0


def _side(value: Value, label: str, reads: _Reads | None = None) -> ReportSide:
    header = validated(Report, {**value, "suites": [{**s, "cases": []} for s in value["suites"]]})
    suites = []
    for index, (record, raw) in enumerate(zip(header.suites, value["suites"], strict=True)):
        cases: list[Any] = raw["cases"]
        ids = [case["id"] for case in cases]

        def read(place: int, cases: list[Any] = cases) -> Any:
            if reads is not None:
                reads.count += 1
            return copy.deepcopy(cases[place])

        suites.append(
            SuiteSide(record, len(cases), len(set(ids)) != len(ids), label, index, read, label)
        )
    return ReportSide(label, label, "sha256:" + "0" * 64, header, tuple(suites))


def _compared(candidate: Value, baseline: Value, *, partial: bool) -> bytes:
    comparison = compare_sides(
        _side(candidate, "candidate"), _side(baseline, "baseline"), partial=partial, now=NOW
    )
    return comparison_bytes(comparison)


def _both_ways(
    monkeypatch: pytest.MonkeyPatch, candidate: Value, baseline: Value, *, partial: bool
) -> tuple[bytes | str, bytes | str]:
    found: list[bytes | str] = []
    for side_by_side in (True, False):
        monkeypatch.setattr(walk_module, "SIDE_BY_SIDE", side_by_side)
        try:
            found.append(_compared(candidate, baseline, partial=partial))
        except InvalidInputError as error:
            found.append(str(error))
    return found[0], found[1]


def _cases(value: Value) -> list[list[Value]]:
    return [suite["cases"] for suite in value["suites"] if len(suite["cases"]) > 2]


def _shuffle(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(baseline):
        rng.shuffle(cases)


def _swap_late(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(baseline):
        cases[-1], cases[-2] = cases[-2], cases[-1]


def _remove(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(candidate):
        del cases[rng.randrange(len(cases))]
        del cases[-1]


def _add(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(baseline):
        del cases[rng.randrange(len(cases))]
        del cases[-1]


def _input(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(candidate):
        case = cases[rng.randrange(len(cases))]
        case["input"] = {"changed": True, "was": case["input"]}


def _gold(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(baseline):
        case = cases[rng.randrange(len(cases))]
        case["expectations"][0]["expected"] = "something else"


def _reordered(candidate: Value, baseline: Value, rng: random.Random) -> None:
    """The same input and gold written with their keys in another order: the same case."""
    for cases in _cases(baseline):
        case = cases[rng.randrange(len(cases))]
        case["input"] = dict(reversed(case["input"].items()))
        case["expectations"] = [dict(reversed(e.items())) for e in case["expectations"]]


def _retyped(candidate: Value, baseline: Value, rng: random.Random) -> None:
    """Values equal in Python, not in JSON (``1``, ``1.0``, ``true``): an input and a gold
    that differ."""
    pairs = zip(_cases(candidate), _cases(baseline), strict=True)
    for number, (mine, theirs) in enumerate(pairs):
        place = rng.randrange(min(len(mine), len(theirs)))
        for value, cases in ((1, mine), (1.0 if number % 2 else True, theirs)):
            cases[place]["input"] = {**cases[place]["input"], "n": value}
            cases[place - 1]["expectations"][0]["expected"] = value


def _repeat(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(baseline):
        cases.insert(rng.randrange(len(cases)), copy.deepcopy(cases[rng.randrange(len(cases))]))


def _repeat_candidate(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for cases in _cases(candidate):
        cases.append(copy.deepcopy(cases[0]))


def _everything(candidate: Value, baseline: Value, rng: random.Random) -> None:
    for edit in (_input, _gold, _add, _remove, _swap_late):
        edit(candidate, baseline, rng)


EDITS: dict[str, Edit] = {
    "same": lambda candidate, baseline, rng: None,
    "shuffled": _shuffle,
    "late_swap": _swap_late,
    "removed": _remove,
    "added": _add,
    "input_changed": _input,
    "rescored": _gold,
    "reordered": _reordered,
    "retyped": _retyped,
    "repeated_baseline_id": _repeat,
    "repeated_candidate_id": _repeat_candidate,
    "everything": _everything,
}


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", list(EDITS))
def test_walked_side_by_side_compares_as_an_index_of_ids_does(
    plain: tuple[Value, Value], monkeypatch: pytest.MonkeyPatch, name: str, seed: int
) -> None:
    candidate, baseline = copy.deepcopy(plain[0]), copy.deepcopy(plain[1])
    EDITS[name](candidate, baseline, random.Random(seed))
    side_by_side, indexed = _both_ways(monkeypatch, candidate, baseline, partial=True)
    assert isinstance(side_by_side, bytes), side_by_side
    assert side_by_side == indexed
    comparison = json.loads(side_by_side)
    suites = {suite["name"]: suite for suite in comparison["suites"]}
    for suite in candidate["suites"]:  # every candidate attempt is counted once
        unmatched = suites[suite["name"]]["unmatched"]
        attempts = sum(len(case["attempts"]) for case in suite["cases"])
        assert attempts >= unmatched["added_attempts"] + unmatched["input_changed_attempts"]
    assert comparison["comparable"]["candidate_attempts"] == sum(
        len(case["attempts"]) for suite in candidate["suites"] for case in suite["cases"]
    )
    if name == "reordered":  # nothing differs
        assert not any(any(suite["unmatched"].values()) for suite in comparison["suites"])
    if name == "retyped":
        edited = [suites[suite["name"]] for suite in candidate["suites"] if len(suite["cases"]) > 2]
        assert edited
        assert all(suite["unmatched"]["input_changed"] for suite in edited)
        assert all(suite["unmatched"]["rescored"] for suite in edited)
    if name in ("removed", "added", "everything"):
        kind = "removed" if name == "removed" else "added"
        assert any(suite["unmatched"][kind] for suite in comparison["suites"])


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("late_swap", "in the candidate but"),
        ("removed", "in the baseline only"),
        ("input_changed", "the input differs"),
        ("rescored", "the gold differs"),
    ],
)
def test_a_full_comparison_is_refused_as_an_index_of_ids_refuses(
    plain: tuple[Value, Value], monkeypatch: pytest.MonkeyPatch, name: str, words: str
) -> None:
    candidate, baseline = copy.deepcopy(plain[0]), copy.deepcopy(plain[1])
    if name == "late_swap":
        _swap_late(candidate, baseline, random.Random(1))
    else:
        for cases in _cases(candidate if name != "rescored" else baseline)[:1]:
            if name == "removed":
                del cases[-1]
            elif name == "input_changed":
                cases[1]["input"] = {"changed": True}
            else:
                cases[1]["expectations"][0]["expected"] = "something else"
    side_by_side, indexed = _both_ways(monkeypatch, candidate, baseline, partial=False)
    assert isinstance(side_by_side, str)
    assert side_by_side == indexed
    assert words in side_by_side


def test_orders_that_match_are_walked_reading_each_case_once(
    plain: tuple[Value, Value],
) -> None:
    candidate, baseline = plain
    reads = [_Reads(), _Reads()]
    compare_sides(
        _side(candidate, "candidate", reads[0]),
        _side(baseline, "baseline", reads[1]),
        partial=False,
        now=NOW,
    )
    cases = [sum(len(suite["cases"]) for suite in value["suites"]) for value in plain]
    assert [each.count for each in reads] == cases


def test_reports_compared_from_their_files_read_each_case_once_after_the_scan(
    example_reports: ExampleReports, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.comparison import compare
    from goldgate.report import scan

    compare(example_reports.candidate, example_reports.baseline, now=NOW)  # verified once
    reads: dict[str, int] = {}
    read = scan.CaseIndex.read

    def counted(index: scan.CaseIndex, handle: Any, path: str, position: int) -> Any:
        reads[path] = reads.get(path, 0) + 1
        return read(index, handle, path, position)

    monkeypatch.setattr(scan.CaseIndex, "read", counted)
    compare(example_reports.candidate, example_reports.baseline, now=NOW)
    for path in (example_reports.candidate, example_reports.baseline):
        value = json.loads(path.read_bytes())
        assert reads[str(path)] == sum(len(suite["cases"]) for suite in value["suites"])


def test_a_refusal_found_late_in_the_walk_writes_nothing(
    example_reports: ExampleReports, tmp_path: Path
) -> None:
    from goldgate.app.compare import CompareRequest, compare_reports
    from helpers.reports import coherent

    value = json.loads(example_reports.candidate.read_bytes())
    cases = max((suite["cases"] for suite in value["suites"]), key=len)
    cases[-1], cases[-2] = cases[-2], cases[-1]
    candidate = tmp_path / "candidate.json"
    candidate.write_bytes(json.dumps(coherent(value)).encode())
    output = tmp_path / "out" / "comparison.json"
    request = CompareRequest(candidate, example_reports.baseline, output=output)
    with pytest.raises(InvalidInputError, match=f"case {len(cases) - 1} is ") as refused:
        compare_reports(request)
    assert refused.value.exit_code == 2
    assert not output.exists()
    assert list(tmp_path.iterdir()) == [candidate]


@pytest.mark.parametrize("repeat", [False, True])
def test_a_repeated_id_is_noticed_among_many(repeat: bool) -> None:
    from goldgate.report.idrepeats import IdHook

    ids = IdHook("r.json")
    count = 140_000  # past one share of hashes looked at at once
    for position in range(count):
        ids(0, position, {"id": f"case-{position}"})
    ids(0, count, {"id": "case-7" if repeat else "case-last"})
    ids(1, 0, {"id": 3})  # not a string: the walk refuses it, by an index
    assert (ids.count(0), ids.repeats(0), ids.repeats(1)) == (count + 1, repeat, True)
    assert (ids.count(1), ids.count(2), ids.repeats(2)) == (1, 0, False)


def test_a_pair_whose_expectations_are_the_same_text_reduces_them_once() -> None:
    """``same_expectations``: only the very same JSON text (not the same gold written in
    another key order, nor anything that is not a list) lets the baseline's case take the
    candidate's reduced expectations, which are then what reducing its own gives."""
    from goldgate.comparison.sides import reduce_case, same_expectations

    attempt = {"attempt": 1, "status": "completed", "checks": [{"outcome": "passed"}] * 2}
    gold = [
        {"name": "a", "path": "/a", "expected": {"x": 1, "y": [2]}},
        {"name": "t", "path": "/t", "comparison": "text", "expected": "hi"},
    ]
    mine = {"id": "c", "expectations": gold, "attempts": [attempt]}
    theirs = copy.deepcopy(mine)
    assert same_expectations(mine, theirs)
    case = reduce_case(mine, False)
    assert reduce_case(theirs, False, like=case) == reduce_case(theirs, False)
    reordered = copy.deepcopy(mine)
    reordered["expectations"][0]["expected"] = {"y": [2], "x": 1}  # the same gold, other text
    for other in (reordered, {**mine, "expectations": "no"}, [], {"id": "c"}):
        assert not same_expectations(mine, other), other
