"""Evals run through the engine (in process): what an attempt records, runtime failures,
deadlines, evaluators, score keys decided per case, value summaries and thresholds, live
evals and what is refused before anything runs."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.evals import EvalContext, eval, run_evals
from goldgate.render.junit import render_junit
from goldgate.render.markdown import render_markdown
from goldgate.render.registry import RenderContext
from goldgate.report.models import Report, SuiteRecord
from goldgate.run.limits import RunOptions

HEADER = "from goldgate.evals import eval, EvalContext\nimport time, anyio\n\n"


def write(folder: Path, source: str, name: str = "eval_subject.py") -> Path:
    path = folder / name
    path.write_text(HEADER + textwrap.dedent(source), encoding="utf-8")
    return path


def run(folder: Path, **options: Any) -> Report:
    return anyio.run(lambda: run_evals([folder], project=folder, **options))


def junit_of(report: Report) -> str:
    return render_junit(RenderContext(report))


def markdown_of(report: Report) -> str:
    return render_markdown(RenderContext(report))


def only(report: Report) -> SuiteRecord:
    [suite] = report.suites
    return suite


def checks(report: Report, case: str, attempt: int = 1) -> dict[str, tuple[str, str | None]]:
    view = next(
        a for s in report.suites for a in s.attempts if a.case_id == case and a.attempt == attempt
    )
    return {check.name: (check.outcome, check.reason) for check in view.checks}


def test_sync_and_async_evals_both_run(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        @eval(input=2, dataset="d")
        def doubled(ctx):
            ctx.output = ctx.input * 2
            assert ctx.output == 4

        @eval(input=3, dataset="d")
        async def tripled(ctx: EvalContext):
            await anyio.sleep(0)
            ctx.store(output=ctx.input * 3)
            assert ctx.output == 9
        """,
    )
    report = run(tmp_path)

    assert [a.result["output"] for a in only(report).attempts] == [4, 9]
    assert report.verdict.exit_code == 0


def test_an_exception_is_a_runtime_failure_whose_reason_keeps_the_message_out(
    tmp_path: Path,
) -> None:
    # As in EZVals, the result keeps the exception's type, message and traceback and what
    # the eval had set; that is private detail of the report. The attempt's reason, which
    # JUnit, Markdown and stdout show, names the type and the place only.
    write(
        tmp_path,
        """
        @eval(dataset="d")
        def broken(ctx):
            ctx.output = "partial"
            raise ValueError("SECRET customer data")

        @eval(dataset="d")
        def fine(ctx):
            ctx.output = "ok"
        """,
    )
    report = run(tmp_path)
    broken, fine = only(report).attempts

    assert broken.status == "failed"
    assert broken.reason == "eval 'broken' raised ValueError at eval_subject.py:8"
    assert broken.result["output"] == "partial"
    assert broken.result["error"].startswith("ValueError: SECRET customer data\nTraceback")
    assert 'File "eval_subject.py", line 8, in broken' in broken.result["error"]
    assert "SECRET" not in junit_of(report) + markdown_of(report)
    assert [c.outcome for c in broken.checks] == ["not_run"]
    assert fine.status == "completed"  # never stops other evals
    assert report.verdict.exit_code == 4


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("raise SystemExit(3)", "eval 'e' raised SystemExit at eval_subject.py:7"),
        ("raise KeyboardInterrupt", "eval 'e' raised KeyboardInterrupt at eval_subject.py:7"),
        ("ctx.output = anyio.sleep(0)", "eval 'e' left a coroutine in ctx.output: await it"),
        ("return 'answer'", "eval 'e' returned a str: return nothing, an EvalResult or a list"),
    ],
)
def test_what_an_eval_must_not_do_fails_its_attempt(tmp_path: Path, body: str, reason: str) -> None:
    write(tmp_path, f"\n@eval(dataset='d')\nasync def e(ctx):\n    {body}\n")
    [attempt] = only(run(tmp_path)).attempts

    assert attempt.status == "failed"
    assert attempt.reason is not None
    assert attempt.reason.startswith(reason)


