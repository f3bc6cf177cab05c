"""Issue 39 item 1, the class of processes user code leaves behind: what the run step's
``seal.run_sealed`` (and the supervisor of a run) uses to end them, in one process of its
own (it becomes a subreaper, which pytest's worker must not). A process that forks and ends
in a loop, a new session each time, in several chains at once, is never a step ahead of the
listings; and when something cannot be stopped, the step says so and trusts nothing after."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreapers are Linux's"),
]

SRC = Path(__file__).resolve().parents[2] / "src"

CHAINS = """\
import os, sys, time
until = time.monotonic() + 30  # bounded, whatever happens to the test
for _ in range(4):
    if os.fork() == 0:
        while time.monotonic() < until:
            if os.fork() > 0:
                os._exit(0)
            os.setsid()
        os._exit(0)
"""

DRIVER = """\
import json, os, subprocess, sys, time
from goldgate.app.action import seal
from goldgate.base import reaping

def living():
    return sorted(pid for pid in reaping.descendants() if not reaping._zombie(pid))

reaping.become_subreaper()
spared = frozenset(reaping.descendants())
subprocess.run([sys.executable, "-c", sys.argv[1]], check=True)
time.sleep(0.3)
gone = reaping.reap_descendants(spared)
time.sleep(0.3)  # a member that slipped through would have forked again by now
after = living()

reaping._GIVE_UP_SECONDS = 0.0
env = {"GITHUB_ENV": sys.argv[2]}
kept = []
result, said = seal.run_sealed(env, lambda: kept.append(subprocess.Popen(["sleep", "30"])))
reaping._GIVE_UP_SECONDS = 10.0
cleaned = reaping.reap_descendants(frozenset())
reaping._GIVE_UP_SECONDS = 0.0
from goldgate.app import supervisor
from goldgate.base import channel
code = supervisor.supervise(import_seconds=30)
if code is None:  # the supervised child: its run passed, and it leaves a process running
    subprocess.Popen(["sleep", "30"])
    channel.announce("exit", 0)
    os._exit(0)
reaping._GIVE_UP_SECONDS = 10.0
print(json.dumps({"gone": gone, "after": after, "said": said, "cleaned": cleaned,
                  "supervised": code, "left": reaping.reap_descendants(frozenset())}))
"""


@pytest.fixture(scope="module")
def reaped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("reaping")
    (folder / "set_env").write_text("", "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, CHAINS, str(folder / "set_env")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    loaded: dict[str, object] = json.loads(done.stdout)
    loaded["stderr"] = done.stderr
    return loaded


def test_chains_that_fork_and_end_in_a_loop_are_all_killed(reaped: dict[str, object]) -> None:
    assert reaped["gone"] is True
    assert reaped["after"] == []


def test_a_process_that_cannot_be_stopped_is_said_and_fails_the_seal(
    reaped: dict[str, object],
) -> None:
    assert reaped["said"] == "a process user code started could not be stopped"
    assert reaped["cleaned"] is True


def test_a_supervised_run_whose_process_cannot_be_stopped_is_a_runtime_failure(
    reaped: dict[str, object],
) -> None:
    # The run passed (exit 0), but a process it started outlived every attempt to stop it:
    # it may still write the report or hold stdout open, so the run is not trusted (exit 4).
    assert reaped["supervised"] == 4
    assert "could not be stopped; what the run wrote is not to be trusted." in str(reaped["stderr"])
    assert reaped["left"] is True
