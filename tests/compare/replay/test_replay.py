"""``goldgate evaluate --replay``: the current gold over a saved report's results, with no
target built or imported; what must match, refused one mismatch at a time (exit 2) with a
message naming suite, case and field and only digests of private values."""

from __future__ import annotations

import copy
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from goldgate.report.io import read_report
from helpers.reports import coherent
from run.support import (
    EXAMPLE,
    STATUS_OK,
    Project,
    case,
    expect,
    new_project,
    read_report_json,
    run_cli,
    suite_of,
)

# Every test here starts processes (tests/helpers/slow.py); one worker evaluates the module's
# baseline once (``evaluated``), not each worker that draws one of its tests.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("replay")]

SECRET = "s3cr3t-value-that-must-not-leak"


def _outcomes(report: dict[str, Any]) -> list[tuple[str, str, int, str, list[str]]]:
    return [
        (
            suite["name"],
            a["case_id"],
            a["attempt"],
            a["status"],
            [c["outcome"] for c in a["checks"]],
        )
        for suite in report["suites"]
        for a in suite["attempts"]
    ]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path / "project")


Baseline = tuple[Path, dict[str, Any]]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, dict[str, Any]]:
    """The baseline's project, evaluated once for the module (``baseline`` copies it): two
    suites, a python and a command target, runtime failures among them."""
    project = new_project(tmp_path_factory.mktemp("replay-baseline") / "project")
    project.suite(
        "main",
        "py",
        [
            case("a", "ok", STATUS_OK, expect("category", "/payload/category", "billing")),
            case("b", "ok", expect("echo", "/payload/echo", SECRET), echo=SECRET),
            case("c", "raise", STATUS_OK),
        ],
    ).suite("cmd", "cmd", [case("d", "ok"), case("e", "exit")]).write()
    result, report = project.evaluate(name="baseline.json")
    assert result.code == 4, result.output  # "raise" and "exit" are runtime failures
    assert report is not None
    return project, report


@pytest.fixture
def baseline(project: Project, evaluated: tuple[Project, dict[str, Any]]) -> Baseline:
    """``project`` as the evaluated one (its files, its report and its calls copied; its
    settings name the same command target, so that they are the settings the report was
    made with), and that report: the saved path and its JSON."""
    template, report = evaluated
    shutil.rmtree(project.root)
    shutil.copytree(template.root, project.root)
    project.workflows = copy.deepcopy(template.workflows)
    project.suites = copy.deepcopy(template.suites)
    return project.output("baseline.json"), copy.deepcopy(report)


def test_replay_with_unchanged_gold_reproduces_the_run(
    project: Project, baseline: Baseline
) -> None:
    saved, original = baseline
    calls = project.calls()
    output = project.output("replay.json")

    result = project.run("--replay", str(saved), "--output", str(output))

    assert result.code == 4, result.output  # recorded runtime failures stay failures
    assert project.calls() == calls  # nothing ran, nothing was retried
    replayed = read_report_json(output)
    assert _outcomes(replayed) == _outcomes(original)
    for before, after in zip(original["suites"], replayed["suites"], strict=True):
        for key in ("counts", "summary", "metrics", "thresholds", "verdict", "target"):
            assert after[key] == before[key], key
        for a, b in zip(before["attempts"], after["attempts"], strict=True):
            assert (a["latency_ms"], a["usage"], a["reason"], a["stderr"]) == (
                b["latency_ms"],
                b["usage"],
                b["reason"],
                b["stderr"],
            )
    assert replayed["variant"] == original["variant"]
    assert replayed["options"] == original["options"]
    digest = result.stdout.split("replay of: ")[1].split("(")[1].split(")")[0]
    assert replayed["replay_of"] == {
        "path": str(saved),
        "digest": digest,
        "started_at": original["started_at"],
        "measured_by_original_run": True,
    }
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    printed = result.report_path()
    assert printed is not None
    assert project.root / printed == output
    assert SECRET not in result.output


