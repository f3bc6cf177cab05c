"""Every speed-up is private to its stage and off with ``GOLDGATE_ACCELERATORS=0``
(``goldgate.base.accelerators``): the same workloads give the same reports either way.

The workloads, each run through the real CLI with the switch on and off: the bundled
example; a generated 5,000-case gold using every built-in comparison kind (exact, set,
source_span, text with assertions and prose); such gold (of 2,000 cases) interrupted part
way; and such gold (of 2,400 cases) run in two shards merged. A probe target records, in a
file of its own, which speed-ups the run's process took (``accelerators.used``) and how its
collector was tuned, so the "on" runs are known to take the accelerated paths and the "off"
runs none of them.

Left out of the comparison, because they differ from one run to the next whatever the
switch says: ``started_at`` and ``finished_at`` (the clock), ``duration_seconds`` and each
attempt's ``latency_ms`` (how long things took). The text summary is compared too, but for
its first line (the run's duration) and the report's path.
"""

from __future__ import annotations

import ast
import gc
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from goldgate.base import accelerators, memory
from goldgate.gold import patterns
from goldgate.gold.errors import PatternProblem
from helpers import forkserver
from run.support import EXAMPLE, GOLDGATE, cli_env, run_cli
from test_layout import PACKAGE, imported, modules

# The module's runs of generated gold in one worker (--dist loadgroup), one at a time.
pytestmark = pytest.mark.xdist_group("accelerators")

REPO = EXAMPLE.parent.parent
CASES = 5_000
SHARD_CASES = 2_400
"""Cases of the gold run in two shards: about 1,200 a shard, each past
``REPORT_PROCESS_FROM`` (1,024 attempts) and ``PARALLEL_FROM`` (256 cases)."""
INTERRUPT_CASES = 2_000
MARKER_AT = 1_500


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Set ``GOLDGATE_ACCELERATORS`` with ``switch.setenv`` (read again each time)."""
    accelerators.refresh()
    yield monkeypatch
    monkeypatch.delenv(accelerators.VARIABLE, raising=False)
    accelerators.refresh()


# --- the switch, in-process ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "on"),
    [
        (None, True), ("", True), ("1", True), ("yes", True), ("2", True), ("garbage", True),
        ("0", False), (" 0 ", False), ("false", False), ("No", False), ("OFF", False),
    ],
)  # fmt: skip
def test_the_switch_is_off_only_when_it_says_so(
    switch: pytest.MonkeyPatch, value: str | None, on: bool
) -> None:
    if value is None:
        switch.delenv(accelerators.VARIABLE, raising=False)
    else:
        switch.setenv(accelerators.VARIABLE, value)
    accelerators.refresh()
    assert accelerators.enabled() is on


def test_the_switch_is_read_once_until_refreshed(switch: pytest.MonkeyPatch) -> None:
    switch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    assert accelerators.enabled() is False
    switch.setenv(accelerators.VARIABLE, "1")
    assert accelerators.enabled() is False
    accelerators.refresh()
    assert accelerators.enabled() is True


def test_off_the_collector_is_left_as_python_runs_it(switch: pytest.MonkeyPatch) -> None:
    switch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
    with memory.collections_paused():
        assert gc.isenabled() is before[0]
    with memory.collections_spaced(5_000):
        assert gc.get_threshold() == before[1]
    with memory.long_lived():
        _ = [[] for _ in range(10)]
    memory.freeze_survivors()
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == before


def _problem(pattern: str) -> str:
    with pytest.raises(PatternProblem) as caught:
        patterns.compile_pattern(pattern)
    return str(caught.value)


BAD_PATTERNS = ("(", "a{2,1}", "[z-a]", "(?P<x>a)(?P<x>b)", "a" * 5 + "\\")


def test_off_patterns_are_compiled_by_re(switch: pytest.MonkeyPatch) -> None:
    accelerated = [_problem(pattern) for pattern in BAD_PATTERNS]
    assert patterns.compile_pattern(r"T-123\b") is not re.compile(r"T-123\b")
    assert patterns.compile_pattern(r"T-123\b") == re.compile(r"T-123\b")
    switch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    for pattern in (r"T-123\b", r"^INV-\d\d\d$", r"(?i)ref(und)+"):
        assert patterns.compile_pattern(pattern) is re.compile(pattern)  # re's own cache
    assert [_problem(pattern) for pattern in BAD_PATTERNS] == accelerated


@pytest.mark.slow  # the accelerated load forks its checking helpers
def test_off_gold_is_loaded_whole_and_held_in_memory(
    switch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from goldgate.gold._stream.store import LazyCases
    from goldgate.gold.load import load_gold
    from goldgate.gold.settings.load import load_settings

    root = _generated_project(tmp_path / "project", 300)
    settings = load_settings(root / "config" / "settings.yaml")
    streamed = load_gold(settings)
    switch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    whole = load_gold(settings)
    assert isinstance(streamed.suites[0].cases, LazyCases)
    assert isinstance(whole.suites[0].cases, tuple)
    assert whole.fingerprint == streamed.fingerprint
    assert list(whole.suites[0].lines) == list(streamed.suites[0].lines)
    assert list(whole.suites[0].cases) == list(streamed.suites[0].cases)


# --- private to the stage ------------------------------------------------------------------------


ACCELERATOR_MODULES = ("goldgate.gold._stream", "goldgate.gold._flatpatterns")
"""The accelerators' own modules, private to the gold stage."""


