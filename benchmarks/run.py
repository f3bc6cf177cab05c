"""goldgate benchmarks: synthetic workloads, figures printed, nothing asserted.

    .venv/bin/python benchmarks/run.py [check] [runner] [scoring] [compare] [replay]

- check: `goldgate evaluate --check` on 10,000 cases x 3 expectations + a metric
  (targets: under 1.5 s and 250 MB).
- runner: 1,000 cases against an async python target sleeping 20 ms at concurrency 64, with
  and without --repeat 3; wall time against the ideal (rounds x 20 ms) plus start-up, where
  start-up is the same run against a target that does not sleep.
- scoring: a 10,000-case run against an instant target: checks scored per second.
- compare: `goldgate evaluate --compare` of two reports of 100,000 attempts with 3 checks
  each (10,000 cases x --repeat 10; the candidate mislabels other cases than the baseline,
  so there are improved, regressed and unchanged attempts): targets <= 5 s and <= 1 GB.
- replay: `goldgate evaluate --replay` of such a report (300,000 checks): checks per second
  over the whole process and over the replay itself (target >= 100,000 checks/s).

Each figure is one run of a fresh `goldgate` process; peak memory is that process's maximum
resident set size. The machines are shared and noisy: read ratios, not single digits.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

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
                "expected": {"input_path": "/payload/message", "required": [0, 7],
                             "allowed": [0, len(message)]},
                "comparison": "source_span",
            },
        ],
    }


TARGET_SOURCE = '''
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
'''


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


def timed(arguments: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS in MB and exit code of one goldgate process, measured by a
    fresh wrapper process so that the peak belongs to that goldgate process alone."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(cwd), *GOLDGATE, *arguments],
        capture_output=True, text=True, check=True,
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
    print(f"scoring: 10,000 cases, {checks} checks: run {run_seconds:.2f} s "
          f"({checks / run_seconds:,.0f} checks/s including the target calls), "
          f"{wall:.2f} s wall for the process, {peak:.0f} MB peak RSS, "
          f"report {size:.1f} MB; exit {code}")
    if code != 0:
        print(output[-2000:])


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


BENCHMARKS = {
    "check": bench_check,
    "runner": bench_runner,
    "scoring": bench_scoring,
    "compare": bench_compare,
    "replay": bench_replay,
}


def main(names: list[str]) -> None:
    WORK.mkdir(exist_ok=True)
    for name in names or list(BENCHMARKS):
        BENCHMARKS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