def test_replay_applies_revised_gold_and_records_the_new_revision(
    project: Project, baseline: Baseline
) -> None:
    saved, _ = baseline
    project.revision = "gold-r2"
    project.suites[0]["cases"][0]["expectations"][1]["expected"] = "shipping"
    project.write()

    result = project.run("--replay", str(saved), "--output", str(project.output("r.json")))

    assert result.code == 4
    replayed = read_report_json(project.output("r.json"))
    assert replayed["dataset"]["revision"] == "gold-r2"
    first = suite_of(replayed, "main")["attempts"][0]
    assert [c["outcome"] for c in first["checks"]] == ["passed", "failed"]


def test_replay_needs_no_importable_target(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    result, _ = project.evaluate(name="baseline.json")
    assert result.code == 0
    (project.root / "fixture_app.py").unlink()

    replayed = project.run(
        "--replay", str(project.output("baseline.json")), "--output", str(project.output("r.json"))
    )

    assert replayed.code == 0, replayed.output
    assert project.run().code == 2  # a run cannot even import its target now


def test_default_output_is_under_the_project_folder(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    project.evaluate(name="baseline.json")

    result = project.run("--replay", str(project.output("baseline.json")))

    assert result.code == 0, result.output
    path = result.report_path()
    assert path is not None
    assert (project.root / path).parent == project.root / ".goldgate" / "evaluations"


def test_the_example_replays_to_the_same_outcomes_and_metrics(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".goldgate", "__pycache__"))
    base, again = tmp_path / "base.json", tmp_path / "replay.json"
    assert run_cli("evaluate", "--output", str(base), cwd=root).code == 0

    result = run_cli("evaluate", "--replay", str(base), "--output", str(again), cwd=root)

    assert result.code == 0, result.output
    original, replayed = read_report_json(base), read_report_json(again)
    assert _outcomes(replayed) == _outcomes(original)
    assert [s["metrics"] for s in replayed["suites"]] == [s["metrics"] for s in original["suites"]]


# --- refusals -----------------------------------------------------------------------------------


def _refused(project: Project, saved: Path) -> str:
    result = project.run("--replay", str(saved), "--output", str(project.output("r.json")))
    assert result.code == 2, result.output
    assert not project.output("r.json").exists()
    assert SECRET not in result.output
    message: str = result.stderr.strip()
    assert message.startswith("goldgate: cannot replay: "), message
    return message.removeprefix("goldgate: cannot replay: ")


def test_a_different_dataset_name_is_refused(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.name = "other_gold"
    project.write()
    assert _refused(project, saved) == (
        "the dataset name is 'fixture_gold' in the report but 'other_gold' in the gold."
    )


def test_suite_order_is_checked(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.suites.reverse()
    project.write()
    assert _refused(project, saved) == "suite 1 is 'main' in the report but 'cmd' in the gold."


def test_a_case_renamed_is_refused(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.suites[0]["cases"][1]["id"] = "b2"
    project.write()
    assert (
        _refused(project, saved)
        == "suite 'main': case 2 is 'b' in the report but 'b2' in the gold."
    )


def test_a_changed_input_is_refused_by_digest(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.suites[0]["cases"][1]["input"]["payload"]["echo"] = SECRET + "!"
    project.write()
    message = _refused(project, saved)
    assert message.startswith("suite 'main': case 'b': the input differs (report sha256:")
    assert ", the gold sha256:" in message


def test_a_changed_configuration_is_refused(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.workflows["py_sync"]["revision"] = "sync-2"  # not a replayed suite's workflow
    project.write()
    assert _refused(project, saved).startswith("the configuration revision is 'sha256:")


def test_a_changed_workflow_revision_is_refused(project: Project, baseline: Baseline) -> None:
    saved, report = baseline
    settings_path = project.settings_path
    project.workflows["py"]["revision"] = "py-2"
    project.write()
    # The same configuration digest cannot have another workflow revision, so the report is
    # edited to hold the new digest: what is left to refuse is the workflow revision.
    raw = json.loads(saved.read_text("utf-8"))
    digest = json.loads(
        run_cli(
            "validate", "--format", "json", "--config", str(settings_path), cwd=project.root
        ).stdout
    )["configuration_digest"]
    raw["variant"]["configuration_revision"] = digest
    edited = project.output("edited.json")
    edited.write_text(json.dumps(raw), "utf-8")
    assert _refused(project, edited) == (
        "suite 'main': the workflow revision is 'py-1' in the report but 'py-2' in the settings."
    )
    assert report["variant"]["configuration_revision"] != digest


def test_a_changed_target_is_refused_by_digest(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    raw = json.loads(saved.read_text("utf-8"))
    raw["suites"][0]["target"]["identity"]["python"] = "other_app:handle"
    edited = project.output("edited.json")
    edited.write_text(json.dumps(raw), "utf-8")
    message = _refused(project, edited)
    assert message.startswith("suite 'main': the target identity differs (report sha256:")


def test_an_incomplete_report_is_refused(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    raw = json.loads(saved.read_text("utf-8"))
    raw["complete"], raw["interruption"] = False, "SIGINT"
    edited = project.output("edited.json")
    edited.write_text(json.dumps(coherent(raw)), "utf-8")
    assert _refused(project, edited) == (
        f"{edited} is incomplete (interrupted by SIGINT); only a complete report can be replayed."
    )


def test_a_report_without_results_is_refused(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    raw = json.loads(saved.read_text("utf-8"))
    del raw["suites"][0]["cases"][0]["attempts"][0]["result"]
    raw["options"]["include_details"] = False  # as a report written without them says
    edited = project.output("edited.json")
    edited.write_text(json.dumps(raw), "utf-8")
    assert _refused(project, edited) == (
        "suite 'main': case 'a': attempt 1 has no saved result (the report was written "
        "without details)."
    )


def test_options_of_a_run_are_refused_with_replay(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    result = project.run("--replay", str(saved), "--suite", "main")
    assert result.code == 2
    assert "--suite" in result.stderr


def test_json_output_of_a_refusal(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.name = "other_gold"
    project.write()
    result = project.run("--replay", str(saved), "--format", "json")
    assert result.code == 2
    assert json.loads(result.stdout)["error"].startswith("cannot replay: the dataset name")


def test_read_report_reads_a_replay(project: Project, baseline: Baseline) -> None:
    saved, _ = baseline
    project.run("--replay", str(saved), "--output", str(project.output("r.json")))
    report = read_report(project.output("r.json"))
    assert report.replay_of is not None
    assert report.replay_of.measured_by_original_run is True


def test_a_replay_of_a_replay_names_the_run_that_measured(
    project: Project, baseline: Baseline
) -> None:
    saved, original = baseline
    first, second = project.output("r1.json"), project.output("r2.json")
    project.run("--replay", str(saved), "--output", str(first))

    result = project.run("--replay", str(first), "--output", str(second))

    assert result.code == 4, result.output
    once, twice = read_report_json(first), read_report_json(second)
    assert twice["replay_of"] == once["replay_of"]
    assert twice["replay_of"]["started_at"] == original["started_at"]


def test_the_python_api_replays_like_the_cli(project: Project, baseline: Baseline) -> None:
    import anyio

    from goldgate import replay

    saved, original = baseline
    cli = project.output("cli.json")
    project.run("--replay", str(saved), "--output", str(cli))

    report = anyio.run(lambda: replay(saved, project.settings_path))

    assert report.replay_of is not None
    assert report.replay_of.path == str(saved)
    flat = [
        (s.name, a.case_id, a.attempt, a.status, [c.outcome for c in a.checks])
        for s in report.suites
        for a in s.iter_attempts()
    ]
    assert flat == [tuple(row) for row in _outcomes(read_report_json(cli))]
    assert report.verdict.exit_code == original["verdict"]["exit_code"]
