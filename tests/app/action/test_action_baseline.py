"""``goldgate action`` and its baseline, end to end: the fake GitHub holds what
examples/workflows/baseline.yml uploads, the baseline is refused with a note when it cannot
be compared, every download is bounded by a deadline and leaves no temporary file, and a
signal during the download or the comment post still leaves the outputs and the summary.

The action evaluates the candidate where the run is the claim (the first test, and a
candidate that chose its suites); elsewhere it reports the candidate's report the action
made once for the module (mode report, ``as_report``): what comes after the run (finding,
fetching, comparing and publishing the baseline) is the same step in every mode."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import time
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from goldgate.github.comments import COMMENT_LIMIT
from helpers.fake_github import FakeGitHub
from helpers.reports import coherent
from run.support import CliRun

from .conftest import MERGE_BASE, Runner, finished, make_runner, saved_candidate, start_action
from .support import REPO_ROOT
from .support import why as rule_of

BASELINE_YML = REPO_ROOT / "examples" / "workflows" / "baseline.yml"
OTHER_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _plain(markdown: str) -> str:
    """Markdown as read: without the escapes and the joiners that break autolinks (commit
    ids, references) in data."""
    return markdown.replace("\\", "").replace("\u200d", "")


def uploaded_name(sha: str) -> str:
    """The name baseline.yml gives the report's artifact on a push of ``sha``."""
    workflow = yaml.safe_load(BASELINE_YML.read_text("utf-8"))
    [step] = [
        step
        for step in workflow["jobs"]["baseline"]["steps"]
        if step.get("name") == "Upload the baseline report"
    ]
    template: str = step["with"]["name"]
    assert template.endswith("-${{ github.sha }}"), template
    return template.replace("${{ github.sha }}", sha)


def artifact_input() -> str:
    """What pull-request.yml's baseline input names: the artifact's name without the sha."""
    return "artifact:" + uploaded_name("").removesuffix("-")


def baseline_runner(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    *,
    commit: str | None = MERGE_BASE,
) -> Runner:
    """A job whose fake GitHub holds exactly what baseline.yml uploaded for ``commit`` on
    the base branch (None: nothing at all)."""
    runner = make_runner(tmp_path, fake, payload, baseline_zip)
    with fake._lock:
        fake._artifacts.clear()
    if commit is not None:
        fake.add_artifact(
            uploaded_name(commit), head_sha=commit, head_branch="master", zip_bytes=baseline_zip
        )
    return runner


def as_report(runner: Runner, candidate: tuple[str, bytes]) -> dict[str, str]:
    """The inputs of mode report on the candidate's report (``conftest.candidate``), saved in
    ``runner``'s workspace where the action saved it."""
    saved, _ = saved_candidate(runner, candidate)
    return {"mode": "report", "report": saved}


def in_tmp(
    runner: Runner, tmp_path: Path, extra: dict[str, str] | None = None, **inputs: str
) -> tuple[CliRun, Path]:
    """Run the action with its own TMPDIR (and the variables ``extra``); the result and
    that folder."""
    temporary = tmp_path / "tmpdir"
    temporary.mkdir(exist_ok=True)
    runner.output.write_text("", "utf-8")
    runner.summary.write_text("", "utf-8")
    env = runner.env(**inputs) | {"TMPDIR": str(temporary), **(extra or {})}
    return finished(start_action(runner.workspace, env), 180), temporary


def leftovers(runner: Runner, temporary: Path) -> list[str]:
    """Temporary files and folders the action left: in TMPDIR and in the workspace."""
    found = [str(path) for path in temporary.rglob("*")]
    found += [
        str(path)
        for path in (runner.workspace / ".goldgate").rglob("*")
        if path.name.startswith(".") or path.suffix in (".tmp", ".part")
    ]
    return found


# --- which baseline ------------------------------------------------------------------------------


def test_the_artifact_baseline_yml_uploads_for_the_merge_base_is_compared(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> None:
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip)

    result, temporary = in_tmp(runner, tmp_path, baseline=artifact_input(), fail_on="regression")

    assert result.code == 1, result.stdout + result.stderr
    outputs = runner.outputs()
    assert outputs["regressed"] == "3"
    comparison = json.loads((runner.workspace / outputs["comparison"]).read_text("utf-8"))
    kept = runner.workspace / comparison["baseline"]["path"]
    assert kept.is_file()  # the baseline compared with stays in the workspace
    assert kept.parent == runner.workspace / ".goldgate" / "action"
    assert "newest from" not in runner.summary.read_text("utf-8")
    assert leftovers(runner, temporary) == []


