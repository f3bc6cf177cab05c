"""goldgate benchmarks: synthetic workloads, figures printed, nothing asserted.

    .venv/bin/python benchmarks/run.py [NAME]...    (all of them when no name is given)

- check: `goldgate evaluate --check` on 10,000 cases x 3 expectations + a metric
  (targets: under 1.5 s and 250 MB).
- runner: 1,000 cases against an async python target sleeping 20 ms at concurrency 64, with
  and without --repeat 3; wall time against the ideal (rounds x 20 ms) plus start-up, where
  start-up is the same run against a target that does not sleep.
- scoring: a 10,000-case run against an instant target: checks scored per second.
- lean: issue 6's workload (3 checks per case, a pattern per case, half failing) at 1,000,
  10,000 and 100,000 cases: wall time, peak RSS, report bytes per attempt, --check (medians
  of 5, of 3 at 100,000, with the fastest); then the same with every speed-up off
  (`GOLDGATE_ACCELERATORS=0`, runs interleaved with the others) and the ratio on / off.
  `GOLDGATE_BENCH_LEAN_SIZES=1000` (comma separated) runs other sizes.
- interrupt: SIGINT to the incomplete report on disk with 100,000 attempts pending.
- overhead: the runner's own cost per attempt, in-process.
- pathological: `goldgate evaluate --check` on a 20 MB manifest holding one long string and a
  trailing garbage byte, which takes the strict scanner's slow path to place the error
  (targets: under 2 s and 200 MB).
- render: a report of 100,000 attempts (10% failing, 1% runtime failures) rendered in-process
  to JUnit (target <= 3 s) and to Markdown (comment and job summary; target <= 1 s: only the
  top items are rendered), medians of 3; and `goldgate report junit` as a fresh process.
- html: `goldgate report html`'s page of 10,000 attempts (render's report, 10% failing, 1%
  runtime failures) rendered in-process, safe and with values, and against a baseline
  (target: under 2 s each), medians of 3, with the page's size (target: a few MB); and of
  100,000 attempts, to show how it grows.
- read: what reading a report costs, as `goldgate report junit` (reading, verifying and
  rendering) in a fresh process: peak RSS as a multiple of the report's size, for a report of
  100,000 attempts without details (about 29 MB, as render's) and for compare's report of
  100,000 attempts with details (about 41 MB), and the in-process time to read and verify
  each (target: at most 10x the size plus 64 MB, docs/report-format.md).
- compare: `goldgate evaluate --compare` of two reports of 100,000 attempts with 3 checks
  each (10,000 cases x --repeat 10; the candidate mislabels other cases than the baseline,
  so there are improved, regressed and unchanged attempts): targets <= 5 s and <= 1 GB.
- replay: `goldgate evaluate --replay` of such a report (300,000 checks): checks per second
  over the whole process and over the replay itself (target >= 100,000 checks/s).
- publish: issue 43's workload (benchmarks/publish.py, whose docstring says what each row
  holds): evaluate, evaluate --compare with a baseline that differs, `goldgate action` in
  compare mode with JUnit and HTML (the publishing step) and `report merge` of two shards, at
  10,000 and 100,000 attempts (`--million` adds 1,000,000): wall and peak RSS of each
  (medians of 3), and the ratios publish / evaluate and merge / evaluate (targets <= 1x and
  <= 0.5x, each <= 256 MB).
- merge: the same workload's evaluate and `report merge` of two shards alone.
- evals: issue 11's workload, 10,000 Python eval cases with 3 assertions each at concurrency 16:
  wall time, per-case overhead and peak memory of `goldgate evals run`, beside the same
  workload as JSON gold (`goldgate evaluate`) and beside ezvals, the runner seed 002 documents
  (installed with pip into a throwaway venv under benchmarks/.work: its newest release, not
  the test extra's pinned reference). Targets: evals <= 0.3x ezvals' wall time and no more
  memory. goldgate's bytecode is written first (compileall), as a wheel install has it, like
  ezvals'.
- coldstart: under act (nektos/act, the tests' harness), the time from the job's start to
  goldgate's first attempt: the composite action building goldgate into the job's Python with
  pip's cache cold and warm, and with goldgate already there; the container action with its
  image built from nothing and with the layer cache; side by side, with ratios
  (benchmarks/coldstart.py, whose docstring says what each row holds).

- live: issue 27's workload, 1,000 live attempts against the fake OpenAI-compatible server
  (a requests-per-minute limit answering 429 with Retry-After, injected 500s and 503s, its
  own latency), goldgate beside promptfoo 0.123 (installed with npm under benchmarks/.work,
  never a project dependency), each run twice, the second on its cache: completed attempts,
  wall time, requests sent, the most requests in any 60-second window, ratios
  (benchmarks/live.py; targets: every attempt completes, never over the limit, at most 1.15x
  the time the limit imposes, the cached run sends nothing and takes under 2 s).

Each figure is one run of a fresh `goldgate` process; peak memory is that process's maximum
resident set size. The machines are shared and noisy: read ratios, not single digits.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldgate.render.view import ComparisonView

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
GOLDGATE = [sys.executable, "-m", "goldgate"]

LABELS = ["billing_dispute", "service_change", "cancellation"]


def _case(index: int) -> dict[str, object]:
    label = LABELS[index % 3]
    message = f"Request {index}: please handle {label} for account C-{index}."
    return {
        "id": f"case-{index:05d}",
        "family": "synthetic",
        "split": "dev" if index % 5 else "holdout",
        "input": {"payload": {"message": message}, "metadata": {"language": "en"}},
        "expectations": [
            {"name": "status", "path": "/execution/status", "expected": "completed"},
            {
                "name": "queue",
                "path": "/flows/triage/steps/classify/result/answer/optionId",
                "expected": label,
            },
            {
                "name": "account",
                "path": "/payload/account",
                "expected": {
                    "input_path": "/payload/message",
                    "required": [0, 7],
                    "allowed": [0, len(message)],
                },
                "comparison": "source_span",
            },
        ],
    }


TARGET_SOURCE = """
import anyio

