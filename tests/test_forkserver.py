"""The fork server of the tests (tests/helpers/forkserver.py): goldgate started through it is
the process a real start makes, as far as goldgate and the code it runs can tell, and a
start it cannot make that way is a real one."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import forkserver, slow
from run.support import GOLDGATE, cli_env

PROBE = '''
import gc, os, random, signal, sys, tempfile, threading
import __main__


STREAM = ("name", "mode", "encoding", "errors", "line_buffering", "write_through", "closed")


def _stat(pid):
    state, ppid, group, session = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[:4]
    return {"ppid": int(ppid), "group": int(group), "session": int(session)}


def _handler(number):
    handler = signal.getsignal(number)
    return getattr(handler, "__qualname__", repr(handler))


def _descriptors():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except FileNotFoundError:  # the listing's own
            continue
        found.append(f"{name} " + (target.split(":")[0] if ":" in target else target))
    return sorted(found)


PLAIN = (str, bytes, int, float, bool, type(None))


def _plain(value):
    if isinstance(value, PLAIN):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(_plain(item) for item in value)
    return type(value).__name__ in ("PosixPath", "PurePosixPath")


def _shown(value):
    # A set's order follows the process's string hashes, which a forked process shares with
    # the server (hash randomization is per interpreter, not per fork).
    if isinstance(value, frozenset):
        return "frozenset(" + repr(sorted(map(_shown, value))) + ")"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_shown, value)) + ")"
    return repr(value)


def _goldgate_values():
    """Every plain value (text, numbers, paths, tuples of them) a goldgate module holds at
    module level, by module: what an import could have read from the process it ran in."""
    values = {}
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] == "goldgate" and module is not None:
            values[name] = {
                key: _shown(value) for key, value in vars(module).items()
                if not key.startswith("__") and _plain(value)
            }
    return values


def handle(request):
    """Facts of this process (forked by goldgate's supervisor) and of goldgate's own."""
    goldgate = os.getppid()
    with open(f"/proc/{goldgate}/cmdline", "rb") as cmdline:
        forked = b"zygote.py" in cmdline.read()
    facts = {
        "goldgate": _stat(goldgate) | {"pid": goldgate},
        "goldgate_name": open(f"/proc/{goldgate}/comm").read().strip(),
        "argv": sys.argv,
        "orig_argv": sys.orig_argv,
        "path": sys.path,
        "flags": list(sys.flags),
        "executable": sys.executable,
        "main": sorted(vars(__main__)),
        "main_file": __main__.__file__,
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "umask": next(line for line in open("/proc/self/status") if line.startswith("Umask")),
        "tmp": tempfile.gettempdir(),
        "descriptors": _descriptors(),
        "signals": {int(number): _handler(number) for number in signal.valid_signals()},
        "mask": sorted(int(number) for number in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "streams": [
            [type(s).__name__, s is t] + [repr(getattr(s, name, None)) for name in STREAM]
            for s, t in zip((sys.stdin, sys.stdout, sys.stderr),
                            (sys.__stdin__, sys.__stdout__, sys.__stderr__))
        ],
        "first_streams": [
            [repr(getattr(s, name, None)) for name in STREAM]
            for s in (sys.__stdin__, sys.__stdout__, sys.__stderr__)
        ],
        "threads": threading.active_count(),
        "gc": [gc.isenabled(), list(gc.get_threshold())],
        "modules": sorted(sys.modules),
        "goldgate_values": _goldgate_values(),
    }
    extra = {"forked": forked, "random": random.getrandbits(64)}
    with open(os.path.join(os.path.dirname(__file__), "facts.json"), "w") as out:
        out.write(__import__("json").dumps({"facts": facts, "extra": extra}))
    return {"execution": {"status": "completed"}, "payload": {"seen": True}}
'''


def _project(root: Path) -> Path:
    (root / "config").mkdir(parents=True)
    (root / "evaluation").mkdir()
    (root / "probe.py").write_text(PROBE, "utf-8")
    (root / "config" / "settings.yaml").write_text(
        'workflows:\n  probe:\n    revision: "1"\n    target:\n      python: probe:handle\n',
        "utf-8",
    )
    case = {
        "id": "one",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "seen", "path": "/payload/seen", "expected": True}],
    }
    dataset = {"name": "probe", "revision": "1", "suites": [{"name": "s", "workflow": "probe",
                                                            "cases": [case]}]}  # fmt: skip
    (root / "evaluation" / "dataset.json").write_text(json.dumps(dataset), "utf-8")
    return root


def _plain(text: str, root: Path) -> str:
    return re.sub(r"\d+\.\d+ s\b", "… s", text.replace(str(root), "."))  # durations vary


def _run(
    start: Callable[..., subprocess.Popen[str]], root: Path, **options: Any
) -> tuple[dict[str, Any], dict[str, Any], tuple[int, str, str]]:
    """goldgate evaluate of the probe, started by ``start``, from ``root`` (given as ``.``
    in what it printed): the probe's facts, the extras, and the exit code and output."""
    env = cli_env({"TMPDIR": str(root)})
    env.update(options.pop("env", {}))
    process = start(
        [*GOLDGATE, "evaluate", "--output", "report.json"], cwd=root, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, **options,
    )  # fmt: skip
    stdout, stderr = process.communicate(timeout=120)
    assert (root / "facts.json").is_file(), stdout + stderr
    probe = json.loads((root / "facts.json").read_text("utf-8"))
    said = (process.returncode, *(_plain(text, root) for text in (stdout, stderr)))
    facts = json.loads(re.sub(r"\.goldgate-\w+\.tmp", ".goldgate-….tmp",
                              json.dumps(probe["facts"]).replace(str(root), ".")))  # fmt: skip
    goldgate = facts.pop("goldgate")  # its pid and groups, as they relate
    facts["goldgate"] = {
        "the test's child": goldgate["ppid"] == os.getpid(),
        "leads its session": goldgate["session"] == goldgate["pid"],
        "leads its group": goldgate["group"] == goldgate["pid"],
    }
    return facts, probe["extra"], said


@contextlib.contextmanager
def _ignoring_sigusr1() -> Iterator[None]:
    previous = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, previous)


