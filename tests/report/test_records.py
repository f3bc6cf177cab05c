"""The records a run builds (``report.records``) are defined once: the small records are the
field types of the report's models, so reading a report validates through that definition;
the run's summaries of a suite and of the report have the fields of their models, in order.
What a run builds is what validating it gives (tests/conftest.py checks every in-process run;
here, the check and its sensitivity)."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tests.helpers.constructed import assert_constructed_as_validated

from goldgate.evals.session import EvalsRequest, prepare
from goldgate.report import models, records
from goldgate.report.plain import record_json
from goldgate.report.records import RunReport

_SUMMARIES = {"RunReport": models.Report, "SuiteRecord": models.SuiteRecord}
"""The run's own summaries (no cases) and the models they stand for."""


def _record_kinds() -> list[type[Any]]:
    return [
        kind
        for name in records.__all__
        if inspect.isclass(kind := getattr(records, name)) and dataclasses.is_dataclass(kind)
    ]


def _leaves() -> list[type[Any]]:
    return [kind for kind in _record_kinds() if kind.__name__ not in _SUMMARIES]


@pytest.mark.parametrize("kind", _leaves(), ids=lambda kind: kind.__name__)
def test_each_small_record_is_the_models_own_field_type(kind: type[Any]) -> None:
    assert getattr(models, kind.__name__) is kind
    assert "pydantic" not in type(kind).__module__


@pytest.mark.parametrize("name", sorted(_SUMMARIES))
def test_each_summary_has_its_models_fields_in_its_order(name: str) -> None:
    kind, model = getattr(records, name), _SUMMARIES[name]
    assert [field.name for field in dataclasses.fields(kind)] == list(model.__pydantic_fields__)


def test_every_record_the_report_holds_is_a_record_or_a_summary() -> None:
    # The models are the report, its suites, and what is read back from a file, never built
    # by a run: cases, attempts, checks, expectations.
    held = {
        name
        for name, kind in vars(models).items()
        if inspect.isclass(kind) and issubclass(kind, models._Record) and kind is not models._Record
    }
    assert held == {
        "Report",
        "SuiteRecord",
        "CaseRecord",
        "AttemptRecord",
        "CheckRecord",
        "ExpectationRecord",
    }
    fields = [*models.Report.model_fields.values(), *models.SuiteRecord.model_fields.values()]
    annotations = " ".join(str(field.annotation) for field in fields)
    assert all(kind.__name__ in annotations for kind in _leaves())


def test_a_record_is_frozen_equal_by_fields_hashable_and_shown_by_fields() -> None:
    # The methods every record shares (records._Record), as dataclass would generate them.
    record = records.ThresholdRecord("pass_rate", 0.5, None, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.held = True  # type: ignore[misc]
    same = records.ThresholdRecord(key="pass_rate", minimum=0.5, actual=None, held=False)
    assert record == same
    assert hash(record) == hash(same) == hash(("pass_rate", 0.5, None, False))
    assert record != dataclasses.replace(record, held=True)
    assert record != ("pass_rate", 0.5, None, False)
    assert repr(record) == (
        "ThresholdRecord(key='pass_rate', minimum=0.5, actual=None, held=False)"
    )
    assert pickle.loads(pickle.dumps(record)) == record


def test_reading_validates_through_the_records_definition() -> None:
    value = {"case": "c", "attempt": 1, "check": "x", "digest": "d"}
    record = models.SuiteRecord.model_validate(
        {
            "name": "s", "fingerprint": "f", "workflow": "w", "flow": None, "step": None,
            "target": {"kind": "python", "workflow_revision": None, "live": False},
            "status": "ran", "case_count": 0, "attempt_count": 0, "cases": [],
            "counts": {"attempts": {}, "checks": {}}, "summary": {}, "verdict": "passed",
            "adjudication_queue": [value],
        }
    )  # fmt: skip
    assert record.adjudication_queue == (records.AwaitingRecord(**value),)
    assert record.target == records.TargetRecord("python", None, False, {})
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        models.SuiteRecord.model_validate(
            {**record.model_dump(), "adjudication_queue": [{**value, "attempt": 0}]}
        )


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
    assert validated.options == run_report.options
    assert validated.variant == run_report.variant
    assert validated.dataset == run_report.dataset
    assert validated.suites[0].target == run_report.suites[0].target


def test_the_check_notices_a_list_for_a_tuple_and_an_int_for_a_float(
    run_report: RunReport,
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
