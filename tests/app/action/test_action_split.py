"""The action as the composite action runs it: two steps, two privileges.

``goldgate action --run-only`` runs the user code with an environment that holds no token
(as action.yml's run step gives it: INPUT_GITHUB_TOKEN and GITHUB_TOKEN blank) and exits 0
whatever the run found; ``goldgate publish``, given the token, compares, comments,
summarizes, annotates, writes the outputs and exits with what ``fail_on`` decides. The pair
must do what ``goldgate action`` does in one step: the same end-to-end scenario passes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers.fake_github import FakeGitHub
from run.support import CliRun, run_cli

from .conftest import Runner, make_runner, parse_outputs
from .scenarios import gated_commented_once_and_summarized

COMMENT_ID = "goldgate/gate"
HANDOFF = Path(".goldgate/action/run.json")


@dataclass
class SplitRunner(Runner):
    """The job of ``Runner``, in the composite action's two steps, each with its own output
    file as on a runner; ``run`` answers with the publishing step's result."""

    last_run: CliRun | None = None

    def run_env(self, **inputs: str) -> dict[str, str]:
        env = self.env(**inputs)
        env.update(INPUT_GITHUB_TOKEN="", GITHUB_TOKEN="", GITHUB_OUTPUT=str(self.run_output))
        return env

    @property
    def run_output(self) -> Path:
        return self.output.with_name("run-step-output")

    def run(self, **inputs: str) -> CliRun:
        self.output.write_text("", "utf-8")
        self.summary.write_text("", "utf-8")
        self.run_output.write_text("", "utf-8")
        first = run_cli(
            "action", "--run-only", cwd=self.workspace, env=self.run_env(**inputs), timeout=180
        )
        self.last_run = first
        assert first.code == 0, first.stderr
        outputs = parse_outputs(self.run_output.read_text("utf-8"))
        assert set(outputs) == {"handoff", "handoff_digest", "credentials"}
        assert (outputs["handoff"], outputs["handoff_digest"]) == (str(HANDOFF), self.digest())
        env = {**self.env(**inputs), "GOLDGATE_HANDOFF_DIGEST": outputs["handoff_digest"]}
        return run_cli("publish", cwd=self.workspace, env=env, timeout=180)

    def digest(self) -> str:
        return hashlib.sha256((self.workspace / HANDOFF).read_bytes()).hexdigest()


@pytest.fixture
def split(tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes) -> Any:
    return make_runner(tmp_path, fake, payload, baseline_zip, SplitRunner)


@pytest.mark.slow
def test_run_then_publish_does_what_the_action_does(split: SplitRunner) -> None:
    """And publishing consumes the hand-off: a publishing step again, with no run step
    before it, is refused (exit 2). One pair of runs for both claims."""
    gated_commented_once_and_summarized(split, COMMENT_ID)
    assert not (split.workspace / HANDOFF).exists()

    again = run_cli("publish", cwd=split.workspace, env=split.env(comment="off"))

    assert again.code == 2
    assert "goldgate publish never does" in again.stdout
    assert parse_outputs(split.output.read_text("utf-8"))["exit_code"] == "2"


@pytest.mark.slow
def test_the_run_step_talks_to_no_github_and_publishes_nothing(split: SplitRunner) -> None:
    """And a publishing step whose environment lacks the run step's digest of this hand-off
    is refused before any request (one run step for both claims)."""
    split.run_output.write_text("", "utf-8")
    split.summary.write_text("", "utf-8")
    before = len(split.fake.requests)
    result = run_cli("action", "--run-only", cwd=split.workspace, env=split.run_env())

    assert result.code == 0, result.stderr  # a gold disagreement: publish decides
    assert split.fake.requests[before:] == []
    assert split.summary.read_text("utf-8") == ""
    assert "::error " not in result.stdout  # annotations are the publishing step's
    handoff = json.loads((split.workspace / HANDOFF).read_text("utf-8"))
    assert (handoff["mode"], handoff["code"], handoff["ran"]) == ("evaluate", 1, True)
    assert (split.workspace / handoff["report"]).is_file()

    refused = run_cli("publish", cwd=split.workspace, env=split.env())

    assert refused.code == 2
    assert refused.stdout.count("::error title=goldgate::GOLDGATE_HANDOFF_DIGEST is not set") == 1
    assert split.fake.requests[before:] == []
    assert not (split.workspace / HANDOFF).exists()


@pytest.mark.slow
def test_publish_alone_runs_the_modes_without_user_code(split: SplitRunner) -> None:
    result = run_cli("publish", cwd=split.workspace, env=split.env(mode="check", comment="off"))

    assert result.code == 0, result.output
    assert not (split.workspace / HANDOFF).exists()


@pytest.mark.slow
def test_a_bad_input_is_said_once_by_the_publishing_step(split: SplitRunner) -> None:
    split.run_output.write_text("", "utf-8")
    first = run_cli("action", "--run-only", cwd=split.workspace, env=split.run_env(mode="nope"))
    second = run_cli("publish", cwd=split.workspace, env=split.env(mode="nope"))

    assert first.code == 0
    assert "::error" not in first.stdout
    assert second.code == 2
    assert second.stdout.count("::error title=goldgate::input mode") == 1


@pytest.mark.parametrize("name", ["mode", "comment", "comment_mode", "details", "fail_on"])
def test_the_publishing_step_refuses_an_unknown_choice_naming_the_input(
    split: SplitRunner, name: str
) -> None:
    from goldgate.app.action.inputs import INPUTS

    [spec] = [spec for spec in INPUTS if spec.name == name]
    result = split.run(**{name: "Sometimes"})

    assert result.code == 2, result.stderr
    sentence = f"input {name} must be one of {', '.join(spec.choices)}, not 'sometimes'."
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors == [f"::error title=goldgate::{sentence}"]
    assert parse_outputs(split.output.read_text("utf-8")) == {"exit_code": "2"}
