"""Command targets: JSON in and out, failures with safe reasons, and no survivors."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from goldgate.run.targets import CommandTarget, Target, TargetFailure, TargetRequest
from helpers.processes import assert_gone

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "s3cr3t-PAYLOAD-value-7731"  # what conftest.request_ carries


def script(name: str, *args: str) -> list[str]:
    return [sys.executable, str(FIXTURES / name), *args]


def command(argv: list[str], cwd: Path, max_result_bytes: int = 1 << 20, **kw: object) -> Target:
    return CommandTarget(argv, cwd, max_result_bytes=max_result_bytes, kill_grace=0.2, **kw)  # type: ignore[arg-type]


def assert_safe(failure: TargetFailure) -> None:
    for text in (failure.reason, str(failure), repr(failure)):
        assert SECRET not in text


def read_pids(path: Path) -> list[int]:
    assert path.exists(), "the command did not get to start its child"
    return [int(word) for word in path.read_text().split()]


@pytest.mark.slow
async def test_success_round_trip(tmp_path: Path, request_: TargetRequest, secret: str) -> None:
    assert secret == SECRET
    target = command(script("echo_json.py", "--flag"), tmp_path)
    response = await target(request_)
    assert response.document == {
        "execution": {"status": "completed"},
        "request": request_.as_json(),
        "argv": ["--flag"],
    }
    assert response.stderr == "echo: working\n"
    assert target.describe() == {"kind": "command", "command": script("echo_json.py", "--flag")}
    await target.aclose()


@pytest.mark.slow
async def test_runs_in_cwd_with_the_given_environment(
    tmp_path: Path, request_: TargetRequest
) -> None:
    code = (
        "import json, os, sys; sys.stdin.read();"
        "json.dump({'cwd': os.getcwd(), 'var': os.environ.get('GG_VAR')}, sys.stdout)"
    )
    target = command([sys.executable, "-c", code], tmp_path, env={"GG_VAR": "yes"})
    response = await target(request_)
    assert response.document == {"cwd": str(tmp_path), "var": "yes"}


@pytest.mark.slow
async def test_command_that_ignores_a_large_request(tmp_path: Path) -> None:
    big = TargetRequest("w", None, None, {"payload": {"text": "x" * 2_000_000}, "metadata": {}})
    response = await command(script("ignore_stdin.py"), tmp_path)(big)
    assert response.document == {"execution": {"status": "completed"}}


async def test_deadline_kills_the_command_and_its_grandchild(
    tmp_path: Path, request_: TargetRequest, reaper: bool
) -> None:
    pidfile = tmp_path / "pids"
    target = command(script("hang_with_child.py", str(pidfile), "--ignore-term"), tmp_path)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        with anyio.fail_after(1.0):
            await target(request_)
    assert time.monotonic() - started < 3.0
    pids = read_pids(pidfile)
    assert len(pids) == 2
    assert_gone(pids, strict=reaper)


async def test_shell_grandchild_is_killed_too(
    tmp_path: Path, request_: TargetRequest, reaper: bool
) -> None:
    pidfile = tmp_path / "pid"
    argv = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"]
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.5):
            await command(argv, tmp_path)(request_)
    assert_gone(read_pids(pidfile), strict=reaper)


async def test_cancelled_scope_kills_the_group(
    tmp_path: Path, request_: TargetRequest, reaper: bool
) -> None:
    pidfile = tmp_path / "pids"
    target = command(script("hang_with_child.py", str(pidfile)), tmp_path)
    with anyio.move_on_after(1.0) as scope:
        await target(request_)
    assert scope.cancelled_caught
    assert_gone(read_pids(pidfile), strict=reaper)


async def test_leftover_grandchild_does_not_hold_the_attempt(
    tmp_path: Path, request_: TargetRequest, reaper: bool
) -> None:
    pidfile = tmp_path / "pids"
    target = command(script("leave_child.py", str(pidfile)), tmp_path)
    started = time.monotonic()
    with anyio.fail_after(5):
        response = await target(request_)
    assert time.monotonic() - started < 3.0
    assert response.document == {"execution": {"status": "completed"}}
    assert_gone(read_pids(pidfile), strict=reaper)


@pytest.mark.slow
async def test_non_zero_exit_keeps_a_bounded_stderr_tail(
    tmp_path: Path, request_: TargetRequest
) -> None:
    target = command(script("fail_loud.py"), tmp_path, stderr_limit=4096)
    with pytest.raises(TargetFailure) as caught:
        await target(request_)
    assert caught.value.reason == "command exited with status 3"
    stderr = caught.value.stderr
    assert stderr is not None
    assert len(stderr.encode()) <= 4096
    assert stderr.endswith("LAST-LINE-MARKER\n")
    assert "noise line 000000" not in stderr
    assert_safe(caught.value)


@pytest.mark.slow
async def test_killed_by_a_signal(tmp_path: Path, request_: TargetRequest) -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    with pytest.raises(TargetFailure) as caught:
        await command([sys.executable, "-c", code], tmp_path)(request_)
    assert caught.value.reason == "command was killed by SIGSEGV"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("printed", "reason"),
    [
        (f"hello {SECRET}", "command stdout is not strict JSON (line 1, column 1)"),
        (
            f'{{"a": 1, "a": "{SECRET}"}}',
            "command stdout is not strict JSON (line 1, column 10)",
        ),
        ('{"x": NaN}', "command stdout is not strict JSON (line 1, column 7)"),
        ('{"x": 1}\n{"y": 2}', "command stdout is not strict JSON (line 2, column 1)"),
        (f'[{{"text": "{SECRET}"}}]', "command stdout is a JSON array, not a JSON object"),
        ('"just a string"', "command stdout is a JSON string, not a JSON object"),
        ("", "command stdout is empty, not a JSON object"),
    ],
)
async def test_output_that_is_not_a_result_document(
    tmp_path: Path, request_: TargetRequest, printed: str, reason: str
) -> None:
    with pytest.raises(TargetFailure) as caught:
        await command(script("print_raw.py", printed), tmp_path)(request_)
    assert caught.value.reason == reason
    assert_safe(caught.value)


@pytest.mark.slow
async def test_a_long_string_output_with_trailing_data_is_placed(
    tmp_path: Path, request_: TargetRequest
) -> None:
    # The strict parser's slow path reads a string in one linear pass (it once kept
    # backtracking state per character: gigabytes for a 16 MiB answer).
    code = (
        "import sys; sys.stdin.read(); "
        "sys.stdout.write('{\\n\"answer\": \"' + 'y' * 2_000_000 + '\"}!')"
    )
    with pytest.raises(TargetFailure) as caught:
        await command([sys.executable, "-c", code], tmp_path, max_result_bytes=4 << 20)(request_)
    column = len('"answer": "') + 2_000_000 + 2 + 1
    assert caught.value.reason == f"command stdout is not strict JSON (line 2, column {column})"


@pytest.mark.slow
async def test_invalid_utf8_output(tmp_path: Path, request_: TargetRequest) -> None:
    code = 'import sys; sys.stdout.buffer.write(b\'{"a": "\\xff"}\')'
    with pytest.raises(TargetFailure) as caught:
        await command([sys.executable, "-c", code], tmp_path)(request_)
    assert caught.value.reason == "command stdout is not strict JSON (line 1, column 8)"


@pytest.mark.slow
async def test_huge_output_is_cut_and_the_command_killed(
    tmp_path: Path, request_: TargetRequest
) -> None:
    started = time.monotonic()
    with pytest.raises(TargetFailure) as caught, anyio.fail_after(5):
        await command(script("flood.py"), tmp_path, max_result_bytes=100_000)(request_)
    assert caught.value.reason == "command result exceeded 100000 bytes"
    assert time.monotonic() - started < 3.0


@pytest.mark.slow
async def test_output_exactly_at_the_limit_passes(tmp_path: Path, request_: TargetRequest) -> None:
    text = '{"k": "' + "x" * 93 + '"}'
    assert len(text) == 102
    response = await command(script("print_raw.py", text), tmp_path, max_result_bytes=102)(request_)
    assert response.document == {"k": "x" * 93}
    with pytest.raises(TargetFailure) as caught:
        await command(script("print_raw.py", text), tmp_path, max_result_bytes=101)(request_)
    assert caught.value.reason == "command result exceeded 101 bytes"


@pytest.mark.slow
async def test_program_not_found(tmp_path: Path, request_: TargetRequest) -> None:
    with pytest.raises(TargetFailure) as caught:
        await command(["gg-no-such-program-9d2f", "--x"], tmp_path)(request_)
    assert caught.value.reason == "command program 'gg-no-such-program-9d2f' was not found"
    assert caught.value.__context__ is None


@pytest.mark.slow
async def test_program_not_executable(tmp_path: Path, request_: TargetRequest) -> None:
    program = tmp_path / "not-executable"
    program.write_text("#!/bin/sh\necho {}\n")
    program.chmod(0o644)
    with pytest.raises(TargetFailure) as caught:
        await command([str(program)], tmp_path)(request_)
    assert caught.value.reason == f"command program {str(program)!r} is not executable"


@pytest.mark.slow
async def test_missing_working_folder(tmp_path: Path, request_: TargetRequest) -> None:
    with pytest.raises(TargetFailure) as caught:
        await command(script("echo_json.py"), tmp_path / "gone")(request_)
    assert caught.value.reason == (
        "command could not be started: its working folder does not exist"
    )


def test_needs_a_program(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a program"):
        CommandTarget([], tmp_path)


def test_ctrl_c_kills_the_group(tmp_path: Path, reaper: bool) -> None:
    pidfile = tmp_path / "pids"
    runner = subprocess.Popen(
        [
            *script("interrupt_runner.py"),
            *script("hang_with_child.py", str(pidfile), "--ignore-term"),
        ],
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 10
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        runner.send_signal(signal.SIGINT)
        assert runner.wait(timeout=10) == 130
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert_gone(read_pids(pidfile), strict=reaper)
