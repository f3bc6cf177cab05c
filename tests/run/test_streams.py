"""Goldgate's standard streams through the real console script.

Stdout is goldgate's: what targets and scorers (and the modules defining them) write there
goes to stderr, and ``--format json`` prints exactly one JSON document whatever happens.
A closed, full or dead stream is not a failure of the run: the exit code stays the run's
and the report is never lost to it; a report that cannot be written anywhere is one sentence
and exit 4. A process that is done exits, whatever threads a target left running.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import forkserver

from .support import (
    GOLDGATE,
    STATUS_OK,
    CliRun,
    HttpApp,
    Project,
    attempt_of,
    case,
    cli_env,
    expect,
    read_report_json,
    start_cli,
    suite_of,
)

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

SECRET = "SECRET-5tr3am"
PLANTED = {"GG_PLANTED": SECRET}


def _clean(stderr: str) -> None:
    """Nothing on stderr that a person would read as goldgate crashing."""
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr


# --- 4. stdout is goldgate's --------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "json"])
@pytest.mark.parametrize("workflow", ["py", "py_sync"])
def test_what_a_target_prints_goes_to_stderr(
    project: Project, output_format: str, workflow: str
) -> None:
    project.suite("main", workflow, [case("talks", "print"), case("quiet")]).write()

    result, report = project.evaluate("--format", output_format, env=PLANTED)

    assert result.code == 0, result.stderr
    assert report is not None
    assert SECRET not in result.stdout
    # Both the Python-level print and the write to file descriptor 1 reached stderr.
    assert f"print from the target {SECRET}" in result.stderr
    assert f"fd 1 from the target {SECRET}" in result.stderr
    if output_format == "json":
        assert json.loads(result.stdout)["verdict"]["exit_code"] == 0
    else:
        assert result.stdout.splitlines()[-2:] == [
            "verdict: passed (exit 0)",
            "report: out/report.json",
        ]
    _clean(result.stderr)


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_what_a_scorer_prints_goes_to_stderr(project: Project, output_format: str) -> None:
    project.scorers["chatty"] = {"import": "fixture_app:printing_scorer", "revision": "1"}
    chatty = expect("chatty", "/payload/category", "billing", "custom", "chatty")
    project.suite("main", "py", [case("a", "ok", STATUS_OK, chatty)]).write()

    result, report = project.evaluate("--format", output_format, env=PLANTED)

    assert result.code == 0, result.stderr
    assert report is not None
    assert SECRET not in result.stdout
    assert f"print from the scorer {SECRET}" in result.stderr
    assert f"fd 1 from the scorer {SECRET}" in result.stderr
    if output_format == "json":
        json.loads(result.stdout)


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_what_a_module_prints_when_imported_goes_to_stderr(
    project: Project, output_format: str
) -> None:
    project.workflows["noisy"] = {"revision": "n-1", "target": {"python": "noisy_app:handle"}}
    project.suite("main", "noisy", [case("a")]).write()

    result, report = project.evaluate("--format", output_format, env=PLANTED)

    assert result.code == 0, result.stderr
    assert report is not None
    assert SECRET not in result.stdout
    assert f"print at import {SECRET}" in result.stderr
    assert f"fd 1 at import {SECRET}" in result.stderr
    if output_format == "json":
        json.loads(result.stdout)


def _refused_gold(project: Project) -> list[str]:
    typo = {"name": "status", "path": "/execution/status", "expectd": "completed"}
    project.suite("main", "py", [case("a", "ok", typo)]).write()
    return []


def _ok_gold(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()


def _missing_config(project: Project) -> list[str]:
    _ok_gold(project)
    project.settings_path.unlink()
    return []


def _missing_dataset(project: Project) -> list[str]:
    _ok_gold(project)
    return ["--dataset", str(project.root / "evaluation" / "nope.json")]


def _dataset_is_a_folder(project: Project) -> list[str]:
    _ok_gold(project)
    return ["--dataset", str(project.root / "evaluation")]


def _missing_case_file(project: Project) -> list[str]:
    project.suite("main", "py", "cases/nope.json").write()
    return []


def _unknown_suite(project: Project) -> list[str]:
    _ok_gold(project)
    return ["--suite", "nope"]


def _existing_output(project: Project) -> list[str]:
    _ok_gold(project)
    project.output().parent.mkdir(parents=True)
    project.output().write_text("an earlier report\n", "utf-8")
    return []


def _target_does_not_import(project: Project) -> list[str]:
    project.workflows["py"]["target"]["python"] = "missing_app:handle"
    _ok_gold(project)
    return []


def _missing_credential(project: Project) -> list[str]:
    project.suite("online", "live", [case("b")]).write()
    return ["--live"]


def _bad_timeout(project: Project) -> list[str]:
    _ok_gold(project)
    return ["--timeout", "-1"]


REFUSALS: dict[str, tuple[Callable[[Project], list[str]], bool]] = {
    # name: (set the project up and return extra arguments, refused by --check as well)
    "bad gold": (_refused_gold, True),
    "config that does not exist": (_missing_config, True),
    "dataset that does not exist": (_missing_dataset, True),
    "dataset that is a folder": (_dataset_is_a_folder, True),
    "case file that does not exist": (_missing_case_file, True),
    "unknown suite": (_unknown_suite, False),
    "existing --output": (_existing_output, False),
    "target that does not import": (_target_does_not_import, False),
    "missing live credential": (_missing_credential, False),
    "timeout that is not positive": (_bad_timeout, False),
}


@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
@pytest.mark.parametrize("refusal", sorted(REFUSALS))
def test_json_refusals_are_one_json_document(project: Project, refusal: str, check: bool) -> None:
    setup, check_refuses = REFUSALS[refusal]
    args = setup(project)
    if check:
        args.append("--check")

    output = [] if check else ["--output", str(project.output())]  # --check refuses it
    result = project.run(*output, "--format", "json", *args)

    document = json.loads(result.stdout)  # one document, nothing before or after it
    if check and not check_refuses and not any(a.startswith("--") for a in args[:-1]):
        assert result.code == 0, result.stderr
        assert document["ok"] is True
    else:  # refused: the gold, or a run-only option given with --check
        assert result.code == 2, result.stderr
        assert document["ok"] is False
        assert document.get("error") or document["violations"]
    assert project.calls() == []
    assert "Traceback" not in result.stderr


def _wait_for(path: Path, process: subprocess.Popen[str], within: float = 20) -> None:
    deadline = time.monotonic() + within
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def _interrupt(process: subprocess.Popen[str]) -> CliRun:
    try:
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    return CliRun(process.returncode, stdout, stderr)


@contextlib.contextmanager
def _orphan_killed(pid_file: Path) -> Iterator[None]:
    """Kill the grandchild a command left behind (its pid in ``pid_file``) after the test."""
    try:
        yield
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("workflow", ["py", "cmd"])
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_an_interrupted_run_is_one_json_document_and_no_noise(
    project: Project, output_format: str, workflow: str
) -> None:
    marker = project.root / "started"
    if workflow == "py":
        slow = case("slow", "marker", marker="started", seconds=30)
    else:  # a command that hangs, and a grandchild of its holding its pipes open
        slow = case("slow", "orphan", pids="started", hang=True, seconds=10)
    project.suite("main", workflow, [case("first"), slow, case("third")]).write()
    with _orphan_killed(marker if workflow == "cmd" else project.root / "none"):
        process = start_cli(
            "evaluate", "--config", str(project.settings_path), "--output", str(project.output()),
            "--format", output_format, "--timeout", "60",
            cwd=project.root,
        )  # fmt: skip
        _wait_for(marker, process)
        result = _interrupt(process)

    assert result.code == 130, result.stderr
    assert project.output().exists()
    if output_format == "json":
        summary = json.loads(result.stdout)
        assert summary["complete"] is False
        assert summary["verdict"]["exit_code"] == 130
    else:
        assert "verdict: interrupted (exit 130) (incomplete: SIGINT)" in result.stdout
    _clean(result.stderr)


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_an_interrupt_while_preparing_is_one_json_document(
    project: Project, output_format: str
) -> None:
    project.workflows["noisy"] = {"revision": "n-1", "target": {"python": "noisy_app:handle"}}
    project.suite("main", "noisy", [case("a")]).write()
    process = start_cli(
        "evaluate", "--config", str(project.settings_path), "--output", str(project.output()),
        "--format", output_format,
        cwd=project.root, env={"GG_IMPORT_SLEEP": "30", **PLANTED},
    )  # fmt: skip
    _wait_for(project.root / "importing", process)

    result = _interrupt(process)

    assert result.code == 130, result.stderr
    assert not project.output().exists()
    assert SECRET not in result.stdout
    if output_format == "json":
        assert json.loads(result.stdout) == {
            "ok": False,
            "error": "interrupted before the report was written.",
            "violations": [],
        }
    else:
        assert result.stdout == ""
        assert result.stderr.splitlines()[-1] == (
            "goldgate: interrupted before the report was written."
        )
    _clean(result.stderr)


# --- 5. broken streams are not failures of the run ----------------------------------------------


@contextlib.contextmanager
def _broken(how: str) -> Iterator[tuple[Any, Callable[[int], None] | None]]:
    """What to give a child as one of its standard streams, and what to run in the child
    before it starts goldgate: ``full`` (/dev/full), ``dead`` (a pipe nobody reads) or
    ``closed`` (the descriptor really closed, not /dev/null)."""
    if how == "full":
        with open("/dev/full", "wb") as full:
            yield full, None
    elif how == "dead":
        read, write = os.pipe()
        os.close(read)
        try:
            yield write, None
        finally:
            os.close(write)
    else:
        yield subprocess.DEVNULL, os.close


def _run_with_broken(
    project: Project,
    stream: str,
    how: str,
    *args: str,
    env: dict[str, str] | None = None,
) -> CliRun:
    """``goldgate evaluate --output out/report.json <args>`` with its stdout or stderr
    broken as ``how`` says; the other one is read."""
    fd = 1 if stream == "stdout" else 2
    with _broken(how) as (target, close):
        streams: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        streams[stream] = target
        # Forked from the fork server where it can give the same process (a full or a dead
        # stream is a descriptor it hands on); a stream closed by preexec_fn is a real start.
        process = forkserver.Popen(
            [*GOLDGATE, "evaluate", "--config", str(project.settings_path),
             "--output", str(project.output()), *args],
            cwd=project.root, env=cli_env(env), stdin=subprocess.DEVNULL, text=True,
            # The test process starts no threads here, which makes preexec_fn safe.
            preexec_fn=None if close is None else (lambda: close(fd)),
            **streams,
        )  # fmt: skip
        stdout, stderr = process.communicate(timeout=60)
    return CliRun(process.returncode, stdout or "", stderr or "")


OUTCOMES = {
    # name: (cases, exit code, verdict line)
    "passed": ([case("a"), case("talks", "print", python_only=True)], 0, "passed (exit 0)"),
    "runtime failure": ([case("a"), case("b", "raise")], 4, "runtime failure (exit 4)"),
}


@pytest.mark.parametrize("how", ["closed", "full", "dead"])
@pytest.mark.parametrize("outcome", sorted(OUTCOMES))
def test_a_broken_stderr_changes_nothing(project: Project, how: str, outcome: str) -> None:
    cases, code, verdict = OUTCOMES[outcome]
    project.suite("main", "py", cases).write()

    result = _run_with_broken(project, "stderr", how)

    assert result.code == code
    assert result.stdout.splitlines()[-2:] == [f"verdict: {verdict}", "report: out/report.json"]
    report = read_report_json(project.output())
    assert report["verdict"]["exit_code"] == code
    # A target that prints is not broken by it either.
    assert attempt_of(report, "main", "a")["status"] == "completed"
    assert sorted(p.name for p in project.output().parent.iterdir()) == ["report.json"]


@pytest.mark.parametrize("output_format", ["text", "json"])
@pytest.mark.parametrize("how", ["closed", "full", "dead"])
@pytest.mark.parametrize("outcome", sorted(OUTCOMES))
def test_a_broken_stdout_does_not_hide_the_outcome(
    project: Project, how: str, outcome: str, output_format: str
) -> None:
    cases, code, verdict = OUTCOMES[outcome]
    project.suite("main", "py", cases).write()

    result = _run_with_broken(project, "stdout", how, "--format", output_format, env=PLANTED)

    assert result.code == code, result.stderr
    assert json.loads(project.output().read_text("utf-8"))["verdict"]["exit_code"] == code
    meaning = verdict.partition(" (")[0]
    assert result.stderr.splitlines()[-1] == (
        f"goldgate: stdout cannot be written; the run ends with exit {code} ({meaning}) "
        "and its report is out/report.json."
    )
    _clean(result.stderr)


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_verdict_states_the_exit_code_of_a_report_written_elsewhere(
    project: Project, output_format: str
) -> None:
    # The target creates --output while the run goes on: the report cannot go there.
    taker = case("taker", "marker", marker="out/report.json", seconds=0)
    project.suite("main", "py", [taker, case("b")]).write()

    result = project.run("--output", str(project.output()), "--format", output_format)

    assert result.code == 4, result.stderr
    assert project.output().read_text("utf-8") == "1"
    if output_format == "json":
        summary = json.loads(result.stdout)
        assert summary["verdict"]["exit_code"] == 4
        assert summary["verdict"]["meaning"] == "runtime failure"
        assert summary["verdict"]["passed"] is False
        elsewhere = Path(summary["report"])
    else:
        assert result.stdout.splitlines()[-2] == "verdict: runtime failure (exit 4)"
        report_path = result.report_path()
        assert report_path is not None
        elsewhere = report_path
    assert "appeared while the run went on" in result.stderr
    assert str(elsewhere) in result.stderr
    # The report itself is unchanged: its gold verdict passed.
    report = read_report_json(elsewhere)
    assert report["verdict"]["exit_code"] == 0
    assert suite_of(report, "main")["verdict"] == "passed"


def _file_size_limit(limit: int) -> Callable[[], None]:
    # Python ignores SIGXFSZ, so a write past the limit fails with EFBIG instead of killing.
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_report_that_cannot_be_written_anywhere_is_one_sentence_and_exit_4(
    project: Project, tmp_path: Path, output_format: str
) -> None:
    project.suite("main", "py", [case("a"), case("b")]).write()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen(
        [*GOLDGATE, "evaluate", "--config", str(project.settings_path),
         "--output", str(project.output()), "--format", output_format],
        cwd=project.root, env=cli_env({"TMPDIR": str(temporary)}), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Enough for the targets' call log, far too little for the report.
        preexec_fn=_file_size_limit(1024),  # noqa: PLW1509 - no threads here
    )  # fmt: skip
    stdout, stderr = process.communicate(timeout=60)

    assert process.returncode == 4, stderr
    sentence = (
        f"goldgate: {project.output()}: cannot be written (File too large), and a temporary "
        "folder could not take it either (File too large); the report is lost."
    )
    if output_format == "json":
        assert json.loads(stdout) == {
            "ok": False,
            "error": sentence.removeprefix("goldgate: "),
            "violations": [],
        }
    else:
        assert stdout == ""
        assert stderr.splitlines()[-1] == sentence
        assert sentence not in stderr.splitlines()[:-1]
    _clean(stderr)
    assert [c["tag"] for c in project.calls()] == ["a", "b"]  # the run itself went fine
    assert list(temporary.iterdir()) == []  # the fallback folder was removed again
    assert list(project.output().parent.iterdir()) == []  # no temporary file either


# --- 10. a process that is done exits -----------------------------------------------------------


@pytest.mark.parametrize("mode", ["thread", "executor"])
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_threads_a_target_leaves_running_do_not_keep_goldgate_alive(
    project: Project, mode: str, output_format: str
) -> None:
    # Each leaves a thread sleeping for 60 s: a non-daemon thread of its own, or a call it
    # abandoned in the event loop's default executor.
    project.suite("main", "py", [case("a"), case("leaves", mode), case("c")]).write()
    started = time.monotonic()

    result, report = project.evaluate("--format", output_format)

    assert time.monotonic() - started < 10  # not the 60 s the thread sleeps
    assert result.code == 0, result.stderr
    assert report is not None
    assert report["duration_seconds"] < 5  # closing the loop did not wait either
    assert result.stderr.splitlines()[-1] == (
        "goldgate: the target left 1 thread running; exiting anyway"
    )
    if output_format == "json":
        assert json.loads(result.stdout)["verdict"]["exit_code"] == 0
    else:
        assert result.stdout.splitlines()[-2:] == [
            "verdict: passed (exit 0)",
            "report: out/report.json",
        ]
    _clean(result.stderr)


def test_a_run_without_leftovers_says_nothing_about_threads(
    project: Project, http_app: HttpApp
) -> None:
    # Sync python targets run in daemon threads, http requests in the event loop's worker
    # threads, which end as the loop closes.
    project.workflows["web"] = {"revision": "w-1", "target": {"http": {"url": http_app.url}}}
    project.suite("sync", "py_sync", [case("a")]).suite("command", "cmd", [case("b")])
    project.suite("web", "web", [case("c")]).write()
    result, report = project.evaluate()
    assert result.code == 0, result.stderr
    assert report is not None
    assert "thread" not in result.stderr
    _clean(result.stderr)


def test_a_grandchild_that_outlives_its_command_leaves_no_noise(project: Project) -> None:
    # The grandchild left the command's process group and holds its pipes open for 3 s.
    project.suite("main", "cmd", [case("a"), case("orphan", "orphan", pids="orphan.pid")])
    project.write()
    with _orphan_killed(project.root / "orphan.pid"):
        result, report = project.evaluate()
    assert result.code == 0, result.stderr
    assert report is not None
    assert attempt_of(report, "main", "orphan")["status"] == "completed"
    _clean(result.stderr)
