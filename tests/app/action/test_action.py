"""``goldgate action`` end to end, as the runner starts it: a subprocess in a workspace
holding the example (a candidate with known regressions, see tests/compare/conftest), the
real pull_request payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and a fake GitHub on
loopback serving the merge-base commit's baseline artifact. The claims on what comes after
the run (the comment's modes, a baseline path, GitHub failing) are made in mode report on the
candidate's report made once (``as_report``), in this process (``conftest.run_here``). Plus
the pure middle: inputs, the exit rule per ``fail_on`` and the environment targets see."""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compare.pair import COUNTS_TEXT, EXPECTED_CLASSES, build_pair
from goldgate.app.action.inputs import INPUTS, InputSpec, read_inputs
from goldgate.app.action.isolation import target_environ
from goldgate.app.action.rules import decide_exit
from goldgate.comparison.models import Classes
from goldgate.github.comments import marker
from helpers.fake_github import FakeGitHub

from .conftest import Runner, make_runner, saved_candidate
from .fork_poster import post_rendered, rebuild
from .scenarios import assert_no_secret, gated_commented_once_and_summarized
from .support import why

COMMENT_ID = "goldgate/gate"  # GITHUB_WORKFLOW/GITHUB_JOB: no comment_id input here


def as_report(runner: Runner, candidate: tuple[str, bytes]) -> dict[str, str]:
    """The inputs of mode report on the candidate's report (``conftest.candidate``, made by
    an evaluation like the others here), saved in ``runner``'s workspace: for the claims on
    what comes after the run (the baseline, the comment), the same step in every mode."""
    saved, _ = saved_candidate(runner, candidate)
    return {"mode": "report", "report": saved}


def test_a_pull_request_is_gated_commented_once_and_summarized(runner: Runner) -> None:
    """Started as the runner starts it, the tokens in its environment (the other tests here
    start it as it starts itself again without them: ``conftest.start_action``)."""
    runner.tokens_in_environment = True
    gated_commented_once_and_summarized(runner, COMMENT_ID)


@pytest.mark.parametrize(
    ("fail_on", "code", "rule"),
    [
        # disagreement: test_a_pull_request_is_gated_commented_once_and_summarized's first run
        ("regression", 1, "Failed: 3 regressed or mixed against the baseline"),
        ("never", 0, "Passed whatever the run found, as fail_on is never"),
    ],
)
def test_the_exit_code_follows_fail_on(runner: Runner, fail_on: str, code: int, rule: str) -> None:
    """And the commands page (docs/cli.md) names every output the run wrote (one run for
    both claims). fail_on disagreement (the default) is the first run of
    test_a_pull_request_is_gated_commented_once_and_summarized, which asserts the same exit
    code, exit_code output and rule; that comment off posts nothing, the rows here."""
    result = runner.run(fail_on=fail_on, comment="off")

    assert result.code == code, result.stderr
    assert runner.outputs()["exit_code"] == "1"  # goldgate's own (a disagreement), whatever fail_on
    assert why(runner.summary.read_text("utf-8")).startswith(rule)
    assert runner.fake.comments(runner.pr_number) == []
    row = _commands_page_row()
    assert sorted(name for name in runner.outputs() if f"`{name}`" not in row) == []


