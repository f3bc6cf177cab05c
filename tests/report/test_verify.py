"""A report is data, not a verdict: every reader recomputes what a report states about itself
(the run's verdict and exit code, each suite's verdict, counts, summary, thresholds, metrics,
the checks waiting for a person, and each check of a pure comparison scored again from its
stored result and gold) and refuses a report whose stored value disagrees: exit 2 and one
sentence naming the field by JSON pointer. In every mode that reads a report: ``report
junit|markdown|annotations|show|merge``, both sides of ``evaluate --compare`` and ``evaluate
--replay``. A file that is not a report at all is exit 2 with one sentence in each of them
too, and an honest report (fresh, replayed, sharded, migrated, incomplete, of evals) reads.

The report under test is the example candidate of tests/compare (failing checks of exact, set
and source_span comparisons, missed thresholds, metrics, a text check waiting for a person).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import ExampleReports
from goldgate.base.errors import ReportRefusedError
from goldgate.report.io import read_report
from helpers.reports import coherent
from run.support import run_cli as run_process

# One worker makes the session's example reports (tests/conftest.py) once for the three modules
# that read them, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("example_reports")

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Reports:
    root: Path
    """The candidate's project (settings for --replay)."""
    candidate: Path
    baseline: Path
    data: bytes
    """The candidate report's bytes."""

    @property
    def value(self) -> dict[str, Any]:
        """The candidate report's JSON, parsed anew for each caller to edit (faster than a
        deep copy of one parse)."""
        value: dict[str, Any] = json.loads(self.data)
        return value


@pytest.fixture(scope="module")
def reports(example_reports: ExampleReports) -> Reports:
    """The session's candidate and baseline of the example (tests/conftest.py)."""
    root, candidate = example_reports.candidate_root, example_reports.candidate
    baseline = example_reports.baseline
    made = Reports(root, candidate, baseline, candidate.read_bytes())
    assert made.value["verdict"]["exit_code"] == 1  # the candidate disagrees with its gold
    return made


Mode = Callable[[Reports, Path, Path], list[str]]
"""(reports, the report to read, a fresh folder) -> the command line that reads it."""

MODES: dict[str, Mode] = {
    "report junit": lambda r, p, t: ["report", "junit", str(p), "-o", str(t / "out.xml")],
    "report markdown": lambda r, p, t: ["report", "markdown", str(p), "-o", str(t / "out.md")],
    "report annotations": lambda r, p, t: ["report", "annotations", str(p)],
    "report show": lambda r, p, t: ["report", "show", str(p)],
    "report merge": lambda r, p, t: ["report", "merge", str(p), str(p), "-o", str(t / "m.json")],
    "compare candidate": lambda r, p, t: [
        "evaluate",
        "--compare",
        str(p),
        "--baseline",
        str(r.baseline),
        "--output",
        str(t / "c.json"),
    ],
    "compare baseline": lambda r, p, t: [
        "evaluate",
        "--compare",
        str(r.candidate),
        "--baseline",
        str(p),
        "--output",
        str(t / "c.json"),
    ],
    "replay": lambda r, p, t: ["evaluate", "--replay", str(p), "--output", str(t / "r.json")],
}
"""Every mode that reads a report the user names."""

Edit = Callable[[dict[str, Any]], None]


def _set(*path: Any, value: Any) -> Edit:
    def edit(report: dict[str, Any]) -> None:
        node: Any = report
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _all_passed(report: dict[str, Any]) -> None:
    """Every failed check passed, and every figure made to agree with that: only scoring
    the checks again can tell."""
    for suite in report["suites"]:
        for case in suite["cases"]:
            for attempt in case["attempts"]:
                for check in attempt.get("checks", []):
                    if check["outcome"] == "failed":
                        check["outcome"] = "passed"
                        check.pop("reason", None)
    report.update(coherent(report, rescore=False))


