"""The action's world: a baseline report of the example (built once per session), a fake
GitHub on loopback that serves it as the merge-base commit's artifact, a workspace holding a
candidate copy of the example, and the runner's files and variables; and, for the tests of
the xdist group "docker" (one worker), one private dockerd and the action's image built in it,
shared by every module that asks (engine.py)."""

from __future__ import annotations

import copy
import fcntl
import io
import json
import os
import signal
import subprocess
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from compare.conftest import BASELINE_EDITS, CANDIDATE_EDITS, evaluate, example_copy
from goldgate.app.action.isolation import HIDDEN_FROM_TARGETS, TOKENS_FD
from helpers import forkserver
from helpers.fake_github import TOKEN, FakeGitHub
from run.support import GOLDGATE, CliRun, cli_env, run_cli

if TYPE_CHECKING:
    from .engine import Engine

EVENTS = Path(__file__).resolve().parents[2] / "oracles" / "github_events"
OPENED = EVENTS / "pull_request_opened.payload.json"
MERGE_BASE = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
SECRET = "sk-planted-Secret-Value-0123456789"
ARTIFACT = "goldgate-baseline"


FORK_OWNER, FORK_NAME = "someone", "hello-world-fork"
FORK = f"{FORK_OWNER}/{FORK_NAME}"


@pytest.fixture(scope="session")
def payload() -> dict[str, Any]:
    value: dict[str, Any] = json.loads(OPENED.read_text("utf-8"))
    return value


def from_fork(payload: dict[str, Any]) -> dict[str, Any]:
    """The pull request event with its head in a fork."""
    forked = copy.deepcopy(payload)
    head = forked["pull_request"]["head"]
    head["repo"].update(full_name=FORK, name=FORK_NAME, fork=True, id=700000001)
    head["label"] = f"{FORK_OWNER}:{head['ref']}"
    return forked


def labeled(payload: dict[str, Any], name: str) -> dict[str, Any]:
    """The pull request event of someone adding the label ``name`` (``action: labeled``)."""
    event = copy.deepcopy(payload)
    (shape, *_) = event["pull_request"]["labels"]
    label = {
        **shape,
        "id": 5_000_000_001,
        "node_id": "LA_kwDOgoldgate",
        "url": f"{event['repository']['url']}/labels/{name}",
        "name": name,
        "color": "fbca04",
        "default": False,
        "description": None,
    }
    event.update(action="labeled", label=label)
    event["pull_request"]["labels"].append(label)
    return event


def made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``make`` fills, made once for the whole run: by the first test
    process that asks, in the folder the xdist workers' temporary folders share (this
    process's own without xdist), while the others wait on a lock; then only read. What
    ``make`` fails on fails the test that asked, and the next one to ask tries again."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            partial = root / f".{name}-{os.getpid()}"
            partial.mkdir()
            make(partial)
            partial.rename(folder)
    return folder


@pytest.fixture(scope="session")
def baseline_zip(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The baseline's artifact (``report_zip``), evaluated once for the whole run
    (``made_once``: each xdist worker evaluated it before)."""

    def make(folder: Path) -> None:
        work = tmp_path_factory.mktemp("action-baseline")
        root = example_copy(work / "baseline", BASELINE_EDITS)
        report = evaluate(root, work / "baseline.json", "--variant-revision", "base")
        (folder / "baseline.zip").write_bytes(report_zip(report))

    return (made_once(tmp_path_factory, "action-baseline-zip", make) / "baseline.zip").read_bytes()


def report_zip(report: Path) -> bytes:
    """The artifact baseline.yml uploads: a zip of ``report`` as ``goldgate-report.json``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("goldgate-report.json", report.read_bytes())
    return buffer.getvalue()


@dataclass
class Runner:
    """One job: a workspace, the runner's files, and ``goldgate action`` run in it."""

    workspace: Path
    fake: FakeGitHub
    event_path: Path
    output: Path
    summary: Path
    pr_number: int

    def env(self, **inputs: str) -> dict[str, str]:
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(self.event_path),
            "GITHUB_REPOSITORY": self.fake.repository,
            "GITHUB_SHA": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            "GITHUB_API_URL": self.fake.base_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_WORKFLOW": "goldgate",
            "GITHUB_JOB": "gate",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_TOKEN": TOKEN,
            "INPUT_GITHUB_TOKEN": TOKEN,
            "ACTIONS_RUNTIME_TOKEN": "actions-runtime-" + SECRET,
            "OPENAI_API_KEY": SECRET,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "HTTP_PROXY": "",
            "HTTPS_PROXY": "",
            "http_proxy": "",
            "https_proxy": "",
            "INPUT_BASELINE": f"artifact:{ARTIFACT}",
            "INPUT_JUNIT": "goldgate-junit.xml",
        }
        env.update({f"INPUT_{key.upper()}": value for key, value in inputs.items()})
        return env

    tokens_in_environment = False
    """Whether ``run`` starts ``goldgate action`` as the runner does, the tokens in its
    environment (so that it starts again without them: ``hold_tokens_apart``), rather than
    as the program it starts again (``start_action``)."""

    def run(self, *options: str, **inputs: str) -> CliRun:
        self.output.write_text("", "utf-8")
        self.summary.write_text("", "utf-8")
        if self.tokens_in_environment:
            return run_cli(
                "action", *options, cwd=self.workspace, env=self.env(**inputs), timeout=180
            )
        return finished(start_action(self.workspace, self.env(**inputs), *options), 180)

    def outputs(self) -> dict[str, str]:
        return parse_outputs(self.output.read_text("utf-8"))


