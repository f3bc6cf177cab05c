"""Seed 002's examples and seed 004's dataset line run as goldgate evals, with the outcomes the
seeds describe (the examples themselves are in seed002/eval_seed002.py, verbatim but for the
import line; seed 004's line in seed004/commits.jsonl)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.evals import EvalContext, run_evals
from goldgate.evals._scores import normalize_scores
from goldgate.report.models import Report, SuiteRecord

HERE = Path(__file__).parent
SEED002 = HERE / "seed002" / "eval_seed002.py"
SEED004 = HERE / "seed004"
SEEDS = HERE.parents[2] / "shared" / "seeds"
USER_DATA = '"Should contain user data"'


def _at(fragment: str) -> str:
    """``file:line`` of the line of the seed file holding ``fragment``."""
    lines = SEED002.read_text(encoding="utf-8").splitlines()
    return f"{SEED002.name}:{next(n for n, t in enumerate(lines, 1) if fragment in t)}"


def _run(path: Path, monkeypatch: pytest.MonkeyPatch, mode: str = "good", **options: Any) -> Report:
    monkeypatch.setenv("SEED_AGENTS", mode)
    return anyio.run(lambda: run_evals([path], project=path.parent, **options))


def _suite(report: Report, name: str) -> SuiteRecord:
    return next(suite for suite in report.suites if suite.name == name)


def _attempt(report: Report, suite: str, case: str) -> Any:
    return next(a for a in _suite(report, suite).attempts if a.case_id == case)


def _checks(report: Report, suite: str, case: str) -> dict[str, tuple[str, str | None]]:
    return {c.name: (c.outcome, c.reason) for c in _attempt(report, suite, case).checks}


def _scores(report: Report, suite: str, case: str) -> list[dict[str, Any]]:
    result = _attempt(report, suite, case).result
    assert result is not None
    return list(result["scores"])


# --- the examples are the seed's, verbatim ---------------------------------------------------


def _seed_blocks() -> list[str]:
    path = SEEDS / "002_ccbf7b4dee071d12.txt"
    if not path.is_file():
        pytest.skip(f"seed 002 not found at {path}")
    text = path.read_text(encoding="utf-8")
    return re.findall(r"```python theme=\{null\}\n(.*?)```", text, flags=re.DOTALL)


def test_every_runnable_seed_example_is_in_the_eval_file_verbatim() -> None:
    blocks = _seed_blocks()
    source = SEED002.read_text(encoding="utf-8")
    runnable = [b for b in blocks if "@eval" in b or b.startswith("def ")]

    assert len(blocks) == 10
    assert len(runnable) == 8
    for block in runnable:
        assert block.rstrip("\n") in source
    # The only line the examples needed changed: the import.
    assert "from goldgate.evals import eval, EvalContext\n" in source


# --- seed 002: the outcomes it describes ------------------------------------------------------


@pytest.fixture(scope="module")
def good() -> Report:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _run(SEED002, monkeypatch)


@pytest.fixture(scope="module")
def bad() -> Report:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _run(SEED002, monkeypatch, "bad")


def test_a_suite_per_dataset_and_a_case_per_function_and_case(good: Report) -> None:
    assert [(s.name, [c.id for c in s.cases]) for s in good.suites] == [
        ("qa", ["test_answer_quality", "test_comprehensive"]),
        ("customer_service", ["test_refund_response"]),
        ("math", ["test_arithmetic"]),
        ("sentiment", ["test_sentiment[0]", "test_sentiment[1]", "test_sentiment[2]"]),
        ("classification", ["test_with_confidence"]),
        ("demo", ["test_mixed"]),
        ("api", ["test_json_response"]),
    ]
    assert all(s.target.kind == "eval" for s in good.suites)


def test_when_assertions_pass_the_eval_passes(good: Report) -> None:
    assert good.verdict.exit_code == 0
    assert good.verdict.meaning == "passed"
    for case in ("test_answer_quality",):
        assert _checks(good, "qa", case)["pass"] == ("passed", None)
        assert {"key": "pass", "passed": True} in _scores(good, "qa", case)
    assert _attempt(good, "math", "test_arithmetic").result["output"] == "4"


def test_a_failing_assertion_is_a_score_with_its_message_and_keeps_input_and_output(
    bad: Report,
) -> None:
    attempt = _attempt(bad, "qa", "test_answer_quality")

    assert attempt.status == "completed"  # caught gracefully, not a crash
    assert attempt.input["payload"]["input"] == "What is the capital of France?"
    assert attempt.result["output"] == "I am not sure."
    [failed] = [s for s in attempt.result["scores"] if s.get("passed") is False]
    assert failed["key"] == "pass"
    assert failed["notes"] == "Should mention Paris"
    where = _at('"Should mention Paris"')
    assert failed["at"] == where
    assert _checks(bad, "qa", "test_answer_quality")["pass"] == (
        "failed",
        f"the assertion at {where} failed: Should mention Paris",  # the message is the reason
    )


def test_the_first_failing_assertion_of_several_is_the_reason(bad: Report) -> None:
    [failed] = [
        s for s in _scores(bad, "customer_service", "test_refund_response") if "passed" in s
    ]
    assert failed["notes"] == "Response too short"


def test_a_bare_assert_reports_its_source_line(bad: Report) -> None:
    [failed] = _scores(bad, "math", "test_arithmetic")
    assert failed["notes"] == "assert ctx.output == ctx.reference"
    assert _attempt(bad, "math", "test_arithmetic").result["output"] == "5"


def test_cases_each_run_with_their_input_and_reference(good: Report, bad: Report) -> None:
    suite = _suite(good, "sentiment")
    assert [c.input["payload"] for c in suite.cases] == [
        {"case": "test_sentiment[0]", "input": "I love this!", "reference": "positive"},
        {"case": "test_sentiment[1]", "input": "This is terrible", "reference": "negative"},
        {"case": "test_sentiment[2]", "input": "It's okay", "reference": "neutral"},
    ]
    assert suite.counts.checks["passed"] == 3
    assert _suite(bad, "sentiment").counts.checks == {
        "passed": 1,
        "failed": 2,
        "error": 0,
        "not_run": 0,
    }


def test_numeric_scores_are_summarized_and_the_output_is_stored(good: Report) -> None:
    suite = _suite(good, "classification")
    attempt = _attempt(good, "classification", "test_with_confidence")

    assert attempt.result["output"] == "news"
    assert {"key": "pass", "value": 0.92, "notes": "Model confidence"} in attempt.result["scores"]
    assert suite.summary["pass.mean"] == pytest.approx(0.92)
    assert suite.summary["pass.count"] == 1
    # A numeric score alone neither passes nor fails (EZVals: "scored"): the check waits.
    assert _checks(good, "classification", "test_with_confidence") == {
        "pass": ("not_run", "this attempt made no 'pass' score with passed")
    }


NO_PASS = ("not_run", "this attempt made no 'pass' score with passed")
"""The pass check of an eval that stored scores: no automatic pass score then (EZVals)."""


def test_multiple_named_metrics_are_checks_and_summaries(good: Report, bad: Report) -> None:
    assert _checks(good, "qa", "test_comprehensive") == {
        "pass": NO_PASS,
        "relevance": ("passed", None),
        "brevity": ("passed", None),
    }
    assert _suite(good, "qa").summary["similarity.mean"] == pytest.approx(0.8)
    assert _checks(bad, "qa", "test_comprehensive") == {
        "pass": NO_PASS,
        "relevance": ("failed", "score 'relevance' did not pass: Mentions quantum"),
        "brevity": ("failed", "score 'brevity' did not pass: Length: 780"),
    }
    brevity = next(s for s in _scores(bad, "qa", "test_comprehensive") if s["key"] == "brevity")
    assert brevity["notes"] == "Length: 780"


def test_assertions_and_store_combine(good: Report, bad: Report) -> None:
    assert _checks(good, "demo", "test_mixed") == {"pass": NO_PASS}
    assert _suite(good, "demo").summary["quality.mean"] == 0.75
    failed = _scores(bad, "demo", "test_mixed")
    assert failed == [
        {"key": "pass", "passed": False, "notes": "Got no output", "at": _at('"Got no output"')}
    ]
    assert "quality.mean" not in _suite(bad, "demo").summary  # absent, not zero


def test_evaluators_add_scores_after_the_eval(good: Report, bad: Report) -> None:
    assert _checks(good, "api", "test_json_response") == {
        "pass": ("passed", None),
        "format": ("passed", None),
    }
    assert _checks(bad, "api", "test_json_response") == {
        "pass": ("failed", f"the assertion at {_at(USER_DATA)} failed: Should contain user data"),
        "format": (
            "failed",
            "evaluator 'check_format' scored 'format' as not passed: Invalid JSON",
        ),
    }
    notes = {s["key"]: s.get("notes") for s in _scores(bad, "api", "test_json_response")}
    assert notes == {"pass": "Should contain user data", "format": "Invalid JSON"}


def test_failures_are_gold_disagreement_never_a_crash(bad: Report) -> None:
    assert bad.verdict.exit_code == 1
    assert all(s.counts.attempts["completed"] == s.attempt_count for s in bad.suites)


def test_the_fragment_creates_the_score_the_seed_shows(tmp_path: Path) -> None:
    block = _seed_blocks()[4]
    assertion = next(line for line in block.splitlines() if line.startswith("assert"))
    shown = ast.literal_eval(block[block.index("{") :])
    (tmp_path / "eval_fragment.py").write_text(
        "from goldgate.evals import eval, EvalContext\n\n"
        '@eval(input="capital of France?", dataset="geo")\n'
        "def capital(ctx: EvalContext):\n"
        '    ctx.output = "Lyon"\n'
        f"    {assertion}\n",
        encoding="utf-8",
    )

    report = anyio.run(lambda: run_evals([tmp_path], project=tmp_path))
    [score] = report.suites[0].cases[0].attempts[0].result["scores"]

    assert {key: score[key] for key in shown} == shown
    assert report.suites[0].cases[0].attempts[0].result["output"] == "Lyon"


def test_the_score_structure_reference_is_a_valid_score() -> None:
    shown = ast.literal_eval(_seed_blocks()[9])

    assert normalize_scores(shown, "pass") == [shown]
    assert normalize_scores({"passed": True}, "pass") == [{"key": "pass", "passed": True}]


def test_the_table_forms_of_store() -> None:
    ctx = EvalContext(function_name="t")
    ctx.store(scores=0.85)
    ctx.store(scores=[{"key": "a", "passed": True}, {"key": "b", "value": 0.1}])
    ctx.store(scores={"key": "a", "passed": False})  # a key already there: replaced

    assert ctx.scores == [
        {"key": "pass", "value": 0.85},
        {"key": "a", "passed": False},
        {"key": "b", "value": 0.1},
    ]


# --- seed 004's dataset line ------------------------------------------------------------------


def test_the_seed_004_line_is_verbatim() -> None:
    path = SEEDS / "004_1d8a20c588b91f18.txt"
    if not path.is_file():
        pytest.skip(f"seed 004 not found at {path}")
    line = next(
        text for text in path.read_text(encoding="utf-8").splitlines() if text.startswith('{"id"')
    )
    assert (SEED004 / "commits.jsonl").read_text(encoding="utf-8") == line + "\n"


def test_the_seed_004_line_scores_the_output_and_asks_a_person(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = _run(SEED004, monkeypatch)
    [suite] = report.suites
    [case] = suite.cases
    [attempt] = case.attempts
    expect = attempt.checks[1]

    assert case.id == "write_subject[one-file-bugfix]"
    assert case.input["payload"]["input"] == "…"
    assert [e.name for e in case.expectations] == ["pass", "expect"]
    assert (expect.outcome, expect.assertions_declared, expect.assertions_held) == ("passed", 2, 2)
    assert expect.adjudication is True  # the note asks a person as well
    assert suite.summary["expect.satisfied"] == 1.0
    [waiting] = suite.adjudication_queue
    assert (waiting.case, waiting.check, waiting.note) == (
        "write_subject[one-file-bugfix]",
        "expect",
        "one conventional subject, no body",
    )
    assert report.verdict.exit_code == 0
    assert report.verdict.adjudication == 1


def test_the_seed_004_line_fails_a_subject_with_a_body(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _run(SEED004, monkeypatch, "bad")
    expect = report.suites[0].cases[0].attempts[0].checks[1]

    assert expect.outcome == "failed"
    assert expect.reason == "the answer has 3 lines, more than maxLines 1 (1 of 2 assertions held)"
    assert report.suites[0].summary["expect.satisfied"] == 0.5
    assert report.verdict.exit_code == 1
