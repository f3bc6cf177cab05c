"""A stored check of a kind that scores a verdict alone (``exact``, ``set``, ``source_span``:
``scoring.kinds.kind.verdict_kind``) is compared with that verdict, its outcome built only
where the two differ (``report.casetally``): every outcome the verdict is not is refused, at
the check, in the words a disagreement always had; and each such kind scores exactly its
verdict, so comparing the verdict is comparing the score.

The report is the example candidate of tests/compare (tests/conftest.py), read in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import ExampleReports
from goldgate.base.errors import ReportRefusedError
from goldgate.base.jsonvalue import MISSING
from goldgate.gold.compiled import compile_expectation
from goldgate.gold.recorded import RecordedExpectation
from goldgate.report.io import read_report
from goldgate.report.verify import verify_report
from goldgate.scoring.comparisons import with_actual
from goldgate.scoring.kinds import KINDS
from helpers.reports import coherent

pytestmark = pytest.mark.xdist_group("example_reports")

OUTCOMES = ("passed", "failed", "error")
QUEUE = "/flows/triage/steps/classify/result/answer/optionId"


def _plain_checks(value: dict[str, Any]) -> dict[str, tuple[tuple[Any, ...], str]]:
    """The first plain stored check of each verdict kind (its place, its outcome)."""
    found: dict[str, tuple[tuple[Any, ...], str]] = {}
    for s, suite in enumerate(value["suites"]):
        for c, case in enumerate(suite["cases"]):
            for a, attempt in enumerate(case["attempts"]):
                for n, check in enumerate(attempt.get("checks", [])):
                    comparison = case["expectations"][n].get("comparison") or "exact"
                    if comparison in ("exact", "set", "source_span") and check.keys() <= {
                        "outcome",
                        "reason",
                    }:
                        place = ("suites", s, "cases", c, "attempts", a, "checks", n)
                        found.setdefault(f"{comparison} {check['outcome']}", (place, comparison))
    return found


@pytest.fixture(scope="module")
def candidate(example_reports: ExampleReports) -> bytes:
    return example_reports.candidate.read_bytes()


def test_every_other_outcome_of_a_plain_check_is_refused_at_it(
    candidate: bytes, tmp_path: Path
) -> None:
    checks = _plain_checks(json.loads(candidate))
    # each kind's checks that pass and that fail (the example fails some of each kind)
    assert {name.split()[0] for name in checks} == {"exact", "set", "source_span"}
    assert {name.split()[1] for name in checks} == {"passed", "failed"}
    for name, (place, _) in checks.items():
        for outcome in OUTCOMES:
            value = json.loads(candidate)
            node: Any = value
            for key in place:
                node = node[key]
            if node["outcome"] == outcome:
                continue
            node.clear()
            node.update(
                {"outcome": outcome}
                if outcome == "passed"
                else {"outcome": outcome, "reason": "forged"}
            )
            path = tmp_path / "forged.json"
            path.write_text(json.dumps(value), "utf-8")
            pointer = "/" + "/".join(map(str, place)) + "/outcome"
            with pytest.raises(ReportRefusedError) as refused:
                read_report(path)
            message = str(refused.value)
            assert f"stored {pointer} is '{outcome}' but its attempts and gold give" in message, (
                name,
                message,
            )


def test_a_plain_check_that_agrees_reads_whatever_its_reason(
    candidate: bytes, tmp_path: Path
) -> None:
    # The reason is the run's words, not recomputed: only the outcome is compared.
    value = json.loads(candidate)
    for place, _ in _plain_checks(value).values():
        node: Any = value
        for key in place:
            node = node[key]
        if node["outcome"] != "passed":
            node["reason"] = "said otherwise"
    path = tmp_path / "reasons.json"
    path.write_text(json.dumps(value), "utf-8")

    read_report(path)


SAMPLES: dict[str, list[tuple[Any, Any]]] = {
    "exact": [("a", "a"), ("a", "b"), (1, 1.0), (True, 1), (MISSING, None), ([1], [1, 2])],
    "set": [([1, 2], [2, 1]), ([1], [1, 2]), ("x", [1]), ([1], "x"), (MISSING, [])],
    "source_span": [
        ("C-1", {"input_path": "/payload/m", "required": [8, 11], "allowed": [0, 11]}),
        ("C-2", {"input_path": "/payload/m", "required": [8, 11], "allowed": [0, 11]}),
        ("C-1", {"input_path": "/payload/m", "required": [8, 11], "allowed": [0, 99]}),
        ("C-1", {"input_path": "/payload/x", "required": [8, 11], "allowed": [0, 11]}),
        (7, {"input_path": "/payload/m", "required": [8, 11], "allowed": [0, 11]}),
        ("C-1", {"required": [8, 11]}),
        (MISSING, {"input_path": "/payload/m", "required": [8, 11], "allowed": [0, 11]}),
    ],
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_verdict_kind_scores_its_verdict_and_nothing_more(name: str) -> None:
    kind = KINDS[name]
    assert kind.verdict is not None
    envelope = {"payload": {"m": "Account C-1"}, "metadata": {}}
    for actual, expected in SAMPLES[name]:
        gold = compile_expectation(RecordedExpectation("c", "/a", name, None, expected, None))
        verdict = kind.verdict(actual, gold, envelope)
        assert kind.score(actual, gold, envelope, None) == with_actual(verdict, actual)


def test_a_check_that_is_no_object_is_refused_for_that_before_any_check_is_typed(
    candidate: bytes, tmp_path: Path
) -> None:
    # As when every check was scored before any was typed: the reader that verifies cases it
    # has not validated (a comparison's, take=None) names the check that is no object.
    honest = tmp_path / "honest.json"
    honest.write_bytes(candidate)
    header = read_report(honest)
    value = json.loads(candidate)
    checks = value["suites"][0]["cases"][1]["attempts"][0]["checks"]
    checks[0] = {"outcome": "passed", "assertions_declared": -1}
    checks[1] = ["passed"]

    with pytest.raises(ReportRefusedError) as refused:
        verify_report(value, header, "forged.json")

    assert str(refused.value) == (
        "forged.json: not a valid report at /suites/0/cases/1: "
        "'list' object has no attribute 'get'."
    )


def test_a_metric_observes_each_attempt_where_its_checks_looked(
    candidate: bytes, tmp_path: Path
) -> None:
    # A metric's observation takes what the attempt's plain check at its path looked at,
    # not resolving it again: each attempt its own answer, every attempt of a repeat, where
    # the check is plain (the first attempts) and where it is not (the second).
    value = json.loads(candidate)
    suite = value["suites"][1]
    assert suite["metric_definitions"][0]["path"] == QUEUE
    for case in suite["cases"]:
        first = case["attempts"][0]
        paths = [e["path"] for e in case["expectations"]]
        if QUEUE not in paths:  # outside the metric's cases
            continue
        again = json.loads(json.dumps(first))
        again["attempt"] = 2
        classified = again["result"]["flows"]["triage"]["steps"]["classify"]["result"]
        classified["answer"] = {"optionId": "cancellation"}
        expected = case["expectations"][paths.index(QUEUE)]["expected"]
        outcome = "passed" if expected == "cancellation" else "failed"
        # not plain: verified in full, what it looked at is not kept, nor the first's used
        again["checks"][paths.index(QUEUE)] = {"outcome": outcome, "adjudicated": False}
        case["attempts"].append(again)
    # Every figure rebuilt by report.rebuild (coherent), the cases kept as they are: plain.
    changed = coherent(json.loads(json.dumps(value)), rescore=False)
    for made, kept in zip(changed["suites"], value["suites"], strict=True):
        made["cases"] = kept["cases"]
    assert changed["suites"][1]["metrics"] != value["suites"][1]["metrics"]
    path = tmp_path / "repeated.json"
    path.write_text(json.dumps(changed), "utf-8")

    read_report(path)

    changed["suites"][1]["metrics"] = value["suites"][1]["metrics"]
    path.write_text(json.dumps(changed), "utf-8")
    with pytest.raises(ReportRefusedError, match="/suites/1/metrics/0/"):
        read_report(path)