SLEEP = {sleep}
WRONG_EVERY = {wrong_every}  # mislabel every n-th case (0: never), starting at WRONG_FROM
WRONG_FROM = {wrong_from}


async def handle(request):
    if SLEEP:
        await anyio.sleep(SLEEP)
    message = request["envelope"]["payload"]["message"]
    label = message.split("handle ")[1].split(" ")[0]
    index = int(message.split(" ")[1].rstrip(":"))
    if WRONG_EVERY and index % WRONG_EVERY == WRONG_FROM:
        label = "wrong"
    return {{
        "execution": {{"status": "completed"}},
        "payload": {{"account": message}},
        "flows": {{"triage": {{"steps": {{"classify": {{"result": {{"answer": {{"optionId": label}}}}}}}}}}}},
    }}
"""


def make_project(
    name: str,
    cases: int,
    sleep: float,
    *,
    module: str | None = None,
    wrong_every: int = 0,
    wrong_from: int = 0,
) -> Path:
    """A project folder: config/settings.yaml, an async python target, generated gold."""
    root = WORK / name
    if root.exists():
        shutil.rmtree(root)
    (root / "config").mkdir(parents=True)
    (root / "evaluation" / "cases").mkdir(parents=True)
    module = module or f"bench_target_{name}"
    (root / f"{module}.py").write_text(
        TARGET_SOURCE.format(sleep=sleep, wrong_every=wrong_every, wrong_from=wrong_from)
    )
    (root / "config" / "settings.yaml").write_text(
        "workflows:\n"
        "  triage_app:\n"
        "    revision: bench\n"
        f"    target: {{python: '{module}:handle'}}\n"
        "    flows:\n"
        "      triage:\n"
        "        steps:\n"
        "          classify: {}\n"
    )
    manifest = {
        "name": f"bench_{name}",
        "revision": "bench",
        "suites": [
            {
                "name": "synthetic",
                "workflow": "triage_app",
                "cases": "cases/synthetic.json",
                "metrics": [
                    {
                        "name": "queue_quality",
                        "path": "/flows/triage/steps/classify/result/answer/optionId",
                        "kind": "classification",
                        "labels": LABELS,
                    }
                ],
            }
        ],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest, indent=2))
    (root / "evaluation" / "cases" / "synthetic.json").write_text(
        json.dumps([_case(i) for i in range(cases)], indent=2)
    )
    return root


_MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], capture_output=True, text=True)
wall = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "peak_kb": peak, "code": done.returncode,
                  "output": done.stdout + done.stderr}))
"""


def publishing_environment(out: Path, candidate: Path, baseline: Path) -> dict[str, str]:
    """What the publishing step (`goldgate action` in compare mode) is given to publish
    ``candidate`` against ``baseline``: JUnit (``out/junit.xml``) and the HTML page, the comment
    off; its step-output and summary files are made in ``out``."""
    for name in ("output", "summary"):
        (out / name).touch()
    return {
        "GITHUB_OUTPUT": str(out / "output"),
        "GITHUB_STEP_SUMMARY": str(out / "summary"),
        "INPUT_MODE": "compare",
        "INPUT_REPORT": str(candidate),
        "INPUT_BASELINE": str(baseline),
        "INPUT_JUNIT": str(out / "junit.xml"),
        "INPUT_COMMENT": "off",
    }


