"""Adjudication that persists, through the real CLI: a run queues an answer, export writes it
for a reviewer, apply records the verdict in evaluation/verdicts.jsonl, a later run with the
same answer takes the verdict (adjudicated, counted), a changed answer goes back to the queue,
and a tampered store stops the next run (exit 2, naming the line). For Python evals and for
JSON gold `text` checks alike."""

from __future__ import annotations

import json
import shutil
import stat
import textwrap
from pathlib import Path
from typing import Any

import pytest

from goldgate.scoring.adjudication import REVIEWER_FAILED, gold_digest, output_digest

EVAL = """
from pathlib import Path
from goldgate.evals import eval, EvalContext

ANSWER = Path(__file__).with_name("answer.txt")

@eval(dataset="replies", cases="replies.jsonl")
def reply(ctx: EvalContext):
    ctx.output = ANSWER.read_text()
"""
PROSE = "a warm apology naming the order"
CASES = [
    {"id": "apology", "input": "My order is late.", "expect": PROSE},
    {"id": "short", "input": "Thanks!", "expect": {"maxChars": 200}},
]  # fmt: skip
ANSWER = "We are sorry your order is late; it ships today."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "eval_replies.py").write_text(textwrap.dedent(EVAL), encoding="utf-8")
    (tmp_path / "replies.jsonl").write_text(
        "".join(json.dumps(case) + "\n" for case in CASES), encoding="utf-8"
    )
    (tmp_path / "answer.txt").write_text(ANSWER, encoding="utf-8")
    return tmp_path


def _run(run_cli: Any, project: Path, name: str) -> tuple[Any, dict[str, Any]]:
    result = run_cli("evals", "run", ".", "--output", name, cwd=project)
    assert result.code in (0, 1), result.output
    return result, json.loads((project / name).read_text(encoding="utf-8"))


def _apology(report: dict[str, Any]) -> dict[str, Any]:
    check: dict[str, Any] = report["suites"][0]["cases"][0]["attempts"][0]["checks"][1]
    return check


def _review(run_cli: Any, project: Path, report: str, verdict: str) -> list[dict[str, Any]]:
    exported = run_cli("adjudication", "export", report, "-o", f"{verdict}.jsonl", cwd=project)
    assert exported.code == 0, exported.output
    path = project / f"{verdict}.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["verdict"] = verdict
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    applied = run_cli("adjudication", "apply", f"{verdict}.jsonl", cwd=project)
    assert applied.code == 0, applied.output
    return lines


def test_apply_then_rerun_keeps_the_verdict_and_a_changed_answer_goes_back(
    run_cli: Any, project: Path
) -> None:
    first, report = _run(run_cli, project, "first.json")
    assert first.code == 0
    assert "1 check awaits a human verdict" in first.stdout
    [queued] = report["suites"][0]["adjudication_queue"]
    assert queued == {
        "case": "reply[apology]",
        "attempt": 1,
        "check": "expect",
        "note": "a warm apology naming the order",
        "digest": output_digest(ANSWER),
    }

    exported = run_cli("adjudication", "export", "first.json", "-o", "review.jsonl", cwd=project)
    assert exported.code == 0
    assert exported.stdout.strip() == ("exported 1 answer awaiting a human verdict to review.jsonl")
    review = project / "review.jsonl"
    assert stat.S_IMODE(review.stat().st_mode) == 0o600
    [line] = [json.loads(text) for text in review.read_text(encoding="utf-8").splitlines()]
    assert line == {
        "id": "replies/reply[apology]#1/expect",
        "suite": "replies",
        "case": "reply[apology]",
        "attempt": 1,
        "check": "expect",
        "digest": output_digest(ANSWER),
        "gold": gold_digest(PROSE),
        "note": "a warm apology naming the order",
        "input": "My order is late.",
        "output": ANSWER,
        "verdict": None,
        "comment": None,
    }
    again = run_cli("adjudication", "export", "first.json", "-o", "review.jsonl", cwd=project)
    assert again.code == 2  # never overwritten

    line["verdict"], line["comment"] = "pass", "warm and specific"
    review.write_text(json.dumps(line) + "\n", encoding="utf-8")
    applied = run_cli("adjudication", "apply", "review.jsonl", cwd=project)
    assert applied.code == 0, applied.output
    assert applied.stdout.strip() == (
        "recorded 1 new verdict, 0 changed, 0 already recorded; 0 still undecided; "
        "store: evaluation/verdicts.jsonl"
    )
    store = project / "evaluation" / "verdicts.jsonl"
    assert [json.loads(text) for text in store.read_text().splitlines()] == [
        {"suite": "replies", "case": "reply[apology]", "check": "expect",
         "digest": output_digest(ANSWER), "gold": gold_digest(PROSE), "verdict": "pass",
         "comment": "warm and specific"}
    ]  # fmt: skip

    kept, report = _run(run_cli, project, "second.json")
    check = _apology(report)
    assert check == {"outcome": "passed", "assertions_declared": 0, "assertions_held": 0,
                     "adjudicated": True}  # fmt: skip
    assert report["suites"][0]["adjudication_queue"] == []
    assert report["suites"][0]["counts"]["checks"]["passed"] == 4
    assert report["verdict"]["adjudication"] == 0
    assert "awaits a human verdict" not in kept.stdout

    (project / "answer.txt").write_text(ANSWER + " Sorry again!", encoding="utf-8")
    changed, report = _run(run_cli, project, "third.json")
    check = _apology(report)
    assert (check["outcome"], check.get("adjudication"), check.get("adjudicated")) == (
        "not_run", True, None,
    )  # fmt: skip
    assert len(report["suites"][0]["adjudication_queue"]) == 1
    assert "1 check awaits a human verdict" in changed.stdout