def test_without_one_for_the_merge_base_the_branch_s_newest_is_used_and_named(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
) -> None:
    """The regression that passed before: the merge base has no artifact, the base branch
    has baseline.yml's NAME-<sha> ones, and fail_on regression must still see the drop."""
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip, commit=OTHER_COMMIT)
    fake.add_artifact(
        uploaded_name("f" * 40),
        head_sha="f" * 40,
        head_branch="master",
        zip_bytes=b"an older one",
        age=timedelta(days=3),
    )

    result, temporary = in_tmp(
        runner,
        tmp_path,
        **as_report(runner, candidate),
        baseline=artifact_input(),
        fail_on="regression",
    )

    assert result.code == 1, result.stdout + result.stderr
    assert runner.outputs()["regressed"] == "3"
    summary = runner.summary.read_text("utf-8")
    assert (
        f"> No baseline artifact for the merge-base commit {MERGE_BASE[:7]}; compared with "
        f"the newest from master instead: '{uploaded_name(OTHER_COMMIT)}', of commit "
        f"{OTHER_COMMIT[:7]}." in _plain(summary)
    )
    assert leftovers(runner, temporary) == []


def test_no_artifact_at_all_says_so_and_reports_the_candidate(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
) -> None:
    """No baseline is said plainly (the summary, the rule, the comment), no comparison count
    is given, and the candidate is still reported."""
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip, commit=None)

    result, _ = in_tmp(
        runner,
        tmp_path,
        **as_report(runner, candidate),
        baseline=artifact_input(),
        fail_on="regression",
    )

    assert result.code == 0, result.stderr
    outputs = runner.outputs()
    assert outputs["comparison"] == ""
    assert (outputs["regressed"], outputs["improved"], outputs["flaky"]) == ("", "", "")
    summary = runner.summary.read_text("utf-8")
    assert rule_of(summary).startswith("Passed: fail_on is regression and there is no baseline")
    assert (
        "> No baseline: no artifact 'goldgate-report' was found for the merge-base commit "
        f"{MERGE_BASE[:7]} or on master" in _plain(summary)
    )
    assert "### Failing cases" in summary
    (comment,) = fake.comments(runner.pr_number)
    assert "No baseline: no artifact" in comment[2]


# --- a baseline that must not be compared ----------------------------------------------------


def _baseline_file(runner: Runner, baseline_zip: bytes, **changes: Any) -> str:
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        report = json.loads(archive.read("goldgate-report.json"))
    for pointer, value in changes.items():
        *parents, last = pointer.split("__")
        target = report
        for key in parents:
            target = target[key]
        target[last] = value
    (runner.workspace / "baseline.json").write_text(json.dumps(report), "utf-8")
    return "baseline.json"


@pytest.mark.parametrize(
    ("changes", "inputs", "why"),
    [
        (
            {"dataset__name": "another_dataset"},
            {},
            "it is a report of the dataset 'another\\_dataset', the candidate of",
        ),
        ({"options__suites": ["pipeline"]}, {}, "it ran 'pipeline', the candidate all suites"),
        ({}, {"suites": "pipeline"}, "it ran all suites, the candidate 'pipeline'"),
    ],
    ids=["another-dataset", "fewer-suites", "the-candidate-chose-suites"],
)
def test_a_baseline_that_cannot_be_compared_is_refused_with_a_note(
    runner: Runner,
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
    changes: dict[str, Any],
    inputs: dict[str, str],
    why: str,
) -> None:
    """A candidate that chose its suites is evaluated so (its report names them)."""
    path = _baseline_file(runner, baseline_zip, **changes)
    mode = {} if "suites" in inputs else as_report(runner, candidate)

    result = runner.run(baseline=path, fail_on="regression", comment="off", **mode, **inputs)

    assert result.code == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    outputs = runner.outputs()
    assert outputs["comparison"] == ""
    assert outputs["regressed"] == ""  # nothing was compared: no count at all
    summary = runner.summary.read_text("utf-8")
    assert rule_of(summary).startswith("Passed: fail_on is regression and there is no baseline")
    assert f"> Baseline not compared: {why}" in summary
    assert "### Failing cases" in summary or "### Suites" in summary  # still reported
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("baseline not compared" in line for line in warnings), warnings


