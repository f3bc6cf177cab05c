"""The Python API (``goldgate.run.api``): the seed's examples with our package name, an
immutable in-memory report, no file written, scorers checked before anything runs, and the
application lifecycle over the bundled example."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import FrozenJson
from goldgate.gold import Case, Metric, load_gold
from goldgate.gold.settings.load import load_settings
from goldgate.report.models import Report, ScorerRecord
from goldgate.report.plain import record_json
from goldgate.run.api import (
    EvaluationSuite,
    EvaluationVariant,
    Expectation,
    RegisteredScorer,
    evaluate,
    open_application,
)
from goldgate.run.limits import RunOptions

from .support import EXAMPLE

pytestmark = pytest.mark.anyio

SETTINGS = EXAMPLE / "config" / "settings.yaml"


async def same_casefolded(actual: FrozenJson, expected: FrozenJson) -> bool:
    return (
        isinstance(actual, str)
        and isinstance(expected, str)
        and actual.casefold() == expected.casefold()
    )


def normalized_category() -> Expectation:
    """The seed's custom expectation, positional form."""
    return Expectation(
        "normalized_category", "/payload/category", "billing", "custom", "casefolded"
    )


def _case(case_id: str, message: str, *expectations: Expectation) -> Case:
    return Case(
        id=case_id,
        input={"payload": {"message": message}, "metadata": {"language": "en"}},
        expectations=list(expectations),
    )


@pytest.fixture
def quiet_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder, to show that the Python API writes nothing."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def example_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Import the example's package without leaving it (or its bytecode) behind."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("support_triage_app"):
            del sys.modules[name]


async def test_seed_custom_scorer_example(quiet_cwd: Path) -> None:
    calls: list[Mapping[str, Any]] = []

    async def application(envelope: Mapping[str, Any]) -> dict[str, Any]:
        calls.append(envelope)
        billing = "refund" in envelope["payload"]["message"]
        return {
            "execution": {"status": "completed" if billing else "needs_review"},
            "payload": {"category": "BILLING" if billing else None},
        }

    status = "/execution/status"
    suite = EvaluationSuite(
        name="python_api",
        cases=[
            _case(
                "refund",
                "Please refund me.",
                Expectation(
                    "normalized_category", "/payload/category", "billing", "custom", "casefolded"
                ),
                Expectation("status", status, "completed"),
            ),
            _case(
                "unclear",
                "Hello?",
                Expectation(
                    "normalized_category", "/payload/category", "billing", "custom", "casefolded"
                ),
                Expectation("status", status, "needs_review"),
            ),
        ],
        thresholds={"pass_rate": 0.7},
    )
    metrics = [
        Metric(
            name="terminal",
            path=status,
            kind="classification",
            labels=["completed", "needs_review"],
        )
    ]
    scorers = (RegisteredScorer("casefolded", "1", same_casefolded),)
    variant = EvaluationVariant(
        name="candidate",
        revision="prompt-2026-09-22",
        run=application,
        configuration_revision="config-digest",
        workflow="support_triage",
    )

    report = await evaluate(
        suite,
        variant,
        metrics=metrics,
        scorers=scorers,
        include_details=True,
        options=RunOptions(max_concurrency=1, timeout=300),
    )

    assert isinstance(report, Report)
    assert report.complete is True
    assert len(calls) == 2
    assert record_json(report.variant) == {
        "name": "candidate",
        "revision": "prompt-2026-09-22",
        "configuration_revision": "config-digest",
    }
    assert report.scorers == (ScorerRecord(name="casefolded", revision="1"),)
    [record] = report.suites
    refund, unclear = record.attempts
    check = refund.checks[0]
    assert (check.name, check.comparison, check.scorer, check.outcome) == (
        "normalized_category",
        "custom",
        "casefolded",
        "passed",
    )
    assert (check.actual, check.expected) == ("BILLING", "billing")
    assert unclear.checks[0].outcome == "failed"
    assert unclear.checks[0].actual is None
    assert unclear.checks[1].outcome == "passed"
    assert record.summary["pass_rate"] == pytest.approx(0.75)
    assert record.verdict == "passed"  # the 0.7 threshold holds
    [terminal] = record.metrics
    assert (terminal.support, terminal.correct, terminal.accuracy) == (2, 2, 1.0)
    assert report.verdict.exit_code == 0
    assert report.options.include_details is True

    # Immutable all the way down.
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.complete = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.verdict = "failed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):  # a view joined from the record
        check.outcome = "failed"  # type: ignore[misc]
    # No file was written.
    assert list(quiet_cwd.iterdir()) == []


