"""The publishing and merge benchmarks (issue 43): what a pull request's check costs after
the run, beside the run itself.

The workload is run.py's ``make_project`` (3 checks per case, a classification metric):
a baseline from a version of the application that answers every 7th case wrongly, and a
candidate that answers every 11th wrongly (so there are improved, regressed and unchanged
attempts), both with details, one attempt per case. At each size, one after the other in the
same run, medians of 3 fresh processes:

- ``evaluate``: `goldgate evaluate` of the candidate (the run the publishing step follows);
- ``compare``: `goldgate evaluate --compare` of candidate and baseline;
- ``publish``: `goldgate action` in compare mode with JUnit and the HTML page (the comment
  off: no GitHub), what the publishing step does;
- ``merge``: `goldgate report merge` of the candidate's two shards (`evaluate --shard 1/2`,
  `--shard 2/2`).

Printed per command: wall seconds and peak RSS (MB) of the process, and the ratios
publish / evaluate and merge / evaluate. Sizes are 10,000 and 100,000 attempts;
``--million`` (or ``GOLDGATE_BENCH_PUBLISH_SIZES=1000000``, comma separated) adds
1,000,000 (its reports pass 256 MiB: GOLDGATE_MAX_FILE_BYTES is raised for it).
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

from run import WORK, make_project, publishing_environment, timed

_LARGE: dict[str, str] = {}
"""Variables for every command: past 256 MiB (a report of 1,000,000 attempts is about
900 MB), GOLDGATE_MAX_FILE_BYTES lets goldgate read it."""


def _sizes(argv: list[str]) -> tuple[int, ...]:
    text = os.environ.get("GOLDGATE_BENCH_PUBLISH_SIZES", "")
    sizes = tuple(int(size) for size in text.split(",") if size.strip()) or (10_000, 100_000)
    return (*sizes, 1_000_000) if "--million" in argv and 1_000_000 not in sizes else sizes


def _evaluate(root: Path, output: Path, *extra: str) -> tuple[float, float]:
    output.unlink(missing_ok=True)
    arguments = ["evaluate", "--max-concurrency", "8", *extra, "--output", str(output)]
    wall, peak, code, text = timed(arguments, root, _LARGE)
    if code not in (0, 1):
        raise SystemExit(f"goldgate evaluate exited {code}:\n{text[-2000:]}")
    return wall, peak


def _publish(root: Path, candidate: Path, baseline: Path, index: int) -> tuple[float, float]:
    out = root / f"publish-{index}"
    if out.exists():
        for each in sorted(out.rglob("*"), reverse=True):
            each.unlink() if each.is_file() else each.rmdir()
    out.mkdir()
    env = publishing_environment(out, candidate, baseline)
    wall, peak, code, text = timed(["action"], out, {**_LARGE, **env})
    if code not in (0, 1) or not (out / "junit.xml").exists():
        raise SystemExit(f"goldgate action exited {code}:\n{text[-3000:]}")
    return wall, peak


def _merge(root: Path, shards: list[Path], index: int) -> tuple[float, float]:
    output = root / f"merged-{index}.json"
    output.unlink(missing_ok=True)
    wall, peak, code, text = timed(
        ["report", "merge", *map(str, shards), "--output", str(output)], root, _LARGE
    )
    if code not in (0, 1):
        raise SystemExit(f"goldgate report merge exited {code}:\n{text[-2000:]}")
    return wall, peak


def bench_publish(argv: list[str] | None = None, *, merge_only: bool = False) -> None:
    """``merge_only``: the ``merge`` workload (evaluate and merge, no comparison)."""
    for size in _sizes(sys.argv[1:] if argv is None else argv):
        _LARGE.clear()
        _LARGE.update({"GOLDGATE_MAX_FILE_BYTES": str(4 << 30)} if size > 200_000 else {})
        # One project (so one dataset and one target), its application changed between
        # the runs: the baseline's answers every 7th case wrongly, the candidate's every 11th.
        name, module = f"publish_{size}", f"bench_target_publish_{size}"
        baseline = WORK / f"publish_{size}_baseline.json"
        root = make_project(name, size, 0.0, module=module, wrong_every=7, wrong_from=3)
        _evaluate(root, baseline)
        root = make_project(name, size, 0.0, module=module, wrong_every=11, wrong_from=5)
        candidate = root / "candidate.json"
        shards = [root / "shard-1.json", root / "shard-2.json"]
        for number, shard in enumerate(shards, 1):
            _evaluate(root, shard, "--shard", f"{number}/2")
        rows: dict[str, list[tuple[float, float]]] = {}
        for index in range(3):  # the commands in turn, so that noise touches each alike
            rows.setdefault("evaluate", []).append(_evaluate(root, candidate))
            rows.setdefault("merge", []).append(_merge(root, shards, index))
            if merge_only:
                continue
            compared = root / "comparison.json"
            compared.unlink(missing_ok=True)
            wall, peak, code, text = timed(
                ["evaluate", "--compare", str(candidate), "--baseline", str(baseline),
                 "--output", str(compared)], root, _LARGE)  # fmt: skip
            if code not in (0, 1):
                raise SystemExit(f"goldgate evaluate --compare exited {code}:\n{text[-2000:]}")
            rows.setdefault("compare", []).append((wall, peak))
            rows.setdefault("publish", []).append(_publish(root, candidate, baseline, index))
        medians = {
            name: (statistics.median(w for w, _ in runs), statistics.median(p for _, p in runs))
            for name, runs in rows.items()
        }
        size_mb = candidate.stat().st_size / 1e6
        cells = "; ".join(f"{name} {wall:.2f} s, {peak:.0f} MB"
                          for name, (wall, peak) in medians.items())  # fmt: skip
        evaluate = medians["evaluate"][0]
        merge = medians["merge"][0] / evaluate
        ratios = f"merge / evaluate {merge:.2f}x (target <= 0.5x, <= 256 MB)"
        if "publish" in medians:
            ratios = (
                f"publish / evaluate {medians['publish'][0] / evaluate:.2f}x (target <= 1x, "
                f"<= 256 MB), {ratios}"
            )
        print(
            f"{'merge' if merge_only else 'publish'}: {size:,} attempts (report {size_mb:.1f} "
            f"MB; medians of 3, wall and peak RSS): {cells}; {ratios}",
            flush=True,
        )


def bench_merge(argv: list[str] | None = None) -> None:
    bench_publish(argv, merge_only=True)


if __name__ == "__main__":
    WORK.mkdir(exist_ok=True)
    bench_merge() if "merge" in sys.argv[1:] else bench_publish()