def _commands_page_row() -> str:
    """The section of docs/cli.md on ``goldgate action``."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "cli.md").read_text("utf-8")
    return page.split("\n### `goldgate action ", 1)[1].split("\n### ", 1)[0]


def test_fail_on_regression_and_the_outputs_count_the_one_classification(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    """The constructed pair of tests/compare/pair.py (with --repeat 3: one case regressed, one
    mixed, one improved, one flaky, one gold changed by a verdict): mode compare against the
    merge-base artifact gives the counts the CLI gives, in the outputs, the job summary, the
    JUnit and the annotations, and fail_on regression fails on exactly regressed + mixed."""
    pair = build_pair(tmp_path / "pair", "--repeat", "3")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("goldgate-report.json", pair.baseline.read_bytes())
    runner = make_runner(tmp_path / "job", fake, payload, buffer.getvalue())
    shutil.copyfile(pair.candidate, runner.workspace / "candidate.json")

    result = runner.run(
        mode="compare", report="candidate.json", fail_on="regression", comment="off"
    )

    assert result.code == 1, result.stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "1"
    assert (outputs["regressed"], outputs["improved"], outputs["flaky"]) == ("2", "1", "1")
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    assert comparison["classes"] == EXPECTED_CLASSES
    summary = runner.summary.read_text("utf-8")
    assert why(summary).startswith(
        "Failed: 2 regressed or mixed against the baseline, and fail_on is regression."
    )
    escaped = COUNTS_TEXT.replace("_", "\\_")
    assert f"; {escaped} \\(cases over repeats\\)." in summary
    assert "Against the baseline: attempts passed " in summary  # the overall rate first
    junit = (runner.workspace / outputs["junit"]).read_text("utf-8")
    for change in ("regressed", "mixed", "improved", "flaky", "gold changed"):
        assert f'<property name="comparison.{change}" value="1" />' in junit
    assert junit.count('type="regression"') == 6
    assert result.stdout.count("title=goldgate regression") == 6


def test_fail_on_regression_passes_what_is_only_flaky_or_a_gold_change(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any]
) -> None:
    """The pair's candidate compared with itself: its noisy case is flaky (it varies within
    the run) and nothing regressed, so the step passes under fail_on regression although
    the run itself has failing checks."""
    pair = build_pair(tmp_path / "pair", "--repeat", "3")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("goldgate-report.json", pair.candidate.read_bytes())
    runner = make_runner(tmp_path / "job", fake, payload, buffer.getvalue())
    shutil.copyfile(pair.candidate, runner.workspace / "candidate.json")

    result = runner.run(
        mode="compare", report="candidate.json", fail_on="regression", comment="off"
    )

    assert result.code == 0, result.stderr  # fail_on decides the step
    outputs = runner.outputs()
    # exit_code is goldgate's own (the candidate's failing checks), whatever fail_on says.
    assert (outputs["exit_code"], outputs["regressed"], outputs["flaky"]) == ("1", "0", "1")
    assert why(runner.summary.read_text("utf-8")).startswith(
        "Passed: nothing regressed against the baseline, and fail_on is regression"
    )


def test_a_fork_pull_request_falls_back_to_a_comment_file(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    forked = copy.deepcopy(payload)
    head_repo = forked["pull_request"]["head"]["repo"]
    head_repo["full_name"] = "someone/Hello-World"
    head_repo["id"] = fake.fork_repository_id
    head_repo["fork"] = True
    fake.read_only_token()
    runner = make_runner(tmp_path, fake, forked, baseline_zip)

    result = runner.run(live="true")

    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    outputs = runner.outputs()
    name = outputs["comment_file"]
    assert name == "goldgate-comment-goldgate_gate.json"  # the comment id, safe for a file
    handoff = json.loads((runner.workspace / name).read_text("utf-8"))
    assert handoff["pull_request"] == runner.pr_number
    assert handoff["head_sha"] == forked["pull_request"]["head"]["sha"]
    assert handoff["comment_id"] == COMMENT_ID
    assert "body" not in handoff  # the trusted job renders it again, from the report
    assert handoff["report"] == "goldgate-comment-goldgate_gate.report.json"
    assert handoff["comparison"] == "goldgate-comment-goldgate_gate.comparison.json"
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("fork has no secrets" in line for line in warnings)
    assert any(name in line for line in warnings)
    # fork-comment.yml rebuilds the comment from what the artifact holds, and posts that.
    head = forked["pull_request"]["head"]
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    for file in runner.workspace.glob("goldgate-comment-*.json"):  # the upload's glob
        shutil.copyfile(file, artifact / file.name)
    rendered = tmp_path / "rendered.json"
    done = rebuild(artifact, rendered, head_sha=head["sha"])
    assert done.returncode == 0, done.stderr
    comment = json.loads(rendered.read_text("utf-8"))
    tag, body = comment["body"].split("\n", 1)
    assert tag == marker(COMMENT_ID)
    assert re.fullmatch(r'<!-- goldgate:comment id="[A-Za-z0-9_.:/@+~%-]+" -->', tag)
    assert "### Regressions" in body
    posted = post_rendered(
        tmp_path / "poster",
        rendered.read_text("utf-8"),
        pull={"head": {"sha": head["sha"], "repo": {"full_name": head_repo["full_name"]}}},
        head_sha=head["sha"],
        head_repository=head_repo["full_name"],
    )
    assert posted["failed"] is None
    assert posted["calls"][-1] == ["create", runner.pr_number, comment["body"]]
    assert runner.fake.comments(runner.pr_number) == []
    assert "live\\_answer: live workflow" in runner.summary.read_text("utf-8")
    assert_no_secret(runner, result)


def test_github_failing_is_a_warning_not_a_crash(
    runner: Runner, candidate: tuple[str, bytes], run_here: Any
) -> None:
    runner.fake.fail("GET", r"/compare/", 404, message="Not Found", times=None)
    runner.fake.fail("POST", r"/issues/.*comments", 500, message="boom", times=None)

    result = run_here(runner, **as_report(runner, candidate))

    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 2, warnings
    assert runner.outputs()["comment_file"] == "goldgate-comment-goldgate_gate.json"


CHOICE_INPUTS = [spec for spec in INPUTS if spec.choices]


def test_the_choice_inputs_are_the_typed_ones() -> None:
    assert [spec.name for spec in CHOICE_INPUTS] == [
        "mode", "comment", "comment_mode", "details", "fail_on",
    ]  # fmt: skip


@pytest.mark.parametrize("spec", CHOICE_INPUTS, ids=lambda spec: spec.name)
def test_an_unknown_choice_is_exit_2_naming_the_input_and_its_words(
    runner: Runner, spec: InputSpec[str]
) -> None:
    result = runner.run(**{spec.name: "sometimes"})

    assert result.code == 2
    sentence = f"input {spec.name} must be one of {', '.join(spec.choices)}, not 'sometimes'."
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors == [f"::error title=goldgate::{sentence}"]
    assert runner.outputs() == {"exit_code": "2"}
    assert "Traceback" not in result.stderr


# --- the pure middle ----------------------------------------------------------------------------


def test_inputs_and_their_defaults() -> None:
    inputs = read_inputs({"GITHUB_WORKFLOW": "ci", "GITHUB_JOB": "gate", "GITHUB_TOKEN": "t"})
    assert (inputs.mode, inputs.fail_on, inputs.comment, inputs.details) == (
        "evaluate",
        "disagreement",
        "update",
        "safe",
    )
    assert inputs.comment_id == "ci/gate"
    assert inputs.junit is None  # action.yml's default: no JUnit unless a path is given
    assert inputs.partial is True
    assert inputs.report is None
    assert inputs.github_token == "t"
    assert "github_token" not in repr(inputs)  # never printed by accident

    given = read_inputs(
        {
            "INPUT_SUITES": "a, b\nc,,",
            "INPUT_LIVE": "true",
            "INPUT_REPEAT": "3",
            "INPUT_TIMEOUT": "2.5",
            "INPUT_BASELINE": "artifact:base",
            "INPUT_COMMENT_ID": "mine",
            "INPUT_LINK_GOLD": "false",
        }
    )
    assert given.suites == ("a", "b", "c")
    assert given.evals == ()
    assert read_inputs({"INPUT_EVALS": " evals/eval_a.py\n  evals/more  b_eval.py \n"}).evals == (
        Path("evals/eval_a.py"),
        Path("evals/more"),
        Path("b_eval.py"),
    )
    assert (given.live, given.options.repeat, given.options.timeout, given.link_gold) == (
        True,
        3,
        2.5,
        False,
    )
    assert (given.baseline, given.comment_id) == ("artifact:base", "mine")


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("mode", "deploy", "be one of check, evaluate, evals,"),
        ("live", "maybe", "be true or false"),
        ("repeat", "0", "be more than 0"),
        ("timeout", "soon", "be a number"),
        ("timeout", "nan", "be more than 0"),
        # beyond what a run accepts: refused here, by name, rather than by the run
        ("max_concurrency", "65", "be at most 64"),
        ("repeat", "10001", "be at most 10000"),
        ("timeout", "86401", "be at most 86400"),
    ],
)
def test_bad_inputs_are_refused_by_name(name: str, value: str, why: str) -> None:
    from goldgate.base.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=f"input {name} must {why}"):
        read_inputs({f"INPUT_{name.upper()}": value})


def test_targets_never_see_a_token() -> None:
    env = {
        "GITHUB_TOKEN": "a",
        "INPUT_GITHUB_TOKEN": "b",
        "ACTIONS_RUNTIME_TOKEN": "c",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "d",
        "OPENAI_API_KEY": "kept",
    }
    assert target_environ(env) == {"OPENAI_API_KEY": "kept"}


class _Shown:
    """What decide_exit reads of a comparison: its one classification's counts."""

    def __init__(self, regressions: bool) -> None:
        self.classes = Classes(mixed=1 if regressions else 0, flaky=1, gold_changed=1)


