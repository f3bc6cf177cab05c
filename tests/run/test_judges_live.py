"""Judges through the real CLI against a fake OpenAI-compatible judge on loopback whose
verdicts the test plants (issue 41): calibration figures equal to scikit-learn's, the gate's
rule (a calibrated judge decides, an uncalibrated, stale or barely-calibrated one suggests),
a human verdict winning, no verdict as a check error, no judge request without --live or on
a cached re-run, and the credential in no file goldgate writes.

One server and one calibrated project serve the module; a test that changes the settings
works on a copy."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.helpers.fake_openai import FakeOpenAI, serving

from goldgate.scoring.adjudication import gold_digest, output_digest

from .support import CliRun, read_report_json, run_cli

# A server and the console script; one worker makes its server and calibrated project once, not
# each worker that draws one of its tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("judges_live")]

KEY = "sk-fake-JUDGE-KEY-7b21c"
ENV = {"GG_JUDGE_KEY": KEY}
PROSE = "Echoes the customer's ticket number."
HISTORY = 40
"""Cases of the history suite, each decided by a person in the verdict store."""
PLANTED: dict[str, str] = {}
"""The judge's answer to each application answer (default: PASS)."""


def _human(index: int) -> bool:
    return index % 2 == 0


def _judge_says(index: int) -> str:
    if index == 3:
        return "Verdict: PASS"  # no verdict: counted apart
    if index in (1, 2):
        return "PASS looks fine" if index == 1 else "FAIL: misses the number"
    return "PASS it echoes" if _human(index) else "FAIL wrong ticket"


for _i in range(HISTORY):
    PLANTED[f"echo: history {_i}"] = _judge_says(_i)
PLANTED["echo: fresh pass"] = "**PASS** the number is there"
PLANTED["echo: fresh fail"] = "FAIL the number is missing SECRET-REASON-51"
PLANTED["echo: fresh none"] = "PASSABLE, I suppose"


def _chat(body: dict[str, Any]) -> str:
    if body.get("model") != "judge-1":
        return "unused"
    answer = body["messages"][-1]["content"]
    if "Revision: helpful-3" in body["messages"][0]["content"] and answer == "echo: fresh pass":
        return "FAIL under the new rubric"
    return PLANTED.get(answer, "PASS")


def _judge_requests(server: FakeOpenAI) -> int:
    bodies = server.state.bodies
    return sum(1 for body in bodies if body.get("model") == "judge-1")


def _case(case_id: str, message: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "input": {"payload": {"message": message}, "metadata": {}},
        "expectations": [
            {
                "name": "reply",
                "path": "/payload/answer",
                "expected": PROSE,
                "comparison": "text",
                "judge": "helpful",
            }
        ],
    }


def _settings(url: str, *, revision: str = "helpful-1", min_kappa: float = 0.6) -> dict[str, Any]:
    return {
        "workflows": {
            "app": {"revision": "app-1", "target": {"http": {"url": f"{url}/app"}}},
            "judge": {
                "revision": "judge-1",
                "live": True,
                "credentials": ["GG_JUDGE_KEY"],
                "pricing": {"input_per_million": 1.0, "output_per_million": 2.0},
                "target": {
                    "model": {
                        "base_url": f"{url}/v1",
                        "model": "judge-1",
                        "api_key": "GG_JUDGE_KEY",
                        "system": "Rubric: {/payload/rubric} Note: {/payload/note} "
                        "Revision: {/metadata/revision}",
                        "prompt": "{/payload/answer}",
                    }
                },
            },
        },
        "judges": {
            "helpful": {
                "revision": revision,
                "workflow": "judge",
                "rubric": "The reply repeats the ticket number.",
                "calibration": {"min_verdicts": 30, "min_kappa": min_kappa},
            }
        },
    }


def _write_settings(root: Path, settings: dict[str, Any]) -> None:
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "settings.yaml").write_text(yaml.safe_dump(settings), "utf-8")


