"""Issue 39 item 1, through action.yml's own steps run as real processes
(``composite.Composite``): the publishing step runs no user code and trusts nothing the run
step's user code could write. A hostile application's target plants a ``PYTHONPATH``,
``BASH_ENV`` and ``PYTHONSTARTUP`` in ``GITHUB_ENV``, a folder of fake tools in
``GITHUB_PATH``, a forged "passed" in the job summary and an output, a ``.pyc`` of
goldgate's, and leaves a double-forked ``setsid()`` daemon that hunts for the token and
rewrites the hand-off; or it changes a ``.pth`` file, ``sitecustomize`` or one of goldgate's
files. The bytecode the seal step found is read by the prepare and publishing steps only
while nothing changed it (``_job_bytecode``)."""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.fake_github import TOKEN
from run.support import run_cli

from .composite import RUNNER_PATH, Composite, job_python, listing_functions
from .conftest import SECRET, Runner

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the seal needs Linux"),
]

HOSTILE = """\
import importlib._bootstrap_external as external
import importlib.util
import os
import sys
import sysconfig
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = os.path.join(HERE, "ran-planted")
TAMPER = {tamper!r}
FILES = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")


def _ancestors_env():
    found, pid = {{}}, os.getpid()
    for _ in range(8):
        try:
            with open(f"/proc/{{pid}}/environ", "rb") as handle:
                for entry in handle.read().split(b"\\0"):
                    key, _, value = entry.partition(b"=")
                    if key.decode() in FILES and value:
                        found.setdefault(key.decode(), value.decode())
            with open(f"/proc/{{pid}}/stat") as stat:
                pid = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError):
            break
        if pid <= 1:
            break
    return found


def _append(path, text):
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def _write(path, text, mode=0o644):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, mode)


def _plant(files):
    planted = os.path.join(HERE, "planted")
    os.makedirs(os.path.join(planted, "bin"), exist_ok=True)
    line = f"open({{MARKER!r}}, 'a').write('py\\\\n')\\n"
    _write(os.path.join(planted, "sitecustomize.py"), line)
    _write(os.path.join(planted, "bash_env.sh"), f"echo bash_env >> {{MARKER}}\\n")
    for tool in ("bash", "python3", "env", "find", "sha256sum", "mktemp", "sort"):
        script = f"#!/bin/sh\\necho {{tool}} >> {{MARKER}}\\n"
        _write(os.path.join(planted, "bin", tool), script, 0o755)
    if "GITHUB_ENV" in files:
        _append(
            files["GITHUB_ENV"],
            f"PYTHONPATH={{planted}}\\nBASH_ENV={{planted}}/bash_env.sh\\n"
            f"PYTHONSTARTUP={{planted}}/sitecustomize.py\\n",
        )
    if "GITHUB_PATH" in files:
        _append(files["GITHUB_PATH"], f"{{planted}}/bin\\n")
    if "GITHUB_STEP_SUMMARY" in files:
        _append(files["GITHUB_STEP_SUMMARY"], "## ✅ goldgate: passed\\n")
    if "GITHUB_OUTPUT" in files:
        _append(files["GITHUB_OUTPUT"], "forged=1\\n")


def _replace(files):
    # The runner's files replaced: a FIFO (reading it would block), a symlink to a file of
    # planted lines, a folder.
    planted = os.path.join(HERE, "planted-lines")
    _write(planted, f"BASH_ENV={{HERE}}/planted/bash_env.sh\\n{{HERE}}/planted/bin\\n")
    hows = (("GITHUB_ENV", "fifo"), ("GITHUB_PATH", "link"), ("GITHUB_OUTPUT", "dir"))
    for name, how in hows:
        if name not in files:
            continue
        os.unlink(files[name])
        if how == "fifo":
            os.mkfifo(files[name])
        elif how == "link":
            os.symlink(planted, files[name])
        else:
            os.mkdir(files[name])


def _tamper():
    purelib = sysconfig.get_path("purelib")
    line = f"open({{MARKER!r}}, 'a').write('tampered\\\\n')\\n"
    if TAMPER == "pth":
        _write(os.path.join(purelib, "zz-planted.pth"), "import os; " + line)
    elif TAMPER == "sitecustomize":
        _write(os.path.join(purelib, "sitecustomize.py"), line)
    elif TAMPER == "goldgate":
        _append(os.path.join(purelib, "goldgate", "cli.py"), line)
    elif TAMPER == "baseline+event":
        _write("base.json", "[]")
        with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as handle:
            event = handle.read()
        _write(os.environ["GITHUB_EVENT_PATH"], event.replace('"number": 2', '"number": 3'))


def _pyc():
    # goldgate's own __init__ compiled with one more line, into the __pycache__ file a plain
    # import reads (it matches the source's time and size), in a Python made for this test.
    if not os.path.realpath(sys.prefix).startswith(os.path.dirname(os.path.dirname(HERE))):
        return
    source = os.path.join(sysconfig.get_path("purelib"), "goldgate", "__init__.py")
    with open(source, "rb") as handle:
        text = handle.read() + b"\\nopen(" + repr(MARKER).encode() + b", 'a').write('pyc')\\n"
    info = os.stat(source)
    code = compile(text, source, "exec")
    data = external._code_to_timestamp_pyc(code, int(info.st_mtime), info.st_size)
    cached = importlib.util.cache_from_source(source)
    os.makedirs(os.path.dirname(cached), exist_ok=True)
    with open(cached, "wb") as handle:
        handle.write(data)


def _daemon(files):
    if os.fork() > 0:
        return
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    _write(os.path.join(HERE, "daemon.pid"), str(os.getpid()))
    until = time.monotonic() + 90
    while time.monotonic() < until:
        for name in os.listdir("/proc"):
            try:  # goldgate's processes in this workspace (the machine runs other tests)
                if os.readlink(f"/proc/{{name}}/cwd") != os.getcwd():
                    continue
                with open(f"/proc/{{name}}/environ", "rb") as handle:
                    entries = handle.read().split(b"\\0")
            except OSError:
                continue
            for entry in entries:
                key, _, value = entry.partition(b"=")
                if key == b"INPUT_GITHUB_TOKEN" and value:
                    _write(os.path.join(HERE, "stolen"), value.decode())
        handoff = os.path.join(".goldgate", "action", "run.json")
        if os.path.exists(handoff):
            _write(handoff, '{{"format": "goldgate.action-run/2", "ran": true, "code": 0}}')
        if "GITHUB_STEP_SUMMARY" in files:
            _append(files["GITHUB_STEP_SUMMARY"], "## ✅ goldgate: passed\\n")
        time.sleep(0.05)
    os._exit(0)


def _chain():
    # A process that forks and ends in a loop, each one in a session of its own: at any
    # moment its newest member has just been born, after any listing of the processes.
    if os.fork() > 0:
        return
    until, count = time.monotonic() + 60, 0
    while time.monotonic() < until:
        if os.fork() > 0:
            os._exit(0)
        os.setsid()
        count += 1
        if count % 20 == 1:  # whole or not at all, killed at any moment
            where = os.path.join(HERE, "chain.pid")
            _write(f"{{where}}.{{os.getpid()}}", str(os.getpid()))
            os.replace(f"{{where}}.{{os.getpid()}}", where)
    os._exit(0)


def handle(request):
    files = _ancestors_env()
    _write(os.path.join(HERE, "found"), "\\n".join(sorted(files)))
    _plant(files)
    if TAMPER == "replace":
        _replace(files)
    _tamper()
    if TAMPER is None:
        _pyc()
    _daemon(files)
    _chain()
    time.sleep(0.5)
    return {{"execution": {{"status": "completed"}}, "payload": {{"category": "shipping"}}}}
"""