def test_a_baseline_that_matches_no_attempt_is_refused_with_a_note(
    runner: Runner, baseline_zip: bytes, candidate: tuple[str, bytes]
) -> None:
    """Same dataset and suites, but every case's input differs: a partial comparison would
    compare nothing and then say nothing regressed."""
    with zipfile.ZipFile(io.BytesIO(baseline_zip)) as archive:
        report = json.loads(archive.read("goldgate-report.json"))
    for suite in report["suites"]:
        for case in suite["cases"]:
            case["input"] = {"payload": {"another": case["id"]}, "metadata": {}}
    (runner.workspace / "baseline.json").write_text(json.dumps(coherent(report)), "utf-8")

    result = runner.run(
        **as_report(runner, candidate),
        baseline="baseline.json",
        fail_on="regression",
        comment="off",
    )

    assert result.code == 0, result.stdout + result.stderr
    assert runner.outputs()["comparison"] == ""
    summary = runner.summary.read_text("utf-8")
    assert "> Baseline not compared: none of the candidate's 24 attempts could be compared" in (
        summary
    )


def test_a_baseline_path_that_is_no_report_is_refused_with_exit_2(
    runner: Runner, candidate: tuple[str, bytes]
) -> None:
    """A baseline the workflow names by path is input like a report: one that cannot be
    read is exit 2 with one sentence (an artifact that holds none is a note instead)."""
    (runner.workspace / "baseline.json").write_text("<html>not a report</html>", "utf-8")

    result = runner.run(
        **as_report(runner, candidate),
        baseline="baseline.json",
        fail_on="regression",
        comment="off",
    )

    assert result.code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert runner.outputs()["exit_code"] == "2"
    summary = runner.summary.read_text("utf-8")
    assert "Nothing was published: the baseline was refused: baseline.json:1:1" in summary