async def test_without_details_the_report_holds_no_private_values(quiet_cwd: Path) -> None:
    async def application(envelope: Mapping[str, Any]) -> dict[str, Any]:
        return {"payload": {"category": "Billing"}}

    suite = EvaluationSuite(
        name="private",
        cases=[
            _case(
                "a",
                "secret message",
                Expectation("category", "/payload/category", "billing", "custom", "casefolded"),
            )
        ],
    )
    report = await evaluate(
        suite,
        EvaluationVariant("candidate", "r1", application),
        scorers=(RegisteredScorer("casefolded", "1", same_casefolded),),
        include_details=False,
    )
    [attempt] = report.suites[0].attempts
    assert attempt.status == "completed"
    assert (attempt.input, attempt.result) == (None, None)
    assert (attempt.checks[0].actual, attempt.checks[0].expected) == (None, None)
    assert attempt.checks[0].outcome == "passed"
    assert list(quiet_cwd.iterdir()) == []


async def test_a_missing_scorer_registration_fails_before_anything_runs() -> None:
    calls: list[Mapping[str, Any]] = []

    async def application(envelope: Mapping[str, Any]) -> dict[str, Any]:
        calls.append(envelope)
        return {"payload": {"category": "billing"}}

    suite = EvaluationSuite(
        name="unregistered",
        cases=[
            _case("a", "hi", Expectation("category", "/payload/category", "billing")),
            _case(
                "b",
                "hi",
                Expectation(
                    "normalized_category", "/payload/category", "billing", "custom", "casefolded"
                ),
            ),
        ],
    )
    with pytest.raises(InvalidInputError) as refused:
        await evaluate(suite, EvaluationVariant("candidate", "r1", application), scorers=())
    assert "'casefolded' is not registered" in str(refused.value)
    assert "'b'" in str(refused.value)
    assert calls == []


@pytest.mark.slow
async def test_open_application_over_the_example(example_imports: None) -> None:
    prepared_digest = load_settings(SETTINGS).configuration_digest
    envelope = {
        "payload": {"message": "I was overcharged, please refund the difference."},
        "metadata": {"language": "en"},
    }
    async with open_application(SETTINGS) as application:
        assert application.configuration_digest == prepared_digest
        assert application.prepared.configuration_digest == prepared_digest
        assert callable(application.run)
        assert callable(application.run_flow)
        assert callable(application.run_step)

        step = await application.run_step("support_triage", "triage", "classify", envelope)
        assert list(step.document["flows"]) == ["triage"]
        assert list(step.document["flows"]["triage"]["steps"]) == ["classify"]
        classify = step.document["flows"]["triage"]["steps"]["classify"]
        assert classify["result"]["answer"] == {"optionId": "billing_dispute"}
        assert step.document["execution"] == {"status": "completed"}

        flow = await application.run_flow("support_triage", "triage", envelope)
        assert set(flow.document["flows"]["triage"]["steps"]) == {
            "classify",
            "tag",
            "extract",
            "requests",
            "draft",
        }
        whole = await application.run("support_triage", envelope)
        assert whole.document["payload"]["category"] == "billing_dispute"

        # The command workflow is reachable too; the live one is not prepared without live.
        command = await application.run("support_triage_cli", envelope)
        assert command.document["payload"]["category"] == "billing_dispute"
        with pytest.raises(InvalidInputError, match="'answer_live' is not declared"):
            await application.run("answer_live", envelope)