@pytest.mark.parametrize(
    ("fail_on", "run_code", "regressions", "expected"),
    [
        ("disagreement", 1, False, 1),
        ("disagreement", 0, True, 0),
        ("regression", 1, False, 0),
        ("regression", 0, True, 1),
        ("regression", 4, False, 4),
        ("regression", 130, True, 130),
        ("regression", 1, None, 0),
        ("never", 1, True, 0),
        ("never", 4, True, 0),
        ("never", 2, None, 2),
        ("never", 130, None, 130),
    ],
)
def test_the_exit_rule(
    fail_on: str, run_code: int, regressions: bool | None, expected: int
) -> None:
    comparison: Any = None if regressions is None else _Shown(regressions)
    code, rule = decide_exit(fail_on, run_code, comparison)

    assert code == expected
    assert rule.startswith("Passed" if expected == 0 else "Failed")
    assert f"fail_on is {fail_on}" in rule or f"fail_on {fail_on}" in rule


ONE_COMMENT = r"/issues/comments/\d+$"


def test_comment_mode_changes_posts_only_when_the_verdict_or_the_counts_changed(
    runner: Runner, candidate: tuple[str, bytes], run_here: Any
) -> None:
    report = as_report(runner, candidate)
    first = run_here(runner, **report, comment_mode="changes")
    again = run_here(runner, **report, comment_mode="changes")

    assert (first.code, again.code) == (1, 1)
    [(ident, _, body)] = runner.fake.comments(runner.pr_number)
    assert runner.fake.requests_to("PATCH", ONE_COMMENT) == []  # nothing changed: left alone
    assert body.split("\n")[1].startswith("<!-- goldgate:state exit=1;regressed=2,mixed=1,")

    passed = run_here(runner, "--comment-mode", "changes", **report, fail_on="never")  # option

    assert passed.code == 0
    assert len(runner.fake.requests_to("PATCH", ONE_COMMENT)) == 1
    [(same, _, body)] = runner.fake.comments(runner.pr_number)
    assert same == ident
    assert body.split("\n")[2].startswith("## ✅ goldgate: passed — 2 regressed")