def timed(
    arguments: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS in MB and exit code of one goldgate process, measured by a
    fresh wrapper process so that the peak belongs to that goldgate process alone; ``env``:
    variables added to this process's environment."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(cwd), *GOLDGATE, *arguments],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    figures = json.loads(done.stdout)
    return figures["wall"], figures["peak_kb"] / 1024, figures["code"], figures["output"]


def bench_check() -> None:
    root = make_project("check", 10_000, 0.0)
    runs = [timed(["evaluate", "--check"], root) for _ in range(3)]
    if any(code != 0 for _, _, code, _ in runs):
        raise SystemExit(runs[0][3][-2000:])
    wall = statistics.median(run[0] for run in runs)
    peak = max(run[1] for run in runs)
    print(
        f"check: 10,000 cases x 3 expectations + 1 metric (median of 3): {wall:.2f} s wall, "
        f"{peak:.0f} MB peak RSS (targets < 1.5 s, < 250 MB): {wall / 1.5:.2f}x of the time "
        f"budget, {peak / 250:.2f}x of the memory budget"
    )


def _median_run(arguments: list[str], root: Path, runs: int = 3) -> tuple[float, float, float]:
    """Median wall seconds, median in-process run seconds (the report's duration) and the
    largest peak RSS in MB over ``runs`` fresh processes."""
    walls, durations, peaks = [], [], []
    for index in range(runs):
        output = root / f"report-{index}.json"
        wall, peak, code, text = timed([*arguments, "--output", str(output)], root)
        if code != 0:
            raise SystemExit(f"goldgate exited {code}:\n{text[-2000:]}")
        walls.append(wall)
        peaks.append(peak)
        durations.append(json.loads(output.read_text())["duration_seconds"])
        output.unlink()
    return statistics.median(walls), statistics.median(durations), max(peaks)


def bench_runner() -> None:
    base = make_project("runner_base", 1000, 0.0)
    slow = make_project("runner_slow", 1000, 0.02)
    for repeat in (1, 3):
        arguments = ["evaluate", "--max-concurrency", "64", "--repeat", str(repeat)]
        startup_wall, startup_run, _ = _median_run(arguments, base)
        wall, run, peak = _median_run(arguments, slow)
        rounds = math.ceil(1000 * repeat / 64)
        ideal = rounds * 0.02
        print(
            f"runner: 1,000 cases x repeat {repeat}, async target sleeping 20 ms, concurrency 64"
            f" (medians of 3): wall {wall:.2f} s; start-up = the same run with no sleep "
            f"{startup_wall:.2f} s; ideal {rounds} rounds x 20 ms = {ideal:.2f} s; "
            f"wall / (ideal + start-up) = {wall / (ideal + startup_wall):.2f}x (target <= 1.15x); "
            f"(wall - start-up) / ideal = {(wall - startup_wall) / ideal:.2f}x; in-process run "
            f"{run:.2f} s vs {startup_run:.2f} s without sleep: "
            f"{(run - startup_run) / ideal:.2f}x of the ideal; "
            f"peak RSS {peak:.0f} MB"
        )


def bench_scoring() -> None:
    root = make_project("scoring", 10_000, 0.0)
    wall, peak, code, output = timed(["evaluate", "--output", "report.json"], root)
    report = json.loads((root / "report.json").read_text())
    suite = report["suites"][0]
    checks = sum(suite["counts"]["checks"].values())
    run_seconds = report["duration_seconds"]
    size = (root / "report.json").stat().st_size / 1e6
    print(
        f"scoring: 10,000 cases, {checks} checks: run {run_seconds:.2f} s "
        f"({checks / run_seconds:,.0f} checks/s including the target calls), "
        f"{wall:.2f} s wall for the process, {peak:.0f} MB peak RSS, "
        f"report {size:.1f} MB; exit {code}"
    )
    if code != 0:
        print(output[-2000:])


LEAN_TARGET = """
async def handle(request):
    payload = request["envelope"]["payload"]
    return {"execution": {"status": "completed"},
            "payload": {"label": payload["label"], "answer": payload["answer"]}}
"""


def make_lean_project(cases: int) -> Path:
    """Issue 6's workload: model-free cases with 3 checks each (an exact label, a contains
    and a matches assertion with a pattern of its own), half the cases failing one; a python
    target that answers from the input."""
    root = WORK / f"lean_{cases}"
    if (root / "evaluation" / "cases" / "lean.json").exists():
        return root
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "evaluation" / "cases").mkdir(parents=True, exist_ok=True)
    (root / "lean_target.py").write_text(LEAN_TARGET)
    (root / "config" / "settings.yaml").write_text(
        "workflows:\n  app:\n    revision: r1\n    target: {python: 'lean_target:handle'}\n"
    )
    gold = []
    for index in range(cases):
        label = LABELS[index % 3]
        mentioned = label if index % 2 == 0 else "refund"  # half the cases fail this check
        answer = f"Ticket T-{index} routed to the {label} queue."
        gold.append(
            {
                "id": f"case-{index:06d}",
                "input": {"payload": {"label": label, "answer": answer}, "metadata": {}},
                "expectations": [
                    {"name": "label", "path": "/payload/label", "expected": label},
                    {
                        "name": "mentions",
                        "path": "/payload/answer",
                        "comparison": "text",
                        "expected": {"contains": [mentioned]},
                    },
                    {
                        "name": "ticket",
                        "path": "/payload/answer",
                        "comparison": "text",
                        "expected": {"matches": [f"T-{index}\\b"]},
                    },
                ],
            }
        )
    manifest = {
        "name": "lean",
        "revision": "r1",
        "suites": [{"name": "lean", "workflow": "app", "cases": "cases/lean.json"}],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest))
    (root / "evaluation" / "cases" / "lean.json").write_text(json.dumps(gold))
    return root


ACCELERATORS_OFF = {"GOLDGATE_ACCELERATORS": "0"}
"""Every speed-up off: each stage's plain path (goldgate.base.accelerators)."""


def _lean_sizes() -> tuple[int, ...]:
    text = os.environ.get("GOLDGATE_BENCH_LEAN_SIZES", "")
    return tuple(int(size) for size in text.split(",") if size.strip()) or (
        1_000, 10_000, 100_000,
    )  # fmt: skip


def _lean_round(
    root: Path, env: dict[str, str] | None
) -> tuple[float, float, float, float, float, int]:
    """One --check and one evaluate of the lean project: check wall and peak, evaluate wall,
    peak and in-run duration, report size."""
    output = root / "report.json"
    check_wall, check_peak, code, text = timed(["evaluate", "--check"], root, env)
    if code != 0:
        raise SystemExit(text[-2000:])
    output.unlink(missing_ok=True)
    wall, peak, code, text = timed(["evaluate", "--output", str(output)], root, env)
    if code not in (0, 1):
        raise SystemExit(text[-2000:])
    size = output.stat().st_size
    duration = json.loads(output.read_text())["duration_seconds"]
    output.unlink()
    return check_wall, check_peak, wall, peak, duration, size