CHECK = ("suites", 0, "cases", 1, "attempts", 0, "checks")
FORGED: dict[str, tuple[Edit, str]] = {
    # the run's verdict
    "run exit code": (_set("verdict", "exit_code", value=0), "/verdict/exit_code"),
    "run passed": (_set("verdict", "passed", value=True), "/verdict/passed"),
    "run meaning": (_set("verdict", "meaning", value="passed"), "/verdict/meaning"),
    "run tally": (_set("verdict", "suites", value={"passed": 5}), "/verdict/suites/"),
    # a suite's
    "suite verdict": (_set("suites", 0, "verdict", value="passed"), "/suites/0/verdict"),
    "suite status": (
        lambda r: r["suites"][0].update(status="skipped", verdict="skipped"),
        "/suites/0/status",
    ),
    "counts": (
        _set("suites", 0, "counts", "checks", "failed", value=0),
        "/suites/0/counts/checks/failed",
    ),
    "attempt count": (_set("suites", 0, "attempt_count", value=9), "/suites/0/attempt_count"),
    "summary": (
        _set("suites", 1, "summary", "pass_rate", value=1.0),
        "/suites/1/summary/pass_rate",
    ),
    "threshold held": (
        _set("suites", 1, "thresholds", 0, "held", value=True),
        "/suites/1/thresholds/0/held",
    ),
    "threshold actual": (
        _set("suites", 1, "thresholds", 0, "actual", value=0.99),
        "/suites/1/thresholds/0/actual",
    ),
    "metric": (
        _set("suites", 1, "metrics", 0, "accuracy", value=1.0),
        "/suites/1/metrics/0/accuracy",
    ),
    "adjudication count": (_set("suites", 2, "adjudication", value=0), "/suites/2/adjudication"),
    "adjudication queue": (
        _set("suites", 2, "adjudication_queue", value=[]),
        "/suites/2/adjudication_queue",
    ),
    # a check's outcome, scored again from the stored result and gold
    "exact check": (_set(*CHECK, 0, value={"outcome": "passed"}), "/checks/0/outcome"),
    "source_span check": (_set(*CHECK, 3, value={"outcome": "passed"}), "/checks/3/outcome"),
    "set check": (
        _set("suites", 0, "cases", 7, "attempts", 0, "checks", 2, value={"outcome": "passed"}),
        "/suites/0/cases/7/attempts/0/checks/2/outcome",
    ),
    "text check": (
        _set("suites", 2, "cases", 2, "attempts", 0, "checks", 0, "outcome", value="passed"),
        "/suites/2/cases/2/attempts/0/checks/0/outcome",
    ),
    "every check, every figure agreeing": (_all_passed, "/checks/0/outcome"),
    "case count": (_set("suites", 0, "case_count", value=9), "/suites/0/case_count"),
    "a failing attempt made skipped, every figure agreeing": (
        lambda r: (
            r["suites"][0]["cases"][1].update(
                attempts=[{"attempt": 1, "status": "skipped", "reason": "not authorized"}]
            ),
            r.update(coherent(r, rescore=False)),
        ),
        "/suites/0/cases/1/attempts/0/status",
    ),
    "checks of a skipped attempt": (
        _set("suites", 4, "cases", 0, "attempts", 0, "checks", value=[{"outcome": "passed"}]),
        "/suites/4/cases/0/attempts/0/checks",
    ),
}

OUT_OF_RANGE = [7, -1, 2, 130, "0", "1", True, False, 1.5, None, [1]]