@contextlib.contextmanager
def _fewer_open_files() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 512), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


VARIANTS = {
    "as-the-tests-run-it": ({}, contextlib.nullcontext),
    "read-as-the-interpreter-starts": ({"PYTHONIOENCODING": "latin-1"}, contextlib.nullcontext),
    "read-as-typer-is-imported": ({"TYPER_USE_RICH": "0"}, contextlib.nullcontext),
    "a-signal-ignored-here": ({}, _ignoring_sigusr1),
    "a-lower-limit-here": ({}, _fewer_open_files),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_goldgate_forked_is_what_a_real_start_makes(tmp_path: Path, variant: str) -> None:
    """Also where the environment holds variables read as the interpreter starts or as the
    libraries are imported, or this process ignores a signal or has lowered a limit that a
    new process inherits: a server started in that state forks it."""
    env, state = VARIANTS[variant]
    with forkserver.private_servers(), state():
        real, real_extra, real_said = _run(subprocess.Popen, _project(tmp_path / "real"), env=env)
        forked, extra, said = _run(forkserver.Popen, _project(tmp_path / "forked"), env=env)
        _, again, _ = _run(forkserver.Popen, _project(tmp_path / "again"), env=env)

    assert (real_extra["forked"], extra["forked"], again["forked"]) == (False, True, True)
    assert said == real_said
    assert said[0] == 0, said
    # The server imported the libraries and goldgate's modules before the process asked for
    # them: each module a real start loaded holds the same values in the forked process.
    preloaded = set(forked.pop("modules")) - set(real.pop("modules"))
    assert "goldgate.app.evals" in preloaded  # this command does not import it
    real_values, forked_values = real.pop("goldgate_values"), forked.pop("goldgate_values")
    assert len(real_values) > 50
    assert {name: forked_values[name] for name in real_values} == real_values
    assert forked == real
    assert set(real["goldgate"].values()) == {True}
    assert real["goldgate_name"] == "goldgate"
    assert extra["random"] != again["random"]  # each process seeds its own


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [{"preexec_fn": lambda: None}, {"close_fds": False}, {"pass_fds": [0]}],
    ids=["preexec_fn", "close_fds", "pass_fds"],
)
def test_what_the_server_cannot_give_is_a_real_start(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    with forkserver.private_servers() as servers:
        _, extra, said = _run(forkserver.Popen, _project(tmp_path), **options)

        assert said[0] == 0, said
        assert extra["forked"] is False
        assert servers == []


@pytest.mark.slow
def test_the_least_recently_used_server_makes_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forkserver, "_MAX_SERVERS", 2)
    with forkserver.private_servers() as servers:
        for name, env in [("a", {}), ("b", {"LC_ALL": "C.UTF-8"}), ("c", {})]:
            _, extra, _ = _run(forkserver.Popen, _project(tmp_path / name), env=env)
            assert extra["forked"] is True
        first = [server.startup.get("LC_ALL") for server in servers]
        _run(forkserver.Popen, _project(tmp_path / "d"), env={"LC_ALL": "C"})
        second = [server.startup.get("LC_ALL") for server in servers]

    assert first == ["C.UTF-8", None]  # the one used last, last
    assert second == [None, "C"]


@pytest.mark.slow
def test_the_switch_turns_the_server_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forkserver.SWITCH, "0")

    with forkserver.private_servers() as servers:
        _, extra, _ = _run(forkserver.Popen, _project(tmp_path))

        assert extra["forked"] is False
        assert servers == []


def test_a_guard_over_process_starts_sees_a_forked_start(tmp_path: Path) -> None:
    guard = slow.Guard()
    guard.install()
    try:
        with guard.running("probe"), pytest.raises(slow.SlowInFastRun):
            forkserver.Popen([*GOLDGATE, "--version"], cwd=tmp_path, stdout=subprocess.PIPE)
    finally:
        guard.uninstall()
    assert guard.refused["probe"]


@pytest.mark.slow
def test_run_is_subprocess_run_through_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``forkserver.run``: what ``subprocess.run`` gives (output captured, the exit code, a
    timeout that stops the process), the console script forked by a server."""
    started: list[int | None] = []
    start = forkserver._Server.start

    def counted(server: Any, request: dict[str, Any], streams: list[int]) -> int | None:
        started.append(start(server, request, streams))
        return started[-1]

    monkeypatch.setattr(forkserver._Server, "start", counted)
    command = [*GOLDGATE, "--version"]
    done = forkserver.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    [pid] = started  # forked by a server (this worker's)
    assert pid is not None
    assert (done.args, done.returncode, done.stderr) == (command, 0, "")
    assert done.stdout.startswith("goldgate ")
    failed = forkserver.run([sys.executable, "-c", "raise SystemExit(3)"], capture_output=True)
    assert (failed.returncode, failed.stdout, failed.stderr) == (3, b"", b"")
    with pytest.raises(subprocess.TimeoutExpired):
        forkserver.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