def bench_lean(runs: int = 5, large_runs: int = 3) -> None:
    """Issue 6's figures: end to end, --check, report size, time linear and memory flat.
    Each figure is the median of ``runs`` fresh processes (``large_runs`` at 100,000 cases:
    a shared machine's noise moves a one-second run more than a ten-second one), a --check
    and an evaluate in turn, so that a noisy machine affects both alike; peak memory is the
    largest of them, and the process tree's is sampled once. The same rounds run with every
    speed-up off (``GOLDGATE_ACCELERATORS=0``), interleaved: their row follows, with the
    ratio of each setting's medians."""
    medians: dict[int, float] = {}
    for cases in _lean_sizes():
        root = make_lean_project(cases)
        output = root / "report.json"
        count = runs if cases <= 10_000 else large_runs
        on_rounds, off_rounds = [], []
        for _ in range(count):
            on_rounds.append(_lean_round(root, None))
            off_rounds.append(_lean_round(root, ACCELERATORS_OFF))
        check_walls, check_peaks, walls, peaks, durations, sizes = map(
            list, zip(*on_rounds, strict=True)
        )
        size = sizes[-1]
        # Past 256 cases (or 1 MiB) a forked helper checks batches (dataset.parallel); past 1,024
        # attempts a forked report process scores and writes them (report.process): the
        # whole process tree, sampled.
        check_tree = timed_tree([*GOLDGATE, "evaluate", "--check"], root)["tree"]
        output.unlink(missing_ok=True)
        run_tree = timed_tree([*GOLDGATE, "evaluate", "--output", str(output)], root, (0, 1))
        output.unlink(missing_ok=True)
        medians[cases] = statistics.median(walls)
        print(
            f"lean: {cases:>7,} cases x 3 checks (medians of {count}): evaluate "
            f"{medians[cases]:.2f} s wall ({statistics.median(durations):.2f} s in the run; "
            f"fastest {min(walls):.2f} s), {max(peaks):.0f} MB peak RSS (largest process; "
            f"process tree {run_tree['pss']:.0f} MB PSS, {run_tree['tree']:.0f} MB RSS), report "
            f"{size / cases:.0f} bytes per attempt; --check {statistics.median(check_walls):.2f} s "
            f"(fastest {min(check_walls):.2f} s), {max(check_peaks):.0f} MB (largest process; "
            f"{check_tree:.0f} MB with its helper)"
        )
        off_check_walls, off_check_peaks, off_walls, off_peaks, off_durations, _ = map(
            list, zip(*off_rounds, strict=True)
        )
        off_wall, off_check = statistics.median(off_walls), statistics.median(off_check_walls)
        print(
            f"lean: {cases:>7,} cases, GOLDGATE_ACCELERATORS=0 (medians of {count}): evaluate "
            f"{off_wall:.2f} s wall ({statistics.median(off_durations):.2f} s in the run; "
            f"fastest {min(off_walls):.2f} s), {max(off_peaks):.0f} MB peak RSS; --check "
            f"{off_check:.2f} s (fastest {min(off_check_walls):.2f} s), "
            f"{max(off_check_peaks):.0f} MB; on / off: evaluate wall "
            f"{medians[cases] / off_wall:.2f}x, --check "
            f"{statistics.median(check_walls) / off_check:.2f}x, peak RSS "
            f"{max(peaks) / max(off_peaks):.2f}x"
        )
    linear = (
        f" 100,000 / 10,000 wall = {medians[100_000] / medians[10_000]:.1f}x (linear: <= 10.5x)"
        if 10_000 in medians and 100_000 in medians
        else ""
    )
    print(
        f"lean: targets 10,000 <= 1.2 s and <= 100 MiB; 100,000 <= 12 s and <= 150 MiB; "
        f"--check 100,000 <= 4 s, 10,000 <= 0.6 s; <= 1 KB per attempt.{linear}"
    )


