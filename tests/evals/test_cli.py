"""`goldgate evals run` through the real CLI: discovery, exit codes, import errors named by
file and line, the report's place and mode, safe stdout, --format json, --live."""

from __future__ import annotations

import json
import stat
import textwrap
from pathlib import Path
from typing import Any

import pytest

from run.support import run_cli as subprocess_cli

SECRET_IN = "SECRET-INPUT-4711"
SECRET_OUT = "SECRET-OUTPUT-0815"
HEADER = "from goldgate.evals import eval, EvalContext\n"


def put(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + textwrap.dedent(source), encoding="utf-8")
    return path


PASSING = f"""
@eval(input={SECRET_IN!r}, dataset="qa")
def answers(ctx):
    print("from the eval: {SECRET_OUT}")
    ctx.output = {SECRET_OUT!r}
    assert ctx.output
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evaluation").mkdir()  # what makes it a project folder
    return tmp_path


def report_of(result: Any) -> dict[str, Any]:
    line = next(line for line in result.stdout.splitlines() if line.startswith("report: "))
    path = Path(line.removeprefix("report: "))
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_a_passing_run_writes_a_private_report_and_shows_only_safe_things(
    project: Path,
) -> None:
    put(project, "evals/eval_qa.py", PASSING)

    result = subprocess_cli("evals", "run", "evals", cwd=project)  # the real streams

    assert result.code == 0, result.output
    assert SECRET_IN not in result.stdout
    assert SECRET_OUT not in result.stdout  # what the eval printed went to stderr
    assert f"from the eval: {SECRET_OUT}" in result.stderr
    assert "qa: running 1 attempt\n" in result.stderr
    assert "verdict: passed (exit 0)" in result.stdout
    line = next(line for line in result.stdout.splitlines() if line.startswith("report: "))
    path = project / line.removeprefix("report: ")
    assert path.parent == project / ".goldgate" / "evaluations"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["format"] == "goldgate.report/2"
    assert report["suites"][0]["cases"][0]["attempts"][0]["result"]["output"] == SECRET_OUT


@pytest.mark.parametrize(
    ("body", "code", "meaning"),
    [
        ("assert ctx.output == 'yes', 'Wrong'", 1, "gold disagreement"),
        ("ctx.store(scores={'key': 'q', 'passed': False})", 1, "gold disagreement"),
        ("ctx.store(scores={'key': 'q', 'value': 2})", 0, "nothing was evaluated"),
        ("ctx.store(scores={'key': 'q', 'value': 'high'})", 4, "runtime failure"),
        ("raise RuntimeError('x')", 4, "runtime failure"),
    ],
)
def test_exit_codes_are_those_of_evaluate(
    run_cli: Any, project: Path, body: str, code: int, meaning: str
) -> None:
    source = f"@eval(dataset='d')\ndef e(ctx):\n    ctx.output = 'no'\n    {body}\n"
    put(project, "eval_x.py", source)

    result = run_cli("evals", "run", "eval_x.py", cwd=project)

    assert result.code == code, result.output
    assert f"verdict: {meaning} (exit {code})" in result.stdout


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def broken(:\n    pass\n", "eval_bad.py:2: the eval file does not parse"),
        ("import no_such_module_here\n", "eval_bad.py:2: the eval file does not import: module "
         "'no_such_module_here' was not found."),
        ("\n\nx = 1 / 0\n", "eval_bad.py:4: the eval file does not import: importing it raised "
         "ZeroDivisionError."),
        ("\n@eval(timeout=-1)\ndef e(ctx): pass\n", "eval_bad.py:3: eval 'e': timeout must be a "
         "positive number of seconds."),
        ("\n@eval(cases='nope.jsonl')\ndef e(ctx): pass\n", "the cases file nope.jsonl does not "
         "exist"),
    ],
)  # fmt: skip
def test_an_eval_file_that_does_not_import_is_exit_2_naming_file_and_line(
    run_cli: Any, project: Path, source: str, message: str
) -> None:
    put(project, "eval_bad.py", source)
    put(project, "eval_good.py", PASSING)

    result = run_cli("evals", "run", ".", cwd=project)

    assert result.code == 2, result.output
    assert message in result.stderr
    assert not (project / ".goldgate").exists()  # nothing ran, no report


def test_folders_are_searched_as_ezvals_searches_them_and_any_file_named_runs(
    run_cli: Any, project: Path
) -> None:
    put(project, "evals/xyz_support_helpers.py", "def helper():\n    return 'helped'\n")
    put(project, "evals/eval_a.py", "from xyz_support_helpers import helper\n@eval(dataset='d')\n"
        "def a(ctx):\n    ctx.output = helper()\n")  # fmt: skip
    put(project, "evals/sub/b_eval.py", "@eval(dataset='d')\ndef b(ctx): pass\n")
    put(project, "evals/notes.py", "@eval(dataset='d')\ndef n(ctx): pass\n")
    for skipped in (".hidden/c.py", "__skipped__/c.py", "node_modules/c.py", "venv/c.py",
                    "env/c.py", "_private.py"):  # fmt: skip
        put(project, f"evals/{skipped}", "@eval(dataset='d')\ndef skipped(ctx): pass\n")
    (project / "evals" / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    put(project, "checks.txt", "@eval(dataset='d')\ndef named(ctx): pass\n")

    result = run_cli("evals", "run", "evals", "checks.txt", cwd=project)

    assert result.code == 0, result.output
    report = report_of(result)
    [suite] = report["suites"]
    assert [case["id"] for case in suite["cases"]] == ["a", "n", "b", "named"]
    assert suite["cases"][0]["attempts"][0]["result"]["output"] == "helped"
    assert suite["target"]["identity"]["evals"] == {
        "a": "evals/eval_a.py",
        "n": "evals/notes.py",
        "b": "evals/sub/b_eval.py",
        "named": "checks.txt",
    }


def test_file_selectors_pick_evals_and_cases(run_cli: Any, project: Path) -> None:
    put(project, "evals.py", "@eval(dataset='d', cases=[{'id': 'x'}, {'id': 'y'}, {}])\n"
        "def c(ctx): pass\n@eval(dataset='d')\ndef d(ctx): pass\n@eval(dataset='d')\n"
        "def e(ctx): pass\n")  # fmt: skip

    result = run_cli("evals", "run", "evals.py::c[y],e", "evals.py::c@2", cwd=project)

    assert result.code == 0, result.output
    [suite] = report_of(result)["suites"]
    assert [case["id"] for case in suite["cases"]] == ["c[y]", "c[2]", "e"]
    missing = run_cli("evals", "run", "evals.py::nope", cwd=project)
    assert missing.code == 2
    assert "evals.py::nope: no eval or case of evals.py is named 'nope'" in missing.stderr


def test_an_unknown_argument_is_refused_by_name_and_the_other_files_still_run(
    run_cli: Any, project: Path
) -> None:
    put(project, "evals/a.py", "@eval(dataset='d')\ndef a(ctx): pass\n")
    put(project, "evals/b.py", "\n@eval(dataset='d', bogus=1)\ndef b(ctx): pass\n")
    put(project, "evals/c.py", "@eval(dataset='d')\ndef c(ctx): pass\n")

    result = run_cli("evals", "run", "evals", cwd=project)

    assert result.code == 2, result.output
    assert "evals/b.py:3: @eval does not take the argument 'bogus'" in result.stderr
    report = report_of(result)
    assert [(s["name"], [c["id"] for c in s["cases"]]) for s in report["suites"]] == [
        ("d", ["a", "c"]),
        ("b", ["evals/b.py"]),  # the refused file, in the report too: never silently dropped
    ]
    [refused] = report["suites"][1]["cases"][0]["attempts"]
    assert refused["status"] == "failed"
    assert "@eval does not take the argument 'bogus'" in refused["reason"]
    assert [a["status"] for a in report["suites"][0]["cases"][0]["attempts"]] == ["completed"]
    alone = run_cli("evals", "run", "evals/b.py", cwd=project)  # nothing else: nothing runs
    assert alone.code == 2
    assert "evals/b.py:3: @eval does not take the argument 'bogus'" in alone.stderr


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing"], "missing: no such file or folder."),
        (["empty"], "no eval functions found in empty"),
        (["eval_x.py", "--dataset", "other"], "--dataset 'other' names no dataset"),
        (["eval_x.py", "--output", "exists.json"], "exists.json: already exists; reports are "
         "never overwritten."),
        (["eval_x.py", "--timeout", "0"], "must be a positive number of seconds"),
        (["eval_x.py", "--timeout", "86401"], "at most 86400 (one day)"),
        (["eval_x.py", "--repeat", "10001"], "--repeat"),
        (["eval_x.py", "--max-concurrency", "65"], "--max-concurrency"),
    ],
)  # fmt: skip
def test_what_is_refused_before_anything_runs(
    run_cli: Any, project: Path, arguments: list[str], message: str
) -> None:
    put(project, "eval_x.py", PASSING)
    (project / "empty").mkdir()
    (project / "exists.json").write_text("{}")

    result = run_cli("evals", "run", *arguments, cwd=project)

    assert result.code == 2, result.output
    assert message in result.output
    assert (project / "exists.json").read_text() == "{}"


def test_reports_are_never_overwritten_and_each_run_gets_its_own(
    run_cli: Any, project: Path
) -> None:
    put(project, "eval_x.py", PASSING)
    first = report_of(run_cli("evals", "run", ".", cwd=project))
    second = report_of(run_cli("evals", "run", ".", cwd=project))

    assert first["started_at"] != second["started_at"]
    assert len(list((project / ".goldgate" / "evaluations").iterdir())) == 2


def test_json_format_prints_one_json_document(run_cli: Any, project: Path) -> None:
    put(project, "eval_x.py", PASSING)

    result = run_cli("evals", "run", ".", "--format", "json", "--repeat", "2", cwd=project)

    summary = json.loads(result.stdout)
    assert summary["verdict"]["exit_code"] == 0
    assert summary["suites"][0]["attempt_count"] == 2
    assert SECRET_OUT not in result.stdout

    refused = run_cli("evals", "run", "missing", "--format", "json", cwd=project)
    assert refused.code == 2
    assert json.loads(refused.stdout)["ok"] is False


def test_live_evals_are_skipped_without_live(run_cli: Any, project: Path) -> None:
    put(project, "eval_x.py", "@eval(dataset='paid', live=True)\ndef e(ctx):\n    ctx.output = 1\n")

    skipped = run_cli("evals", "run", ".", cwd=project)
    ran = run_cli("evals", "run", ".", "--live", cwd=project)

    assert skipped.code == 0
    assert "skipped: live evals run only with --live" in skipped.stdout
    assert "verdict: nothing was evaluated (exit 0)" in skipped.stdout
    assert ran.code == 0
    assert report_of(ran)["suites"][0]["status"] == "ran"


SLOW = """
import anyio