SETTINGS = """\
workflows:
  hostile:
    revision: "1"
    target:
      python: hostile_app:handle
"""


LIVE_WORKFLOW = """\
  hostile_live:
    revision: "1"
    live: true
    credentials: [OPENAI_API_KEY]
    target:
      python: hostile_app:handle
"""
"""A live workflow (no suite runs it) naming the runner's OPENAI_API_KEY as its credential."""


def _hostile_project(root: Path, tamper: str | None, live: bool = False) -> Path:
    (root / "config").mkdir(parents=True)
    (root / "evaluation").mkdir()
    (root / "hostile_app.py").write_text(HOSTILE.format(tamper=tamper), "utf-8")
    settings = SETTINGS + (LIVE_WORKFLOW if live else "")
    (root / "config" / "settings.yaml").write_text(settings, "utf-8")
    case = {
        "id": "answers-wrong",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "category", "path": "/payload/category", "expected": "billing"}],
    }
    dataset = {
        "name": "hostile",
        "revision": "1",
        "suites": [{"name": "hostile", "workflow": "hostile", "cases": [case]}],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(dataset), "utf-8")
    return root / "config" / "settings.yaml"


def _job(runner: Runner, tmp_path: Path, python: Path | None = None) -> Composite:
    env = {
        key: value
        for key, value in runner.env().items()
        if not key.startswith("INPUT_")
        and key not in ("GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
    }
    (tmp_path / "runner-temp").mkdir()
    env.update(
        PATH=RUNNER_PATH,
        HOME=str(tmp_path),
        GITHUB_WORKSPACE=str(runner.workspace),
        RUNNER_TEMP=str(tmp_path / "runner-temp"),
    )
    python = job_python(tmp_path / "job") if python is None else python
    return Composite(runner.workspace, tmp_path / "runner", python, env)


def _inputs(runner: Runner, tamper: str | None, live: bool = False) -> dict[str, str]:
    config = _hostile_project(runner.workspace / "hostile", tamper, live)
    return {
        "config": str(config.relative_to(runner.workspace)),
        "baseline": "",
        "github_token": TOKEN,
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return stat.read().rpartition(b")")[2].split()[0] != b"Z"


def _job_bytecode(python: Path, read: Path) -> None:
    """The job's own bytecode, there before the seal step as an install leaves it: goldgate's
    ``__init__`` compiled with one line more, which appends the command line of the process
    that reads it (``publish``, ``publish --prepare``) to ``read``, into the ``__pycache__``
    file a plain import reads (it matches the source's time and size)."""
    [source] = (python.parent.parent / "lib").glob("python3*/site-packages/goldgate/__init__.py")
    line = f"\nimport sys; open({str(read)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.write_bytes(_compiled(source, source.read_text("utf-8") + line))


def _compiled(source: Path, text: str) -> bytes:
    """A .pyc of ``text`` that a plain import takes for ``source``'s: its header holds the
    source's time and size."""
    info = source.stat()
    header = [0, int(info.st_mtime) & 0xFFFFFFFF, info.st_size & 0xFFFFFFFF]
    data = b"".join(number.to_bytes(4, "little") for number in header)
    return importlib.util.MAGIC_NUMBER + data + marshal.dumps(compile(text, str(source), "exec"))


def _readers(read: Path) -> list[str]:
    """The goldgate steps that read the job's bytecode (``_job_bytecode``), in order."""
    lines = read.read_text("utf-8").splitlines() if read.exists() else []
    return [line for line in lines if line.startswith("publish")]


def _editable_source(runner: Runner, python: Path) -> Path:
    """A folder of the workspace that a ``.pth`` of the job's Python adds to its path (an
    editable install's), holding a package ``org`` that the standard library's ``copy``
    imports if it can (Jython's): a pull request's code, which no step holding the token may
    import. What imports it appends its command line to the file returned."""
    folder = runner.workspace / "editable"
    (folder / "org").mkdir(parents=True)
    imported = runner.workspace / "org-imported"
    line = f"import sys; open({str(imported)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
    (folder / "org" / "__init__.py").write_text(line, "utf-8")
    [purelib] = (python.parent.parent / "lib").glob("python3*/site-packages")
    (purelib / "zz-editable.pth").write_text(f"{folder}\n", "utf-8")
    return imported


def _workspace_python(runner: Runner) -> Path:
    """A venv made in the workspace (``python: .venv/bin/python``): its own folders are sealed,
    though the workspace's other folders are not on its path."""
    return job_python(runner.workspace / ".venv")


@pytest.mark.parametrize(
    ("replace", "in_workspace"), [(None, False), ("replace", True)], ids=["append", "replace"]
)
def test_what_user_code_plants_or_leaves_running_never_reaches_publishing(
    runner: Runner, tmp_path: Path, replace: str | None, in_workspace: bool
) -> None:
    """Lines appended to the runner's files, or the files replaced (by a FIFO, a symlink, a
    folder): they hold what they held before user code ran, as regular files. The replacing
    run's Python is a venv in the workspace (``_workspace_python``), which is sealed and
    publishes too (one composite run for both claims).

    The job's own bytecode (``_job_bytecode``): the appending run's target overwrites it with
    a .pyc of its own, which neither that run's publishing step nor a later goldgate step of
    the job reads; the replacing run's target leaves it, and its prepare and publishing steps
    read it, as they import nothing from the workspace (``_editable_source``)."""
    job = _job(runner, tmp_path, _workspace_python(runner) if in_workspace else None)
    read = tmp_path / "read-bytecode"
    _job_bytecode(job.python, read)
    imported = _editable_source(runner, job.python) if in_workspace else None
    inputs = {**_inputs(runner, replace), "check_run": "true" if in_workspace else "false"}
    steps = job.run(inputs)
    hostile = runner.workspace / "hostile"

    run = steps["run"]
    assert run.code == 0, run.stderr
    # The daemon is gone as soon as the run step is, whatever session it moved to.
    pid = int((hostile / "daemon.pid").read_text("utf-8"))
    assert not _alive(pid)
    # So is a process that forks and ends in a loop, a new session each time.
    chain = (hostile / "chain.pid").read_text("utf-8")
    time.sleep(0.3)
    assert (hostile / "chain.pid").read_text("utf-8") == chain
    assert not _alive(int(chain))
    # The runner's files hold only what goldgate wrote.
    assert set(run.outputs) == {"handoff", "handoff_digest", "credentials"}
    assert run.summary == ""
    assert [name for name in job.added_env if not name.startswith("GOLDGATE_JOB_")] == []
    assert job.added_path == []
    # The publishing step published the real verdict, and nothing planted ran.
    publish = steps["publish"]
    assert publish.code == 1, publish.stdout + publish.stderr
    assert publish.outputs["exit_code"] == "1"
    assert "Traceback" not in publish.stderr
    assert publish.summary.startswith("## ❌"), publish.summary[:200]
    assert "✅" not in publish.summary
    assert (hostile / "planted" / "sitecustomize.py").is_file()  # it did plant them
    found = (hostile / "found").read_text("utf-8").split()
    assert found == ["GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"]
    assert not (hostile / "ran-planted").exists()
    assert not (hostile / "stolen").exists()
    # Its publishing step found the Python as sealed: a later goldgate step of the job runs,
    # whatever the job's own steps do to the Python in between.
    assert job.added_env["GOLDGATE_JOB_SEAL"] == ""
    assert steps["seal"].outputs["bytecode"]
    if in_workspace:
        # Nothing changed the job's bytecode: the prepare and publishing steps read it, and
        # import nothing from the workspace (the run step's goldgate and user code did).
        assert _readers(read) == ["publish --prepare", "publish"]
        assert "action --run-only" in read.read_text("utf-8").splitlines()  # before user code
        assert "::debug::goldgate's Python reads the bytecode" in publish.stdout
        assert "GOLDGATE_JOB_BYTECODE" not in job.added_env
        assert imported is not None
        importers = imported.read_text("utf-8").splitlines()
        assert "action --run-only" in importers
        assert not [line for line in importers if line.startswith("publish")]
        # A later goldgate step after one whose publishing step did not run (so
        # GOLDGATE_JOB_SEAL is still set) and whose user code rewrote bytecode alone: its
        # install step lists the files but the bytecode and goes on; its seal trusts none.
        sealed = steps["seal"].outputs
        job.added_env["GOLDGATE_JOB_SEAL"] = f"{sealed['digest']}\n{sealed['watched']}"
        _job_bytecode(job.python, read)
        for name, step in job.run(inputs, until="seal").items():
            assert not step.skipped, name
            assert step.code == 0, (name, step.stdout + step.stderr)
        assert job.steps["seal"].outputs["bytecode"] == ""
        assert job.added_env["GOLDGATE_JOB_BYTECODE"] == "untrusted"
        return
    # The target overwrote it (planted or changed: the same to the listing): none is read,
    # and the job is marked.
    assert _readers(read) == []
    assert "::debug::goldgate's Python reads no bytecode" in publish.stdout
    assert job.added_env["GOLDGATE_JOB_BYTECODE"] == "changed"
    purelib = next((job.python.parent.parent / "lib").glob("python3*/site-packages"))
    (purelib / "zz-a-job-step.pth").write_text("\n", "utf-8")
    # A later goldgate step of the job: its seal lists the .pyc the target planted for
    # goldgate as it is, but trusts no bytecode, so its prepare and publishing steps (a check
    # run created, then completed with no hand-off) read none (nor did the one above).
    again = job.run({**inputs, "check_run": "true", "comment_id": "goldgate-evals"}, "prepare")
    for name, step in again.items():
        assert not step.skipped, name
        assert step.code == 0, (name, step.stdout + step.stderr)
    assert again["seal"].outputs["bytecode"] == ""
    publish = job.run_step("publish")
    assert not publish.skipped
    assert "Traceback" not in publish.stderr
    assert not (hostile / "ran-planted").exists()
    assert "::debug::goldgate's Python reads no bytecode" in publish.stdout


def _rewrite_handoff(workspace: Path) -> None:
    path = workspace / ".goldgate" / "action" / "run.json"
    left = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**left, "code": 0}), "utf-8")