def start_action(workspace: Path, env: dict[str, str], *options: str) -> subprocess.Popen[str]:
    """``goldgate action`` as ``hold_tokens_apart`` starts it again: the GitHub and Actions
    tokens of ``env`` wait in a descriptor (its standard input here), named by
    ``GOLDGATE_ACTION_TOKENS_FD``, and are in no environment. Started so, it is forked from
    the tests' fork server with its modules imported (``helpers.forkserver``); started with
    them in its environment, it executes a new interpreter at once, which imports them all
    again (about 0.8 CPU-s a run). That start, and that no environment block ever holds a
    token, are the claims of test_action_user_code.py, test_action_seal.py (the composite
    steps) and test_action.py's gated pull request (``Runner.tokens_in_environment``)."""
    env = dict(env)
    held = {name: env.pop(name) for name in HIDDEN_FROM_TARGETS if name in env}
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb") as writer:  # small: within the pipe's buffer
            writer.write(json.dumps(held).encode("utf-8"))
        env[TOKENS_FD] = "0"
        return forkserver.Popen(
            [*GOLDGATE, "action", *options],
            cwd=workspace,
            env=cli_env(env),
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    finally:
        os.close(read_end)


def finished(process: subprocess.Popen[str], timeout: float) -> CliRun:
    """The result of ``process`` (``start_action``), run to its end (its group killed when
    it has not ended in ``timeout`` seconds, and the test failed)."""
    with process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"goldgate action ran over {timeout} s:\n{process.communicate()[1]}")
    return CliRun(process.returncode, stdout, stderr)