def bench_interrupt() -> None:
    """Time from the first SIGINT to the incomplete report on disk, 100,000 attempts pending
    behind a slow one (and a SIGTERM 1 s later, as GitHub Actions sends)."""
    root = make_lean_project(100_000)
    slow = root / "slow_target.py"
    slow.write_text(
        "import anyio\n"
        + LEAN_TARGET.replace(
            "async def handle(request):\n",
            "async def handle(request):\n    await anyio.sleep(60)\n",
        )
    )
    settings = root / "config" / "slow.yaml"
    settings.write_text(
        "workflows:\n  app:\n    revision: r1\n    target: {python: 'slow_target:handle'}\n"
        "evaluation:\n  dataset: ../evaluation/dataset.json\n"
    )
    output = root / "interrupted.json"
    output.unlink(missing_ok=True)
    process = subprocess.Popen(
        [*GOLDGATE, "evaluate", "--config", str(settings), "--output", str(output)],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stderr is not None
    for line in process.stderr:  # the run has started once the progress line is out
        if "running" in line:
            break
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    started = time.perf_counter()
    while not output.exists() and process.poll() is None:
        time.sleep(0.005)
    on_disk = time.perf_counter() - started
    time.sleep(max(0.0, 1.0 - on_disk))
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    report = json.loads(output.read_text())
    cancelled = report["suites"][0]["counts"]["attempts"]["cancelled"]
    print(
        f"interrupt: 100,000 attempts, SIGINT to the incomplete report on disk "
        f"{on_disk:.2f} s (target: 'a second or two', <= 2 s), exit {process.returncode}, "
        f"{cancelled:,} attempts written as cancelled"
    )
    output.unlink()


def bench_overhead() -> None:
    """The runner's own cost per attempt: an instant in-process target and one exact check,
    in-process (no start-up), report streamed into memory."""
    sys.path.insert(0, str(HERE.parent / "src"))
    import anyio

    from goldgate.gold.models import Case
    from goldgate.run.api import EvaluationSuite, EvaluationVariant, Expectation, evaluate

    document = {"execution": {"status": "completed"}}

    async def run(envelope: object) -> dict[str, object]:
        return document

    count = 50_000
    cases = [
        Case(
            id=f"c{index}",
            input={"payload": {}, "metadata": {}},
            expectations=[Expectation("s", "/execution/status", "completed")],
        )
        for index in range(count)
    ]
    variant = EvaluationVariant(name="bench", revision="r", run=run)

    from goldgate.run.api import _gold_suite
    from goldgate.run.limits import RunOptions
    from goldgate.run.runner import InOrder, run_suite
    from goldgate.scoring import ScorerRegistry

    gold = _gold_suite(EvaluationSuite("overhead", cases), variant, ())

    async def runner_alone() -> float:
        started = time.perf_counter()
        ordered = InOrder(lambda outcome: None, count)
        await run_suite(gold, run, ScorerRegistry(()), RunOptions(), ordered)
        return time.perf_counter() - started

    async def whole_api() -> float:
        started = time.perf_counter()
        await evaluate(EvaluationSuite("overhead", cases), variant, include_details=False)
        return time.perf_counter() - started

    alone = min(anyio.run(runner_alone) for _ in range(3))
    api = anyio.run(whole_api)
    print(
        f"overhead: {count:,} attempts, an instant target and one exact check: the runner "
        f"{alone / count * 1e6:.1f} us per attempt (target <= 40 us; best of 3); the Python "
        f"API end to end (report streamed, then read back as models) {api / count * 1e6:.1f} us"
    )


def bench_pathological() -> None:
    root = make_project("pathological", 1, 0.0)
    size = 20_000_000
    manifest = root / "evaluation" / "dataset.json"
    head = '{"name": "'
    manifest.write_text(head + "x" * (size - len(head) - 3) + '"}x')
    wall, peak, code, output = timed(["evaluate", "--check"], root)
    if code != 2 or ":1:20000000: unexpected data after the JSON value" not in output:
        raise SystemExit(f"goldgate exited {code}:\n{output[-2000:]}")
    print(
        f"pathological: --check on a {size / 1e6:.0f} MB manifest of one string and a trailing "
        f"byte: {wall:.2f} s wall, {peak:.0f} MB peak RSS (targets < 2 s, < 200 MB): "
        f"{wall / 2:.2f}x of the time budget, {peak / 200:.2f}x of the memory budget"
    )


def _run_verdict(verdicts: list[str]) -> dict[str, object]:
    """The run's verdict over its suites' (every check ran), as a run writes it."""
    code, meaning = next(
        ((code, meaning) for verdict, code, meaning in (
            ("error", 4, "runtime failure"), ("failed", 1, "gold disagreement"))
         if verdict in verdicts),
        (0, "passed"),
    )  # fmt: skip
    tally = {verdict: verdicts.count(verdict) for verdict in dict.fromkeys(verdicts)}
    return {"passed": code == 0, "exit_code": code, "meaning": meaning, "suites": tally,
            "evaluated": True, "adjudication": 0}  # fmt: skip


def _render_report(attempts: int) -> dict[str, object]:
    """A report (as JSON) of ``attempts`` single-attempt cases in two suites: every tenth
    fails its category check, every hundredth is a runtime failure."""
    suites = []
    per_suite = attempts // 2
    for suite_index in range(2):
        cases = []
        failed = runtime = 0
        for index in range(per_suite):
            attempt: dict[str, object] = {
                "attempt": 1,
                "status": "completed",
                "latency_ms": 3.141 + index % 7,
            }
            if index % 100 == 99:
                attempt = {
                    "attempt": 1,
                    "status": "failed",
                    "latency_ms": 2.5,
                    "reason": "python target raised ValueError",
                }
                runtime += 1
            elif index % 10 == 9:
                attempt["checks"] = [
                    {"outcome": "passed"},
                    {
                        "outcome": "failed",
                        "reason": "the string has 7 code points, the expected string 6",
                    },
                ]
                failed += 1
            else:
                attempt["checks"] = [{"outcome": "passed"}, {"outcome": "passed"}]
            cases.append(
                {
                    "id": f"case-{index:06d}",
                    "line": 2 + 14 * index,
                    "expectations": [
                        {"name": "status", "path": "/execution/status"},
                        {"name": "queue", "path": "/payload/queue"},
                    ],
                    "attempts": [attempt],
                }
            )
        done = per_suite - runtime
        pass_rate = (2 * done - failed) / (2 * done)
        # As a run decides: a runtime failure is an error; else the threshold decides.
        verdict = "error" if runtime else ("passed" if pass_rate >= 0.9 else "failed")
        suites.append(
            {
                "name": f"suite_{suite_index}",
                "fingerprint": "sha256:" + "0" * 64,
                "workflow": "triage_app",
                "flow": None,
                "step": None,
                "target": {"kind": "python", "workflow_revision": "bench", "live": False},
                "cases_source": f"evaluation/cases/suite_{suite_index}.json",
                "status": "ran",
                "repeat": 1,
                "case_count": per_suite,
                "attempt_count": per_suite,
                "cases": cases,
                "counts": {
                    "attempts": {
                        "completed": done,
                        "failed": runtime,
                        "timed_out": 0,
                        "skipped": 0,
                        "cancelled": 0,
                    },
                    "checks": {
                        "passed": 2 * done - failed,
                        "failed": failed,
                        "error": 0,
                        "not_run": 2 * runtime,
                    },
                },
                "summary": {
                    "pass_rate": (2 * done - failed) / (2 * done),
                    "expect.satisfied": None,
                    "json.parse": None,
                    "schema.requiredCoverage": None,
                    "text.chars": None,
                },
                "thresholds": [
                    {
                        "key": "pass_rate",
                        "minimum": 0.9,
                        "actual": pass_rate,
                        "held": pass_rate >= 0.9,
                    }
                ],
                "verdict": verdict,
            }
        )
    return {
        "format": "goldgate.report/2",
        "goldgate_version": "bench",
        "started_at": "2026-01-01T00:00:00+00:00",
        "dataset": {
            "name": "bench_render",
            "revision": "bench",
            "fingerprint": "sha256:" + "1" * 64,
        },
        "variant": {"name": "candidate", "revision": "bench", "configuration_revision": None},
        "options": {
            "max_concurrency": 1,
            "timeout": 300,
            "repeat": 1,
            "suites": [],
            "live": False,
            "include_details": False,
        },
        "suites": suites,
        "complete": True,
        "finished_at": "2026-01-01T00:00:00+00:00",
        "duration_seconds": 1.0,
        "verdict": _run_verdict([suite["verdict"] for suite in suites]),
    }


def _changed_view(report: object) -> tuple[ComparisonView, int]:
    """A comparison view of ``report`` in which every tenth attempt regressed and every tenth
    improved (no comparison file needed), and how many attempts changed."""
    from goldgate.render.view import ChangeItem, ComparisonView

    changes = [
        ChangeItem(suite.name, case.id, 1, "regressed" if index % 2 else "improved", "queue")
        for suite in report.suites  # type: ignore[attr-defined]
        for index, case in enumerate(suite.cases)
        if index % 5 == 0
    ]
    view = ComparisonView(
        "the baseline",
        regressions=tuple(c for c in changes if c.change == "regressed"),
        improvements=tuple(c for c in changes if c.change == "improved"),
    )
    return view, len(changes)


def bench_render() -> None:
    from goldgate.app.render import render
    from goldgate.base.memory import collections_paused
    from goldgate.render.registry import RenderContext
    from goldgate.report.io import read_report

    attempts = 100_000
    path = WORK / "render-report.json"
    path.write_text(json.dumps(_render_report(attempts)))
    started = time.perf_counter()
    with collections_paused():  # as `goldgate report` reads and renders
        report = read_report(path)
    reading = time.perf_counter() - started

    def median(rendering: object) -> tuple[float, int]:
        walls, size = [], 0
        for _ in range(3):
            with collections_paused():
                started = time.perf_counter()
                size = len(rendering())  # type: ignore[operator]
                walls.append(time.perf_counter() - started)
        return statistics.median(walls), size

    junit, junit_size = median(lambda: render("junit", RenderContext(report)))
    comment, comment_size = median(lambda: render("markdown", RenderContext(report)))
    summary, summary_size = median(
        lambda: render("markdown", RenderContext(report, budget="summary"))
    )
    # The same report against a baseline: 10% of its attempts regressed, 10% improved.
    compared_view, changed = _changed_view(report)
    compared, compared_size = median(
        lambda: render("markdown", RenderContext(report, compared_view))
    )
    output = WORK / "render-junit.xml"
    wall, peak, code, text = timed(["report", "junit", str(path), "-o", str(output)], WORK)
    if code != 0:
        raise SystemExit(text[-2000:])
    markdown_wall, _, code, text = timed(["report", "markdown", str(path)], WORK)
    if code != 0:
        raise SystemExit(text[-2000:])
    print(
        f"render: {attempts:,} attempts (medians of 3, in-process; reading the report "
        f"{reading:.2f} s): JUnit {junit:.2f} s, {junit_size / 1e6:.1f} MB (target <= 3 s: "
        f"{junit / 3:.2f}x); Markdown comment {comment:.2f} s, {comment_size:,} characters; "
        f"job summary {summary:.2f} s, {summary_size:,} characters (target <= 1 s: "
        f"{max(comment, summary):.2f}x); the comment against a baseline with "
        f"{changed:,} changed attempts {compared:.2f} s, {compared_size:,} characters "
        f"(target <= 1 s); as fresh processes, reading included: "
        f"`goldgate report junit` {wall:.2f} s wall, {peak:.0f} MB peak RSS; "
        f"`goldgate report markdown` {markdown_wall:.2f} s wall"
    )


def bench_html() -> None:
    from goldgate.app.render import render
    from goldgate.base.memory import collections_paused
    from goldgate.render.registry import RenderContext
    from goldgate.report.io import read_report

    figures = []
    for attempts in (10_000, 100_000):
        path = WORK / f"html-report-{attempts}.json"
        path.write_text(json.dumps(_render_report(attempts)))
        with collections_paused():
            report = read_report(path)
        compared, _ = _changed_view(report)
        for name, context in (
            ("safe", RenderContext(report)),
            ("values", RenderContext(report, details="values")),
            ("against a baseline", RenderContext(report, compared)),
        ):
            walls, size = [], 0
            for _ in range(3):
                with collections_paused():  # as `goldgate report html` renders
                    started = time.perf_counter()
                    size = len(render("html", context).encode("utf-8"))
                    walls.append(time.perf_counter() - started)
            wall = statistics.median(walls)
            target = f" (target < 2 s: {wall / 2:.2f}x)" if attempts == 10_000 else ""
            megabytes = size / 1e6
            figures.append(f"{attempts:,} attempts {name} {wall:.2f} s{target}, {megabytes:.2f} MB")
    print(f"html (medians of 3, in-process): {'; '.join(figures)}")


def bench_read() -> None:
    from goldgate.report.io import read_report

    lean = WORK / "read-report.json"
    lean.write_text(json.dumps(_render_report(100_000)))
    _, detailed = _big_report("read_detailed", 3)
    for label, path in (("without details", lean), ("with details", detailed)):
        size = path.stat().st_size / 1e6
        started = time.perf_counter()
        read_report(path)
        reading = time.perf_counter() - started
        output = WORK / "read-junit.xml"
        output.unlink(missing_ok=True)
        wall, peak, code, text = timed(["report", "junit", str(path), "-o", str(output)], WORK)
        if code != 0:
            raise SystemExit(text[-2000:])
        print(
            f"read: 100,000 attempts {label}, {size:.1f} MB: read and verified in-process in "
            f"{reading:.2f} s; `goldgate report junit` {wall:.2f} s wall, {peak:.0f} MB peak "
            f"RSS = {peak / size:.1f}x the report's size (target <= 10x + 64 MB)"
        )


def _big_report(name: str, wrong_from: int) -> tuple[Path, Path]:
    """A project and its report of 10,000 cases x --repeat 10 = 100,000 attempts, 3 checks
    each; the target mislabels every 20th case from ``wrong_from``. Both projects name the
    same target module, so their reports are comparable."""
    root = make_project(
        name, 10_000, 0.0, module="bench_target_big", wrong_every=20, wrong_from=wrong_from
    )
    report = root / "report.json"
    _, _, code, output = timed(
        ["evaluate", "--repeat", "10", "--max-concurrency", "8", "--output", str(report)], root
    )
    if code not in (0, 1):
        raise SystemExit(f"goldgate exited {code}:\n{output[-2000:]}")
    return root, report


def bench_compare() -> None:
    _, baseline = _big_report("compare_baseline", 3)
    _, candidate = _big_report("compare_candidate", 7)
    runs = []
    for index in range(3):
        output = WORK / f"comparison-{index}.json"
        output.unlink(missing_ok=True)
        arguments = ["evaluate", "--compare", str(candidate), "--baseline", str(baseline),
                     "--output", str(output)]  # fmt: skip
        wall, peak, code, text = timed(arguments, WORK)
        if code != 0:
            raise SystemExit(f"goldgate exited {code}:\n{text[-2000:]}")
        runs.append((wall, peak))
    comparison = json.loads((WORK / "comparison-0.json").read_text())
    counts = comparison["overall"]["attempts"]
    wall = statistics.median(run[0] for run in runs)
    best = min(run[0] for run in runs)
    peak = max(run[1] for run in runs)
    size = baseline.stat().st_size / 1e6
    print(
        f"compare: two reports of 100,000 attempts x 3 checks ({size:.0f} MB each; "
        f"{counts['improved']} improved, {counts['regressed']} regressed, "
        f"{counts['unchanged']} unchanged) (median of 3, best in brackets): {wall:.2f} s "
        f"({best:.2f} s) wall, {peak:.0f} MB peak RSS (targets <= 5 s, <= 1 GB): "
        f"{wall / 5:.2f}x of the time budget, {peak / 1024:.2f}x of the memory budget"
    )


def bench_replay() -> None:
    root, report = _big_report("replay", 3)
    runs = []
    for index in range(3):
        output = root / f"replay-{index}.json"
        output.unlink(missing_ok=True)
        wall, peak, code, text = timed(
            ["evaluate", "--replay", str(report), "--output", str(output)], root
        )
        if code not in (0, 1):
            raise SystemExit(f"goldgate exited {code}:\n{text[-2000:]}")
        replayed = json.loads(output.read_text())
        checks = sum(sum(s["counts"]["checks"].values()) for s in replayed["suites"])
        runs.append((wall, peak, replayed["duration_seconds"], checks))
    wall = statistics.median(run[0] for run in runs)
    inside = statistics.median(run[2] for run in runs)
    best = min(run[2] for run in runs)
    peak = max(run[1] for run in runs)
    checks = runs[0][3]
    print(
        f"replay: {checks:,} checks of 100,000 saved attempts (median of 3): {wall:.2f} s wall "
        f"for the whole process (start-up, gold, reading and writing the reports included): "
        f"{checks / wall:,.0f} checks/s; the replay itself (scoring and writing) {inside:.2f} s: "
        f"{checks / inside:,.0f} checks/s, best {checks / best:,.0f} checks/s (target >= "
        f"100,000 checks/s); {peak:.0f} MB peak RSS"
    )


EVAL_SOURCE = """{import_line}
import re

LABELS = ["billing_dispute", "service_change", "cancellation"]
TICKET = re.compile(r"\\bT-\\d+\\b")
CASES = [
    {{"id": f"case-{{i:05d}}", "input": {{"label": LABELS[i % 3], "index": i}},
      "reference": LABELS[i % 3]}}
    for i in range({cases})
]


async def app(request):
    label = request["label"]
    return {{"label": label, "answer": f"Ticket T-{{request['index']}} routed to the {{label}} queue."}}


@eval(dataset="bench", cases=CASES)
async def routes(ctx: EvalContext):
    ctx.output = await app(ctx.input)
    assert ctx.output["label"] == ctx.reference, "wrong label"
    assert ctx.reference in ctx.output["answer"], "label not mentioned"
    assert TICKET.search(ctx.output["answer"]), "no ticket"
"""

EVAL_TARGET = """
async def handle(request):
    payload = request["envelope"]["payload"]
    label = payload["label"]
    answer = f"Ticket T-{payload['index']} routed to the {label} queue."
    return {"execution": {"status": "completed"}, "payload": {"label": label, "answer": answer}}
"""


def make_evals_workload(cases: int) -> Path:
    """The same evals for goldgate (eval_bench.py) and for ezvals (ezvals_bench.py, only the
    import line differs), and the same checks as JSON gold: an exact label, the label
    contained in the answer and a ticket pattern matched, against the same application."""
    root = WORK / f"evals_{cases}"
    if root.exists():
        shutil.rmtree(root)
    (root / "config").mkdir(parents=True)
    (root / "evaluation" / "cases").mkdir(parents=True)
    for name, line in (
        ("eval_bench.py", "from goldgate.evals import eval, EvalContext"),
        ("ezvals_bench.py", "from ezvals import eval, EvalContext"),
    ):
        (root / name).write_text(EVAL_SOURCE.format(import_line=line, cases=cases))
    (root / "gold_target.py").write_text(EVAL_TARGET)
    (root / "config" / "settings.yaml").write_text(
        "workflows:\n  app:\n    revision: r1\n    target: {python: 'gold_target:handle'}\n"
    )
    gold = []
    for index in range(cases):
        label = LABELS[index % 3]
        gold.append(
            {
                "id": f"case-{index:05d}",
                "input": {"payload": {"label": label, "index": index}, "metadata": {}},
                "expectations": [
                    {"name": "label", "path": "/payload/label", "expected": label},
                    {
                        "name": "mentions",
                        "path": "/payload/answer",
                        "comparison": "text",
                        "expected": {"contains": label},
                    },
                    {
                        "name": "ticket",
                        "path": "/payload/answer",
                        "comparison": "text",
                        "expected": {"matches": "\\bT-\\d+\\b"},
                    },
                ],
            }
        )
    manifest = {
        "name": "bench",
        "revision": "r1",
        "suites": [{"name": "bench", "workflow": "app", "cases": "cases/bench.json"}],
    }
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest))
    (root / "evaluation" / "cases" / "bench.json").write_text(json.dumps(gold))
    return root