def test_accelerator_modules_are_imported_only_inside_their_stage() -> None:
    """``gold/_stream`` and ``gold/_flatpatterns`` are used only by gold itself: the other
    stages go through its public modules (``gold.recorded``, ``gold.load``, ...)."""
    leaks = [
        f"{module.path.relative_to(PACKAGE)}:{line}: {target}"
        for name, module in modules().items()
        for target, line in imported(module)
        if any(target == m or target.startswith(m + ".") for m in ACCELERATOR_MODULES)
        and not name.startswith("goldgate.gold.")
    ]
    assert leaks == []
    assert any(  # the check sees them where they are used
        target.startswith("goldgate.gold._stream")
        for target, _ in imported(modules()["goldgate.gold.load"])
    )


# --- the same reports, on and off ---------------------------------------------------------------

PROBE = '''
import asyncio, gc, json, os
from pathlib import Path

_probed = False

def _probe():
    """Once per run: which speed-ups this process took, and how its collector runs."""
    global _probed
    if _probed:
        return
    _probed = True
    from goldgate.base import accelerators
    facts = {"used": sorted(accelerators.used()), "young": gc.get_threshold()[0],
             "frozen": gc.get_freeze_count() > 0}
    Path(os.environ["ACCEL_PROBE"]).write_text(json.dumps(facts), encoding="utf-8")

async def handle(request):
    _probe()
    payload = request["envelope"]["payload"]
    if payload.get("marker"):
        Path(os.environ["ACCEL_PROBE"] + ".marker").write_text("reached", encoding="utf-8")
        await asyncio.sleep(60)
    index = payload["index"]
    label = payload["label"] if index % 5 else "refund"
    tags = list(reversed(payload["tags"])) if index % 7 else ["other"]
    message = payload["message"]
    extract = message[:13] if index % 11 else message[5:20]
    return {"execution": {"status": "completed"},
            "payload": {"label": label, "tags": tags, "extract": extract,
                        "answer": payload["answer"]}}
'''

LABELS = ("billing", "refund", "access")


def _case(index: int) -> dict[str, Any]:
    label = LABELS[index % 3]
    answer = f"Ticket T-{index} routed to the {label} queue."
    text: Any = {
        "contains": [label if index % 2 else "refund"],
        "matches": [rf"T-{index}\b", r"(?i)ticket T-\d+"],
        "notMatches": [r"\bERROR\b"],
        "maxChars": 60,
    }
    if index % 97 == 0:
        text = "A polite answer that names the ticket."  # prose: it waits for a person
    return {
        "id": f"case-{index:05d}",
        "input": {
            "payload": {
                "index": index,
                "label": label,
                "tags": ["a", label],
                "message": f"Please cancel order O-{index} today",
                "answer": answer,
            },
            "metadata": {"index": index},
        },
        "expectations": [
            {"name": "label", "path": "/payload/label", "expected": label},
            {"name": "tags", "path": "/payload/tags", "expected": ["a", label],
             "comparison": "set"},
            {"name": "extract", "path": "/payload/extract", "comparison": "source_span",
             "expected": {"input_path": "/payload/message", "required": [0, 6],
                          "allowed": [0, 20]}},
            {"name": "answer", "path": "/payload/answer", "comparison": "text",
             "expected": text},
        ],
    }  # fmt: skip


