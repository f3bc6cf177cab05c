"""A suite's figures and verdict have one home (issue 40, item 3): ``suite_figures`` is what
the run, the report process, verification, rebuilding and merging all call. A verdict rule
changed there alone shows in every path; no other module decides a threshold or a verdict."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import anyio
import pytest

from goldgate.base.errors import ReportRefusedError
from goldgate.gold.models import Case, Expectation
from goldgate.report import figures
from goldgate.report.io import ReportFile, parse_report, report_bytes
from goldgate.report.merge import ShardReport, merge_reports
from goldgate.report.models import Report
from goldgate.report.process import _DISCARD, _RECORD, _SUITE, _Writing
from goldgate.report.rebuild import rebuild_suite
from goldgate.report.records import SuiteVerdict
from goldgate.run.api import EvaluationSuite, EvaluationVariant, _gold_suite, evaluate

SRC = Path(__file__).resolve().parents[2] / "src" / "goldgate"

DECIDERS = {"suite_thresholds", "suite_verdict", "maximum_figures", "CountsRecord"}
"""What decides a suite's counts, thresholds and verdict: called in report/figures.py only."""


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
    }


def test_only_the_figures_module_decides_a_suites_figures() -> None:
    deciding = {
        str(path.relative_to(SRC)): sorted(_calls(path) & DECIDERS)
        for path in SRC.rglob("*.py")
        if _calls(path) & DECIDERS
    }
    assert deciding == {"report/figures.py": sorted(DECIDERS)}
    for module in ("build", "verify", "rebuild"):
        assert "suite_figures" in _calls(SRC / "report" / f"{module}.py"), module
    assert "rebuild_suite" in _calls(SRC / "report" / "merge.py")
    assert "SuiteCollector" in _calls(SRC / "report" / "process.py")


async def _answer(envelope: object) -> dict[str, object]:
    return {"execution": {"status": "completed"}, "payload": {"label": "a"}}


SUITE = EvaluationSuite(
    "s",
    [
        Case(
            id=f"c{index}",
            input={"payload": {}, "metadata": {}},
            expectations=[Expectation("label", "/payload/label", "a")],
        )
        for index in range(3)
    ],
)
VARIANT = EvaluationVariant("v", "r1", _answer)


def _report() -> Report:
    return anyio.run(lambda: evaluate(SUITE, VARIANT))


@pytest.fixture
def contrary(monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict rule changed in ``report.figures`` alone: a suite whose checks all passed
    is 'error'."""

    def error(*args: object) -> SuiteVerdict:
        return "error"

    monkeypatch.setattr(figures, "suite_verdict", error)


def test_the_rule_as_it_is() -> None:
    assert _report().suites[0].verdict == "passed"


@pytest.mark.usefixtures("contrary")
def test_the_run_decides_through_it() -> None:
    assert _report().suites[0].verdict == "error"


def test_verification_decides_through_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = report_bytes(_report())
    monkeypatch.setattr(figures, "suite_verdict", lambda *args: "error")
    with pytest.raises(ReportRefusedError, match="verdict"):
        parse_report(data, "report.json")


def test_rebuilding_and_merging_decide_through_it(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _report()
    [suite] = report.suites
    monkeypatch.setattr(figures, "suite_verdict", lambda *args: "error")
    assert rebuild_suite(suite, suite.cases).verdict == "error"
    cases = tuple(dataclasses.replace(c, position=n) for n, c in enumerate(suite.cases))
    shard = dataclasses.replace(
        report,
        options=dataclasses.replace(report.options, shard="1/1"),
        suites=(dataclasses.replace(suite, whole_case_count=len(cases), cases=cases),),
    )
    assert merge_reports([ShardReport("shard.json", shard)]).suites[0].verdict == "error"


@pytest.mark.usefixtures("contrary")
def test_the_report_process_decides_through_it(tmp_path: Path) -> None:
    """What the forked report process does with a suite's last message (``_Writing``, run
    here in this process)."""
    gold = _gold_suite(SUITE, VARIANT, ())
    writing = _Writing([gold], ReportFile(tmp_path / "report.json"))
    target = _report().suites[0].target
    assert writing.take((_SUITE, 0, 1, True)) is None
    for index in range(3):
        assert writing.collector is not None
        writing.collector.add_unfinished(index, 1, "cancelled", "interrupted")
    answer = writing.take((_RECORD, target, None, True))
    assert answer is not None
    failed, record = answer
    assert not failed
    assert record.verdict == "error"
    writing.take((_DISCARD,))
