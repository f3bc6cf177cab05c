"""Mode replay without the input report replays the baseline's report, as action.yml's
``mode`` says: the baseline is found as compare finds it (here the merge-base commit's
artifact on the fake GitHub), replayed with the current gold, and the replay compared with
the baseline. In one process (``goldgate action``, the container) and in the composite's
steps (``goldgate publish --fetch-baseline`` with the token, ``goldgate action --run-only``
without it, ``goldgate publish``), where a replay of anything but the baseline is refused."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from run.support import run_cli

from .conftest import Runner


def _report(runner: Runner, name: str) -> dict[str, object]:
    value: dict[str, object] = json.loads((runner.workspace / name).read_text("utf-8"))
    return value


def _digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _replay_of(report: dict[str, object]) -> dict[str, str]:
    replayed = report["replay_of"]
    assert isinstance(replayed, dict)
    return replayed


def test_replay_without_a_report_replays_the_baseline_and_compares_with_it(
    runner: Runner,
) -> None:
    result = runner.run(mode="replay", comment="off")

    assert result.code in (0, 1), result.stderr
    assert "needs the input report" not in result.stdout
    outputs = runner.outputs()
    report = _report(runner, outputs["report"])
    replayed = _replay_of(report)
    kept = sorted((runner.workspace / ".goldgate" / "action").glob("*baseline*.json"))
    assert kept, "the baseline artifact was not kept"
    assert replayed["digest"] in {_digest(path) for path in kept}
    assert outputs["comparison"], result.stdout  # the replay compared with the baseline
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    assert comparison["baseline"]["digest"] == replayed["digest"]
    summary = runner.summary.read_text("utf-8")
    assert "against master@" in summary.splitlines()[0]


def _steps(runner: Runner, *, tamper: bool = False) -> tuple[int, str]:
    """The composite action's steps: fetch (token), run (no token), publish (token)."""
    env = runner.env(mode="replay", comment="off")
    runner.output.write_text("", "utf-8")
    fetched = run_cli("publish", "--fetch-baseline", cwd=runner.workspace, env=env)
    assert fetched.code == 0, fetched.stderr
    kept = runner.workspace / ".goldgate" / "action" / "replay-baseline.json"
    assert kept.is_file()
    if tamper:  # user code (or the pull request) swaps in a report of its own
        other = runner.workspace / "other.json"
        shutil.copyfile(kept, other)
        value = json.loads(other.read_text("utf-8"))
        value["started_at"] = "2020-01-01T00:00:00+00:00"
        kept.write_text(json.dumps(value), "utf-8")
    tokenless = {**env, "GITHUB_TOKEN": "", "INPUT_GITHUB_TOKEN": ""}
    runner.output.write_text("", "utf-8")
    ran = run_cli("action", "--run-only", cwd=runner.workspace, env=tokenless)
    assert ran.code == 0, ran.stderr
    digest = runner.outputs()["handoff_digest"]  # as the composite hands it to publishing
    published = run_cli(
        "publish", cwd=runner.workspace, env={**env, "GOLDGATE_HANDOFF_DIGEST": digest}
    )
    return published.code, published.stdout + published.stderr


def test_the_composite_steps_fetch_the_baseline_before_the_tokenless_run(
    runner: Runner,
) -> None:
    code, text = _steps(runner)

    assert code in (0, 1), text
    outputs = runner.outputs()
    replayed = _replay_of(_report(runner, outputs["report"]))
    assert outputs["comparison"], text
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    assert comparison["baseline"]["digest"] == replayed["digest"]


def test_a_replay_of_another_report_than_the_baseline_is_refused(runner: Runner) -> None:
    code, text = _steps(runner, tamper=True)

    assert code == 2, text
    assert "the replayed report is not a replay of the baseline's report" in text
    assert runner.outputs()["exit_code"] == "2"


def test_replay_without_a_report_or_a_baseline_is_refused_in_one_sentence(
    runner: Runner,
) -> None:
    result = runner.run(mode="replay", baseline="", comment="off")

    assert result.code == 2
    assert "mode replay without the input report replays the baseline's report" in result.stdout