def _write_project(root: Path, url: str) -> None:
    _write_settings(root, _settings(url))
    history = [_case(f"h{i}", f"history {i}") for i in range(HISTORY)]
    fresh = [_case(name, f"fresh {name}") for name in ("pass", "fail", "none")]
    manifest = {
        "name": "judged",
        "revision": "g1",
        "suites": [
            {"name": "history", "workflow": "app", "cases": history},
            {"name": "replies", "workflow": "app", "cases": fresh},
        ],
    }
    (root / "evaluation").mkdir(parents=True, exist_ok=True)
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest), "utf-8")
    lines = [
        {
            "suite": "history",
            "case": f"h{i}",
            "check": "reply",
            "digest": output_digest(f"echo: history {i}"),
            "gold": gold_digest(PROSE),
            "verdict": "pass" if _human(i) else "fail",
        }
        for i in range(HISTORY)
    ]
    store = root / "evaluation" / "verdicts.jsonl"
    store.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


def _goldgate(root: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
    return run_cli(*args, cwd=root, env=env)


def _evaluate(
    root: Path, name: str, *args: str, env: dict[str, str] | None = None
) -> tuple[CliRun, dict[str, Any] | None]:
    path = root / "out" / name
    result = _goldgate(root, "evaluate", "--output", str(path), *args, env=env)
    return result, (read_report_json(path) if path.exists() else None)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with serving(chat=_chat) as fake:
        yield fake


@pytest.fixture(scope="module")
def calibrated(server: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A project whose judge was calibrated on the history suite's report."""
    root = tmp_path_factory.mktemp("judged") / "project"
    _write_project(root, server.url)
    before = _judge_requests(server)
    history, report = _evaluate(root, "history.json", "--suite", "history")
    assert report is not None, history.output
    history_requests = _judge_requests(server) - before
    missing = _goldgate(root, "judge", "calibrate", "--report", "out/history.json")
    after_missing = _judge_requests(server)
    result = _goldgate(
        root, "judge", "calibrate", "--report", "out/history.json", "--format", "json", env=ENV
    )
    assert result.code == 0, result.output
    return {
        "root": root,
        "history": history,
        "history_requests": history_requests,
        "missing": missing,
        "missing_sent": after_missing - before - history_requests,
        "printed": json.loads(result.stdout),
        "requests": _judge_requests(server) - after_missing,
    }


def _copy(calibrated: dict[str, Any], tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(calibrated["root"], root, ignore=shutil.ignore_patterns("out", ".goldgate"))
    return root


def test_calibration_figures_equal_scikit_learns(calibrated: dict[str, Any]) -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="the oracle of the figures")
    (record,) = calibrated["printed"]
    written = json.loads((calibrated["root"] / "evaluation/judges/helpful.json").read_text())
    assert written == record
    decided = [i for i in range(HISTORY) if i != 3]
    human = ["pass" if _human(i) else "fail" for i in decided]
    judge = ["pass" if _judge_says(i).startswith("PASS") else "fail" for i in decided]
    matrix = metrics.confusion_matrix(human, judge, labels=["pass", "fail"]).tolist()
    table = record["table"]
    found = [[table["pass_pass"], table["pass_fail"]], [table["fail_pass"], table["fail_fail"]]]
    assert found == matrix
    kappa = float(metrics.cohen_kappa_score(human, judge))
    assert record["kappa"] == pytest.approx(kappa)
    n = len(decided)
    agreement = sum(h == j for h, j in zip(human, judge, strict=True)) / n
    assert record["agreement"] == pytest.approx(agreement)
    h_pass, j_pass = human.count("pass") / n, judge.count("pass") / n
    chance = h_pass * j_pass + (1 - h_pass) * (1 - j_pass)
    spread = 1.96 * (agreement * (1 - agreement) / (n * (1 - chance) ** 2)) ** 0.5
    assert record["kappa_ci95"] == pytest.approx([kappa - spread, kappa + spread])
    assert (record["judge"], record["revision"], record["verdicts"]) == ("helpful", "helpful-1", n)
    assert record["no_verdict"] == 1
    assert record["requests"] == calibrated["requests"] == HISTORY
    assert record["cached"] == 0
    assert record["cost"] is not None
    assert record["cost"] > 0


def test_calibrate_needs_the_judges_credential(calibrated: dict[str, Any]) -> None:
    missing: CliRun = calibrated["missing"]

    assert missing.code == 2
    assert "GG_JUDGE_KEY" in missing.output
    assert calibrated["missing_sent"] == 0


def test_a_model_free_run_never_calls_a_judge(
    server: FakeOpenAI, calibrated: dict[str, Any]
) -> None:
    root = calibrated["root"]
    before = _judge_requests(server)

    result, report = _evaluate(root, "model-free.json", "--suite", "replies")  # no key either

    assert result.code == 0, result.output
    assert _judge_requests(server) == before
    assert calibrated["history_requests"] == 0
    assert report is not None
    checks = [attempt["checks"][0] for attempt in report["suites"][0]["attempts"]]
    assert all(check["outcome"] == "not_run" and check["adjudication"] for check in checks)


def test_a_calibrated_judge_decides_and_no_verdict_is_an_error(
    server: FakeOpenAI, calibrated: dict[str, Any]
) -> None:
    root = calibrated["root"]
    before = _judge_requests(server)

    result, report = _evaluate(root, "live.json", "--suite", "replies", "--live", env=ENV)

    assert result.code == 1, result.output
    assert _judge_requests(server) == before + 3
    assert report is not None
    stored = {case["id"]: case["attempts"][0] for case in report["suites"][0]["cases"]}
    outcomes = {case: attempt["checks"][0]["outcome"] for case, attempt in stored.items()}
    assert outcomes == {"pass": "passed", "fail": "failed", "none": "error"}
    said = stored["fail"]["checks"][0]["judge"]
    assert said["verdict"] == "fail"
    assert said["decided"] is True
    assert said["revision"] == "helpful-1"
    assert "SECRET-REASON-51" in said["reason"]  # private detail, in the detailed report
    assert stored["pass"]["judge_cost"] > 0
    assert "cost" not in stored["pass"]  # the application's own cost is apart
    assert "SECRET-REASON-51" not in result.output
    (standing,) = report["judges"]
    assert (standing["name"], standing["standing"]) == ("helpful", "calibrated")
    (judged,) = report["suites"][0]["judges"]
    assert (judged["decided"], judged["suggested"]) == (3, 0)
    assert report["suites"][0]["judge_cost"] == pytest.approx(
        sum(attempt["judge_cost"] for attempt in stored.values())
    )
    decided = "3 checks decided by judge helpful@helpful-1, κ "
    for command in ("markdown", "show", "junit", "html"):
        written = root / "out" / f"live.{command}"
        to_file = () if command in ("markdown", "show") else ("-o", str(written))
        shown = _goldgate(root, "report", command, "out/live.json", *to_file)
        assert shown.code == 0, shown.output
        text = html.unescape(written.read_text("utf-8")) if to_file else shown.stdout
        text = text.replace("\u200d", "").replace("\\", "")  # Markdown's escapes of data
        assert decided in text, command
        assert "judges' calls cost" in text.lower() or "judge_cost" in text, command
        assert "SECRET-REASON-51" not in text, command


def test_a_human_verdict_wins_over_the_judge(
    server: FakeOpenAI, calibrated: dict[str, Any]
) -> None:
    root = calibrated["root"]
    before = _judge_requests(server)

    result, report = _evaluate(root, "humans.json", "--suite", "history", "--live", env=ENV)

    assert _judge_requests(server) == before
    assert report is not None
    first = report["suites"][0]["cases"][1]["attempts"][0]["checks"][0]
    assert first["outcome"] == "failed"  # the person failed it; the judge would pass it
    assert first["adjudicated"] is True
    assert "judge" not in first
    assert result.code == 1


def test_a_cached_rerun_makes_no_judge_request(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    cache = tmp_path / "cache"
    args = ("--suite", "replies", "--live", "--cache", str(cache))
    first, _ = _evaluate(root, "1.json", *args, env=ENV)
    before = _judge_requests(server)

    again, report = _evaluate(root, "2.json", *args, env=ENV)

    assert (first.code, again.code) == (1, 1)
    assert _judge_requests(server) == before
    assert report is not None
    assert report["suites"][0]["cases"][1]["attempts"][0]["checks"][0]["outcome"] == "failed"


def _suggesting(root: Path, settings: dict[str, Any]) -> tuple[CliRun, Any]:
    _write_settings(root, settings)
    result, report = _evaluate(root, "suggest.json", "--suite", "replies", "--live", env=ENV)
    assert result.code == 0, result.output
    assert report is not None
    checks = [case["attempts"][0]["checks"][0] for case in report["suites"][0]["cases"]]
    assert [check["outcome"] for check in checks] == ["not_run"] * 3
    assert [check["judge"]["decided"] for check in checks] == [False] * 3
    assert [check["judge"]["verdict"] for check in checks] == ["pass", "fail", None]
    return result, report


def test_a_revision_change_makes_the_record_stale(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)

    result, report = _suggesting(root, _settings(server.url, revision="helpful-2"))

    assert "stale" in result.stderr
    queue = report["suites"][0]["adjudication_queue"]  # each entry with the suggestion
    suggested = [(entry["case"], entry["judge"]["verdict"]) for entry in queue]
    assert suggested == [("pass", "pass"), ("fail", "fail"), ("none", None)]
    assert {entry["judge"]["revision"] for entry in queue} == {"helpful-2"}
    assert "SECRET-REASON-51" in queue[1]["judge"]["reason"]  # the report keeps details
    markdown = _goldgate(root, "report", "markdown", "out/suggest.json")
    shown = markdown.stdout.replace("\u200d", "")
    assert "3 checks only suggested by judge helpful@helpful-2" in shown
    assert "stale" in markdown.stdout
    assert "SECRET-REASON-51" not in markdown.stdout
    export = root / "queue.jsonl"
    exported = _goldgate(
        root, "adjudication", "export", "out/suggest.json", "--output", str(export)
    )
    assert exported.code == 0, exported.output
    lines = [json.loads(line) for line in export.read_text("utf-8").splitlines()]
    assert lines[0]["case"] == "fail"  # what the judge failed comes first
    assert lines[0]["judge"]["verdict"] == "fail"
    assert "SECRET-REASON-51" in lines[0]["judge"]["reason"]


def test_a_kappa_over_the_bar_whose_interval_is_not_only_suggests(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    (record,) = calibrated["printed"]
    low = record["kappa_ci95"][0]
    assert low < record["kappa"]
    root = _copy(calibrated, tmp_path)

    bar = (low + record["kappa"]) / 2
    result, _ = _suggesting(root, _settings(server.url, min_kappa=bar))

    assert "lower bound" in result.stderr


def test_the_credential_is_in_no_file_goldgate_writes(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    cache = tmp_path / "cache"
    _evaluate(root, "k.json", "--suite", "replies", "--live", "--cache", str(cache), env=ENV)
    assert any(f"Bearer {KEY}" == h.get("Authorization") for h in server.state.headers)

    places = [*calibrated["root"].rglob("*"), *root.rglob("*"), *cache.rglob("*")]
    written = [path for path in places if path.is_file()]

    assert len(written) > 5
    assert [p for p in written if KEY.encode() in p.read_bytes()] == []
    printed = [calibrated["history"], calibrated["missing"]]
    assert all(KEY not in run.output for run in printed)


def _changes(value: Any) -> list[tuple[str, str]]:
    """Every (case id, change) a comparison document holds, wherever it lists them."""
    if isinstance(value, dict):
        found = []
        if isinstance(value.get("case_id"), str) and isinstance(value.get("change"), str):
            found.append((value["case_id"], value["change"]))
        for item in value.values():
            found += _changes(item)
        return found
    if isinstance(value, list):
        return [pair for item in value for pair in _changes(item)]
    return []


def test_a_new_judge_revision_is_a_gold_change_not_a_regression(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    baseline, _ = _evaluate(root, "before.json", "--suite", "replies", "--live", env=ENV)
    _write_settings(root, _settings(server.url, revision="helpful-3"))
    record = root / "evaluation/judges/helpful.json"
    recalibrated = {**json.loads(record.read_text("utf-8")), "revision": "helpful-3"}
    record.write_text(json.dumps(recalibrated), "utf-8")  # as a new calibration would write
    candidate, report = _evaluate(root, "after.json", "--suite", "replies", "--live", env=ENV)
    assert report is not None
    first = report["suites"][0]["cases"][0]["attempts"][0]["checks"][0]
    assert (first["outcome"], first["judge"]["revision"]) == ("failed", "helpful-3")

    compared = _goldgate(
        root, "evaluate", "--compare", "out/after.json", "--baseline", "out/before.json",
        "--fail-on-regression", "--output", "out/cmp.json",
    )  # fmt: skip

    assert (baseline.code, candidate.code) == (1, 1)
    assert compared.code == 0, compared.output
    comparison = json.loads((root / "out/cmp.json").read_text("utf-8"))
    changes = dict(_changes(comparison))
    assert changes["pass"] == "gold changed"
    assert "regressed" not in changes.values()
    judges_cost = comparison["overall"]["judge_cost"]  # apart from the application's cost
    assert judges_cost["candidate"] > 0
    assert judges_cost["baseline"] > 0
    assert comparison["overall"]["cost"] is None  # the application's answers were not priced


def test_calibrate_reads_the_projects_reports_by_default(
    calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    ran = _goldgate(root, "evaluate", "--suite", "history")  # into .goldgate/evaluations/
    assert ran.code == 1, ran.output

    result = _goldgate(root, "judge", "calibrate", "--format", "json", env=ENV)
    unknown = _goldgate(root, "judge", "calibrate", "--judge", "nobody", env=ENV)
    (report,) = (root / ".goldgate" / "evaluations").glob("*.json")
    twice = ("--report", str(report), "--report", str(report), "--format", "json")
    again = _goldgate(root, "judge", "calibrate", *twice, env=ENV)

    assert result.code == 0, result.output
    (record,) = json.loads(result.stdout)
    (before,) = calibrated["printed"]
    assert {k: v for k, v in record.items() if k != "cost"} == {
        k: v for k, v in before.items() if k != "cost"
    }
    assert unknown.code == 2
    assert "nobody" in unknown.output
    assert json.loads(again.stdout)[0]["verdicts"] == record["verdicts"]  # each answer once


def test_an_altered_judged_check_is_refused(calibrated: dict[str, Any], tmp_path: Path) -> None:
    root = _copy(calibrated, tmp_path)
    _, report = _evaluate(root, "judged.json", "--suite", "replies", "--live", env=ENV)
    assert report is not None
    path = root / "out" / "judged.json"
    text = path.read_text("utf-8")
    failed = '"outcome":"failed","reason":"judge helpful@helpful-1 failed this answer"'
    assert failed in text
    path.chmod(0o600)
    path.write_text(text.replace(failed, '"outcome":"passed"'), "utf-8")

    shown = _goldgate(root, "report", "markdown", "out/judged.json")

    assert shown.code == 2
    assert "altered or is corrupt" in shown.output


def _judge_figures(report: dict[str, Any]) -> Any:
    """What a report says of its judges: the standings, each suite's judge counts, the
    judges' cost (per suite and per attempt) and the suggestions in its queue."""
    suites = [
        (
            suite["name"],
            suite.get("judges"),
            suite.get("judge_cost"),
            [a.get("judge_cost") for case in suite["cases"] for a in case["attempts"]],
            suite["adjudication_queue"],
        )
        for suite in report["suites"]
    ]
    return report.get("judges"), suites


def test_merged_shards_carry_the_judges_of_a_single_run(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    _write_settings(root, _settings(server.url, revision="helpful-2"))  # stale: suggests
    live = ("--suite", "replies", "--live")
    _, whole = _evaluate(root, "whole.json", *live, env=ENV)
    shards = []
    for shard in ("1/2", "2/2"):
        _, part = _evaluate(root, f"s{shard[0]}.json", *live, "--shard", shard, env=ENV)
        assert part is not None
        shards.append(part)
    merged = {}
    for accelerators in ("1", "0"):
        path = f"out/merged-{accelerators}.json"
        env = {"GOLDGATE_ACCELERATORS": accelerators}
        done = _goldgate(root, "report", "merge", "out/s1.json", "out/s2.json", "-o", path, env=env)
        assert done.code == 0, done.output  # the checks wait for a person
        merged[accelerators] = read_report_json(root / path)

    assert whole is not None
    expected = _judge_figures(whole)
    assert all(part["suites"][0]["cases"] for part in shards)  # each shard holds a case
    (judged,) = whole["suites"][0]["judges"]
    assert (judged["decided"], judged["suggested"]) == (0, 3)
    assert [entry["judge"]["verdict"] for entry in whole["suites"][0]["adjudication_queue"]] == [
        "pass",
        "fail",
        None,
    ]
    assert whole["suites"][0]["judge_cost"] > 0
    assert _judge_figures(merged["1"]) == expected
    assert _judge_figures(merged["0"]) == expected


def _two_judges(root: Path, url: str) -> None:
    """The project with a second judge (its credential GG_OTHER_KEY never set) that no
    expectation names, the judged suite's cases in a file of their own (the streamed
    path) and a suite with no judged expectation."""
    settings = _settings(url)
    other = {**settings["workflows"]["judge"], "credentials": ["GG_OTHER_KEY"]}
    other["target"] = {"model": {**other["target"]["model"], "api_key": "GG_OTHER_KEY"}}
    settings["workflows"]["other_judge"] = other
    settings["judges"]["strict"] = {**settings["judges"]["helpful"], "workflow": "other_judge"}
    _write_settings(root, settings)
    manifest_path = root / "evaluation" / "dataset.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    replies = manifest["suites"][1]
    (root / "evaluation" / "replies.json").write_text(json.dumps(replies["cases"]), "utf-8")
    replies["cases"] = "replies.json"
    plain = _case("plain", "fresh plain")
    plain["expectations"][0] = {"name": "echo", "path": "/payload/answer", "expected": "x"}
    manifest["suites"].append({"name": "plain", "workflow": "app", "cases": [plain]})
    manifest_path.write_text(json.dumps(manifest), "utf-8")


def test_a_live_run_needs_only_the_credentials_of_judges_it_may_call(
    server: FakeOpenAI, calibrated: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(calibrated, tmp_path)
    _two_judges(root, server.url)
    before = len(server.state.bodies)
    missing, missing_report = _evaluate(root, "missing.json", "--suite", "replies", "--live")
    after_missing = len(server.state.bodies)

    plain, _ = _evaluate(root, "plain.json", "--suite", "plain", "--live")  # no key at all
    judged, report = _evaluate(root, "judged.json", "--suite", "replies", "--live", env=ENV)

    assert missing.code == 2, missing.output  # a judge it will call: stops before anything
    assert "GG_JUDGE_KEY" in missing.output
    assert "GG_OTHER_KEY" not in missing.output
    assert (missing_report, after_missing) == (None, before)
    assert plain.code == 1, plain.output  # its one check fails; no judge credential asked
    assert judged.code == 1, judged.output
    assert "GG_OTHER_KEY" not in plain.output + judged.output
    assert report is not None
    assert [judge["name"] for judge in report["judges"]] == ["helpful"]
    (counted,) = report["suites"][0]["judges"]
    assert (counted["name"], counted["decided"]) == ("helpful", 3)