def ezvals_command() -> list[str]:
    """ezvals in a throwaway venv of its own (created once): its newest release, apart from
    the test extra's pinned one."""
    venv = WORK / "ezvals-venv"
    script = venv / "bin" / "ezvals"
    if not script.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "ezvals"], check=True)
    return [str(script)]


_TREE_MEASURE = """
import json, os, subprocess, sys, time

def tree(pid):
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(child) for child in children.read().split())
        except OSError:
            pass
    return found

def memory(pid):
    # Rss and Pss, in KiB: Pss splits each shared page between the processes sharing it (a
    # forked process starts sharing all of its parent's), so summed it is real memory.
    found = {"Rss:": 0, "Pss:": 0}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                key = line.split(None, 1)[0]
                if key in found:
                    found[key] = int(line.split()[1])
    except (OSError, IndexError):
        pass
    return found["Rss:"], found["Pss:"]

started = time.perf_counter()
process = subprocess.Popen(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
peak_tree = peak_pss = 0
while process.poll() is None:
    figures = [memory(pid) for pid in tree(process.pid)]
    peak_tree = max(peak_tree, sum(rss for rss, _ in figures))
    peak_pss = max(peak_pss, sum(pss for _, pss in figures))
    time.sleep(0.005)
output = process.stdout.read()
wall = time.perf_counter() - started
import resource
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "peak_kb": peak, "tree_kb": peak_tree, "pss_kb": peak_pss,
                  "code": process.returncode, "output": output}))
"""


