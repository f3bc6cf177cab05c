"""``goldgate adjudication export`` reads its report a case at a time (issue 43): the lines
it writes are those the report read whole gives (``_whole_lines``: the export as it was,
kept as the reference), answers a judge suggested failing first, an answer several attempts
gave once; a refusal found on the way leaves nothing written."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.app import adjudication
from goldgate.app.adjudication import export_command
from goldgate.app.judges import _collect, decided_answers
from goldgate.base.errors import InvalidInputError
from goldgate.gold.models import Case, Suite
from goldgate.gold.suites import GoldSuite
from goldgate.report.caserecords import JudgeRecord
from goldgate.report.io import read_report, report_bytes
from goldgate.report.models import Report, validated
from goldgate.report.plain import record_json
from goldgate.report.queue import _reviewer_input, _suggestion
from goldgate.report.verdictstore import Verdict
from goldgate.run.api import EvaluationVariant, evaluate
from goldgate.run.limits import RunOptions
from goldgate.scoring.adjudication import gold_digest, note_of, output_digest
from helpers.reports import coherent

VERDICTS: list[Any] = ["fail", "pass", None, "fail"]


def _case(number: int) -> Case:
    return Case.model_validate(
        {
            "id": f"c{number}",
            "input": {"payload": {"n": number}, "metadata": {}},
            "expectations": [
                {"name": "tone", "path": "/payload/reply", "comparison": "text",
                 "expected": f"a warm apology ☃ {number}"},
            ],
        }
    )  # fmt: skip


def _report(include_details: bool = True) -> Report:
    """12 cases of prose checks run twice each (one answer a case, so each is exported once),
    their judges suggesting fail, pass or nothing, or absent."""
    cases = [_case(number) for number in range(12)]
    model = Suite(name="replies", workflow="app", cases=[c.model_dump() for c in cases])
    suite = GoldSuite.build(model, tuple(cases), "<test>")

    async def run(envelope: Any) -> dict[str, Any]:
        return {"payload": {"reply": f"sorry ☃ {envelope['payload']['n'] % 7}"}}

    variant = EvaluationVariant(name="v", revision="r", run=run)
    options = RunOptions(repeat=2)
    report = anyio.run(
        lambda: evaluate(suite, variant, options=options, include_details=include_details)
    )
    [whole] = report.suites
    judged = []
    for number, case in enumerate(whole.cases):
        verdict = VERDICTS[number % len(VERDICTS)] if number % 5 else "absent"
        attempts = []
        for attempt in case.attempts:
            judge = JudgeRecord(name="j", revision="r1", verdict=verdict, reason=f"why {number}")
            checks = tuple(
                check if verdict == "absent" else dataclasses.replace(check, judge=judge)
                for check in attempt.checks
            )
            attempts.append(dataclasses.replace(attempt, checks=checks))
        judged.append(dataclasses.replace(case, attempts=tuple(attempts)))
    report = dataclasses.replace(report, suites=(dataclasses.replace(whole, cases=tuple(judged)),))
    return validated(Report, coherent(record_json(report), rescore=False))


@pytest.fixture(scope="module")
def queued(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "report.json"
    path.write_bytes(report_bytes(_report()))
    return path


def _whole_lines(report: Report) -> Iterator[dict[str, Any]]:
    """The export of ``report`` held whole, as it was written before it streamed."""
    later: list[dict[str, Any]] = []
    exported: set[tuple[str, str, str, str]] = set()
    for suite in report.suites:
        wanted = {(e.case, e.attempt, e.check): e for e in suite.adjudication_queue}
        for attempt in suite.iter_attempts():
            for check in attempt.checks:
                entry = wanted.get((attempt.case_id, attempt.attempt, check.name))
                key = (suite.name, attempt.case_id, check.name, output_digest(check.actual))
                if entry is None or key in exported:
                    continue
                exported.add(key)
                line = {
                    "id": f"{suite.name}/{attempt.case_id}#{attempt.attempt}/{check.name}",
                    "suite": suite.name, "case": attempt.case_id, "attempt": attempt.attempt,
                    "check": check.name, "digest": entry.digest,
                    "gold": gold_digest(check.expected),
                    "note": entry.note if entry.note is not None else note_of(check.expected),
                    "input": _reviewer_input(suite, attempt.input), "output": check.actual,
                    "verdict": None, "comment": None,
                }  # fmt: skip
                suggestion = _suggestion(check)
                if suggestion is not None:
                    line = {**line, "judge": suggestion}
                if suggestion is not None and suggestion["verdict"] == "fail":
                    yield line
                else:
                    later.append(line)
    yield from later


def test_the_streamed_export_writes_the_lines_of_the_whole_read(
    queued: Path, tmp_path: Path
) -> None:
    output = tmp_path / "review.jsonl"
    export_command(queued, output)
    lines = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
    assert lines == list(_whole_lines(read_report(queued)))
    assert len(lines) == 12  # each case's answer once, of its two attempts
    verdicts = [line.get("judge", {}).get("verdict", "absent") for line in lines]
    assert verdicts[:5] == ["fail"] * 5
    assert set(verdicts[5:]) == {"pass", None, "absent"}
    assert output.stat().st_mode & 0o777 == 0o600


def test_a_refusal_met_while_streaming_leaves_nothing_written(
    queued: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case whose bytes changed after the report was verified is refused where the
    stream reads it again, after lines before it were written: no file, no temporary."""
    changed = tmp_path / "changed.json"
    changed.write_bytes(queued.read_bytes())
    real = adjudication.export_lines

    def changing(report: Any, source: str) -> Iterator[dict[str, Any]]:
        lines = real(report, source)
        yield next(lines)
        data = changed.read_bytes()
        at = data.rindex(b"sorry")
        with changed.open("r+b") as handle:  # the last case's answer, in place
            handle.seek(at)
            handle.write(b"SORRY")
        yield from lines

    monkeypatch.setattr(adjudication, "export_lines", changing)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(InvalidInputError, match=r"changed\.json: changed while it was read"):
        export_command(changed, folder / "review.jsonl")
    assert list(folder.iterdir()) == []