def _generated_project(root: Path, count: int, marker_at: int | None = None) -> Path:
    """A project whose one suite holds ``count`` generated cases in a case file, answered
    by the probe target; ``marker_at``: the case whose call waits (to be interrupted)."""
    (root / "config").mkdir(parents=True)
    (root / "evaluation" / "cases").mkdir(parents=True)
    (root / "accel_probe.py").write_text(PROBE, encoding="utf-8")
    (root / "config" / "settings.yaml").write_text(
        "workflows:\n  app:\n    revision: r1\n    target: {python: 'accel_probe:handle'}\n",
        encoding="utf-8",
    )
    cases = [_case(index) for index in range(count)]
    if marker_at is not None:
        cases[marker_at]["input"]["payload"]["marker"] = True
    metric = {"name": "queue", "path": "/payload/label", "kind": "classification",
              "labels": list(LABELS)}  # fmt: skip
    suite = {"name": "generated", "workflow": "app", "cases": "cases/generated.json",
             "metrics": [metric]}  # fmt: skip
    manifest = {"name": "generated", "revision": "g1", "suites": [suite]}
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest), encoding="utf-8")
    (root / "evaluation" / "cases" / "generated.json").write_text(
        json.dumps(cases, indent=1), encoding="utf-8"
    )
    return root


def _env(switch: str, probe: Path) -> dict[str, str]:
    return {accelerators.VARIABLE: switch, "ACCEL_PROBE": str(probe)}


def _comparable(path: Path) -> dict[str, Any]:
    """The report without what differs from run to run (see the module's description)."""
    report: dict[str, Any] = json.loads(path.read_text("utf-8"))
    for key in ("started_at", "finished_at", "duration_seconds"):
        report.pop(key, None)
    for suite in report["suites"]:
        for case in suite["cases"]:
            for attempt in case["attempts"]:
                attempt.pop("latency_ms", None)
    return report


def _summary(stdout: str, path: Path) -> list[str]:
    """The text summary but for its first line (the run's duration) and the report's path."""
    return stdout.replace(str(path), "REPORT").splitlines()[1:]


def _probed(probe: Path) -> dict[str, Any]:
    facts: dict[str, Any] = json.loads(probe.read_text("utf-8"))
    return facts


def _expected_on() -> set[str]:
    """What the "on" runs of the generated gold take: every speed-up this machine allows."""
    taken = {"streamed check", "flat patterns", "gc tuning"}
    if sys.platform == "linux" and accelerators.cpu_budget() >= 2:
        taken |= {"check helpers", "report process"}
    return taken


def _assert_paths(probe_on: Path, probe_off: Path, *, report_process: bool = True) -> None:
    on, off = _probed(probe_on), _probed(probe_off)
    expected = _expected_on() if report_process else _expected_on() - {"report process"}
    assert set(on["used"]) == expected
    assert (on["young"], on["frozen"]) == (memory.RUN_YOUNG_THRESHOLD, True)
    assert off == {"used": [], "young": 700, "frozen": False}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generated_project(tmp_path_factory.mktemp("accelerators") / "project", CASES)