def timed_tree(command: list[str], cwd: Path, codes: tuple[int, ...] = (0,)) -> dict[str, float]:
    """Wall seconds, the largest process's peak RSS (MB) and the sampled peaks of the whole
    process tree (MB: ezvals runs a host and a Python worker; a large goldgate run forks a
    helper, then a report process) of one fresh run: RSS summed (a page two processes share
    counts twice) and PSS summed (each shared page split between them: real memory)."""
    done = subprocess.run(
        [sys.executable, "-c", _TREE_MEASURE, str(cwd), *command],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout)
    if figures["code"] not in codes:
        raise SystemExit(f"{command[0]} exited {figures['code']}:\n{figures['output'][-2000:]}")
    return {
        "wall": figures["wall"],
        "peak": figures["peak_kb"] / 1024,
        "tree": max(figures["tree_kb"], figures["peak_kb"]) / 1024,
        "pss": figures["pss_kb"] / 1024,
    }


def compile_goldgate() -> None:
    """Write goldgate's bytecode, as installing it from a wheel does. An editable install
    run under PYTHONDONTWRITEBYTECODE (as on the project's machines) would otherwise compile
    every module from source in every fresh process (about 0.15 s), while ezvals, installed
    by pip into its venv, has its bytecode: the comparison must be like for like."""
    import importlib.util

    spec = importlib.util.find_spec("goldgate")
    assert spec is not None and spec.submodule_search_locations
    package = next(iter(spec.submodule_search_locations))
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)