async def test_seed_step_and_workflow_variants_over_the_example(
    example_imports: None, quiet_cwd: Path
) -> None:
    settings = load_settings(SETTINGS)
    gold = load_gold(settings)
    scorers = (RegisteredScorer("casefolded", "1", same_casefolded),)
    async with open_application(settings) as application:
        prepared = application.prepared
        step_variant = EvaluationVariant(
            name="candidate",
            revision="prompt-2026-09-22",
            run=lambda envelope: application.run_step(
                "support_triage", "triage", "classify", envelope
            ),
            configuration_revision=prepared.configuration_digest,
            workflow="support_triage",
            flow="triage",
            step="classify",
        )
        step_report = await evaluate(
            gold.suite("classify_step"),
            step_variant,
            scorers=scorers,
            include_details=True,
            options=RunOptions(max_concurrency=1, timeout=300),
        )
        workflow_variant = EvaluationVariant(
            name="candidate",
            revision="rules",
            run=lambda envelope: application.run("support_triage", envelope),
            configuration_revision=prepared.configuration_digest,
            workflow="support_triage",
        )
        workflow_report = await evaluate(
            gold.suite("pipeline"),
            workflow_variant,
            scorers=scorers,
            options=RunOptions(max_concurrency=4),
        )

    [classify] = step_report.suites
    assert classify.verdict == "passed"
    assert classify.counts.attempts["completed"] == 8
    assert classify.counts.checks["failed"] == classify.counts.checks["error"] == 0
    assert [m.name for m in classify.metrics] == ["queue_quality", "issue_quality"]
    assert classify.metrics[0].accuracy == 1.0
    assert {t.key: t.held for t in classify.thresholds} == {
        "pass_rate": True,
        "queue_quality.accuracy": True,
        "queue_quality.coverage": True,
    }
    assert step_report.variant.configuration_revision == settings.configuration_digest

    [pipeline] = workflow_report.suites
    assert pipeline.verdict == "passed"
    assert pipeline.counts.attempts["completed"] == 10
    assert workflow_report.scorers == (ScorerRecord(name="casefolded", revision="1"),)
    custom = [c for a in pipeline.attempts for c in a.checks if c.comparison == "custom"]
    assert custom
    assert all(c.outcome == "passed" for c in custom)
    assert list(quiet_cwd.iterdir()) == []


async def test_an_in_memory_suite_records_the_variant_target() -> None:
    case = Case.model_validate(
        {
            "id": "c",
            "input": {"payload": {}, "metadata": {}},
            "expectations": [{"name": "s", "path": "/execution/status", "expected": "ok"}],
        }
    )

    async def run(envelope: Mapping[str, Any]) -> dict[str, Any]:
        return {"execution": {"status": "ok"}}

    variant = EvaluationVariant(
        name="v", revision="r", run=run, workflow="triage", flow="main", step="classify"
    )
    report = await evaluate(EvaluationSuite("s", [case]), variant)

    [suite] = report.suites
    assert (suite.workflow, suite.flow, suite.step) == ("triage", "main", "classify")
    assert suite.verdict == "passed"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"suite": {"name": "s", "cases": []}}, "suite must be an EvaluationSuite, not dict."),
        ({"variant": {"name": "v"}}, "variant must be an EvaluationVariant, not dict."),
        (
            {"cases": [{"id": "a"}]},
            "suite.cases[0] must be a Case (Case.model_validate(dict)), not dict.",
        ),
        (
            {"metrics": [{"name": "m"}]},
            "metrics[0] must be a Metric (Metric.model_validate(dict)), not dict.",
        ),
        ({"scorers": [{"name": "x"}]}, "scorers[0] must be a RegisteredScorer, not dict."),
    ],
)
def test_plain_dicts_where_models_belong_are_a_clear_type_error(
    change: dict[str, Any], message: str
) -> None:
    from goldgate.gold.models import Case
    from goldgate.run.api import EvaluationSuite, EvaluationVariant, evaluate

    async def run(envelope: Any) -> dict[str, Any]:
        return {"execution": {"status": "completed"}}

    case = Case.model_validate(
        {
            "id": "a",
            "input": {"payload": {}, "metadata": {}},
            "expectations": [{"name": "s", "path": "/execution/status", "expected": "completed"}],
        }
    )
    suite: Any = change.get("suite", EvaluationSuite("s", change.get("cases", [case])))
    variant: Any = change.get("variant", EvaluationVariant(name="v", revision="r", run=run))
    with pytest.raises(TypeError) as refused:
        asyncio.run(
            evaluate(
                suite,
                variant,
                metrics=change.get("metrics", ()),
                scorers=change.get("scorers", ()),
            )
        )
    assert str(refused.value) == message


def test_paths_may_be_strings(tmp_path: Path) -> None:
    from goldgate.report.io import read_report

    fixture = Path(__file__).parents[1] / "report" / "fixtures" / "report_v1_example.json"
    assert read_report(str(fixture)).format == "goldgate.report/2"