# --- every download bounded, nothing left behind ---------------------------------------------


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _bomb() -> bytes:
    """201 MiB of zeros in about 200 kB: over the 200 MiB the action unpacks."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("goldgate-report.json", "w", force_zip64=True) as entry,
    ):
        block = b"\0" * (1 << 20)
        for _ in range(201):
            entry.write(block)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("expired", "410"),
        ("bad-zip", "is not a readable zip archive"),
        ("traversal", "climbs out with '..'"),
        ("bomb", "over the 209,715,200-byte cap"),
        ("no-report", "holds no goldgate report"),
        ("trickle", "took longer than this run allows"),
        ("stall", "took longer than this run allows"),
        ("api-trickle", "took longer than the 1.5 s this run allows"),
    ],
)
def test_a_baseline_that_cannot_be_had_leaves_nothing_behind(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
    kind: str,
    said: str,
) -> None:
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip, commit=None)
    archive = {
        "expired": baseline_zip,
        "bad-zip": b"PK\x03\x04 this is no zip at all",
        "traversal": _zip({"../../escaped.json": b"{}"}),
        "bomb": _bomb() if kind == "bomb" else b"",
        "no-report": _zip({"notes.txt": b"hello"}),
        "trickle": baseline_zip,
        "stall": baseline_zip,
        "api-trickle": baseline_zip,
    }[kind]
    fake.add_artifact(
        uploaded_name(MERGE_BASE),
        head_sha=MERGE_BASE,
        head_branch="master",
        zip_bytes=archive,
        gone=kind == "expired",
    )
    if kind == "trickle":
        fake.trickle_seconds = 0.5
    if kind == "stall":
        fake.delay("GET", r"^/_blob/")
    if kind == "api-trickle":  # the API itself: a byte every half second, from the first call
        fake.trickle_api_seconds = 0.5
    # What waits has a short deadline (nothing it fetches arrives in any time); what does not
    # wait keeps a long one, so that a loaded machine never makes it run out.
    deadline = "1.5" if kind in ("trickle", "stall", "api-trickle") else "3"
    started = time.monotonic()

    result, temporary = in_tmp(
        runner,
        tmp_path,
        {"GOLDGATE_BASELINE_DEADLINE": deadline},
        **as_report(runner, candidate),
        baseline=artifact_input(),
        fail_on="regression",
        comment="off",
    )

    took = time.monotonic() - started
    assert result.code == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert runner.outputs()["comparison"] == ""
    out = result.stdout + _plain(runner.summary.read_text("utf-8"))
    assert said in out, out
    assert leftovers(runner, temporary) == []
    assert not (tmp_path / "escaped.json").exists()
    if kind in ("trickle", "stall", "api-trickle"):
        assert took < 60, took  # the report's reading, plus 1.5 s of download at most


# --- stopping keeps every output -------------------------------------------------------------


def _signalled(
    runner: Runner, tmp_path: Path, seen: tuple[str, str], number: int, **inputs: str
) -> tuple[int, str, str, Path]:
    temporary = tmp_path / "tmpdir"
    temporary.mkdir(exist_ok=True)
    runner.output.write_text("", "utf-8")
    runner.summary.write_text("", "utf-8")
    env = runner.env(**inputs) | {"TMPDIR": str(temporary)}
    process = start_action(runner.workspace, env)
    try:
        runner.fake.wait_for(*seen, timeout=120)
        time.sleep(0.3)  # the request is in flight: the client waits for its answer
        process.send_signal(number)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
        runner.fake.release()
    return process.returncode, stdout, stderr, temporary


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_baseline_download_keeps_the_outputs(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
    number: int,
) -> None:
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip)
    fake.delay("GET", r"^/_blob/")

    code, stdout, stderr, temporary = _signalled(
        runner,
        tmp_path,
        ("GET", r"^/_blob/"),
        number,
        **as_report(runner, candidate),
        baseline=artifact_input(),
    )

    assert code == 130, stdout + stderr
    assert "Traceback" not in stderr
    assert "interrupted while the baseline was fetched or compared" in stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "130"
    assert outputs["comparison"] == ""
    assert (runner.workspace / outputs["report"]).is_file()
    assert (runner.workspace / outputs["junit"]).is_file()
    summary = runner.summary.read_text("utf-8")
    assert rule_of(summary).startswith("Failed, as fail_on is disagreement: exit code 130")
    assert (
        "> Interrupted while the baseline was fetched or compared; nothing was compared." in summary
    )
    assert leftovers(runner, temporary) == []


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_comment_post_keeps_the_outputs(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
    number: int,
) -> None:
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip)
    fake.delay("POST", r"/issues/\d+/comments$")

    code, stdout, stderr, temporary = _signalled(
        runner,
        tmp_path,
        ("POST", r"/issues/\d+/comments$"),
        number,
        **as_report(runner, candidate),
        baseline=artifact_input(),
        fail_on="regression",
    )

    assert code == 130, stdout + stderr
    assert "Traceback" not in stderr
    assert "interrupted while the pull-request comment was posted" in stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "130"
    assert outputs["regressed"] == "3"  # the comparison was done before the signal
    assert (runner.workspace / outputs["comparison"]).is_file()
    handoff = json.loads((runner.workspace / outputs["comment_file"]).read_text("utf-8"))
    assert handoff["pull_request"] == runner.pr_number  # for fork-comment.yml to render
    assert (runner.workspace / handoff["comparison"]).is_file()
    summary = runner.summary.read_text("utf-8")
    assert rule_of(summary).startswith(
        "Failed: the run itself did not complete cleanly (exit code 130"
    )
    assert "> Interrupted while the pull-request comment was posted." in summary
    assert leftovers(runner, temporary) == []


# --- a slow answer to the comment POST ------------------------------------------------------


@pytest.mark.parametrize("answer", ["too-late", "502-after-storing"])
def test_a_slow_or_failed_answer_to_the_comment_post_leaves_one_sticky_comment(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    candidate: tuple[str, bytes],
    answer: str,
) -> None:
    """GitHub stores the comment, then answers after the client stopped waiting (or 502):
    the action looks for its marker before posting again, so there is one comment, and the
    next run updates it."""
    runner = baseline_runner(tmp_path, fake, payload, baseline_zip)
    comments = r"/issues/\d+/comments$"
    if answer == "too-late":
        fake.delay("POST", comments, 4.0, after=True)
    else:
        fake.fail("POST", comments, 502, message="Server Error", after=True)
    quick = {"GOLDGATE_GITHUB_TIMEOUT": "1"}

    report = as_report(runner, candidate)
    first, _ = in_tmp(runner, tmp_path, quick, **report, baseline=artifact_input())
    second, _ = in_tmp(
        runner, tmp_path, quick, **report, baseline=artifact_input(), fail_on="never"
    )

    assert (first.code, second.code) == (1, 0), first.stdout + first.stderr
    assert runner.outputs()["comment_file"] == ""
    [(_, author, body)] = fake.comments(runner.pr_number)
    assert author == "github-actions[bot]"
    assert rule_of(body).startswith("Passed whatever")  # the second run updated the one comment
    assert len(fake.requests_to("POST", comments)) == 1


# --- the comment's budget, in GitHub's units -------------------------------------------------


def test_a_comment_full_of_emoji_fits_github_s_count(runner: Runner, tmp_path: Path) -> None:
    """Case ids of astral characters: a code-point budget would let the body run to twice
    GitHub's limit in UTF-16 code units, which GitHub (and the fake) refuse."""
    from goldgate.report.io import write_report
    from render.builders import attempt, case, expectation, report, suite

    failing = [
        case(
            f"{'😀' * 20}-{index}",
            [attempt(1, outcomes=("failed",), reasons=["🚫" * 30])],
            [expectation("category")],
        )
        for index in range(3_000)
    ]
    path = write_report(report([suite("emoji", failing)]), tmp_path / "emoji.json")
    value = json.loads(path.read_bytes())
    value["options"]["include_details"] = False  # built without results: none to score
    (runner.workspace / "emoji.json").write_text(json.dumps(coherent(value, rescore=False)))

    result = runner.run(mode="report", report="emoji.json", baseline="", fail_on="never")

    assert result.code == 0, result.stdout + result.stderr
    assert runner.outputs()["comment_file"] == "", result.stdout
    [(_, _, body)] = runner.fake.comments(runner.pr_number)
    units = len(body.encode("utf-16-le")) // 2
    assert COMMENT_LIMIT - 5_000 < units <= COMMENT_LIMIT
    assert len(body) < COMMENT_LIMIT * 0.75  # a code-point count would have allowed more
    assert "items are not shown" in body


