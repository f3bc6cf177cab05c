"""A private Docker engine for the container tests, the action's image built in it, and a
job run in that image as a GitHub runner runs a Docker action's step (``ContainerRunner``).

``dockerd`` (Debian's docker.io) is started on a socket, data root and exec root of its own
under a temporary folder, without iptables or a bridge, and stopped afterwards; nothing of
the machine's own Docker, if any, is touched. The image is built from the repository's
Dockerfile on a local base made with ``mmdebstrap`` (no registry is needed), the base tarball
cached under ``.ci/cache/`` (or ``$GOLDGATE_CI_CACHE``) so that later runs skip it. Where any
of that cannot happen (not Linux, not root, a tool missing, the daemon refusing to start),
the tests skip and say why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from run.support import CliRun

from .conftest import Runner
from .support import REPO_ROOT

RUNNER_UID = 1001  # the `runner` user of GitHub-hosted runners, who owns the workspace

# The local base: Debian's Python 3.11 and tini, documentation left out to keep it small.
# Essential packages only (no apt: the Dockerfile needs it only where tini is missing), and
# /usr merged by mmdebstrap's hook rather than by the usrmerge package, which pulls in perl
# (46 MB) and converts the tree in its postinst: 94 packages instead of 121, 107 MB instead
# of 174, 33 CPU-s to make instead of 44 (and less for dockerd to import). Without the hook
# (an mmdebstrap older than 1.1), usrmerge merges it.
SUITE = "bookworm"
MERGED_USR = Path("/usr/share/mmdebstrap/hooks/merged-usr")
MMDEBSTRAP_OPTIONS = (
    "--variant=essential",
    "--include=python3,python3-venv,tini",
    *((f"--hook-dir={MERGED_USR}",) if MERGED_USR.is_dir() else ()),
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-exclude=/usr/share/info/*",
)
_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")


def _which(name: str) -> str | None:
    path = os.pathsep.join([os.environ.get("PATH", ""), *_SBIN])
    return shutil.which(name, path=path)


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@dataclass(frozen=True)
class Engine:
    """A running private ``dockerd`` and the client to reach it."""

    docker: str
    host: str
    root: Path

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(DOCKER_HOST=self.host, DOCKER_BUILDKIT="1", DOCKER_CONFIG=str(self.root))
        return env

    def run(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """``docker ARGS`` to completion; ``env`` is added to the client's environment (where
        ``docker run -e NAME`` takes the values from)."""
        result = subprocess.run(
            [self.docker, *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if check and result.returncode != 0:
            pytest.fail(
                f"docker {' '.join(args[:2])} exited {result.returncode}:\n"
                f"{_tail(result.stdout + result.stderr, 40)}"
            )
        return result

    def start(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        """``docker ARGS`` in the background, attached, in a session of its own (so that a
        test signals the client alone, as the runner does)."""
        return subprocess.Popen(
            [self.docker, *args],
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )


def _buildkit_client() -> str | None:
    """A docker client that builds with BuildKit (needed for the Dockerfile's secret mounts):
    one with the buildx plugin, or a classic client older than 23, which has BuildKit built in
    (Debian's docker.io ships one, /usr/bin/docker, beside its dockerd)."""
    candidates = [os.environ.get("GOLDGATE_TEST_DOCKER"), "/usr/bin/docker", _which("docker")]
    for candidate in dict.fromkeys(c for c in candidates if c):
        if not os.access(candidate, os.X_OK):
            continue
        probe = subprocess.run([candidate, "buildx", "version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return candidate
        version = subprocess.run(
            [candidate, "--version"], capture_output=True, text=True, check=False
        ).stdout
        major = re.search(r"version (\d+)\.", version)
        if major and int(major.group(1)) < 23:
            return candidate
    return None


@contextlib.contextmanager
def private_engine() -> Iterator[Engine]:
    """Start a private dockerd, yield it, stop it and remove everything it made."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the container tests need Linux (dockerd)")
    if os.geteuid() != 0:
        pytest.skip(
            f"dockerd needs root (overlay mounts, namespaces, cgroups); running as uid "
            f"{os.geteuid()}"
        )
    dockerd = _which("dockerd")
    if dockerd is None:
        pytest.skip("dockerd is not installed (Debian's docker.io; .ci/run installs it)")
    client = _buildkit_client()
    if client is None:
        pytest.skip("no docker client that builds with BuildKit (docker.io or docker-buildx)")
    root = Path(tempfile.mkdtemp(prefix="gg-dockerd-"))
    (root / "daemon.json").write_text("{}", encoding="utf-8")
    log_path = root / "dockerd.log"
    log = log_path.open("w", encoding="utf-8")
    daemon = subprocess.Popen(
        [
            dockerd,
            f"--host=unix://{root}/docker.sock",
            f"--data-root={root}/data",
            f"--exec-root={root}/exec",
            f"--pidfile={root}/docker.pid",
            f"--config-file={root}/daemon.json",
            "--iptables=false",
            "--ip-masq=false",
            "--bridge=none",
            "--shutdown-timeout=2",
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    engine = Engine(client, f"unix://{root}/docker.sock", root)
    try:
        deadline = time.monotonic() + 30
        while True:
            if daemon.poll() is not None:
                pytest.skip(f"dockerd could not start here:\n{_tail(_read(log_path))}")
            if engine.run("version", timeout=10, check=False).returncode == 0:
                break
            if time.monotonic() > deadline:
                pytest.skip(f"dockerd did not answer in 30 s:\n{_tail(_read(log_path))}")
            time.sleep(0.2)
        yield engine
    finally:
        _remove_containers(engine)
        _stop(daemon)
        log.close()
        _unmount_below(root)
        shutil.rmtree(root, ignore_errors=True)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def _remove_containers(engine: Engine) -> None:
    """Kill what is still running (act leaves its job container behind): dockerd would give
    each container its own 10 s to stop on SIGTERM, the longest wait of the suite's end."""
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        left = engine.run("ps", "-aq", timeout=10, check=False).stdout.split()
        if left:
            engine.run("rm", "--force", *left, timeout=30, check=False)


def _stop(daemon: subprocess.Popen[bytes]) -> None:
    if daemon.poll() is None:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait(10)


def _unmount_below(root: Path) -> None:
    """Lazily unmount whatever a daemon that did not stop cleanly left mounted under root."""
    prefix = f"{root}/"
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        points = [line.split()[1] for line in mounts if line.split()[1].startswith(prefix)]
    for point in sorted(points, key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True, check=False)


# --- the base and the image ---------------------------------------------------------------------


def cache_dir() -> Path:
    return Path(os.environ.get("GOLDGATE_CI_CACHE") or REPO_ROOT / ".ci" / "cache")


def base_tarball() -> Path:
    """The mmdebstrap base as a tarball, made once and cached by its options."""
    key = hashlib.sha256(" ".join((*MMDEBSTRAP_OPTIONS, SUITE)).encode()).hexdigest()[:12]
    target = cache_dir() / f"base-{SUITE}-{key}.tar"
    if target.is_file():
        return target
    mmdebstrap = _which("mmdebstrap")
    if mmdebstrap is None:
        pytest.skip("mmdebstrap is not installed (Debian's mmdebstrap; .ci/run installs it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    # mmdebstrap picks the output format by the name's ending: keep .tar last.
    partial = target.with_name(f".partial-{os.getpid()}-{target.name}")
    env = dict(os.environ)
    # The system's folders first: mmdebstrap's own tools (mmtarfilter, a Python script run
    # through `/usr/bin/env python3` for each package it unpacks) start Debian's Python, not
    # a pyenv shim (about ten bash processes a start: 33 -> 25 CPU-s for the whole base).
    system = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
    env["PATH"] = os.pathsep.join([*system, env.get("PATH", "")])
    # The tree is unpacked in a temporary folder, then packed: on tmpfs, without dpkg's
    # fsyncs, that takes seconds instead of minutes. Neither changes the tarball.
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2 << 30:
        env["TMPDIR"] = str(shm)
    result = subprocess.run(
        [mmdebstrap, "--quiet", "--dpkgopt=force-unsafe-io", *MMDEBSTRAP_OPTIONS, SUITE,
         str(partial)],
        env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
        check=False,
    )  # fmt: skip
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        pytest.skip(f"mmdebstrap could not make the base image:\n{_tail(result.stderr)}")
    partial.rename(target)
    return target


def _pip_settings() -> dict[str, str]:
    """pip's configuration on this machine (``pip config list``), later entries winning."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    settings: dict[str, str] = {}
    for line in result.stdout.splitlines():
        match = re.fullmatch(r"[^.]*\.([a-z-]+)='(.*)'", line.strip())
        if match:
            settings[match.group(1)] = match.group(2)
    return settings


def pip_secrets(folder: Path) -> list[str]:
    """``--secret`` options handing the build's pip this machine's CA bundle and index URL
    (from PIP_CERT and PIP_INDEX_URL, else pip's configuration). Find-links and extra local
    indexes are not passed: their paths do not exist inside the build."""
    settings = _pip_settings()
    options: list[str] = []
    cert = os.environ.get("PIP_CERT") or settings.get("cert")
    if cert and Path(cert).is_file():
        options += ["--secret", f"id=pip_cert,src={cert}"]
    index = os.environ.get("PIP_INDEX_URL") or settings.get("index-url")
    if index:
        path = folder / "pip-index-url"
        path.touch(mode=0o600)
        path.write_text(index, encoding="utf-8")
        options += ["--secret", f"id=pip_index_url,src={path}"]
    return options


def import_base(engine: Engine) -> str:
    """The mmdebstrap base imported into ``engine`` (once); its tag."""
    tarball = base_tarball()
    base = f"goldgate-test-base:{tarball.stem.rsplit('-', 1)[-1]}"
    if engine.run("image", "inspect", base, check=False).returncode != 0:
        engine.run("import", str(tarball), base, timeout=300)
    return base


def build_image(engine: Engine, tag: str, *, cache: bool = True) -> str:
    """Build the repository's Dockerfile on the imported base, as GitHub's runner builds a
    Docker action (BuildKit, the Dockerfile's folder as the context); the image's tag.
    ``cache=False`` builds every layer again."""
    base = import_base(engine)
    engine.run(
        "build", "--network", "host", "--progress", "plain", "--build-arg", f"BASE={base}",
        *(() if cache else ("--no-cache",)),
        *pip_secrets(engine.root), "--tag", tag, str(REPO_ROOT),
        timeout=600,
    )  # fmt: skip
    return tag


# --- running it as the runner does --------------------------------------------------------------


def action_metadata() -> dict[str, Any]:
    text = (REPO_ROOT / "docker" / "action.yml").read_text("utf-8")
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def input_defaults() -> dict[str, str]:
    """``INPUT_<NAME>`` for every input of docker/action.yml with its default, as the runner sets
    them for a Docker action (an expression such as ``${{ github.token }}`` is left out: the
    runner would evaluate it; a test sets what it stands for)."""
    return {
        f"INPUT_{name.upper()}": str(spec["default"])
        for name, spec in action_metadata()["inputs"].items()
        if "${{" not in str(spec.get("default", "${{"))
    }


@dataclass
class ContainerRunner(Runner):
    """The job of conftest's ``Runner``, run in the action's image the way a GitHub runner
    runs a Docker action's step: ``docker run`` with action.yml's ``runs.args``, the working
    directory /github/workspace, the runner's folders mounted where it mounts them (the
    workspace, ``_github_home``, ``_github_workflow`` holding the event and
    ``_runner_file_commands`` holding the output and summary files), every input's
    ``INPUT_*`` (action.yml's defaults under the job's), and the variables passed by name
    (``-e NAME``, the values in the client's environment, so no secret is on a command line).
    Everything is handed to the runner's uid 1001 first, as on GitHub-hosted runners. The
    host's network lets the container reach the fake GitHub on loopback."""

    engine: Engine = field(kw_only=True)
    image: str = field(kw_only=True)

    @property
    def root(self) -> Path:
        return self.workspace.parent

    def container_env(self, **inputs: str) -> dict[str, str]:
        env = {**input_defaults(), **self.env(**inputs)}
        env.update(
            HOME="/github/home",
            CI="true",
            GITHUB_WORKSPACE="/github/workspace",
            GITHUB_EVENT_PATH=f"/github/workflow/{self.event_path.name}",
            GITHUB_OUTPUT=f"/github/file_commands/{self.output.name}",
            GITHUB_STEP_SUMMARY=f"/github/file_commands/{self.summary.name}",
        )
        return env

    def docker_run(
        self, inputs: Mapping[str, str], entrypoint: str | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """The ``docker run`` arguments and the client's added environment for one step."""
        env = self.container_env(**inputs)
        command = [
            "run", "--rm", "--name", f"goldgate-test-{uuid.uuid4().hex[:12]}",
            "--network", "host", "--workdir", "/github/workspace",
            "-v", f"{self.workspace}:/github/workspace",
            "-v", f"{self.root / '_github_home'}:/github/home",
            "-v", f"{self.event_path.parent}:/github/workflow",
            "-v", f"{self.output.parent}:/github/file_commands",
        ]  # fmt: skip
        for name in env:
            command += ["-e", name]
        if entrypoint is not None:
            command += ["--entrypoint", entrypoint]
        return [*command, self.image, *action_metadata()["runs"]["args"]], env

    def _prepare(self) -> None:
        assert self.output.parent == self.summary.parent
        self.output.write_text("", "utf-8")
        self.summary.write_text("", "utf-8")
        (self.root / "_github_home").mkdir(exist_ok=True)
        for path in [self.root, *self.root.rglob("*")]:
            os.lchown(path, RUNNER_UID, RUNNER_UID)

    def run(self, *, entrypoint: str | None = None, **inputs: str) -> CliRun:
        """The step to completion (``entrypoint`` replaces the image's, tini)."""
        self._prepare()
        command, env = self.docker_run(inputs, entrypoint)
        result = self.engine.run(*command, env=env, timeout=240, check=False)
        return CliRun(result.returncode, result.stdout, result.stderr)

    def start(self, **inputs: str) -> tuple[subprocess.Popen[str], str]:
        """The step in the background: the ``docker run`` client and the container's name."""
        self._prepare()
        command, env = self.docker_run(inputs)
        return self.engine.start(*command, env=env), command[command.index("--name") + 1]