def _evaluate(project: Path, out: Path, switch: str, *args: str) -> tuple[Any, Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    report, probe = out / "report.json", out / "probe.json"
    result = run_cli(
        "evaluate", "--config", str(project / "config" / "settings.yaml"),
        "--output", str(report), *args, cwd=project, env=_env(switch, probe), timeout=180,
    )  # fmt: skip
    assert report.exists(), result.stderr
    return result, report, probe


@pytest.mark.slow
def test_the_example_gives_the_same_report_on_and_off(tmp_path: Path) -> None:
    config = str((EXAMPLE / "config" / "settings.yaml").relative_to(REPO))
    runs = {}
    for switch in ("1", "0"):
        report = tmp_path / switch / "report.json"
        report.parent.mkdir()
        result = run_cli(
            "evaluate", "--config", config, "--output", str(report), cwd=REPO,
            env={accelerators.VARIABLE: switch},
        )  # fmt: skip
        assert result.code == 0, result.stderr
        runs[switch] = (_comparable(report), _summary(result.stdout, report))
    assert runs["1"] == runs["0"]


@pytest.mark.slow
def test_generated_gold_of_every_kind_gives_the_same_report_on_and_off(
    generated: Path, tmp_path: Path
) -> None:
    on = _evaluate(generated, tmp_path / "on", "1")
    off = _evaluate(generated, tmp_path / "off", "0")
    assert on[0].code == off[0].code == 1, on[0].stderr + off[0].stderr  # failing checks
    _assert_paths(on[2], off[2])
    assert _summary(on[0].stdout, on[1]) == _summary(off[0].stdout, off[1])
    on_report, off_report = _comparable(on[1]), _comparable(off[1])
    assert on_report == off_report
    counts = on_report["suites"][0]["counts"]
    assert counts["attempts"]["completed"] == CASES
    # Checks pass and fail; prose waits for a person (not run until adjudicated).
    assert all(counts["checks"][outcome] > 0 for outcome in ("passed", "failed", "not_run"))


@pytest.mark.slow
def test_two_shards_merged_give_the_same_report_on_and_off(tmp_path: Path) -> None:
    """The generated gold of ``SHARD_CASES`` cases (not ``CASES``: each shard past the
    report process's threshold is enough for every speed-up to be taken, as the probe
    shows of each shard) in two shards, merged."""
    project = _generated_project(tmp_path / "project", SHARD_CASES)
    merged = {}
    for switch in ("1", "0"):
        shards = []
        for k in (1, 2):
            result, report, probe = _evaluate(
                project, tmp_path / switch / f"shard-{k}", switch, "--shard", f"{k}/2"
            )
            assert result.code == 0, result.stderr  # a shard decides nothing alone
            shards.append(report)
            if switch == "1":
                assert set(_probed(probe)["used"]) == _expected_on(), k
            else:
                assert _probed(probe)["used"] == [], k
        path = tmp_path / switch / "merged.json"
        result = run_cli(
            "report", "merge", *map(str, shards), "-o", str(path), cwd=tmp_path,
            env={accelerators.VARIABLE: switch},
        )  # fmt: skip
        assert result.code == 1, result.stderr
        merged[switch] = _comparable(path)
    assert merged["1"] == merged["0"]
    assert merged["1"]["options"]["shard"] is None


def _interrupted(project: Path, out: Path, switch: str) -> tuple[dict[str, Any], Path]:
    """The run stopped by SIGINT while the marker case's call waits: with one attempt at a
    time, every case before it finished and none after it started, whatever the timing."""
    out.mkdir(parents=True)
    report, probe = out / "report.json", out / "probe.json"
    marker = Path(str(probe) + ".marker")
    process = forkserver.Popen(
        [*GOLDGATE, "evaluate", "--config", str(project / "config" / "settings.yaml"),
         "--output", str(report), "--max-concurrency", "1"],
        cwd=project, env=cli_env(_env(switch, probe)), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not marker.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the run never reached the marker:\n{process.communicate()[1]}")
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    return _comparable(report), probe


@pytest.mark.slow
def test_an_interrupted_run_gives_the_same_report_on_and_off(tmp_path: Path) -> None:
    project = _generated_project(tmp_path / "project", INTERRUPT_CASES, MARKER_AT)
    on, probe_on = _interrupted(project, tmp_path / "on", "1")
    off, probe_off = _interrupted(project, tmp_path / "off", "0")
    _assert_paths(probe_on, probe_off)
    assert on == off
    assert (on["complete"], on["interruption"]) == (False, "SIGINT")
    statuses = [case["attempts"][0]["status"] for case in on["suites"][0]["cases"]]
    assert statuses[:MARKER_AT] == ["completed"] * MARKER_AT
    assert set(statuses[MARKER_AT:]) == {"cancelled"}


def test_the_module_lists_what_it_leaves_out() -> None:
    # The fields _comparable drops are named, with why, in the module's description.
    description = ast.get_docstring(ast.parse(Path(__file__).read_text("utf-8"))) or ""
    for field in ("started_at", "finished_at", "duration_seconds", "latency_ms"):
        assert f"``{field}``" in description
