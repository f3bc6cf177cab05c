"""``goldgate report merge`` stopped by SIGINT or SIGTERM while it writes the merged report:
exit 130, it says so, and no temporary file is left beside the output (the real process,
signalled once its temporary file exists)."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

import pytest

from goldgate.report.io import read_report, write_report
from render.builders import attempt, case, expectation, report, suite
from run.support import start_cli

# One worker makes the module's two shards once, not each worker that draws one of its tests
# (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("merge_interrupted")

CASES = 16_000  # enough that writing the merged report takes a good part of a second


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("merge-shards")
    paths = []
    for k in (1, 2):
        cases = [
            dataclasses.replace(
                case(
                    f"case-{index:06d}",
                    [attempt(1, outcomes=("passed", "failed"))],
                    [expectation("status"), expectation("category")],
                ),
                position=index,
            )
            for index in range(CASES)
            if index % 2 == k - 1
        ]
        built = report([dataclasses.replace(suite("bulk", cases), whole_case_count=CASES)])
        # Built without results: written as a run without details writes it (none to score),
        # the very report helpers.reports.coherent makes of it (its figures are the builders').
        options = dataclasses.replace(
            built.options, shard=f"{k}/2", include_details=False, timeout=300.0
        )
        shard = dataclasses.replace(built, options=options)
        paths.append(write_report(shard, folder / f"shard-{k}.json"))
    return paths[0], paths[1]


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_merged_report_is_written_leaves_no_temporary_file(
    tmp_path: Path, shards: tuple[Path, Path], number: int
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    process = start_cli(
        "report", "merge", str(shards[0]), str(shards[1]), "--output", str(out / "merged.json"),
        cwd=tmp_path,
    )  # fmt: skip
    try:
        limit = time.monotonic() + 120
        while not list(out.glob(".goldgate-*")) and process.poll() is None:
            assert time.monotonic() < limit, "the merge never started writing"
            time.sleep(0.002)
        assert process.poll() is None, "the merge ended before it could be signalled"
        process.send_signal(number)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()

    assert process.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr
    assert "goldgate: interrupted; the merged report was" in stderr
    left = sorted(path.name for path in out.iterdir())
    assert left in ([], ["merged.json"]), left  # never a temporary file
    if left:  # the signal came once it was in place: then it is whole
        assert len(read_report(out / "merged.json").suites[0].cases) == CASES