def _rewrite_report(workspace: Path) -> None:
    path = workspace / json.loads((workspace / ".goldgate/action/run.json").read_text())["report"]
    path.write_text(path.read_text("utf-8").replace('"billing"', '"shipping"'), "utf-8")


def test_publishing_refuses_a_changed_hand_off_or_report_and_runs_nothing_slipped_in(
    runner: Runner, tmp_path: Path
) -> None:
    """After one run step: a hand-off or a report changed after it is refused (exit 2, one
    error, no request with the token), each change undone before the next; and were the
    run step's GITHUB_ENV and GITHUB_PATH not put back, the publishing step would still read
    no BASH_ENV, run no fake tool and import nothing from a PYTHONPATH. (One run step for
    the three: each publishing step reads the files the run step left, and a refused one
    changes nothing.) Its clean environment still keeps the variables the settings' live
    workflows name as credentials (the run step's output ``credentials``, read before user
    code ran): the last publishing step masks their values."""
    job = _job(runner, tmp_path)
    run = job.run(_inputs(runner, None, live=True), until="run")["run"]
    assert run.code == 0, run.stderr
    assert run.outputs["credentials"] == "OPENAI_API_KEY"
    handoff = runner.workspace / ".goldgate" / "action" / "run.json"
    report = runner.workspace / json.loads(handoff.read_text("utf-8"))["report"]
    for change, said in (
        (_rewrite_handoff, "is not the hand-off the run step recorded"),
        (_rewrite_report, "is not the one the run step recorded"),
    ):
        kept = {path: path.read_bytes() for path in (handoff, report)}
        change(runner.workspace)
        assert any(path.read_bytes() != data for path, data in kept.items())
        before = len(runner.fake.requests)

        publish = job.run_step("publish")

        assert publish.code == 2, publish.stdout + publish.stderr
        errors = [line for line in publish.stdout.splitlines() if line.startswith("::error")]
        assert len(errors) == 1, publish.stdout
        assert said in errors[0]
        assert publish.outputs["exit_code"] == "2"
        assert runner.fake.requests[before:] == []
        for path, data in kept.items():
            path.write_bytes(data)

    planted = runner.workspace / "hostile" / "planted"
    job.added_env.update(
        PYTHONPATH=str(planted),
        PYTHONSTARTUP=str(planted / "sitecustomize.py"),
        PYTHONHOME=str(planted),
        BASH_ENV=str(planted / "bash_env.sh"),
        ENV=str(planted / "bash_env.sh"),
    )
    job.added_path.append(str(planted / "bin"))

    publish = job.run_step("publish")

    assert publish.code == 1, publish.stdout + publish.stderr
    assert publish.outputs["exit_code"] == "1"
    assert not (runner.workspace / "hostile" / "ran-planted").exists()
    assert f"::add-mask::{SECRET}" in publish.stdout.splitlines()