def test_comment_mode_failures_comments_a_failure_and_then_that_it_passes(
    runner: Runner, candidate: tuple[str, bytes], run_here: Any
) -> None:
    report = as_report(runner, candidate)
    quiet = run_here(runner, **report, comment_mode="failures", fail_on="never")
    assert quiet.code == 0
    assert runner.fake.comments(runner.pr_number) == []  # passed, and nothing to update

    failed = run_here(runner, **report, comment_mode="failures")
    passed = run_here(runner, **report, comment_mode="failures", fail_on="never")

    assert (failed.code, passed.code) == (1, 0)
    [(_, _, body)] = runner.fake.comments(runner.pr_number)
    assert "## ✅ goldgate: passed" in body  # the comment there says it passes now
    off = run_here(runner, **report, comment_mode="off")
    assert off.code == 1
    assert len(runner.fake.requests_to("PATCH", ONE_COMMENT)) == 1


def test_the_commands_page_names_every_input() -> None:
    """Every output the action writes: test_the_exit_code_follows_fail_on, on its runs."""
    row = _commands_page_row()
    names = {spec.name for spec in INPUTS}
    assert len(names) >= 16
    assert sorted(name for name in names if f"`{name}`" not in row) == []


def test_a_baseline_path_is_compared_partially(
    runner: Runner, baseline_zip: bytes, candidate: tuple[str, bytes], run_here: Any
) -> None:
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        (runner.workspace / "baseline.json").write_bytes(archive.read("goldgate-report.json"))

    result = run_here(
        runner, **as_report(runner, candidate), baseline="baseline.json", partial="true",
        fail_on="regression",
    )  # fmt: skip

    assert result.code == 1, result.stderr
    outputs = runner.outputs()
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    assert comparison["mode"] == "partial"
    assert outputs["regressed"] == "3"
    assert not runner.fake.requests_to("GET", r"/artifacts")


def test_a_missing_baseline_path_is_said_plainly(
    runner: Runner, candidate: tuple[str, bytes], run_here: Any
) -> None:
    result = run_here(runner, **as_report(runner, candidate), baseline="nowhere.json")

    assert result.code == 1, result.stderr
    assert runner.outputs()["comparison"] == ""
    assert "> No baseline: nowhere.json is not a file" in runner.summary.read_text("utf-8")


def test_mode_check_checks_the_gold_offline(runner: Runner) -> None:
    result = runner.run(mode="check")

    assert result.code == 0, result.stderr
    assert runner.outputs() == {"exit_code": "0"}
    assert "gold OK" in result.stdout