def _reply(case: Any) -> str:
    result = case.attempts[0].result
    assert result is not None
    reply: str = result["payload"]["reply"]
    return reply


def test_calibration_reads_the_answers_of_the_whole_read_a_case_at_a_time(
    queued: Path, tmp_path: Path
) -> None:
    """``goldgate judge calibrate`` reads its reports a case at a time (issue 43): the
    answers a person decided are those of the reports read whole (``_collect`` over each
    case, as it was), an incomplete report's left out."""
    report = read_report(queued)
    [suite] = report.suites
    cases = tuple(
        dataclasses.replace(
            case,
            expectations=tuple(dataclasses.replace(e, judge="j") for e in case.expectations),
        )
        for case in suite.cases
    )
    judged = dataclasses.replace(report, suites=(dataclasses.replace(suite, cases=cases),))
    paths = [tmp_path / "judged.json", tmp_path / "incomplete.json"]
    paths[0].write_bytes(report_bytes(judged))
    unfinished = dataclasses.replace(judged, complete=False, interruption="interrupted")
    paths[1].write_bytes(report_bytes(validated(Report, coherent(record_json(unfinished)))))
    verdicts = [
        Verdict(
            suite="replies", case=case.id, check="tone",
            digest=output_digest(_reply(case)),
            passed=number % 3 == 0,
            gold=gold_digest(case.expectations[0].expected) if number % 4 else None,
        )
        for number, case in enumerate(cases)
    ]  # fmt: skip
    found = decided_answers(paths, verdicts, ["j"])
    whole: dict[Any, Any] = {}
    store = {verdict.key: verdict for verdict in verdicts}
    for case in cases:
        _collect(whole, store, "replies", case, ["j"], {"j"})
    assert found == list(whole.values())
    assert len(found) == 9  # a verdict bound to no gold decides nothing
    assert sum(answer.passed for answer in found) == 3