@pytest.mark.parametrize("tamper", ["pth", "sitecustomize", "goldgate"])
def test_a_changed_startup_file_or_goldgate_file_stops_publishing(
    runner: Runner, tmp_path: Path, tamper: str
) -> None:
    """The .pth file is planted in a venv in the workspace (``_workspace_python``): its
    folders are sealed too, and a change in them stops publishing as in any other Python."""
    job = _job(runner, tmp_path, _workspace_python(runner) if tamper == "pth" else None)
    before = len(runner.fake.requests)
    inputs = {**_inputs(runner, tamper), "comment": "update"}

    steps = job.run(inputs)

    assert steps["run"].code == 0, steps["run"].stderr
    publish = steps["publish"]
    assert publish.code == 2, publish.stdout + publish.stderr
    errors = [line for line in publish.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, publish.stdout
    assert "changed after the seal step" in errors[0]
    assert errors[0].count(". ") == 0  # one sentence
    assert publish.outputs == {"exit_code": "2"}
    assert "Traceback" not in publish.stderr
    assert runner.fake.requests[before:] == []
    assert not (runner.workspace / "hostile" / "ran-planted").exists()

    # A second goldgate step of the job (examples/workflows/pull-request.yml has two) would
    # seal the Python as the first one's user code left it: its first step refuses before
    # any Python starts, so that none of its steps runs that Python (its prepare step, the
    # check run, holds the token before any user code of its own).
    again = job.run({**inputs, "check_run": "true", "comment_id": "goldgate-evals"})

    install = again["install"]
    assert install.code == 2, install.stdout + install.stderr
    errors = [line for line in install.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, install.stdout
    assert "changed while an earlier goldgate step of this job ran user code" in errors[0]
    assert all(again[name].skipped for name in ("seal", "prepare", "run", "publish"))
    assert runner.fake.requests[before:] == []
    assert not (runner.workspace / "hostile" / "ran-planted").exists()


def test_goldgate_action_in_one_process_seals_user_code_alike(runner: Runner) -> None:
    """The container action's ``goldgate action``: what the target left running is gone when
    it ends, and the summary and outputs hold only what goldgate wrote."""
    env_file = runner.output.with_name("set_env")
    env_file.write_text("", "utf-8")
    inputs = _inputs(runner, None)
    inputs.pop("github_token")
    runner.output.write_text("", "utf-8")
    runner.summary.write_text("", "utf-8")
    env = {**runner.env(**inputs, comment="off"), "GITHUB_ENV": str(env_file)}

    result = run_cli("action", cwd=runner.workspace, env=env, timeout=180)

    assert result.code == 1, result.output
    pid = int((runner.workspace / "hostile" / "daemon.pid").read_text("utf-8"))
    assert not _alive(pid)
    assert env_file.read_text("utf-8") == ""
    assert "forged" not in runner.outputs()
    assert "✅" not in runner.summary.read_text("utf-8")
    assert not (runner.workspace / "hostile" / "stolen").exists()


def test_a_baseline_or_event_file_changed_while_user_code_ran_is_refused(
    runner: Runner, tmp_path: Path
) -> None:
    """The files publishing reads that user code could write: a baseline report in the
    workspace (a worse one hides a regression), the event (another pull request, other
    commits, so another baseline artifact). User code changes both in one run step: the
    publishing step refuses the baseline; that change undone (and the hand-off put back:
    reading it removes it), a publishing step refuses the event. (One run step for the two:
    a refused publishing step changes nothing else.)"""
    baseline = runner.workspace / "base.json"
    baseline.write_text("{}", "utf-8")
    event = runner.event_path.read_text("utf-8")
    job = _job(runner, tmp_path)
    before = len(runner.fake.requests)

    run = job.run({**_inputs(runner, "baseline+event"), "baseline": "base.json"}, until="run")
    assert run["run"].code == 0, run["run"].stderr

    assert baseline.read_text("utf-8") != "{}"  # it did change both
    assert runner.event_path.read_text("utf-8") != event
    handoff = runner.workspace / ".goldgate" / "action" / "run.json"
    left = handoff.read_bytes()
    for said in (
        "the baseline base.json changed while user code ran",
        f"the event file {runner.event_path} changed while user code ran",
    ):
        publish = job.run_step("publish")

        assert publish.code == 2, publish.stdout + publish.stderr
        errors = [line for line in publish.stdout.splitlines() if line.startswith("::error")]
        assert len(errors) == 1, publish.stdout
        assert said in errors[0]
        assert runner.fake.requests[before:] == []
        baseline.write_text("{}", "utf-8")
        handoff.write_bytes(left)


FORMER_LISTING = (
    r"""former() { { find -H "$@" -name __pycache__ -prune -o -type d -printf '%p\t%y\t%i\t%m\n' """
    r"""-o -printf '%p\t%y\t%s\t%T@\t%C@\t%i\t%m\t%l\n' 2>/dev/null || true; } """
    r"""| LC_ALL=C sort; }"""
)
"""The listing of the seal step before it listed the bytecode: it left ``__pycache__`` out."""


def _digests(folder: Path) -> tuple[str, str, str]:
    """The former listing's digest of ``folder``, then the two of the seal step's
    ``digests``: of the listing without the bytecode, of the bytecode's."""
    script = f"{FORMER_LISTING}\n{listing_functions('seal')}\n"
    script += 'former "$1" | sha256sum | cut -d" " -f1\ndigests "$1"\n'
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script, "bash", str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    former, found = done.stdout.splitlines()
    files, _, bytecode = found.partition(" ")
    return former, files, bytecode


def test_the_listing_of_the_bytecode_is_split_off_and_the_files_are_listed_as_before(
    tmp_path: Path,
) -> None:
    """One traversal, two digests: the files' is the digest the seal's listing gave before
    it listed bytecode (what is under a ``__pycache__`` folder, the folder too); the
    bytecode's changes when a .pyc is rewritten, even with its bytes and times put back
    (its time of change, which no one sets, moves), while the files' does not; a link among
    the bytecode (its target is not listed) leaves it empty: none is trusted."""
    package = tmp_path / "site" / "package"
    (package / "__pycache__").mkdir(parents=True)
    (package / "module.py").write_text("x = 1\n", "utf-8")
    (package / "not__pycache__.py").write_text("", "utf-8")  # the word alone is no folder
    pyc = package / "__pycache__" / "module.cpython-311.pyc"
    pyc.write_bytes(b"compiled")

    former, files, bytecode = _digests(tmp_path / "site")

    assert files == former
    assert re.fullmatch("[0-9a-f]{64}", bytecode)
    info = pyc.stat()
    pyc.write_bytes(b"compiled")
    os.utime(pyc, ns=(info.st_atime_ns, info.st_mtime_ns))
    changed = _digests(tmp_path / "site")
    assert changed[1] == files
    assert changed[2] != bytecode
    (package / "__pycache__" / "linked.cpython-311.pyc").symlink_to(tmp_path / "elsewhere")
    assert _digests(tmp_path / "site")[1:] == (files, "")
    (package / "added.py").write_text("", "utf-8")
    assert _digests(tmp_path / "site")[1] != files


SWITCH = """\
import os, sys
from goldgate.app.action.seal import run_sealed

folder, planted, cached = sys.argv[1:]
sys.path.insert(0, folder)
import before


def user_code():
    os.replace(planted, cached)  # a .pyc for a module this process imports later


run_sealed({}, user_code)
import later

print(before.SAID, later.SAID)
"""
"""The run step's goldgate, started ``-I -B`` (its seal trusted the bytecode): it imports a
module, runs user code (``run_sealed``), then imports another."""


def test_the_run_step_reads_no_bytecode_once_user_code_may_run(tmp_path: Path) -> None:
    """Until user code runs, the run step's goldgate reads the bytecode its seal trusted
    (``before``'s, compiled from other text than its source, is read); from then on none:
    a .pyc that user code plants for a module it imports later, matching its source's time
    and size, is not read (``later`` comes from its source)."""
    for name in ("before", "later"):
        source = tmp_path / f"{name}.py"
        source.write_text('SAID = "source"\n', "utf-8")
        cached = Path(importlib.util.cache_from_source(str(source)))
        cached.parent.mkdir(exist_ok=True)
        where = cached if name == "before" else tmp_path / "planted.pyc"
        where.write_bytes(_compiled(source, 'SAID = "bytecode"\n'))
    later = importlib.util.cache_from_source(str(tmp_path / "later.py"))
    planted = str(tmp_path / "planted.pyc")
    command = [sys.executable, "-I", "-B", "-c", SWITCH, str(tmp_path), planted, later]

    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["bytecode", "source"]
    assert Path(later).read_bytes() == _compiled(tmp_path / "later.py", 'SAID = "bytecode"\n')
