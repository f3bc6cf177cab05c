"""The records a run builds (``report.records``) are its report's models without pydantic: the
same fields in the same order, written as the models write them, and what validating them
gives (tests/conftest.py checks every in-process run; here, the mirror and its sensitivity)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tests.helpers.constructed import assert_constructed_as_validated

from goldgate.evals.session import EvalsRequest, prepare
from goldgate.report import models, records
from goldgate.report.plain import record_json
from goldgate.report.records import RunReport, from_model

_MODEL_OF = {"RunReport": "Report"}


def _record_kinds() -> list[type[Any]]:
    return [
        kind
        for name in records.__all__
        if inspect.isclass(kind := getattr(records, name)) and hasattr(kind, "_fields")
    ]


@pytest.mark.parametrize("kind", _record_kinds(), ids=lambda kind: kind.__name__)
def test_each_record_has_its_models_fields_in_its_order(kind: type[Any]) -> None:
    model = getattr(models, _MODEL_OF.get(kind.__name__, kind.__name__))
    assert issubclass(model, BaseModel)
    assert kind._fields == tuple(model.__pydantic_fields__)


def test_every_record_the_report_holds_has_a_mirror() -> None:
    mirrored = {_MODEL_OF.get(kind.__name__, kind.__name__) for kind in _record_kinds()}
    # The rest are read back from a file, never built by a run: cases, attempts, checks.
    built_by_a_run = {
        name
        for name, kind in vars(models).items()
        if inspect.isclass(kind) and issubclass(kind, models._Record)
    } - {"_Record", "CaseRecord", "AttemptRecord", "CheckRecord", "ExpectationRecord"}
    assert mirrored == built_by_a_run


@pytest.fixture
def run_report(tmp_path: Path) -> RunReport:
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
    assert isinstance(report, RunReport)
    return report


def test_a_runs_report_is_what_validating_it_gives(run_report: RunReport) -> None:
    assert_constructed_as_validated(run_report)
    validated = models.Report.model_validate(record_json(run_report))
    assert record_json(run_report) == validated.model_dump(mode="json")


def test_the_check_notices_a_list_for_a_tuple_and_an_int_for_a_float(
    run_report: RunReport,
) -> None:
    [suite] = run_report.suites
    as_list = suite._replace(thresholds=list(suite.thresholds))
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(run_report._replace(suites=(as_list,)))
    as_int = suite._replace(thresholds=(suite.thresholds[0]._replace(minimum=0),))
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(run_report._replace(suites=(as_int,)))


def test_a_saved_reports_records_convert_field_by_field(run_report: RunReport) -> None:
    saved = models.Report.model_validate(record_json(run_report))
    assert from_model(records.OptionsRecord, saved.options) == run_report.options
    assert from_model(records.VariantRecord, saved.variant) == run_report.variant
    assert from_model(records.DatasetRecord, saved.dataset) == run_report.dataset
    target = saved.suites[0].target
    assert from_model(records.TargetRecord, target) == run_report.suites[0].target
