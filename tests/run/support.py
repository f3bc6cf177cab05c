"""Helpers for the ``goldgate evaluate`` tests (the fixtures are in ``conftest.py``): a
project folder written into ``tmp_path`` (settings, gold, a python target module and a command
target script), the real console script run as a subprocess, a local HTTP server, and a way
to check that processes are gone.

The targets in ``project_files/`` choose their behaviour from the case's ``payload.mode`` and
log every call to ``calls.log`` in the project folder, so a test can tell that nothing ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import forkserver, loopback

PROJECT_FILES = Path(__file__).parent / "project_files"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_triage"

_SCRIPT = Path(sys.executable).with_name("goldgate")
GOLDGATE: tuple[str, ...] = (
    (str(_SCRIPT),) if _SCRIPT.is_file() else (sys.executable, "-m", "goldgate")
)
"""The real console script (or ``python -m goldgate`` where it is not installed)."""

STATUS_OK: dict[str, Any] = {"name": "status", "path": "/execution/status", "expected": "completed"}
CATEGORY_BILLING: dict[str, Any] = {
    "name": "category",
    "path": "/payload/category",
    "expected": "billing",
}


# --- gold ---------------------------------------------------------------------------------------


def expect(
    name: str, path: str, expected: Any, comparison: str | None = None, scorer: str | None = None
) -> dict[str, Any]:
    """One expectation as gold writes it."""
    item: dict[str, Any] = {"name": name, "path": path, "expected": expected}
    if comparison is not None:
        item["comparison"] = comparison
    if scorer is not None:
        item["scorer"] = scorer
    return item


def case(
    case_id: str,
    mode: str = "ok",
    *expectations: dict[str, Any],
    metadata: Mapping[str, Any] | None = None,
    **payload: Any,
) -> dict[str, Any]:
    """A case whose target behaviour is ``mode``; by default it expects a completed execution
    and the category ``billing`` (what an ``ok`` call returns)."""
    return {
        "id": case_id,
        "input": {
            "payload": {"mode": mode, "tag": case_id, **payload},
            "metadata": dict(metadata or {}),
        },
        "expectations": list(expectations) or [STATUS_OK, CATEGORY_BILLING],
    }


def echo_cases(count: int, id_format: str = "c{}") -> list[dict[str, Any]]:
    """``count`` cases asking a live echo (tests/helpers/fake_openai.py) to say ``ticket N``,
    each expecting ``echo: ticket N`` at ``/payload/answer``."""
    return [
        {
            "id": id_format.format(n),
            "input": {"payload": {"message": f"ticket {n}"}, "metadata": {}},
            "expectations": [expect("answer", "/payload/answer", f"echo: ticket {n}")],
        }
        for n in range(count)
    ]


# --- the CLI ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CliRun:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def report_path(self) -> Path | None:
        """The path the text summary names on its ``report:`` line."""
        for line in self.stdout.splitlines():
            if line.startswith("report: "):
                return Path(line.removeprefix("report: "))
        return None


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any ``GG_*`` variable (the tests' credentials) or
    GitHub Actions' commit (it would name the variant's revision), plus ``extra``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GG_") and key not in {"GITHUB_ACTIONS", "GITHUB_SHA"}
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def start_cli(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """``goldgate <args>`` started in a session of its own (so that a test can signal it
    alone; goldgate installs its own SIGINT handler once the run starts), forked from a
    process that has the interpreter and the libraries loaded (``helpers.forkserver``)."""
    return forkserver.Popen(
        [*GOLDGATE, *args],
        cwd=cwd,
        env=cli_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def run_cli(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 60
) -> CliRun:
    """``goldgate <args>`` as a real subprocess, to completion."""
    process = start_cli(*args, cwd=cwd, env=env)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"goldgate {' '.join(args)} did not finish in {timeout} s:\n{stderr}")
    return CliRun(process.returncode, stdout, stderr)


# --- a project ----------------------------------------------------------------------------------


def default_workflows(root: Path) -> dict[str, Any]:
    return {
        "py": {
            "revision": "py-1",
            "target": {"python": "fixture_app:handle"},
            "flows": {"main": {"steps": {"classify": {}}}},
        },
        "py_sync": {"revision": "sync-1", "target": {"python": "fixture_app:handle_sync"}},
        "cmd": {
            "revision": "cmd-1",
            "target": {
                "command": [sys.executable, str(root / "cmd_app.py")],
                "max_result_bytes": 4096,
            },
        },
        "live": {
            "revision": "live-1",
            "live": True,
            "credentials": ["GG_LIVE_TOKEN"],
            "target": {"python": "fixture_app:handle"},
        },
    }


@dataclass
class Project:
    """A project folder: ``config/settings.yaml``, ``evaluation/dataset.json`` (inline cases),
    ``fixture_app.py`` and ``cmd_app.py`` at the root (the folder holding ``config/``, which
    goldgate puts on ``sys.path``). Change ``workflows``, ``scorers`` and ``suites``, then
    ``write()``."""

    root: Path
    workflows: dict[str, Any]
    scorers: dict[str, Any] = field(
        default_factory=lambda: {
            "boom": {"import": "fixture_app:boom_scorer", "revision": "1"},
            "casefold": {"import": "fixture_app:casefold_scorer", "revision": "2"},
        }
    )
    suites: list[dict[str, Any]] = field(default_factory=list)
    name: str = "fixture_gold"
    revision: str = "gold-r1"

    @property
    def settings_path(self) -> Path:
        return self.root / "config" / "settings.yaml"

    @property
    def dataset_path(self) -> Path:
        return self.root / "evaluation" / "dataset.json"

    def suite(
        self, name: str, workflow: str, cases: list[dict[str, Any]] | str, **extra: Any
    ) -> Project:
        """A suite of inline ``cases``, or of the case file ``cases`` names."""
        self.suites.append({"name": name, "workflow": workflow, "cases": cases, **extra})
        return self

    def write(self) -> Project:
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        settings = {"workflows": self.workflows, "scorers": self.scorers}
        self.settings_path.write_text(yaml.safe_dump(settings, sort_keys=False), "utf-8")
        self.dataset_path.parent.mkdir(parents=True, exist_ok=True)
        manifest = {"name": self.name, "revision": self.revision, "suites": self.suites}
        self.dataset_path.write_text(json.dumps(manifest, indent=2), "utf-8")
        return self

    def output(self, name: str = "report.json") -> Path:
        """A report path that does not exist yet, outside the project's default folder."""
        return self.root / "out" / name

    def run(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> CliRun:
        """``goldgate evaluate --config <settings> <args>`` from the project folder."""
        return run_cli(
            "evaluate", "--config", str(self.settings_path), *args,
            cwd=self.root, env=env, timeout=timeout,
        )  # fmt: skip

    def evaluate(
        self, *args: str, env: Mapping[str, str] | None = None, name: str = "report.json"
    ) -> tuple[CliRun, dict[str, Any] | None]:
        """Run with ``--output out/<name>``; the report as plain JSON, or None if none."""
        path = self.output(name)
        assert not path.exists()
        result = self.run("--output", str(path), *args, env=env)
        return result, (read_report_json(path) if path.exists() else None)

    def calls(self) -> list[dict[str, Any]]:
        """Every call the python and command targets received, in order."""
        log = self.root / "calls.log"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def new_project(root: Path) -> Project:
    """An empty project (no suites yet) in the new folder ``root``, targets copied in."""
    root.mkdir(parents=True)
    for source in PROJECT_FILES.glob("*.py"):
        shutil.copyfile(source, root / source.name)
    return Project(root, default_workflows(root))


# --- report helpers -----------------------------------------------------------------------------


def read_report_json(path: Path) -> dict[str, Any]:
    """A report file as plain JSON, each suite also given ``attempts``: the flat attempt and
    check views (case id, input, gold, actual values) that goldgate joins from its cases."""
    from goldgate.report.io import read_report

    raw: dict[str, Any] = json.loads(path.read_text("utf-8"))
    report = read_report(path)
    for suite_json, suite in zip(raw["suites"], report.suites, strict=True):
        suite_json["attempts"] = [_asdict(attempt) for attempt in suite.iter_attempts()]
    return raw


_FIELDS: dict[type, tuple[str, ...]] = {}
_ATOMS = (str, int, float, bool, type(None))


def _asdict(value: Any) -> Any:
    """``dataclasses.asdict(value)``, equal and of the same types, in half the time: an exact
    str, number, bool or None is returned as it is (``asdict`` deep-copies it, which returns
    it as it is), a dataclass's field names are looked up once per class."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {_asdict(key): _asdict(item) for key, item in value.items()}
    if kind is list:
        return [_asdict(item) for item in value]
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(kind):
        names = _FIELDS[kind] = tuple(each.name for each in fields(kind))
    if names is not None:
        return {name: _asdict(getattr(value, name)) for name in names}
    return asdict(_Holder(value))["value"]  # anything else, as asdict makes it


@dataclass(frozen=True)
class _Holder:
    value: Any


def suite_of(report: Mapping[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["suites"] if s["name"] == name)


def attempt_of(report: Mapping[str, Any], suite: str, case_id: str, n: int = 1) -> dict[str, Any]:
    return next(
        a
        for a in suite_of(report, suite)["attempts"]
        if a["case_id"] == case_id and a["attempt"] == n
    )


def assert_scored_ok(attempt: Mapping[str, Any]) -> None:
    """The attempt completed and every one of its checks ran and passed."""
    assert attempt["status"] == "completed", attempt["reason"]
    assert attempt["reason"] is None
    assert attempt["latency_ms"] is not None
    assert attempt["latency_ms"] >= 0
    assert attempt["checks"]
    assert [c["outcome"] for c in attempt["checks"]] == ["passed"] * len(attempt["checks"])


def assert_not_scored(attempt: Mapping[str, Any], reason: str) -> None:
    """Every check of a failed attempt is ``not_run``, naming the attempt's failure."""
    assert attempt["checks"]
    for check in attempt["checks"]:
        assert check["outcome"] == "not_run"
        assert reason in check["reason"]


# --- an HTTP application ------------------------------------------------------------------------


class _Handler(loopback.Handler):
    server: HttpServer

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        payload = request["envelope"]["payload"]
        mode = payload.get("mode", "ok")
        api_key = self.headers.get("X-Api-Key")
        self.server.calls.append({"mode": mode, "tag": payload.get("tag"), "request": request})
        if mode == "500":
            self._send(500, b'{"error": "internal"}')
            return
        if mode == "slow":  # silent for 3 s
            time.sleep(3)
        if mode == "trickle":  # answers at once, then a byte every 0.2 s for 4 s
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "20")
            self.end_headers()
            for _ in range(20):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
            return
        document = {
            "execution": {"status": "completed"},
            "payload": {
                "category": payload.get("category", "billing"),
                "echo": payload.get("echo"),
                "authorized": api_key is not None and api_key == self.server.expected_key,
            },
        }
        self._send(200, json.dumps(document).encode("utf-8"))

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


class HttpServer(loopback.Server):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.calls: list[dict[str, Any]] = []
        self.expected_key: str | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # a client that gave up (the deadline) is expected here


@dataclass
class HttpApp:
    url: str
    server: HttpServer

    @property
    def calls(self) -> list[dict[str, Any]]:
        return self.server.calls


# --- processes ----------------------------------------------------------------------------------
