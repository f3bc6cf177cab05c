"""goldgate's evals agree with EZVals itself: the eval files in ``ezvals_parity/`` (ours,
written for ``ezvals``) run once with ezvals 0.2.0 (its own runner, ``ezvals.run``, in a
process of its own with a deadline) and once with ``goldgate evals run`` (the same files,
the import line changed), and every eval agrees: discovered, case ids, datasets, labels,
pass/fail, scores by key, reasons, and what the eval left in input, output, reference and
metadata. The few that differ are the ones docs/evals.md's table says differ, and they
differ as it says.

ezvals is a test dependency (the test extra pins ``ezvals==0.2.0``); where it cannot be
imported, or is another version, the tests skip and say why.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from run.support import run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

HERE = Path(__file__).parent
FILES = HERE / "ezvals_parity"
DOCS = HERE.parents[1] / "docs" / "evals.md"
VERSION = "0.2.0"
DEADLINE = 240.0
IMPORT = re.compile(r"^from ezvals import ", flags=re.MULTILINE)

SKIPPED_BY_BOTH = (".hidden/found.py", "__cache__/found.py", "node_modules/found.py",
                   "venv/found.py", "_skipped.py")  # fmt: skip
"""Places a folder search skips, EZVals' and goldgate's alike: an eval there fails."""

DIFFERENCES: dict[str, tuple[str, str]] = {
    "unannotated_parameter": (
        "an unannotated parameter",
        "EZVals calls it without the context (TypeError); goldgate gives it the context",
    ),
    "value_that_is_not_a_number": (
        "`value` that is not a finite number",
        "EZVals keeps the value 'high'; goldgate refuses it (ValueError: the eval errors)",
    ),
    "passed_that_is_not_a_bool": (
        "own sentence",
        "both error; EZVals' host says it could not read the result, goldgate says why",
    ),
    "notes_that_are_not_text": (
        "own sentence",
        "both error; EZVals' host says it could not read the result, goldgate says why",
    ),
}
"""Evals that differ on purpose: (what docs/evals.md's table says, how they differ)."""


def _ezvals_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python 3.11 has it
        pytest.skip("importlib.metadata is missing")
    try:
        import ezvals  # noqa: F401
    except ImportError as error:
        pytest.skip(f"ezvals cannot be imported ({error}); install the test extra: "
                    f"pip install -e '.[test]' (it pins ezvals=={VERSION})")  # fmt: skip
    try:
        return version("ezvals")
    except PackageNotFoundError:
        pytest.skip("ezvals is importable but not installed as a distribution")


@pytest.fixture(scope="module")
def ezvals_version() -> str:
    found = _ezvals_version()
    if found != VERSION:
        pytest.skip(f"ezvals {found} is installed; the parity reference is ezvals {VERSION}")
    return found


@dataclass
class Outcome:
    """One eval (one id) as a runner left it, in terms both runners share."""

    dataset: str
    labels: list[str]
    outcome: str = "scored"
    """``passed``, ``failed``, ``error`` or ``scored`` (numeric scores only)."""
    scores: list[tuple[Any, ...]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    values: dict[str, Any] | None = None
    """input, output, reference, metadata, trace_data as the eval left them (one result)."""


def _scores(scores: Iterable[Mapping[str, Any]] | None) -> list[tuple[Any, ...]]:
    return [(s.get("key"), s.get("passed"), s.get("value"), s.get("notes")) for s in scores or ()]


def _judged(errors: list[str], scores: list[tuple[Any, ...]]) -> str:
    if errors:
        return "error"
    judged = [passed for _, passed, _, _ in scores if passed is not None]
    if any(passed is False for passed in judged):
        return "failed"
    return "passed" if judged else "scored"


def _failed_notes(scores: list[tuple[Any, ...]]) -> list[str]:
    return [notes for _, passed, _, notes in scores if passed is False and notes]


def _values(result: Mapping[str, Any], case: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the eval left; in a goldgate report, the case's values where the result has
    none (it holds them only where the eval changed them)."""
    envelope = (case or {}).get("input") or {}
    declared = {**envelope.get("payload", {}), "metadata": envelope.get("metadata")}
    return {
        "input": result.get("input", declared.get("input")),
        "output": result.get("output"),
        "reference": result.get("reference", declared.get("reference")),
        "metadata": result.get("metadata", declared.get("metadata")) or {},
        "trace_data": result.get("trace_data") or {},
    }


def ezvals_outcomes(run: Mapping[str, Any]) -> dict[str, Outcome]:
    """EZVals' run JSON by eval id (``file::`` dropped where one file holds the eval of that
    name, as goldgate's case ids; a list's results are one eval)."""
    files: dict[str, set[str]] = {}
    for row in run["results"]:
        file, _, bare = row["id"].partition("::")
        files.setdefault(f"{row['dataset']}\0{bare}", set()).add(file)
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    found: dict[str, Outcome] = {}
    for row in run["results"]:
        bare = row["id"].partition("::")[2]
        shared = len(files[f"{row['dataset']}\0{bare}"]) > 1
        eval_id = row["id"] if shared else bare
        grouped.setdefault(eval_id, []).append(row["result"])
        found.setdefault(eval_id, Outcome(row["dataset"], list(row["labels"] or ())))
    for eval_id, results in grouped.items():
        outcome = found[eval_id]
        errors = [r["error"].splitlines()[0] for r in results if r.get("error")]
        for result in results:
            outcome.scores += _scores(result.get("scores"))
        outcome.outcome = _judged(errors, outcome.scores)
        outcome.reasons = errors or _failed_notes(outcome.scores)
        if len(results) == 1 and results[0].get("metadata") is not None:
            outcome.values = _values(results[0])
    return found


def goldgate_outcomes(report: Mapping[str, Any]) -> dict[str, Outcome]:
    """A goldgate report by case id, with each failed check's reason checked to say its
    score's notes (an assertion's message) as it goes."""
    found: dict[str, Outcome] = {}
    for suite in report["suites"]:
        for case in suite["cases"]:
            [attempt] = case["attempts"]
            result = attempt.get("result") or {}
            outcome = Outcome(suite["name"], list(case["input"]["payload"].get("labels", ())))
            outcome.scores = _scores(result.get("scores"))
            errors = [] if attempt["status"] == "completed" else [result["error"].splitlines()[0]]
            outcome.outcome = _judged(errors, outcome.scores)
            outcome.reasons = errors or _failed_notes(outcome.scores)
            if "results" not in result:
                outcome.values = _values(result, case)
            names = [expectation["name"] for expectation in case["expectations"]]
            for name, check in zip(names, attempt.get("checks") or (), strict=False):
                if check["outcome"] == "failed":
                    notes = next(n for k, p, _, n in outcome.scores if k == name and p is False)
                    assert notes is None or notes in check["reason"], (case["id"], check)
            found[case["id"]] = outcome
    return found


def _copies(root: Path) -> tuple[Path, Path]:
    """The parity files twice under ``root``: as written (for ezvals) and with the import
    line changed (for goldgate); the same folder name, so ids and datasets agree."""
    mine, theirs = root / "ez", root / "gg"
    for where, line in ((mine, "from ezvals import "), (theirs, "from goldgate.evals import ")):
        shutil.copytree(FILES, where / "parity", ignore=shutil.ignore_patterns("__pycache__"))
        for skipped in SKIPPED_BY_BOTH:
            path = where / "parity" / skipped
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("from ezvals import eval\n\n@eval\ndef found():\n    raise "
                            "AssertionError('this file is never searched')\n")  # fmt: skip
        for path in (where / "parity").rglob("*.py"):
            path.write_text(IMPORT.sub(line, path.read_text(encoding="utf-8")), encoding="utf-8")
        (where / "evaluation").mkdir()  # goldgate's project folder
    return mine, theirs


def run_ezvals(cwd: Path, path: str) -> dict[str, Any]:
    """``ezvals.run(path)`` (what ``ezvals run PATH --json --no-save`` prints) in a process
    of its own, ended at the deadline."""
    code = "import ezvals, json, sys\nprint(json.dumps(ezvals.run(sys.argv[1], no_save=True)))\n"
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, path], cwd=cwd, capture_output=True, text=True,
            timeout=DEADLINE, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"ezvals did not finish {path} within {DEADLINE:g} s")
    assert done.returncode == 0, done.stderr
    run: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return run


def run_goldgate(cwd: Path, *paths: str) -> tuple[int, dict[str, Any]]:
    output = cwd / f"report-{len(list(cwd.glob('report-*.json')))}.json"
    result = run_cli("evals", "run", *paths, "--output", str(output), cwd=cwd, timeout=DEADLINE)
    assert output.is_file(), result.stderr
    report: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return result.code, report


@pytest.fixture(scope="module")
def both(ezvals_version: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    mine, theirs = _copies(tmp_path_factory.mktemp("parity"))
    code, report = run_goldgate(theirs, "parity")
    assert code == 4, "the parity files hold evals that error: a runtime failure"
    return ezvals_outcomes(run_ezvals(mine, "parity")), goldgate_outcomes(report)


def test_the_same_evals_and_cases_are_discovered(both: tuple[Any, Any]) -> None:
    theirs, ours = both

    assert sorted(ours) == sorted(theirs)
    assert len(ours) >= 75
    assert "found" not in ours  # the places both searches skip
    assert "parity/sub/same_name.py::refund_is_acknowledged" in ours  # qualified by its file
    assert "no_cases_no_evals" not in ours  # cases=[]: no eval at all, no error


def disagreements(theirs: Mapping[str, Outcome], ours: Mapping[str, Outcome]) -> dict[str, Any]:
    """Every eval whose outcomes differ, but for those docs/evals.md says differ."""
    assert sorted(ours) == sorted(theirs)
    return {
        eval_id: (theirs[eval_id], mine)
        for eval_id, mine in ours.items()
        if eval_id not in DIFFERENCES and mine != theirs[eval_id]
    }


def test_every_eval_agrees_except_where_the_docs_say_why(both: tuple[Any, Any]) -> None:
    theirs, ours = both

    assert disagreements(theirs, ours) == {}


def test_the_documented_differences_are_as_documented(both: tuple[Any, Any]) -> None:
    theirs, ours = both
    table = DOCS.read_text(encoding="utf-8")

    for eval_id, (documented, _) in DIFFERENCES.items():
        assert documented in table, f"docs/evals.md's table does not say {documented!r}"
        assert ours[eval_id] != theirs[eval_id], f"{eval_id} agrees: drop it from DIFFERENCES"
    assert (theirs["unannotated_parameter"].outcome, ours["unannotated_parameter"].outcome) == (
        "error", "passed",
    )  # fmt: skip
    value = ("q", None, "high", None)
    assert theirs["value_that_is_not_a_number"].scores == [value]
    assert ours["value_that_is_not_a_number"].outcome == "error"
    for eval_id in ("passed_that_is_not_a_bool", "notes_that_are_not_text"):
        assert theirs[eval_id].outcome == ours[eval_id].outcome == "error"
        assert ours[eval_id].reasons[0].startswith("ValueError: Invalid score")


def test_selectors_pick_the_same_evals_and_cases(ezvals_version: str, tmp_path: Path) -> None:
    mine, theirs = _copies(tmp_path)
    for selector in ("parity/sub/nested_evals.py::selected_cases[a]",
                     "parity/decorator_options.py::sentiment@pos,refund_is_acknowledged",
                     "parity/scoring_rules.py"):  # fmt: skip
        expected = ezvals_outcomes(run_ezvals(mine, selector))
        _, report = run_goldgate(theirs, selector)

        assert disagreements(expected, goldgate_outcomes(report)) == {}, selector
    assert sorted(
        goldgate_outcomes(run_goldgate(theirs, "parity/sub/nested_evals.py::selected_cases[a]")[1])
    ) == ["selected_cases[a]"]


def test_an_unknown_argument_stops_ezvals_but_only_its_own_file_in_goldgate(
    ezvals_version: str, tmp_path: Path
) -> None:
    mine, theirs = _copies(tmp_path)
    for where in (mine, theirs):
        line = "from goldgate.evals import eval" if where == theirs else "from ezvals import eval"
        (where / "parity" / "newer.py").write_text(
            f"{line}\n\n\n@eval(dataset='newer', retries=2)\ndef newer(ctx):\n    pass\n"
        )
    code = "import ezvals, sys\nezvals.run(sys.argv[1], no_save=True)\n"
    ezvals_run = subprocess.run(
        [sys.executable, "-c", code, "parity"], cwd=mine, capture_output=True, text=True,
        timeout=DEADLINE, check=False,
    )  # fmt: skip

    # EZVals: the whole run fails (an eval file failed to import).
    assert ezvals_run.returncode != 0
    assert "unexpected keyword argument 'retries'" in ezvals_run.stderr
    # goldgate: that file is refused by name, file and line; every other file runs.
    exit_code, report = run_goldgate(theirs, "parity")
    assert exit_code == 2
    ours = goldgate_outcomes(report)
    assert ours["parity/newer.py"].outcome == "error"
    assert (
        "parity/newer.py:4: @eval does not take the argument 'retries'"
        in (ours["parity/newer.py"].reasons[0])
    )
    assert ours["all_assertions_pass"].outcome == "passed"
    assert "An `@eval` argument goldgate does not know" in DOCS.read_text(encoding="utf-8")