def test_the_evals_own_timeout_and_the_runs_deadline(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        @eval(dataset="d", timeout=0.05)
        async def own(ctx):
            await anyio.sleep(5)

        @eval(dataset="d")
        def sync_slow(ctx):
            time.sleep(5)
        """,
    )
    suite = only(run(tmp_path, options=RunOptions(timeout=0.3)))
    own, slow = suite.attempts

    # Both passed a deadline: the eval's own, then the run's. Both are timed out, never a
    # runtime failure of another kind, and their checks did not run.
    assert (own.status, own.reason) == (
        "timed_out",
        "eval 'own' gave no result within its 0.05 s timeout",
    )
    assert own.latency_ms is None
    assert own.result["error"] == "TimeoutError: Evaluation timed out after 0.05s"
    assert [(c.outcome, c.reason) for c in own.checks] == [("not_run", own.reason)]
    assert (slow.status, slow.reason) == ("timed_out", "no result within the 0.3 s deadline")
    assert suite.counts.attempts["timed_out"] == 2
    assert suite.counts.attempts["failed"] == 0


def test_evaluators_sync_and_async_add_scores_and_one_that_raises_fails_the_eval(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        """
        def length(result):
            return {"key": "short", "passed": len(result.output) < 10, "notes": "too long"}

        async def seen(result):
            return [{"key": "saw_pass", "passed": any(s["key"] == "pass" for s in result.scores)},
                    0.25]

        def wide(result):
            return {"key": "range", "value": 7}

        def broken(result):
            raise RuntimeError("no")

        @eval(input="q", reference="r", dataset="d", evaluators=[length, seen, wide])
        def e(ctx):
            ctx.output = "a long answer"
            assert False, "the assertion failed"

        @eval(dataset="d", evaluators=[length, broken])
        def f(ctx):
            ctx.output = "short"
        """,
    )
    report = run(tmp_path)

    # Evaluators run after a failed assertion too; a keyless score of theirs is "pass", and
    # a key already there is added beside it, not replaced.
    assert checks(report, "e") == {
        "pass": ("failed", "the assertion at eval_subject.py:21 failed: the assertion failed"),
        "short": ("failed", "evaluator 'length' scored 'short' as not passed: too long"),
        "saw_pass": ("passed", None),
    }
    e, f = only(report).attempts
    assert {"key": "pass", "value": 0.25, "by": "seen"} in e.result["scores"]
    assert {"key": "range", "value": 7, "by": "wide"} in e.result["scores"]
    assert only(report).summary["range.mean"] == 7
    # One that raises makes the eval an error, as in EZVals.
    assert (f.status, f.reason) == (
        "failed",
        "evaluator 'broken' of eval 'f' raised RuntimeError at eval_subject.py:16",
    )
    assert f.result["error"].startswith("RuntimeError: no")
    assert f.result["output"] == "short"
    assert report.verdict.exit_code == 4


def test_evaluators_read_input_output_reference_and_metadata(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        def echo(result):
            assert (result.input, result.output, result.reference) == ("i", "o", "r")
            assert result.metadata == {"lang": "en"}
            return True

        @eval(input="i", reference="r", metadata={"lang": "en"}, dataset="d", evaluators=[echo])
        def e(ctx):
            assert ctx.metadata == {"lang": "en"}
            ctx.output = "o"
        """,
    )
    report = run(tmp_path)

    assert checks(report, "e") == {"pass": ("passed", None)}
    scores = only(report).attempts[0].result["scores"]
    assert {"key": "pass", "passed": True, "by": "echo"} in scores


def test_score_keys_are_fixed_per_case_across_repeats(tmp_path: Path) -> None:
    (tmp_path / "count").write_text("0")
    write(
        tmp_path,
        f"""
        from pathlib import Path
        COUNT = Path({str(tmp_path / "count")!r})

        @eval(dataset="d")
        def flaky(ctx):
            n = int(COUNT.read_text()) + 1
            COUNT.write_text(str(n))
            ctx.output = n
            if n == 2:
                ctx.store(scores={{"key": "second", "passed": False}})
            ctx.store(scores={{"key": "quality", "value": n / 10}})
        """,
    )
    report = run(tmp_path, options=RunOptions(repeat=3))
    suite = only(report)

    assert [e.name for e in suite.cases[0].expectations] == ["pass", "second"]
    assert checks(report, "flaky", 1)["second"] == (
        "not_run",
        "this attempt made no 'second' score with passed",
    )
    assert checks(report, "flaky", 2)["second"] == ("failed", "score 'second' did not pass")
    assert suite.summary["quality.mean"] == pytest.approx(0.2)
    assert suite.summary["quality.min"] == pytest.approx(0.1)
    assert suite.summary["quality.count"] == 3
    assert suite.verdict == "failed"


