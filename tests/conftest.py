"""Shared fixtures: where the repository and the shared oracles are, a way to run the real CLI
in-process, and a small valid gold project to break one mutation at a time; the ``slow``
mark, set by fixture and guarded in a quick run (``tests/helpers/slow.py``); and the
``fresh_interpreter`` mark, for tests run in an interpreter of their own (``helpers/fresh.py``)."""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers import fresh, slow

REPO_ROOT = Path(__file__).resolve().parent.parent
ORACLES = REPO_ROOT / "tests" / "oracles"


# --- the tests' Python first on PATH --------------------------------------------------------------


def _python_first_on_path() -> None:
    """The folder of the interpreter running the tests first on PATH, as activating its venv
    (or a CI job's setup-python) puts it, for every process the tests start: the targets
    that run ``python3`` (the example's command target among them) find it there, not
    through a version manager's shim (pyenv's is a shell script that costs ten times the
    interpreter's own start, hundreds of times a run). Done at import, before xdist starts
    the test processes, which inherit it."""
    folder = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != folder:
        os.environ["PATH"] = os.pathsep.join([folder, path] if path else [folder])


_python_first_on_path()


# --- how many test processes -n auto starts ------------------------------------------------------


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a run without xdist knows no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Half as many again as there are CPUs to use: a third of the suite's time is spent
    waiting (on timeouts it tests, on the processes and servers it starts, on docker), and
    a third process keeps both CPUs of a 2-core machine busy through it (3m48 to 4m06
    instead of 4m35 here). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cpus or 1) + max(1, (cpus or 1) // 2)


# --- rewritten test modules, kept ----------------------------------------------------------------


def _keep_rewritten_test_modules() -> None:
    """pytest keeps each test module as it rewrote its asserts (a pyc in its __pycache__,
    checked against the source's hash), but not where PYTHONDONTWRITEBYTECODE is set, as on
    the machines this suite runs on: then every test process rewrites and compiles every
    module again, 5 s of CPU each. Only those pycs are written here; the setting holds for
    every other module. (pytest's private functions: where they change, nothing is kept.)"""
    from _pytest.assertion import rewrite

    try:
        original, write = rewrite._rewrite_test, rewrite._write_pyc
        cache_dir, makedirs = rewrite.get_cache_dir, rewrite.try_makedirs
        tail, key = rewrite.PYC_TAIL, rewrite.assertstate_key
    except AttributeError:
        return

    def rewrite_and_keep(fn: Path, config: pytest.Config) -> Any:
        source_hash, code = original(fn, config)
        folder = cache_dir(fn)
        if sys.dont_write_bytecode and makedirs(folder):  # else pytest writes it itself
            write(config.stash[key], code, source_hash, folder / (fn.name[:-3] + tail))
        return source_hash, code

    rewrite._rewrite_test = rewrite_and_keep


_keep_rewritten_test_modules()


# --- the slow mark --------------------------------------------------------------------------------

_GUARD = slow.Guard()


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow.mark(items)
    if getattr(config.option, "loadgroup", False):  # an xdist worker of --dist loadgroup
        _name_groups(items)


def _name_groups(items: list[pytest.Item]) -> None:
    """What xdist's worker means to do, and on pytest 9.2 does not: end the id of a test
    marked ``xdist_group`` with ``@<group>``, which the scheduler reads to send the group to
    one worker. xdist 3.8 writes the old ``_nodeid`` attribute that pytest 9.2 no longer
    reads (pytest-dev/pytest-xdist#1386), so the "docker" group was split over both workers
    and each built its own engine and image. Where xdist's own suffix arrives, this does
    nothing."""
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # a pytest before structured ids: xdist's suffix works there
        return
    for item in items:
        names = sorted(
            {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
        )  # fmt: skip
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = NodeId.parse(item.nodeid + suffix)


def pytest_collection_finish(session: pytest.Session) -> None:
    if slow.leaves_slow_out(session.config.option.markexpr):
        _GUARD.install()


def pytest_unconfigure() -> None:
    _GUARD.uninstall()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[object]:
    with _GUARD.running(item.nodeid):
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A test marked ``fresh_interpreter`` runs in an interpreter of its own (helpers/fresh.py)."""
    if pyfuncitem.get_closest_marker(fresh.MARK) is None or fresh.inside():
        return None
    fresh.run_in_a_fresh_interpreter(pyfuncitem)
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    """In a run that leaves slow tests out, a test that started a process or a server fails,
    even where the code it ran caught the refusal."""
    report: pytest.TestReport = yield
    refused = _GUARD.refused.pop(item.nodeid, [])
    if refused and report.passed:
        report.outcome = "failed"
        report.longrepr = refused[0]
    return report


@pytest.fixture(autouse=True)
def _constructed_reports_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run a test finishes in this process returns a report that the run constructed
    without validating (``report.plain``): each is checked against validating it."""
    from tests.helpers.constructed import assert_constructed_as_validated

    from goldgate.run import streaming

    finish = streaming.finish_report

    def checked(*args: Any, **kwargs: Any) -> Any:
        report = finish(*args, **kwargs)
        assert_constructed_as_validated(report)
        return report

    monkeypatch.setattr(streaming, "finish_report", checked)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def example_reports(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The example as a baseline and a candidate with known changes, evaluated through the
    real console script once a session (``compare.conftest.ExampleReports``): the same two
    reports for every test that compares, verifies or renders them (compare/test_example.py,
    report/test_verify.py, render/test_comparison.py, one xdist group)."""
    from compare.conftest import example_reports_in

    return example_reports_in(tmp_path_factory.mktemp("compare-example"))


@pytest.fixture(scope="session")
def oracle() -> Callable[[str], Any]:
    """Load one file of the vendored oracles, ``tests/oracles`` (see its README)."""

    def load(name: str) -> Any:
        path = ORACLES / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such oracle (tests/oracles/README.md lists them)")
        return json.loads(path.read_text(encoding="utf-8"))

    return load


# --- the real CLI, in-process -------------------------------------------------------------------


@dataclass(frozen=True)
class CliResult:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """Run ``goldgate.cli.main`` (the console script's entry point) with ``args``, from
    ``cwd`` when given, and return its exit code and output. Nothing escapes as a traceback:
    an unexpected exception fails the test."""
    from goldgate.cli import main

    def run(*args: str, cwd: Path | None = None) -> CliResult:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["goldgate", *args])
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            main()
        out, err = capsys.readouterr()
        code = exited.value.code
        return CliResult(code if isinstance(code, int) else (0 if code is None else 1), out, err)

    return run


# --- a small valid project ----------------------------------------------------------------------

SETTINGS_YAML = """\
workflows:
  triage:
    revision: r1
    target:
      python: app.main:handle
    flows:
      main:
        steps:
          classify: {}
          units:
            collection: [route]
scorers:
  casefold:
    import: app.scorers:casefold
    revision: "1"
"""


def _case(case_id: str, label: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "input": {
            "payload": {"message": f"Case {case_id}: cancel renewal for account C-1."},
            "metadata": {"language": "en"},
        },
        "expectations": [
            {"name": "queue", "path": "/flows/main/steps/classify/result/label", "expected": label},
            {"name": "status", "path": "/execution/status", "expected": "completed"},
        ],
    }


MANIFEST: dict[str, Any] = {
    "name": "gold",
    "revision": "r1",
    "suites": [
        {
            "name": "inline",
            "workflow": "triage",
            "flow": "main",
            "step": "classify",
            "cases": [_case("a", "billing"), _case("b", "other")],
            "metrics": [
                {
                    "name": "queue_quality",
                    "path": "/flows/main/steps/classify/result/label",
                    "kind": "classification",
                    "labels": ["billing", "other"],
                }
            ],
            "thresholds": {"pass_rate": 0.9, "queue_quality.accuracy": 0.5},
        },
        {"name": "filed", "workflow": "triage", "cases": "cases/filed.json"},
    ],
}

CASES: list[dict[str, Any]] = [
    {
        "id": "x",
        "input": {
            "payload": {"message": "😀😀 ok", "count": 3},
            "metadata": {"language": "en"},
        },
        "expectations": [
            {"name": "status", "path": "/execution/status", "expected": None},
            {"name": "tags", "path": "/payload/tags", "expected": ["a", "b"], "comparison": "set"},
            {
                "name": "span",
                "path": "/payload/action",
                "expected": {
                    "input_path": "/payload/message",
                    "required": [3, 5],
                    "allowed": [2, 5],
                },
                "comparison": "source_span",
            },
            {
                "name": "custom",
                "path": "/payload/category",
                "expected": "Billing",
                "comparison": "custom",
                "scorer": "casefold",
            },
            {
                "name": "reply",
                "path": "/flows/main/steps/classify/result/text",
                "expected": {"contains": "ok", "matches": "^T", "maxChars": 100},
                "comparison": "text",
            },
            {
                "name": "unit",
                "path": "/flows/main/steps/units/result/items/0/steps/route/result/queue",
                "expected": "q",
            },
        ],
    },
    {
        "id": "y",
        "input": {"payload": {"message": "hello"}, "metadata": {}},
        "expectations": [{"name": "tags", "path": "/payload/tags", "expected": ["c"]}],
    },
]


@dataclass
class GoldProject:
    """A project folder: config/settings.yaml, evaluation/dataset.json, evaluation/cases/.

    ``settings`` (YAML text), ``manifest`` and ``cases`` start as fresh copies of a valid
    baseline; change them, then ``write()``. A file given as text is written verbatim."""

    root: Path
    settings: str
    manifest: Any
    cases: Any

    SETTINGS = "config/settings.yaml"
    DATASET = "evaluation/dataset.json"
    CASE_FILE = "evaluation/cases/filed.json"

    def write(self) -> GoldProject:
        self.put(self.SETTINGS, self.settings)
        self.put(self.DATASET, self.manifest)
        self.put(self.CASE_FILE, self.cases)
        return self

    def put(self, relative: str, content: Any) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, indent=2, ensure_ascii=False), encoding="utf-8")
        return path

    def text(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")


@pytest.fixture
def gold_project(tmp_path: Path) -> GoldProject:
    """A fresh, valid (but not yet written) project in ``tmp_path``."""
    return GoldProject(tmp_path, SETTINGS_YAML, copy.deepcopy(MANIFEST), copy.deepcopy(CASES))


@pytest.fixture
def reaper() -> Iterator[bool]:
    """This test process adopts orphans while the test runs (see helpers.processes)."""
    from helpers.processes import subreaper

    with subreaper() as enabled:
        yield enabled


@pytest.fixture(autouse=True)
def _forget_applications_imported_from_temporary_folders(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """A test that runs a copy of the example in process imports its application from its own
    temporary folder; left in ``sys.modules``, that copy (with the test's edits) would answer
    the next test's import of the same package in this worker instead of its own copy."""
    before = set(sys.modules)
    yield
    temporary = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        if str(getattr(module, "__file__", None) or "").startswith(temporary):
            del sys.modules[name]


@pytest.fixture(autouse=True)
def _no_working_folder_pinned_by_an_earlier_test() -> Iterator[None]:
    """A command run in process pins the folder it started in (``pin_working_folder``: paths
    in messages stay relative to it whatever user code does to the working folder); a
    process runs one command, a test worker many: each test starts with none pinned."""
    from goldgate.base import problems

    problems._started_in.clear()
    yield
    problems._started_in.clear()