@eval(dataset="d", timeout={own})
async def slow(ctx):
    await anyio.sleep(30)

@eval(dataset="d")
def quick(ctx):
    ctx.output = "ok"
"""


def test_an_eval_past_its_own_timeout_is_timed_out_everywhere(
    run_cli: Any, project: Path, tmp_path: Path
) -> None:
    """An eval's own timeout is a deadline like the run's: the attempt is timed_out with one
    sentence (not a runtime failure of another kind), the run exits 4, and JUnit and
    Markdown show it as the runtime failure it is."""
    put(project, "eval_x.py", SLOW.format(own=0.2))

    result = run_cli("evals", "run", "eval_x.py", "--output", "r.json", cwd=project)

    assert result.code == 4, result.output
    assert "verdict: runtime failure (exit 4)" in result.stdout
    assert "allows itself" not in result.stderr  # 0.2 s is within --timeout
    report = json.loads((project / "r.json").read_text("utf-8"))
    slow, quick = (case["attempts"][0] for case in report["suites"][0]["cases"])
    reason = "eval 'slow' gave no result within its 0.2 s timeout"
    assert (slow["status"], slow["reason"]) == ("timed_out", reason)
    assert quick["status"] == "completed"
    assert report["suites"][0]["counts"]["attempts"]["timed_out"] == 1
    assert report["suites"][0]["counts"]["attempts"]["failed"] == 0

    junit = run_cli("report", "junit", "r.json", "-o", "junit.xml", cwd=project)
    assert junit.code == 0, junit.output
    xml = (project / "junit.xml").read_text("utf-8")
    assert f'<error type="timed_out" message="{reason}">eval_x.py:5: case slow: {reason}' in xml
    markdown = run_cli("report", "markdown", "r.json", cwd=project)
    assert "**Why:** Exit code 4 \\(runtime failure\\)." in markdown.stdout
    assert f"| d | slow | timed\\_out | {reason} |" in markdown.stdout


def test_the_smaller_of_the_evals_timeout_and_the_runs_wins(run_cli: Any, project: Path) -> None:
    """--timeout caps every attempt: an eval that allows itself longer is cut at --timeout,
    and goldgate says so before it runs."""
    put(project, "eval_x.py", SLOW.format(own=600))

    result = run_cli(
        "evals", "run", "eval_x.py", "--timeout", "0.3", "--output", "r.json", cwd=project
    )

    assert result.code == 4, result.output
    assert (
        "goldgate: eval 'slow' allows itself 600 s, but --timeout ends every attempt after "
        "0.3 s; pass --timeout 600 to give it its time."
    ) in result.stderr
    report = json.loads((project / "r.json").read_text("utf-8"))
    slow = report["suites"][0]["cases"][0]["attempts"][0]
    assert (slow["status"], slow["reason"]) == ("timed_out", "no result within the 0.3 s deadline")


@pytest.mark.parametrize("key", ["json.parse", "schema.requiredCoverage"])
def test_a_threshold_nothing_in_an_eval_measures_is_refused_at_load(
    project: Path, key: str
) -> None:
    """A figure only a gold suite's text options measure could never hold in evals: refused
    before anything runs, naming the threshold, never a suite that passes on it."""
    source = f'@eval(dataset="qa", thresholds={{{key!r}: 0.5}})\n'
    source += 'def a(ctx):\n    ctx.output = "x"\n'
    put(project, "eval_qa.py", source)

    result = subprocess_cli("evals", "run", "eval_qa.py", cwd=project)

    assert result.code == 2, result.output
    assert f"threshold {key!r} is never measured in evals" in result.stderr
    assert not (project / ".goldgate").exists()


def test_expect_satisfied_without_any_expect_is_refused_and_with_one_is_gated(
    project: Path,
) -> None:
    unmeasured = (
        '@eval(dataset="qa", thresholds={"expect.satisfied": 0.5},'
        ' cases=[{"id": "one", "input": "x"}])\ndef a(ctx):\n    ctx.output = "x"\n'
    )
    put(project, "eval_none.py", unmeasured)
    refused = subprocess_cli("evals", "run", "eval_none.py", cwd=project)
    assert refused.code == 2, refused.output
    assert "no case of this dataset has one" in refused.stderr

    measured = unmeasured.replace('"input": "x"}', '"input": "x", "expect": {"contains": "y"}}')
    put(project, "eval_some.py", measured)
    gated = subprocess_cli("evals", "run", "eval_some.py", cwd=project)
    assert gated.code == 1, gated.output  # measured (0 of 1 held) and missed