def test_value_summaries_can_be_thresholded(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        @eval(dataset="d", cases=[{"input": 0.9}, {"input": 0.5}],
              thresholds={"quality.mean": 0.6, "quality.min": 0.6, "pass_rate": 1.0})
        def e(ctx):
            ctx.store(output=ctx.input, scores=[{"key": "quality", "value": ctx.input}, True])
        """,
    )
    suite = only(run(tmp_path))

    assert [(t.key, t.actual, t.held) for t in suite.thresholds] == [
        ("quality.mean", pytest.approx(0.7), True),
        ("quality.min", 0.5, False),
        ("pass_rate", 1.0, True),
    ]
    assert suite.verdict == "failed"


def test_an_unmeasured_threshold_does_not_hold(tmp_path: Path) -> None:
    write(tmp_path, "@eval(dataset='d', thresholds={'quality.mean': 0.1})\ndef e(ctx): pass\n")
    suite = only(run(tmp_path))

    assert [(t.actual, t.held) for t in suite.thresholds] == [(None, False)]


def test_a_live_eval_runs_only_when_authorized(tmp_path: Path) -> None:
    write(tmp_path, "@eval(dataset='paid', live=True)\ndef e(ctx):\n    ctx.output = 'x'\n")
    skipped = only(run(tmp_path))
    ran = only(run(tmp_path, live=True))

    assert (skipped.status, skipped.skip_reason) == ("skipped", "live evals run only with --live")
    assert skipped.attempts[0].status == "skipped"
    assert ran.status == "ran"
    assert ran.target.live is True


def test_datasets_can_be_chosen(tmp_path: Path) -> None:
    write(tmp_path, "@eval(dataset='a')\ndef x(ctx): pass\n@eval(dataset='b')\ndef y(ctx): pass\n")

    assert [s.name for s in run(tmp_path, datasets=["b"]).suites] == ["b"]
    with pytest.raises(InvalidInputError, match=r"--dataset 'c' names no dataset .* a, b"):
        run(tmp_path, datasets=["c"])


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"eval_a.py": "@eval(dataset='d', live=True)\ndef a(ctx): pass\n\n"
             "@eval(dataset='d')\ndef b(ctx): pass\n"},
            r"dataset 'd' mixes live eval 'a' \(eval_a.py\) with eval 'b'",
        ),
        (
            {"eval_a.py": "@eval(dataset='d', thresholds={'pass_rate': 0.5})\ndef a(ctx): pass\n\n"
             "@eval(dataset='d', thresholds={'pass_rate': 0.9})\ndef b(ctx): pass\n"},
            r"dataset 'd': threshold 'pass_rate' is 0.5 in eval 'a' \(eval_a.py\) and 0.9",
        ),
        ({"eval_a.py": "x = 1\n"}, r"no eval functions found in"),
    ],
)  # fmt: skip
def test_what_cannot_run_is_refused_before_anything_runs(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    for name, source in files.items():
        write(tmp_path, source, name)

    with pytest.raises(InvalidInputError, match=message):
        run(tmp_path)


def test_evals_of_one_name_and_dataset_in_two_files_are_told_apart_by_file(
    tmp_path: Path,
) -> None:
    write(tmp_path, "@eval(dataset='d', cases=[{'id': 'x'}])\ndef same(ctx): pass\n", "a.py")
    write(tmp_path, "@eval(dataset='d', cases=[{'id': 'x'}])\ndef same(ctx): pass\n", "b.py")
    write(tmp_path, "@eval(dataset='other')\ndef same(ctx): pass\n", "c.py")

    report = run(tmp_path)

    # As EZVals names every result (file::name), where the name alone would not do.
    assert [[c.id for c in suite.cases] for suite in report.suites] == [
        ["a.py::same[x]", "b.py::same[x]"],
        ["same"],
    ]
    assert report.suites[0].cases[1].input["payload"]["case"] == "b.py::same[x]"

    @eval(dataset="d")
    def twice(ctx: EvalContext) -> None:
        return None

    with pytest.raises(InvalidInputError, match=r"dataset 'd' has case 'twice' twice"):
        anyio.run(lambda: run_evals([twice, twice], project=tmp_path))


def test_text_expect_on_list_cases_and_outputs_that_are_not_text(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        @eval(dataset="d", cases=[
            {"id": "ok", "input": "hi", "expect": {"contains": "hi", "maxChars": 10}},
            {"id": "json", "input": {"a": 1}, "expect": {"requiredKeys": ["a"]}},
            {"id": "prose", "input": "hi", "expect": "friendly"},
            {"id": "text", "input": "not json", "expect": {"requiredKeys": ["a"]}},
        ])
        def e(ctx):
            ctx.output = ctx.input
        """,
    )
    report = run(tmp_path)

    assert checks(report, "e[ok]")["expect"] == ("passed", None)
    assert checks(report, "e[json]")["expect"] == (
        "failed",
        "the answer is an object, not a string",
    )
    assert checks(report, "e[prose]")["expect"][0] == "not_run"
    assert checks(report, "e[text]")["expect"] == (
        "failed",
        "requiredKeys need a JSON answer, but the answer is not JSON (0 of 1 assertions held)",
    )
    assert only(report).adjudication == 1


