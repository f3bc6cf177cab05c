"""A run constructs its report records without validating them and writes them with
``record_json`` (``report.plain``): the JSON must be what pydantic writes (the records'
adapters, the metrics' and gold's ``model_dump(mode="json")``),
and what a run constructs what validating it gives (tests/conftest.py checks the latter on
every run a test finishes in process; here, its sensitivity and the awkward values)."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel
from tests.helpers.constructed import assert_constructed_as_validated

from goldgate.evals import run_evals
from goldgate.report.io import read_report
from goldgate.report.models import Report, adapter
from goldgate.report.plain import record_json
from goldgate.report.records import ThresholdRecord


def _records(value: Any) -> Iterator[Any]:
    """Every record in ``value`` (the report's dataclasses, and the gold's and metrics'
    models inside), nested ones included."""
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).__pydantic_fields__:
            yield from _records(getattr(value, name))
    elif dataclasses.is_dataclass(value):
        yield value
        for field in dataclasses.fields(value):
            yield from _records(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _records(item)


@pytest.fixture(scope="module")
def example_report(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> Report:
    """The example project's report, read back (validated): metrics of both kinds,
    thresholds, text checks, cases with attempts and checks."""
    from goldgate.cli import main

    output = tmp_path_factory.mktemp("example") / "report.json"
    settings = repo_root / "examples" / "support_triage" / "config" / "settings.yaml"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "sys.argv", ["goldgate", "evaluate", "--config", str(settings), "--output", str(output)]
        )
        with pytest.raises(SystemExit):
            main()
    return read_report(output)


@pytest.mark.slow
def test_record_json_writes_what_pydantic_writes(example_report: Report) -> None:
    kinds = set()
    for record in _records(example_report):
        kinds.add(type(record).__name__)
        if isinstance(record, BaseModel):
            dumped = record.model_dump(mode="json")
            assert record_json(record, by_alias=True) == record.model_dump(
                mode="json", by_alias=True
            )
        else:  # a record of the report, as its adapter dumps it
            dumped = adapter(type(record)).dump_python(record, mode="json")
            assert record_json(record, by_alias=True) == adapter(type(record)).dump_python(
                record, mode="json", by_alias=True
            )
        assert record_json(record) == dumped, type(record)
    assert {"Report", "SuiteRecord", "CaseRecord", "AttemptRecord", "CheckRecord",
            "TargetRecord", "CountsRecord", "ThresholdRecord", "VerdictRecord",
            "ClassificationMetricResult", "Metric"} <= kinds  # fmt: skip


@pytest.mark.slow
def test_include_and_aliases_as_pydantic(example_report: Report) -> None:
    suite = example_report.suites[0]
    head = {"name", "target", "metric_definitions", "whole_case_count"}
    assert record_json(suite, by_alias=True, include=head) == adapter(type(suite)).dump_python(
        suite, mode="json", by_alias=True, include=head
    )
    in_order = ["name", "target", "whole_case_count", "metric_definitions"]  # as declared
    assert list(record_json(suite, include=head)) == in_order


def test_a_value_record_json_cannot_write_is_refused() -> None:
    record = ThresholdRecord(key="k", minimum=object(), actual=None, held=False)
    with pytest.raises(TypeError, match="does not write"):
        record_json(record)


@pytest.mark.slow
def test_the_check_notices_a_list_for_a_tuple_and_an_int_for_a_float(
    example_report: Report,
) -> None:
    assert_constructed_as_validated(example_report)  # a validated report passes
    suite = example_report.suites[0]
    as_list = dataclasses.replace(suite, thresholds=list(suite.thresholds))
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(dataclasses.replace(example_report, suites=(as_list,)))
    threshold = ThresholdRecord(key="pass_rate", minimum=1, actual=1.0, held=True)
    as_int = dataclasses.replace(suite, thresholds=(threshold,))
    with pytest.raises(AssertionError):
        assert_constructed_as_validated(dataclasses.replace(example_report, suites=(as_int,)))


def test_integers_where_floats_belong_are_constructed_as_floats(tmp_path: Path) -> None:
    """Thresholds written as integers, and a value score's minimum that is an integer: the
    records hold floats, as validation makes them (and the JSON says 1.0, not 1)."""
    (tmp_path / "eval_ints.py").write_text(
        textwrap.dedent(
            """
            from goldgate.evals import eval

            @eval(dataset="d", cases=[{"input": 1}, {"input": 0}],
                  thresholds={"quality.min": 0, "pass_rate": 1, "quality.mean": 0})
            def e(ctx):
                ctx.store(output=ctx.input, scores={"key": "quality", "value": ctx.input})
            """
        ),
        encoding="utf-8",
    )
    report = anyio.run(lambda: run_evals([tmp_path], project=tmp_path))
    [suite] = report.suites
    assert [type(t.minimum) for t in suite.thresholds] == [float] * 3
    assert type(suite.summary["quality.min"]) is float
    assert suite.summary["quality.min"] == 0.0
    assert_constructed_as_validated(report)


@pytest.mark.slow  # the example's run, as the other tests of the example's report
def test_a_report_written_a_case_at_a_time_is_the_report_written_whole(
    example_report: Report,
) -> None:
    """``report_chunks`` (merge and replay write reports a case at a time, never whole in
    memory) gives the very bytes of the whole report's JSON, split at each case."""
    import orjson

    from goldgate.report.io import report_bytes
    from goldgate.report.stream import queued_entry, report_chunks

    plain = record_json(example_report)
    for suite in plain["suites"]:  # an entry's judge is written only where one suggested
        suite["adjudication_queue"] = [queued_entry(e) for e in suite["adjudication_queue"]]
    whole = orjson.dumps(plain) + b"\n"
    pieces = list(report_chunks(example_report))
    assert b"".join(pieces) == whole == report_bytes(example_report)
    assert len(pieces) > sum(len(suite.cases) for suite in example_report.suites) > 0