def test_a_failing_verdict_fails_the_check_and_the_run(run_cli: Any, project: Path) -> None:
    _run(run_cli, project, "first.json")
    _review(run_cli, project, "first.json", "fail")

    result, report = _run(run_cli, project, "second.json")

    assert result.code == 1
    assert _apology(report)["outcome"] == "failed"
    assert _apology(report)["reason"] == REVIEWER_FAILED
    assert "verdict: gold disagreement (exit 1)" in result.stdout


def test_a_verdict_can_be_changed_by_applying_again(run_cli: Any, project: Path) -> None:
    _run(run_cli, project, "first.json")
    _review(run_cli, project, "first.json", "pass")
    result = run_cli("adjudication", "apply", "pass.jsonl", cwd=project)
    assert "0 new verdicts, 0 changed, 1 already recorded" in result.stdout
    _review(run_cli, project, "first.json", "fail")

    assert len((project / "evaluation" / "verdicts.jsonl").read_text().splitlines()) == 1
    assert _apology(_run(run_cli, project, "second.json")[1])["outcome"] == "failed"


def _write_cases(project: Path, apology: Any) -> None:
    cases = [{**CASES[0], "expect": apology}, CASES[1]]
    (project / "replies.jsonl").write_text(
        "".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8"
    )


@pytest.mark.parametrize(
    "apology",
    [
        "a warm apology naming the order and the date",  # the prose
        {"note": PROSE},  # the same words, as a note beside assertions
        {"note": PROSE, "contains": "sorry"},  # an assertion added
    ],
)
def test_a_changed_criterion_sends_a_judged_answer_back_to_the_queue(
    run_cli: Any, project: Path, apology: Any
) -> None:
    _run(run_cli, project, "first.json")
    _review(run_cli, project, "first.json", "pass")
    assert _apology(_run(run_cli, project, "second.json")[1]).get("adjudicated") is True

    _write_cases(project, apology)
    result, report = _run(run_cli, project, "third.json")

    assert _apology(report).get("adjudicated") is None
    assert _apology(report)["adjudication"] is True
    assert "1 check awaits a human verdict" in result.stdout
    (project / "pass.jsonl").unlink()
    _review(run_cli, project, "third.json", "pass")  # judged again, against the new gold
    assert _apology(_run(run_cli, project, "fourth.json")[1]).get("adjudicated") is True
    assert len((project / "evaluation" / "verdicts.jsonl").read_text().splitlines()) == 1


def test_a_stored_verdict_bound_to_no_gold_goes_back_to_the_queue(
    run_cli: Any, project: Path
) -> None:
    """A store written before verdicts were bound to gold: its lines are read, never applied."""
    _run(run_cli, project, "first.json")
    _review(run_cli, project, "first.json", "fail")
    store = project / "evaluation" / "verdicts.jsonl"
    [line] = [json.loads(text) for text in store.read_text().splitlines()]
    del line["gold"]
    store.write_text(json.dumps(line) + "\n")

    result, report = _run(run_cli, project, "second.json")

    assert result.code == 0, result.output  # the old failing verdict no longer decides
    assert _apology(report)["outcome"] == "not_run"
    assert "1 check awaits a human verdict" in result.stdout


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda line: line[:-3], "verdicts.jsonl:1:"),
        (lambda line: line.replace('"verdict"', '"verdikt"'), "verdicts.jsonl:1: unknown key"),
        (lambda line: line.replace("sha256:", "sha1:"), "verdicts.jsonl:1: 'digest' is not a"),
    ],
)
def test_a_tampered_store_stops_the_next_run_naming_the_line(
    run_cli: Any, project: Path, tamper: Any, message: str
) -> None:
    _run(run_cli, project, "first.json")
    _review(run_cli, project, "first.json", "pass")
    store = project / "evaluation" / "verdicts.jsonl"
    store.write_text(tamper(store.read_text().rstrip("\n")) + "\n")

    result = run_cli("evals", "run", ".", cwd=project)

    assert result.code == 2
    assert message in result.stderr
    assert not (project / ".goldgate").exists()