def _write(folder: Path, value: Any, name: str = "forged.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(value), "utf-8")
    return path


def _refused(result: Any, path: Path, *fragments: str) -> str:
    """One sentence on stderr, exit 2, nothing rendered, no traceback."""
    assert result.code == 2, result.output
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert message.startswith("goldgate: "), message
    assert path.name in message, message
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("forgery", list(FORGED))
def test_a_forged_report_is_refused_in_every_mode_naming_the_field(
    run_cli: Any, reports: Reports, tmp_path: Path, mode: str, forgery: str
) -> None:
    edit, pointer = FORGED[forgery]
    value = reports.value
    edit(value)
    forged = _write(tmp_path, value)

    result = run_cli(*MODES[mode](reports, forged, tmp_path), cwd=reports.root)

    message = _refused(result, forged, pointer, "the report was altered or is corrupt.")
    assert " stored " in message
    assert not (tmp_path / "out.xml").exists()
    assert not (tmp_path / "c.json").exists()


UNTAKEN: dict[str, tuple[Edit, str, str]] = {
    # A suite's metric definitions its own gold cannot go through: found while its figures
    # are recomputed, named by file and place like any other broken field.
    "a metric path that is not a pointer": (
        _set("suites", 1, "metric_definitions", 0, "path", value="failed"),
        "/suites/1/metric_definitions/0/path",
        "JSON pointer",
    ),
    "labels the gold is not among": (
        _set("suites", 1, "metric_definitions", 0, "labels", value=["zzz", "yyy"]),
        "/suites/1/metric_definitions",
        "is not one of the metric's labels",
    ),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("edit", list(UNTAKEN))
def test_metric_definitions_the_gold_cannot_take_are_refused_naming_file_and_place(
    run_cli: Any, reports: Reports, tmp_path: Path, mode: str, edit: str
) -> None:
    change, pointer, why = UNTAKEN[edit]
    value = reports.value
    assert value["suites"][1]["metric_definitions"], "the example's suite 1 has a metric"
    change(value)
    broken = _write(tmp_path, value)

    result = run_cli(*MODES[mode](reports, broken, tmp_path), cwd=reports.root)

    _refused(result, broken, f"not a valid report at {pointer}: ", why)
    assert not (tmp_path / "out.xml").exists()
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("code", OUT_OF_RANGE, ids=repr)
def test_an_out_of_range_exit_code_is_refused_in_every_mode(
    run_cli: Any, reports: Reports, tmp_path: Path, mode: str, code: Any
) -> None:
    value = reports.value
    value["verdict"]["exit_code"] = code
    forged = _write(tmp_path, value)

    result = run_cli(*MODES[mode](reports, forged, tmp_path), cwd=reports.root)

    _refused(result, forged, "/verdict/exit_code")


UNREADABLE: dict[str, Callable[[bytes], bytes]] = {
    "empty object": lambda data: b"{}",
    "truncated": lambda data: data[: len(data) // 2],
    "HTML": lambda data: b"<!DOCTYPE html><html><body>Not Found</body></html>",
    "repeated key": lambda data: data.replace(b'{"format"', b'{"complete":true,"format"', 1),
    "wrong types": lambda data: data.replace(b'"suites":[', b'"suites":"x","s":[', 1),
    "newer format": lambda data: data.replace(b"goldgate.report/2", b"goldgate.report/9", 1),
    "not an object": lambda data: b"[1, 2]",
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", list(UNREADABLE))
def test_a_file_that_is_not_a_report_is_refused_in_every_mode(
    run_cli: Any, reports: Reports, tmp_path: Path, mode: str, kind: str
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_bytes(UNREADABLE[kind](reports.candidate.read_bytes()))

    result = run_cli(*MODES[mode](reports, broken, tmp_path), cwd=reports.root)

    _refused(result, broken)


def test_a_forged_report_is_refused_by_a_real_process(reports: Reports, tmp_path: Path) -> None:
    value = reports.value
    _all_passed(value)
    assert value["suites"][0]["verdict"] == "passed"  # every figure agrees with the lie
    forged = _write(tmp_path, value)

    for mode in ("report junit", "compare candidate", "replay"):
        result = run_process(*MODES[mode](reports, forged, tmp_path), cwd=reports.root)
        _refused(result, forged, "/checks/0/outcome", "'passed' but its attempts and gold give")


def test_an_honest_report_reads_in_every_mode(
    run_cli: Any, reports: Reports, tmp_path: Path
) -> None:
    expected = {
        "report merge": 2,  # not a shard's report: refused by merging, not by reading
        "replay": 1,  # the candidate's own gold still disagrees
    }
    for mode, command in MODES.items():
        folder = tmp_path / mode.replace(" ", "-")
        folder.mkdir()
        result = run_cli(*command(reports, reports.candidate, folder), cwd=reports.root)
        assert result.code == expected.get(mode, 0), (mode, result.output)
        assert "altered or is corrupt" not in result.output
    merge = run_cli(*MODES["report merge"](reports, reports.candidate, tmp_path))
    assert "not a shard's report" in merge.stderr


@pytest.mark.parametrize("fixture", ["report_v1_example.json", "report_v1_generated.json"])
def test_a_migrated_report_reads(run_cli: Any, tmp_path: Path, fixture: str) -> None:
    result = run_cli("report", "junit", str(FIXTURES / fixture), "-o", str(tmp_path / "j.xml"))

    assert result.code == 0, result.output


def test_honest_replayed_sharded_and_incomplete_reports_read(
    run_cli: Any, reports: Reports, tmp_path: Path
) -> None:
    # Runs as their own processes: a target module imported in this one may be another
    # project's (the example's module names are the same in every copy).
    replayed = tmp_path / "replayed.json"
    replay = ("evaluate", "--replay", str(reports.candidate), "--output", str(replayed))
    assert run_process(*replay, cwd=reports.root).code == 1
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        sharded = ("evaluate", "--shard", f"{k}/2", "--output", str(shard))
        assert run_process(*sharded, cwd=reports.root).code in (0, 1)
    merged = tmp_path / "merged.json"
    merge = ("report", "merge", *map(str, shards), "-o", str(merged))
    assert run_process(*merge, cwd=tmp_path).code == 1  # the candidate disagrees
    incomplete = coherent({**reports.value, "complete": False, "interruption": "SIGTERM"})
    assert incomplete["verdict"]["exit_code"] == 130
    interrupted = _write(tmp_path, incomplete, "incomplete.json")

    for path in (replayed, *shards, merged, interrupted):
        assert read_report(path).suites, path
        result = run_cli("report", "show", str(path))
        assert result.code == 0, (path, result.output)


# --- comparison files ---------------------------------------------------------------------------


@pytest.fixture
def comparison(run_cli: Any, reports: Reports, tmp_path: Path) -> Path:
    path = tmp_path / "comparison.json"
    result = run_cli("evaluate", "--compare", str(reports.candidate), "--baseline",
                     str(reports.baseline), "--output", str(path))  # fmt: skip
    assert result.code == 0, result.output
    return path


def _render(run_cli: Any, reports: Reports, comparison: Path) -> Any:
    return run_cli("report", "markdown", str(reports.candidate), "--comparison", str(comparison))


def test_an_honest_comparison_renders(run_cli: Any, reports: Reports, comparison: Path) -> None:
    result = _render(run_cli, reports, comparison)

    assert result.code == 0, result.output
    assert "regress" in result.stdout.lower()


def test_an_honest_comparison_file_is_read_as_a_stream_never_whole(
    run_cli: Any, reports: Reports, comparison: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: a comparison file that is byte for byte what its two reports give (made
    again, its lists spooled) is the comparison rendered, never read whole; a file that is
    not (reformatted: the same JSON) is read whole and verified as before."""
    import goldgate.comparison as comparison_package
    from goldgate.comparison import spool

    monkeypatch.setattr(spool, "HELD", 0)
    whole = comparison_package.read_comparison
    monkeypatch.setattr(comparison_package, "read_comparison", _never_whole)
    streamed = _render(run_cli, reports, comparison)
    assert streamed.code == 0, streamed.output
    reformatted = comparison.with_name("reformatted.json")
    reformatted.write_text(json.dumps(json.loads(comparison.read_text("utf-8")), indent=1))
    assert _render(run_cli, reports, reformatted).code == 2  # it had to be read whole
    monkeypatch.setattr(comparison_package, "read_comparison", whole)
    read_whole = _render(run_cli, reports, reformatted)
    assert read_whole.code == 0, read_whole.output
    assert read_whole.stdout == streamed.stdout


def _never_whole(path: object) -> None:
    raise ReportRefusedError(f"{path}: read whole")


def test_a_comparison_whose_classification_was_edited_is_refused(
    run_cli: Any, reports: Reports, comparison: Path, tmp_path: Path
) -> None:
    value = json.loads(comparison.read_text("utf-8"))
    bad = ("regressed", "mixed")
    for suite in value["suites"]:  # no attempt regressed, and every count agrees
        kept = [change for change in suite["changes"] if change["change"] == "improved"]
        suite["changes"] = kept
        suite["findings"] = [f for f in suite["findings"] if f["change"] not in bad]
        for name in bad:
            suite["figures"]["attempts"][name] = suite["classes"][name] = 0
    for name in bad:
        value["overall"]["attempts"][name] = value["classes"][name] = 0
    value["regressions"] = False
    forged = _write(tmp_path, value, "forged-comparison.json")

    result = _render(run_cli, reports, forged)

    _refused(result, forged, "is not what comparing its candidate and baseline reports gives")


@pytest.mark.parametrize("held", ["in memory", "spooled"])
def test_a_comparison_whose_listed_finding_was_edited_is_refused(
    run_cli: Any,
    reports: Reports,
    comparison: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    held: str,
) -> None:
    """Only a finding's words changed: the suites, compared piece by piece with the fresh
    comparison (its lists spooled or not, issue 43), are refused where they differ."""
    from goldgate.comparison import spool

    if held == "spooled":
        monkeypatch.setattr(spool, "HELD", 0)
    value = json.loads(comparison.read_text("utf-8"))
    finding = next(s["findings"][-1] for s in value["suites"] if s["findings"])
    finding["detail"] += " (edited)"
    forged = _write(tmp_path, value, "edited-finding.json")

    result = _render(run_cli, reports, forged)

    _refused(result, forged, "stored /suites is not what comparing")
    assert _render(run_cli, reports, comparison).code == 0


def test_a_comparison_without_its_baseline_must_agree_with_itself(
    run_cli: Any, reports: Reports, comparison: Path, tmp_path: Path
) -> None:
    value = json.loads(comparison.read_text("utf-8"))
    value["baseline"]["path"] = str(tmp_path / "gone.json")
    honest = _write(tmp_path, value, "moved.json")
    assert _render(run_cli, reports, honest).code == 0

    regressed = next(
        i for i, s in enumerate(value["suites"]) if s["figures"]["attempts"]["regressed"]
    )
    value["suites"][regressed]["figures"]["attempts"]["regressed"] = 0
    forged = _write(tmp_path, value, "forged-moved.json")

    result = _render(run_cli, reports, forged)

    _refused(result, forged, f"/suites/{regressed}/figures/attempts/regressed")


COMPARISON_UNREADABLE: dict[str, Callable[[bytes], bytes]] = {
    **{k: UNREADABLE[k] for k in ("empty object", "truncated", "HTML", "not an object")},
    "repeated key": lambda data: data.replace(b'{"format"', b'{"mode":"full","format"', 1),
    "wrong types": lambda data: data.replace(b'"suites":[', b'"suites":"x","s":[', 1),
    "newer format": lambda data: data.replace(b"goldgate.comparison/1", b"goldgate.comparison/2"),
}


@pytest.mark.parametrize("kind", list(COMPARISON_UNREADABLE))
def test_an_unreadable_comparison_is_refused(
    run_cli: Any, reports: Reports, comparison: Path, tmp_path: Path, kind: str
) -> None:
    broken = tmp_path / "broken-comparison.json"
    broken.write_bytes(COMPARISON_UNREADABLE[kind](comparison.read_bytes()))

    result = _render(run_cli, reports, broken)

    _refused(result, broken)


def test_a_forged_repeat_of_a_steady_attempt_is_refused(
    run_cli: Any, reports: Reports, tmp_path: Path
) -> None:
    """Repeats with the same result are verified once (reading stays fast), never an edited
    repeat: the stored checks are part of what makes two attempts the same."""
    repeated = tmp_path / "repeated.json"
    command = ("evaluate", "--repeat", "3", "--output", str(repeated))
    assert run_process(*command, cwd=reports.root).code == 1
    value = json.loads(repeated.read_text("utf-8"))
    first, second, third = value["suites"][0]["cases"][1]["attempts"]
    assert first["result"] == second["result"] == third["result"]
    assert first["checks"][0]["outcome"] == "failed"
    third["checks"][0] = {"outcome": "passed"}
    forged = _write(tmp_path, coherent(value, rescore=False))

    result = run_cli("report", "show", str(forged))

    _refused(result, forged, "/suites/0/cases/1/attempts/2/checks/0/outcome")
    assert run_cli("report", "show", str(repeated)).code == 0