def test_outputs_a_report_cannot_hold_as_they_are_are_converted_not_refused(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        """
        import dataclasses

        @dataclasses.dataclass
        class Answer:
            text: str

        OUTPUTS = {"dc": Answer("a"), "obj": object, "tuple": (1, {2: "x"}), "big": 2**70}

        @eval(dataset="d", cases=[{"input": name} for name in OUTPUTS])
        def e(ctx):
            ctx.output = OUTPUTS[ctx.input]
        """,
    )
    outputs = [a.result["output"] for a in only(run(tmp_path)).attempts]

    assert outputs == [{"text": "a"}, "<class 'object'>", [1, {"2": "x"}], 2**70]


def test_values_no_report_can_hold_are_their_attempts_error_and_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        """
        import math

        def odd(ctx):
            kind = ctx.input
            if kind == "surrogate":
                ctx.output = "a truncated answer \\ud83d"
            elif kind == "key":
                ctx.output = {"fine": 1, "bad \\udc80": 2}
            elif kind == "digits":
                ctx.output = {"n": [10 ** 5000]}
            elif kind == "nan":
                ctx.output = [1.0, math.nan]
            elif kind == "metadata":
                ctx.output = "ok"
                ctx.metadata = {"m": math.inf}
            elif kind == "trace":
                ctx.output = "ok"
                ctx.trace_data = {"t": "\\ud800"}
            elif kind == "raises":
                raise ValueError("message \\ud800")
            else:
                ctx.output = "fine"

        KINDS = [
            "before", "surrogate", "key", "digits", "nan", "metadata", "trace", "raises", "after"
        ]

        @eval(dataset="d", cases=[{"input": kind} for kind in KINDS])
        def e(ctx):
            odd(ctx)
        """,
    )
    attempts = only(run(tmp_path)).attempts

    found = [(a.status, a.reason) for a in attempts]
    cannot = "which a report cannot hold"
    assert found == [
        ("completed", None),
        ("failed", f"the result holds a string that is not UTF-8 at /output, {cannot}"),
        ("failed", f"the result holds an object key that is not UTF-8 at /output, {cannot}"),
        ("failed", f"the result holds an integer with too many digits at /output/n/0, {cannot}"),
        ("failed", f"the result holds a number that is NaN or infinite at /output/1, {cannot}"),
        ("failed", f"the result holds a number that is NaN or infinite at /metadata/m, {cannot}"),
        ("failed", f"the result holds a string that is not UTF-8 at /trace_data/t, {cannot}"),
        ("failed", f"the result holds a string that is not UTF-8 at /error, {cannot}"),
        ("completed", None),
    ]