def test_apply_refuses_an_output_edited_after_export(run_cli: Any, project: Path) -> None:
    _run(run_cli, project, "first.json")
    run_cli("adjudication", "export", "first.json", "-o", "review.jsonl", cwd=project)
    line = json.loads((project / "review.jsonl").read_text())
    line["output"], line["verdict"] = "something else", "pass"
    (project / "review.jsonl").write_text(json.dumps(line) + "\n")

    result = run_cli("adjudication", "apply", "review.jsonl", cwd=project)

    assert result.code == 2
    assert "review.jsonl:1: 'digest' is not the digest of 'output'" in result.stderr
    assert not (project / "evaluation" / "verdicts.jsonl").exists()


# --- JSON gold text checks use the same store --------------------------------------------------


@pytest.fixture
def example(tmp_path: Path, repo_root: Path) -> Path:
    copy = tmp_path / "support_triage"
    shutil.copytree(
        repo_root / "examples" / "support_triage",
        copy,
        ignore=shutil.ignore_patterns(".goldgate", "__pycache__", "evals"),
    )
    return copy


def _evaluate(run_cli: Any, example: Path, name: str) -> tuple[Any, dict[str, Any]]:
    result = run_cli("evaluate", "--suite", "reply_text", "--output", name, cwd=example)
    assert result.code in (0, 1), result.output
    return result, json.loads((example / name).read_text(encoding="utf-8"))


def _tone(report: dict[str, Any]) -> dict[str, Any]:
    [suite] = report["suites"]
    case = next(case for case in suite["cases"] if case["id"] == "reply_tone_de")
    check: dict[str, Any] = case["attempts"][0]["checks"][0]
    return check


@pytest.mark.slow
def test_json_gold_text_checks_take_recorded_verdicts(run_cli: Any, example: Path) -> None:
    _, report = _evaluate(run_cli, example, "first.json")
    assert _tone(report)["adjudication"] is True
    queue = report["suites"][0]["adjudication_queue"]
    assert [(q["case"], q["check"]) for q in queue] == [
        ("reply_cancellation_en", "reply"),  # a note beside assertions asks a person too
        ("reply_tone_de", "tone"),
    ]
    assert queue[1]["note"].startswith("Freundlicher Ton")

    lines = _review(run_cli, example, "first.json", "pass")
    assert [line["input"]["payload"]["requestId"] for line in lines] == ["txt-001", "txt-003"]

    _, report = _evaluate(run_cli, example, "second.json")
    assert _tone(report) == {"outcome": "passed", "assertions_declared": 0, "assertions_held": 0,
                             "adjudicated": True}  # fmt: skip
    assert report["suites"][0]["adjudication"] == 0
    assert report["suites"][0]["adjudication_queue"] == []


@pytest.mark.slow
def test_a_replay_of_json_gold_takes_recorded_verdicts_too(run_cli: Any, example: Path) -> None:
    _evaluate(run_cli, example, "first.json")
    _review(run_cli, example, "first.json", "fail")

    result = run_cli("evaluate", "--replay", "first.json", "--output", "replayed.json", cwd=example)

    assert result.code == 0, result.output  # reply_text gates on a threshold, which holds
    report = json.loads((example / "replayed.json").read_text(encoding="utf-8"))
    assert _tone(report)["outcome"] == "failed"
    assert _tone(report)["adjudicated"] is True
    assert report["suites"][0]["adjudication_queue"] == []


def test_apply_outside_a_project_is_exit_2_naming_what_is_missing(
    run_cli: Any, project: Path, tmp_path: Path
) -> None:
    _run(run_cli, project, "first.json")
    run_cli("adjudication", "export", "first.json", "-o", "review.jsonl", cwd=project)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".git").mkdir()  # a repository root: the search for a project stops here
    (elsewhere / "review.jsonl").write_bytes((project / "review.jsonl").read_bytes())

    result = run_cli("adjudication", "apply", "review.jsonl", cwd=elsewhere)

    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    assert f"{elsewhere} is not inside a goldgate project" in result.stderr
    assert "holds config/settings.yaml or evaluation/" in result.stderr
    assert "--store" in result.stderr
    assert sorted(path.name for path in elsewhere.iterdir()) == [".git", "review.jsonl"]

    stored = run_cli(
        "adjudication", "apply", "review.jsonl", "--store", "verdicts.jsonl", cwd=elsewhere
    )
    assert stored.code == 0, stored.output  # with --store, no project is needed