def parse_outputs(text: str) -> dict[str, str]:
    """``name<<DELIMITER`` blocks and ``name=value`` lines, as the runner reads
    ``GITHUB_OUTPUT`` and ``GITHUB_ENV``."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "=" in line and ("<<" not in line or line.index("=") < line.index("<<")):
            name, _, value = line.partition("=")
            values[name] = value
            continue
        name, _, delimiter = line.partition("<<")
        body = []
        for inner in lines:
            if inner == delimiter:
                break
            body.append(inner)
        values[name] = "\n".join(body)
    return values


R = TypeVar("R", bound="Runner")


def make_runner(
    tmp_path: Path,
    fake: FakeGitHub,
    payload: dict[str, Any],
    baseline_zip: bytes,
    kind: Callable[..., R] = Runner,
    *,
    edits: dict[str, list[tuple[str, str]]] = CANDIDATE_EDITS,
    artifact: str = ARTIFACT,
    **extra: Any,
) -> R:
    """A job laid out as a runner lays it out (the folders it mounts into a Docker action's
    container: the workspace, ``_github_workflow`` with the event, ``_runner_file_commands``
    with the output and summary files), of ``kind`` (a Runner; ``extra`` are its own
    fields): a copy of the example with ``edits``, the merge-base commit's artifact
    ``artifact`` holding ``baseline_zip``."""
    pull = payload["pull_request"]
    fake.set_merge_base(pull["base"]["sha"], pull["head"]["sha"], MERGE_BASE)
    fake.add_artifact(artifact, head_sha=MERGE_BASE, head_branch="master", zip_bytes=baseline_zip)
    workspace = example_copy(tmp_path / "workspace", edits)
    (tmp_path / "_github_workflow").mkdir()
    (tmp_path / "_runner_file_commands").mkdir()
    event_path = tmp_path / "_github_workflow" / "event.json"
    event_path.write_text(json.dumps(payload), "utf-8")
    return kind(
        workspace,
        fake,
        event_path,
        tmp_path / "_runner_file_commands" / "set_output",
        tmp_path / "_runner_file_commands" / "step_summary",
        int(payload["number"]),
        **extra,
    )


def event_github(payload: dict[str, Any], **options: Any) -> FakeGitHub:
    """A fake GitHub (not started) of the event's repository, whose default branch is the
    payload's ``master``; ``options`` are FakeGitHub's own (a token, a login)."""
    repository = payload["repository"]["full_name"]
    return FakeGitHub(repository=repository, default_branch="master", **options)


@pytest.fixture
def fake(payload: dict[str, Any]) -> Iterator[FakeGitHub]:
    with event_github(payload) as server:
        yield server


@pytest.fixture
def runner(
    tmp_path: Path, fake: FakeGitHub, payload: dict[str, Any], baseline_zip: bytes
) -> Runner:
    return make_runner(tmp_path, fake, payload, baseline_zip)


@pytest.fixture(scope="session")
def candidate(
    tmp_path_factory: pytest.TempPathFactory, payload: dict[str, Any], baseline_zip: bytes
) -> tuple[str, bytes]:
    """The action's report of the candidate (it disagrees with its gold: exit 1), made once
    for the whole run (``made_once``; it was once a module, four times a run): where it is
    saved in the workspace, and its bytes."""

    def make(folder: Path) -> None:
        with event_github(payload) as fake:
            work = tmp_path_factory.mktemp("candidate")
            runner = make_runner(work, fake, payload, baseline_zip)
            first = runner.run(baseline="", comment="off")
            saved = runner.outputs()["report"]
        assert first.code == 1, first.stderr
        assert not Path(saved).is_absolute(), saved
        (folder / "saved").write_text(saved, "utf-8")
        (folder / "report").write_bytes((runner.workspace / saved).read_bytes())

    folder = made_once(tmp_path_factory, "action-candidate", make)
    return (folder / "saved").read_text("utf-8"), (folder / "report").read_bytes()


def saved_candidate(runner: Runner, candidate: tuple[str, bytes]) -> tuple[str, dict[str, Any]]:
    """The candidate's report, saved in this job's workspace where the action saved it."""
    saved, data = candidate
    path = runner.workspace / saved
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return saved, json.loads(data)


HERE_MODES = ("report", "compare")
"""The modes ``run_here`` runs: those that run no user code."""


@pytest.fixture
def run_here(run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``goldgate action`` run in this process (the console script's entry point, as
    ``run_cli``), in the job of ``runner`` with ``inputs``, for a mode that runs no user code
    (``HERE_MODES``): for the claims on the step's outputs, summary and requests, where no
    process of its own is asked for (a real one costs about a CPU-second: its start, the
    libraries it imports, the verification of each report it reads, which this process does
    once per report). What it changes here is put back: the environment, the working folder,
    the signal handlers and the secret values it noted."""
    from goldgate.base import textsafe

    def run(runner: Runner, *options: str, **inputs: str) -> Any:
        assert inputs.get("mode") in HERE_MODES, inputs
        runner.output.write_text("", "utf-8")
        runner.summary.write_text("", "utf-8")
        handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
        with monkeypatch.context() as patch:
            for name in ("_secret_variables", "_secret_values"):
                patch.setattr(textsafe, name, list(getattr(textsafe, name)))
            patch.setattr(textsafe, "_active_from", None)
            for key, value in runner.env(**inputs).items():
                patch.setenv(key, value)
            try:
                return run_cli("action", *options, cwd=runner.workspace)
            finally:
                for number, handler in handlers.items():
                    signal.signal(number, handler)

    return run


# engine.py imports this module (Runner): it is imported where the fixtures run.


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    """A private dockerd for the session (skips, saying why, where none can start)."""
    from .engine import private_engine

    with private_engine() as running:
        yield running


@pytest.fixture(scope="session")
def image(engine: Engine) -> str:
    """The action's image, built once in ``engine`` from the repository's Dockerfile."""
    from .engine import build_image

    return build_image(engine, "goldgate-action:test")