def bench_evals(runs: int = 5) -> None:
    """Issue 11's figures. Runs are interleaved (goldgate evals, JSON gold, ezvals, ...) so
    that a noisy machine affects all three alike; medians of ``runs``."""
    ezvals = ezvals_command()
    big, small = make_evals_workload(10_000), make_evals_workload(1)

    def commands(root: Path, index: int) -> dict[str, list[str]]:
        report = str(root / f"report-{index}.json")
        return {
            "goldgate evals": [
                *GOLDGATE,
                "evals",
                "run",
                "eval_bench.py",
                "--max-concurrency",
                "16",
                "--output",
                report,
            ],
            "JSON gold": [
                *GOLDGATE,
                "evaluate",
                "--max-concurrency",
                "16",
                "--output",
                str(root / f"gold-{index}.json"),
            ],
            "ezvals": [
                *ezvals,
                "run",
                "ezvals_bench.py",
                "-c",
                "16",
                "-q",
                "-o",
                str(root / f"ezvals-{index}.json"),
            ],
        }

    figures: dict[tuple[str, int], list[dict[str, float]]] = {}
    for index in range(runs):
        for root, size in ((small, 1), (big, 10_000)):
            for name, command in commands(root, index).items():
                figures.setdefault((name, size), []).append(timed_tree(command, root))
    for root in (small, big):
        for leftover in root.glob("*-[0-9]*.json"):
            leftover.unlink()

    def median(name: str, size: int, key: str) -> float:
        return statistics.median(run[key] for run in figures[(name, size)])

    print(f"evals: 10,000 cases x 3 assertions, concurrency 16 (medians of {runs}, interleaved):")
    for name in ("goldgate evals", "JSON gold", "ezvals"):
        wall = median(name, 10_000, "wall")
        overhead = (wall - median(name, 1, "wall")) / 9_999 * 1e6
        print(
            f"  {name:<15} wall {wall:5.2f} s; per case {overhead:6.1f} us over a 1-case run "
            f"({median(name, 1, 'wall'):.2f} s); peak RSS {median(name, 10_000, 'peak'):5.1f} MB"
            f" (largest process), {median(name, 10_000, 'tree'):5.1f} MB (process tree)"
        )
    ratio = median("goldgate evals", 10_000, "wall") / median("ezvals", 10_000, "wall")
    memory = median("goldgate evals", 10_000, "tree") / median("ezvals", 10_000, "tree")
    print(
        f"  goldgate evals / ezvals: wall {ratio:.2f}x (target <= 0.3x), memory {memory:.2f}x of "
        f"ezvals' process tree (target <= 1.0x); goldgate evals / JSON gold: wall "
        f"{median('goldgate evals', 10_000, 'wall') / median('JSON gold', 10_000, 'wall'):.2f}x"
    )


def bench_coldstart() -> None:
    # A sibling script: it imports the tests' act harness, which the others do not need.
    from coldstart import bench_coldstart as coldstart

    coldstart()


def bench_publish() -> None:
    # A sibling script (benchmarks/publish.py): issue 43's publishing step beside the run.
    from publish import bench_publish as publish

    publish()


def bench_merge() -> None:
    from publish import bench_merge as merge

    merge()


def bench_live() -> None:
    # A sibling script (benchmarks/live.py): the fake server and promptfoo are its own.
    from live import bench_live as live

    live()


BENCHMARKS = {
    "check": bench_check,
    "runner": bench_runner,
    "scoring": bench_scoring,
    "lean": bench_lean,
    "interrupt": bench_interrupt,
    "overhead": bench_overhead,
    "pathological": bench_pathological,
    "render": bench_render,
    "html": bench_html,
    "read": bench_read,
    "compare": bench_compare,
    "replay": bench_replay,
    "publish": bench_publish,
    "merge": bench_merge,
    "evals": bench_evals,
    "coldstart": bench_coldstart,
    "live": bench_live,
}


def main(names: list[str]) -> None:
    unknown = [name for name in names if name not in BENCHMARKS and name != "--million"]
    if unknown:  # --help among them: the module's docstring says what each one measures
        print(__doc__)
        known = ", ".join(BENCHMARKS)
        print(f"benchmarks/run.py: no benchmark {unknown[0]!r}; one of {known}", file=sys.stderr)
        sys.exit(2)
    WORK.mkdir(exist_ok=True)
    compile_goldgate()  # every benchmark starts fresh processes: as an installed goldgate
    for name in [name for name in names if name != "--million"] or list(BENCHMARKS):
        BENCHMARKS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