# --- a warning names what went wrong ---------------------------------------------------------


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Any:
    """The in-process runs below install goldgate's handlers (and, once interrupted, handlers
    that hold further signals) in this process: put pytest's back."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


@pytest.mark.parametrize(
    ("where", "raised", "said"),
    [
        (
            "goldgate.github.artifacts.find_baseline_artifact",
            KeyError(5),
            "the baseline artifact 'goldgate-baseline' could not be used: KeyError: an "
            "unexpected error, with no message of its own.",
        ),
        (
            "goldgate.comparison.compare",
            KeyError(5),
            "baseline not compared: KeyError: an unexpected error, with no message of its own.",
        ),
        (
            "goldgate.github.comments.upsert_comment",
            OSError(5),
            "the pull-request comment was not posted (OSError: Input/output error (errno 5).)",
        ),
        (
            "goldgate.github.envfiles.append_summary",
            OSError(5),
            "the job summary could not be written: Input/output error (errno 5).",
        ),
    ],
    ids=["lookup", "compare", "comment", "summary"],
)
def test_a_warning_names_an_unexpected_error_never_a_bare_number(
    runner: Runner,
    baseline_zip: bytes,
    run_cli: Any,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    raised: BaseException,
    said: str,
) -> None:
    """In process, so that one function of the GitHub edge can be made to fail as nothing
    on the wire would make it: the warning names the exception's type and says what it is."""
    import importlib

    module, _, name = where.rpartition(".")

    def broken(*_: Any, **__: Any) -> Any:
        raise raised

    monkeypatch.setattr(importlib.import_module(module), name, broken)
    path = _baseline_file(runner, baseline_zip)
    for key, value in runner.env(mode="report", report=path, fail_on="never").items():
        monkeypatch.setenv(key, value)

    result = run_cli("action", cwd=runner.workspace)

    assert result.code == 0, result.output
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any(said in line for line in warnings), warnings
    assert not [line for line in warnings if re.search(r"(: |\()5\.?\)?$", line)], warnings


def test_a_signal_while_the_results_are_rendered_still_writes_the_outputs(
    runner: Runner, baseline_zip: bytes, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process: a KeyboardInterrupt (what goldgate's SIGINT and SIGTERM handler raises)
    from the Markdown renderer, as if the signal came while a large report was rendered."""
    import goldgate.render.markdown

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(goldgate.render.markdown, "render_markdown", interrupted)
    path = _baseline_file(runner, baseline_zip)
    for key, value in runner.env(mode="report", report=path, fail_on="never").items():
        monkeypatch.setenv(key, value)

    result = run_cli("action", cwd=runner.workspace)

    assert result.code == 130, result.output
    assert "interrupted while the results were published" in result.stderr
    outputs = runner.outputs()
    assert outputs["exit_code"] == "130"
    assert outputs["report"] == path
    assert rule_of(runner.summary.read_text("utf-8")).startswith(
        "Failed: the input was invalid or the run was interrupted (exit code 130"
    )