@pytest.mark.parametrize("mode", ["compare", "report"])  # replay: the baseline's report
def test_a_mode_without_its_report_is_refused(runner: Runner, mode: str) -> None:
    result = runner.run(mode=mode)

    assert result.code == 2
    assert f"mode {mode} needs the input report" in result.stdout


def test_modes_report_compare_and_replay_work_from_an_existing_report(
    runner: Runner, baseline_zip: bytes, candidate: tuple[str, bytes]
) -> None:
    """The existing report: the action's of the candidate (``conftest.candidate``: exit 1,
    made by a run as ``runner.run(baseline="", comment="off")``), where it saved it."""
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        (runner.workspace / "baseline.json").write_bytes(archive.read("goldgate-report.json"))
    saved, _ = saved_candidate(runner, candidate)
    first_code = 1  # the candidate's run (the fixture asserts it)

    # report: render the given report; no comparison without a baseline
    result = runner.run(mode="report", report=saved, baseline="", comment="off")
    assert result.code == first_code, result.stderr
    outputs = runner.outputs()
    assert outputs["report"] == saved
    assert outputs["comparison"] == ""
    assert (runner.workspace / "goldgate-junit.xml").is_file()

    # compare: the given report is the candidate; the rule that decided is said first
    result = runner.run(
        mode="compare", report=saved, baseline="baseline.json", comment="off",
        fail_on="regression",
    )  # fmt: skip
    assert result.code == 1, result.stderr
    outputs = runner.outputs()
    assert outputs["regressed"] == "3"
    assert why(runner.summary.read_text("utf-8")).startswith("Failed: 3 regressed or mixed")

    # replay: the current gold over the saved results, into a new report
    result = runner.run(mode="replay", report=saved, baseline="", comment="off")
    assert result.code == first_code, result.stderr
    replayed = runner.outputs()["report"]
    assert replayed != saved
    report = json.loads((runner.workspace / replayed).read_text("utf-8"))
    assert report["replay_of"]["path"].endswith(Path(saved).name)


def test_a_replay_whose_scorer_changes_the_working_folder_moves_no_action_file(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    from compare.conftest import CANDIDATE_EDITS

    moving = {
        **CANDIDATE_EDITS,
        "support_triage_app/scorers.py": [(
            '    """The category matches ignoring case (revision 1)."""\n',
            '    """The category matches ignoring case (revision 1)."""\n'
            '    import os, pathlib\n'
            '    os.chdir(pathlib.Path(__file__).resolve().parents[2])  # out of the workspace\n',
        )],
    }  # fmt: skip
    runner = make_runner(tmp_path / "job", fake, payload, baseline_zip, edits=moving)
    first = runner.run(baseline="", comment="off")
    saved = runner.outputs()["report"]
    assert (runner.workspace / saved).is_file(), first.stderr

    result = runner.run(mode="replay", report=saved, baseline="", comment="off")

    assert result.code == first.code, result.stderr
    replayed = runner.outputs()["report"]
    assert replayed != saved
    assert (runner.workspace / replayed).is_file()  # where the action's files are
    assert (runner.workspace / "goldgate-junit.xml").is_file()
    assert not (tmp_path / "job" / ".goldgate").exists()


def test_user_code_output_can_neither_forge_nor_stop_goldgate_s_commands(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    from compare.conftest import CANDIDATE_EDITS

    hostile = {
        **CANDIDATE_EDITS,
        "support_triage_app/app.py": [(
            '    envelope = request["envelope"]\n',
            '    envelope = request["envelope"]\n'
            '    import sys\n'
            '    print("::stop-commands::guessed", file=sys.stderr)\n'
            '    print("::error title=goldgate::forged verdict: passed", file=sys.stderr)\n',
        )],
    }  # fmt: skip
    runner = make_runner(tmp_path, fake, payload, baseline_zip, edits=hostile)

    result = runner.run()

    assert result.code == 1, result.stderr
    stdout, stderr = result.stdout.splitlines(), result.stderr.splitlines()
    pause = stderr[0]  # before anything user code writes to stderr (fd 1 goes there too)
    token = pause.removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token), pause
    assert stderr.index("::stop-commands::guessed") > 0
    resume = stdout.index(f"::{token}::")
    inside = [line for line in stdout[:resume] if line.startswith("::")]
    assert all(line.startswith("::add-mask::") for line in inside)  # masks come first
    assert any(line.startswith("::error ") for line in stdout[resume:])  # goldgate's own
