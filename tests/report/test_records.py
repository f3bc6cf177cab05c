"""The report's records are defined once (``report.records``, ``report.caserecords``): frozen
dataclasses that a run builds without pydantic and that reading a report validates through
(``report.models``' adapters), so a run returns the very classes a reader gets. What a run
builds is what validating it gives (tests/conftest.py checks every in-process run; here, the
check and its sensitivity)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from tests.helpers.constructed import assert_constructed_as_validated

from goldgate.evals.session import EvalsRequest, prepare
from goldgate.report import caserecords, models, records
from goldgate.report.io import read_report
from goldgate.report.models import Report, SuiteRecord, validated
from goldgate.report.plain import record_json

SOURCE = Path(models.__file__).resolve().parents[1]


def _record_kinds() -> list[type[Any]]:
    return [
        kind
        for module in (records, caserecords)
        for name in module.__all__
        if inspect.isclass(kind := getattr(module, name))
        and dataclasses.is_dataclass(kind)
        and not name.endswith("View")
    ]


def test_the_report_holds_these_records() -> None:
    assert {kind.__name__ for kind in _record_kinds()} == {
        "Report", "SuiteRecord", "CaseRecord", "AttemptRecord", "CheckRecord",
        "ExpectationRecord", "DatasetRecord", "VariantRecord", "OptionsRecord", "ScorerRecord",
        "ReplayRecord", "TargetRecord", "ThresholdRecord", "AwaitingRecord", "CountsRecord",
        "VerdictRecord", "ExceptionRecord", "FrameRecord", "LiveRecord", "PricingRecord",
        "JudgeRecord", "JudgeStandingRecord", "SuiteJudgeRecord",
    }  # fmt: skip


def test_each_record_is_defined_once_in_the_source() -> None:
    # A second definition of a record (a run's summary beside a reader's model, as there
    # were once) is a class of the same name elsewhere in goldgate.
    defined: Counter[str] = Counter()
    for path in SOURCE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined.update(node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    names = [kind.__name__ for kind in _record_kinds()]
    assert {name: defined[name] for name in names} == dict.fromkeys(names, 1)
    assert defined["RunReport"] == 0


@pytest.mark.parametrize("kind", _record_kinds(), ids=lambda kind: kind.__name__)
def test_each_record_is_a_plain_dataclass_the_reader_names(kind: type[Any]) -> None:
    assert getattr(models, kind.__name__) is kind
    assert not issubclass(kind, BaseModel)
    assert "pydantic" not in type(kind).__module__
    assert kind.__pydantic_config__["extra"] == "forbid"
    assert models.adapter(kind) is models.adapter(kind)  # built once


def test_a_record_is_frozen_equal_by_fields_hashable_and_shown_by_fields() -> None:
    # The methods every record shares (recordbase.Record), as dataclass would generate them.
    record = records.ThresholdRecord("pass_rate", 0.5, None, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.held = True  # type: ignore[misc]
    same = records.ThresholdRecord(key="pass_rate", minimum=0.5, actual=None, held=False)
    assert record == same
    assert hash(record) == hash(same) == hash(("pass_rate", 0.5, None, False, None))
    assert record != dataclasses.replace(record, held=True)
    assert record != ("pass_rate", 0.5, None, False)
    assert repr(record) == (
        "ThresholdRecord(key='pass_rate', minimum=0.5, actual=None, held=False, maximum=None)"
    )
    assert pickle.loads(pickle.dumps(record)) == record


def test_reading_validates_through_the_records_definition() -> None:
    value = {"case": "c", "attempt": 1, "check": "x", "digest": "d"}
    record = validated(
        SuiteRecord,
        {
            "name": "s", "fingerprint": "f", "workflow": "w", "flow": None, "step": None,
            "target": {"kind": "python", "workflow_revision": None, "live": False},
            "status": "ran", "case_count": 0, "attempt_count": 0, "cases": [],
            "counts": {"attempts": {}, "checks": {}}, "summary": {}, "verdict": "passed",
            "adjudication_queue": [value],
        },
    )  # fmt: skip
    assert type(record) is records.SuiteRecord
    assert record.adjudication_queue == (records.AwaitingRecord(**value),)
    assert record.target == records.TargetRecord("python", None, False, {})
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        validated(
            SuiteRecord, {**record_json(record), "adjudication_queue": [{**value, "attempt": 0}]}
        )


@pytest.fixture
def run_report(tmp_path: Path) -> Report:
    """What ``goldgate evals run`` returns for its summary: thresholds (floats from integers),
    a queue awaiting a verdict, counts."""
    (tmp_path / "eval_mirror.py").write_text(
        "from goldgate.evals import eval\n\n"
        "@eval(dataset='d', cases=[{'input': 1}, {'input': 0}],\n"
        "      thresholds={'quality.min': 0, 'pass_rate': 1})\n"
        "def e(ctx):\n"
        "    ctx.store(output=ctx.input, scores={'key': 'quality', 'value': ctx.input})\n",
        encoding="utf-8",
    )
    request = EvalsRequest((tmp_path,), output=tmp_path / "report.json")
    report = prepare(request).execute(lambda outcome: None).report
    assert type(report) is Report
    return report


def _types(value: Any) -> list[tuple[str, type[Any]]]:
    """The class of every record in ``value``, by its place."""
    if not dataclasses.is_dataclass(value):
        return []
    found = [("", type(value))]
    for field in dataclasses.fields(value):
        inner = getattr(value, field.name)
        items = inner if isinstance(inner, tuple) else (inner,)
        for index, item in enumerate(items):
            found += [(f"/{field.name}/{index}{at}", kind) for at, kind in _types(item)]
    return found


def test_a_run_returns_the_classes_a_reader_reads_into(run_report: Report, tmp_path: Path) -> None:
    read = read_report(tmp_path / "report.json")
    as_run, as_read = _types(run_report), _types(read)
    # The run's suites have no cases (they are in the file already); all else is alike.
    assert as_run == [(at, kind) for at, kind in as_read if "/cases/" not in at]
    assert {kind for _, kind in as_read} == {kind for _, kind in as_run} | {
        caserecords.CaseRecord, caserecords.AttemptRecord, caserecords.CheckRecord,
        caserecords.ExpectationRecord,
    }  # fmt: skip


def test_a_runs_report_is_what_validating_it_gives(run_report: Report) -> None:
    assert_constructed_as_validated(run_report)
    read = validated(Report, record_json(run_report))
    assert read == run_report
    assert record_json(run_report) == models.adapter(Report).dump_python(read, mode="json")


def test_the_check_notices_a_list_for_a_tuple_and_an_int_for_a_float(
    run_report: Report,
) -> None:
    [suite] = run_report.suites
    as_list = dataclasses.replace(suite, thresholds=list(suite.thresholds))
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(dataclasses.replace(run_report, suites=(as_list,)))
    as_int = dataclasses.replace(
        suite, thresholds=(dataclasses.replace(suite.thresholds[0], minimum=0),)
    )
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(dataclasses.replace(run_report, suites=(as_int,)))


def _case_value(check: dict[str, Any]) -> dict[str, Any]:
    expectation = {"name": "status", "path": "/status"}
    attempt = {"attempt": 1, "status": "completed", "checks": [check]}
    return {"id": "c", "expectations": [expectation], "attempts": [attempt, {**attempt}]}


def test_reading_shares_equal_checks_and_expectations_where_the_context_asks() -> None:
    # report.io reads with the cache in the context: equal small records are one instance.
    context: dict[str, Any] = {models.SHARED: {}}
    first = validated(caserecords.CaseRecord, _case_value({"outcome": "passed"}), context)
    again = validated(caserecords.CaseRecord, _case_value({"outcome": "passed"}), context)
    assert first.attempts[0].checks[0] is first.attempts[1].checks[0]
    assert first.expectations[0] is again.expectations[0]
    other = validated(caserecords.CaseRecord, _case_value({"outcome": "failed"}), context)
    assert other.attempts[0].checks[0].outcome == "failed"  # 1, 1.0 and True stay apart too
    alone = validated(caserecords.CaseRecord, _case_value({"outcome": "passed"}))
    assert alone.attempts[0].checks[0] is not first.attempts[0].checks[0]
    assert alone == first


def test_a_problem_in_a_shared_list_is_named_at_its_place() -> None:
    context: dict[str, Any] = {models.SHARED: {}}
    validated(caserecords.CaseRecord, _case_value({"outcome": "passed"}), context)
    value = _case_value({"outcome": "passed"})
    value["expectations"].append({"name": "x", "path": "/x", "extra": 1})
    with pytest.raises(ValidationError) as invalid:
        validated(caserecords.CaseRecord, value, context)
    [problem] = invalid.value.errors()
    assert problem["loc"] == ("expectations", 1, "extra")
    assert models.problem_words(problem) == "Extra inputs are not permitted"
