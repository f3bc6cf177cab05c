"""Reading costs a stated, small multiple of the report (docs/report-format.md, "What reading
a report takes"): a 30 MB report is compared, merged and rendered by a real goldgate process
under a 512 MB address-space limit (``RLIMIT_AS``); past the bound it is exit 2 with one
sentence naming the file, never a traceback and never a crash (a signal), whether it is
refused before it is read or runs out of memory while it is read."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import forkserver
from helpers.benchmarks import load_benchmarks
from helpers.reports import read_whole_only
from run.support import GOLDGATE, cli_env

# One worker makes the module's 30 MB reports once (about 10 s), not each worker that draws
# one of its tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("memory_limit")

LIMIT = 512 * 1024 * 1024

TARGET = """
WRONG_FROM = {wrong_from}
NOTES = ["n" * 32] * 410


def ANSWER(label):
    return {{"answer": {{"optionId": label}}}}


async def handle(request):
    message = request["envelope"]["payload"]["message"]
    label = message.split("handle ")[1].split(" ")[0]
    index = int(message.split(" ")[1].rstrip(":"))
    if index % 20 == WRONG_FROM:
        label = "wrong"
    return {{
        "execution": {{"status": "completed"}},
        "payload": {{"account": message, "notes": NOTES}},
        "flows": {{"triage": {{"steps": {{"classify": {{"result": ANSWER(label)}}}}}}}},
    }}
"""


def _goldgate(
    *args: str, cwd: Path, limit: int | None = LIMIT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """goldgate under ``limit`` bytes of address space (set in the child as it starts); with
    none, forked from the tests' fork server (``helpers.forkserver``: no interpreter to
    start, as for the module's evaluations)."""
    if limit is None:
        return forkserver.run(
            [*GOLDGATE, *args], cwd=cwd, env=cli_env(env), capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [*GOLDGATE, *args], cwd=cwd, env=cli_env(env), capture_output=True, text=True,
        preexec_fn=limited, timeout=300, check=False,
    )  # fmt: skip


class Reports:
    def __init__(self, folder: Path) -> None:
        self.candidate = folder / "candidate.json"
        self.baseline = folder / "baseline.json"
        self.shards = (folder / "shard1.json", folder / "shard2.json")
        self.comparison = folder / "comparison.json"
        self.whole_only = folder / "whole-only.json"
        """The baseline as text the stream cannot take: every reader reads it whole."""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    """A 30 MB candidate report, its run's two shards and a 30 MB baseline that mislabels
    other cases: 2,000 cases (enough for the publishing step to fork its case table), each
    result carrying 14 KB of notes, written once for the module (without a limit).

    A reader's time goes to its attempts (2,000 of 15 KB take half of what 20,000 of 1.5 KB
    did), and what reading a report whole takes to its values: the notes are 410 short
    strings, not one, so that the report read whole holds many small objects, as a run's
    report does (without the bound, a whole read needs about 200 MB of address space: more
    than the 150 MB the streamed readers below are given; one string of 14 KB a result
    would need less than 150 MB, and those tests would pass reading it whole)."""
    benchmarks = load_benchmarks()
    folder = tmp_path_factory.mktemp("memory")
    benchmarks.WORK = folder
    made = Reports(folder)
    run = ("evaluate", "--max-concurrency", "8", "--output")
    for name, wrong_from in (("candidate", 7), ("baseline", 3)):
        root = benchmarks.make_project(name, 2_000, 0.0, module="memory_target")
        (root / "memory_target.py").write_text(TARGET.format(wrong_from=wrong_from))
        output = getattr(made, name)
        done = _goldgate(*run, str(output), cwd=root, limit=None)
        assert done.returncode == 1, done.stderr[-2000:]
        assert 28e6 < output.stat().st_size < 34e6
    for index, shard in enumerate(made.shards, 1):
        done = _goldgate(
            *run, str(shard), "--shard", f"{index}/2", cwd=folder / "candidate", limit=None
        )
        assert done.returncode == 0, done.stderr[-2000:]
    made.whole_only.write_bytes(read_whole_only(made.baseline.read_bytes()))
    return made


def _one_sentence(result: subprocess.CompletedProcess[str], path: Path) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"goldgate: {path}: too large to read in the memory"), line
    assert line.endswith("."), line


COMPARE_LIMIT = 150 << 20
"""Address space the comparison of the two 30 MB reports is given (``compared``)."""


@pytest.fixture(scope="module")
def compared(reports: Reports) -> subprocess.CompletedProcess[str]:
    """`evaluate --compare` of the 30 MB candidate with the 30 MB baseline under
    ``COMPARE_LIMIT``, the bound enforced, written to ``reports.comparison``: made once for
    the two tests that read it (the 512 MB test and the case-at-a-time test)."""
    return _goldgate(
        "evaluate", "--compare", str(reports.candidate), "--baseline", str(reports.baseline),
        "--output", str(reports.comparison), cwd=reports.comparison.parent, limit=COMPARE_LIMIT,
    )  # fmt: skip


@pytest.mark.slow
def test_a_30_mb_report_is_compared_and_rendered_in_512_mb(
    reports: Reports, compared: subprocess.CompletedProcess[str], tmp_path: Path
) -> None:
    """Two 30 MB reports compared (``compared``: under 150 MB, so under 512 MB), and the
    candidate rendered with its comparison, under 512 MB. Merging (under 200 MB), JUnit and
    the HTML page (the publishing step, under 400 MB) and `report show` (under 150 MB) are
    held to tighter limits below."""
    assert compared.returncode == 0, compared.stderr[-2000:]
    assert "regressions: yes" in compared.stdout
    candidate, comparison = str(reports.candidate), str(reports.comparison)
    for arguments in (
        ["markdown", candidate, "--comparison", comparison],
        ["annotations", candidate],
    ):
        rendered = _goldgate("report", *arguments, cwd=tmp_path)
        assert rendered.returncode in (0, 1), (arguments, rendered.stderr[-2000:])
        assert rendered.stdout
        if arguments[0] == "markdown":
            assert "regress" in rendered.stdout.lower()
    # With every speed-up off too (the collector as Python runs it).
    plain = _goldgate("report", "show", candidate, cwd=tmp_path, env={"GOLDGATE_ACCELERATORS": "0"})
    assert plain.returncode in (0, 1), plain.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("accelerators", ["1", "0"])
def test_a_merge_holds_a_case_at_a_time_not_the_shards(
    reports: Reports, tmp_path: Path, accelerators: str
) -> None:
    """Merging reads each shard a case at a time and writes the merged report as it goes
    (issue 43): two 15 MB shards merge under 200 MB of address space (they do under 150 MB),
    where a merge reading them whole does not, accelerators on (each shard read by a helper
    of its own) or off (one process reads both): under 300 MB, a helper's one shard read
    whole fitted, and the test could not fail. The merged report is the one a whole read
    gives, byte for byte."""
    from goldgate.report.io import read_report, report_bytes
    from goldgate.report.merge import ShardReport, merge_reports

    merged = tmp_path / "merged.json"
    result = _goldgate(
        "report", "merge", *map(str, reports.shards), "-o", str(merged), cwd=tmp_path,
        limit=200 << 20, env={"GOLDGATE_ACCELERATORS": accelerators},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr[-2000:]  # the gold disagrees: exit 1
    whole = merge_reports([ShardReport(str(path), read_report(path)) for path in reports.shards])
    assert merged.read_bytes() == report_bytes(whole)


@pytest.mark.slow
@pytest.mark.parametrize("accelerators", ["1", "0"])
def test_past_the_bound_a_report_is_refused_in_one_sentence(
    reports: Reports, tmp_path: Path, accelerators: str
) -> None:
    """Under 300 MB, a 30 MB report cannot be read whole (10 x 30 MB + 64 MB): refused
    before it is read, exit 2, one sentence naming it."""
    small = tmp_path / "small.json"
    small.write_text(json.dumps(load_benchmarks()._render_report(10)), "utf-8")
    env = {"GOLDGATE_ACCELERATORS": accelerators}
    fits = _goldgate("report", "show", str(small), cwd=tmp_path, limit=300 << 20, env=env)
    assert fits.returncode == 0, fits.stderr  # the limit lets goldgate itself run
    big = reports.whole_only  # read whole (every reader streams a report it can)
    export = str(tmp_path / "queue.jsonl")
    result = _goldgate(
        "adjudication", "export", str(big), "-o", export, cwd=tmp_path, limit=300 << 20, env=env
    )
    _one_sentence(result, big)


PADDING = 80_000
"""Characters of padding in each case's input: 1,000 cases make an 80 MB report whose inputs
a comparison that kept its sides would hold twice over."""


@pytest.fixture(scope="module")
def padded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two reports of the benchmark's workload whose inputs are large: 1,000 cases of
    ``PADDING`` characters each (80 MB), and 2 cases, one of them 12 MB."""
    benchmarks = load_benchmarks()
    folder = tmp_path_factory.mktemp("padded")
    benchmarks.WORK = folder
    made = []
    for name, count, padding in (("wide", 1_000, [PADDING]), ("tall", 2, [12 << 20, 10])):
        root = benchmarks.make_project(name, count, 0.0, module=f"{name}_target")
        (root / f"{name}_target.py").write_text(TARGET.format(wrong_from=7))
        cases = root / "evaluation" / "cases" / "synthetic.json"
        gold = json.loads(cases.read_text("utf-8"))
        for index, case in enumerate(gold):
            case["input"]["metadata"]["padding"] = "p" * padding[index % len(padding)]
        cases.write_text(json.dumps(gold), "utf-8")
        output = folder / f"{name}.json"
        done = _goldgate("evaluate", "--output", str(output), cwd=root, limit=None)
        assert done.returncode in (0, 1), done.stderr[-2000:]
        made.append(output)
    return made[0], made[1]


@pytest.mark.slow
@pytest.mark.parametrize("accelerators", ["1"])  # compare takes no accelerated path
def test_a_comparison_holds_a_case_of_each_side_not_the_sides(
    padded: tuple[Path, Path], tmp_path: Path, accelerators: str
) -> None:
    """`evaluate --compare` holds the figures, an index of ids and digests and one case of
    each side at a time (issue 43): an 80 MB report compared with itself under 160 MB of
    address space, where sides kept whole (every case's input, twice) needed more than
    200 MB and a whole read 10 x 80 MB; the comparison is the one made without a limit."""
    wide = str(padded[0])
    written = []
    for limit, name in ((160 << 20, "limited.json"), (None, "free.json")):
        output = tmp_path / name
        result = _goldgate(
            "evaluate", "--compare", wide, "--baseline", wide, "--output", str(output),
            cwd=tmp_path, limit=limit, env={"GOLDGATE_ACCELERATORS": accelerators},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        written.append(json.loads(output.read_text("utf-8")))
    for each in written:
        del each["created_at"]
    assert written[0] == written[1]
    assert written[0]["overall"]["attempts"]["unchanged"] == 1_000


@pytest.mark.slow
@pytest.mark.parametrize("side", ["candidate", "baseline"])
def test_a_case_too_large_to_compare_is_refused_in_one_sentence(
    padded: tuple[Path, Path], tmp_path: Path, side: str
) -> None:
    """A comparison reads a case at a time: a report is refused for its largest case, not
    its size (a case of 12 MB takes 10 x 12 MB + 64 MB to read), exit 2, one sentence,
    nothing written."""
    wide, tall = map(str, padded)
    pair = [tall, wide] if side == "candidate" else [wide, tall]
    output = tmp_path / "comparison.json"
    result = _goldgate(
        "evaluate", "--compare", pair[0], "--baseline", pair[1], "--output", str(output),
        cwd=tmp_path, limit=200 << 20,
    )  # fmt: skip
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"goldgate: {tall}: a case of 12.0 MB is too large to read"), line
    assert not output.exists()


@pytest.mark.slow
def test_goldgate_memory_limit_is_a_bound_of_its_own(reports: Reports, tmp_path: Path) -> None:
    """Where no limit can be seen from inside, ``GOLDGATE_MEMORY_LIMIT`` (megabytes) is one."""
    limited = {"GOLDGATE_MEMORY_LIMIT": "200"}
    export = ("adjudication", "export", str(reports.whole_only), "-o", str(tmp_path / "q.jsonl"))
    result = _goldgate(*export, cwd=tmp_path, limit=None, env=limited)
    _one_sentence(result, reports.whole_only)
    wrong = _goldgate(
        *export, cwd=tmp_path, limit=None,
        env={"GOLDGATE_MEMORY_LIMIT": "lots"},
    )  # fmt: skip
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == (
        "goldgate: GOLDGATE_MEMORY_LIMIT must be a positive whole number of megabytes, "
        'found "lots".'
    )


UNBOUNDED = (
    "import sys\n"
    "import goldgate.report.io as io\n"
    "io.admit_report = lambda *arguments: None  # the bound not enforced: memory runs out\n"
    "from goldgate.cli import main\n"
    "sys.argv[0] = 'goldgate'\n"
    "main()\n"
)


def _unbounded(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """goldgate with the bound not enforced (``UNBOUNDED``), under 150 MB of address space."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (150 << 20, 150 << 20))

    return subprocess.run(
        [sys.executable, "-c", UNBOUNDED, *arguments], cwd=cwd, env=cli_env(None),
        capture_output=True, text=True, preexec_fn=limited, timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_comparison_reads_its_sides_a_case_at_a_time(
    compared: subprocess.CompletedProcess[str],
) -> None:
    """`evaluate --compare` reduces and verifies each side a case at a time (issue 43): two
    30 MB reports (``compared``: the candidate and the baseline) compare under 150 MB, where
    reading them whole ran out of memory (below). That run enforces the bound, which only
    ever refuses: a run that reads a side whole is refused by it, or runs out of memory
    without it, and fails here either way; one that succeeds held less than 150 MB."""
    assert compared.returncode == 0, compared.stderr[-2000:]
    assert "comparison: " in compared.stdout


@pytest.mark.slow
def test_running_out_of_memory_while_reading_is_the_same_sentence(
    reports: Reports, tmp_path: Path
) -> None:
    """With the bound not enforced, a 30 MB report read whole under 150 MB runs out of
    memory: the ``MemoryError`` met while reading it is the same exit 2 and sentence, never a
    traceback or a crash (no C extension is left to meet it)."""
    export = str(tmp_path / "queue.jsonl")
    whole = str(reports.whole_only)
    result = _unbounded(["adjudication", "export", whole, "-o", export], tmp_path)
    assert result.returncode >= 0, "killed by a signal"
    _one_sentence(result, reports.whole_only)


@pytest.mark.slow
def test_a_replay_reads_its_report_a_case_at_a_time(reports: Reports, tmp_path: Path) -> None:
    """`evaluate --replay` reads the saved report a case at a time and writes the replay as
    it goes (issue 43): the 30 MB candidate replays under 250 MB of address space, where
    reading it whole takes 10 x 30 MB + 64 MB (refused before); the replay's checks are the
    run's."""
    replayed = tmp_path / "replayed.json"
    result = _goldgate(
        "evaluate", "--replay", str(reports.candidate), "--output", str(replayed),
        cwd=reports.candidate.parent / "candidate", limit=250 << 20,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr[-2000:]  # the gold disagrees, as in the run
    counts = [
        json.loads(path.read_text("utf-8"))["suites"][0]["counts"]
        for path in (reports.candidate, replayed)
    ]
    assert counts[0] == counts[1]


@pytest.mark.slow
def test_a_report_is_rendered_a_case_at_a_time(reports: Reports, tmp_path: Path) -> None:
    """`goldgate report show` reads the report as a stream (issue 43), as every renderer
    does: with the bound not enforced, a 30 MB report renders under 150 MB, where reading it
    whole ran out of memory (above)."""
    shown = _unbounded(["report", "show", str(reports.baseline)], tmp_path)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "gold disagreement" in shown.stdout


def _action(reports: Reports, out: Path, limit: int) -> subprocess.CompletedProcess[str]:
    """``goldgate action`` in compare mode (what the publishing step does), JUnit and the
    HTML page included, the comment off, under ``limit`` bytes of address space."""
    out.mkdir()
    env = load_benchmarks().publishing_environment(out, reports.candidate, reports.baseline)
    return _goldgate("action", cwd=out, limit=limit, env=env)


PUBLISH_LIMIT = 400 << 20
"""Address space the publishing step of two 30 MB reports is given: reading the candidate
whole took 10 x 30 MB + 64 MB before it rendered anything (and rendering it whole as much
again)."""


@pytest.mark.slow
def test_the_publishing_step_reads_each_report_a_case_at_a_time(
    reports: Reports, tmp_path: Path
) -> None:
    """The publishing step (issue 43) feeds every rendering from one pass over the
    candidate's cases, JUnit and the HTML page written as they are made: two 30 MB reports
    publish under ``PUBLISH_LIMIT``, and the counts it outputs are those of the report."""
    from goldgate.render.view import build_view
    from goldgate.report.io import read_report

    result = _action(reports, tmp_path / "publish", PUBLISH_LIMIT)
    assert result.returncode == 1, result.stderr[-3000:]  # the gold disagrees: exit 1
    out = tmp_path / "publish"
    junit = (out / "junit.xml").read_text("utf-8")
    assert junit.endswith("</testsuite>\n</testsuites>\n")
    page = (out / ".goldgate" / "action" / "candidate.html").read_text("utf-8")
    assert page.rstrip().endswith("</html>")
    counts = build_view(read_report(reports.candidate)).counts
    outputs = (out / "output").read_text("utf-8")
    assert f"\n{counts['passed']}\n" in outputs.split("passed<<", 1)[1].split("failed<<")[0]
    thresholds = junit.count('<testcase name="(thresholds)"')
    assert junit.count("<testcase ") - thresholds == sum(counts.values())


CALIBRATION_READ = (
    "import sys\n"
    "from pathlib import Path\n"
    "from goldgate.app.judges import decided_answers\n"
    "print(len(decided_answers([Path(sys.argv[1])], [], ['helpful'])))\n"
)


@pytest.mark.slow
def test_an_export_and_a_calibration_read_a_case_at_a_time(
    reports: Reports, tmp_path: Path
) -> None:
    """`adjudication export` and a judge's calibration read their reports a case at a time
    (issue 43): the 30 MB baseline, under 150 MB of address space, where reading it whole
    takes 10 x 30 MB + 64 MB (refused before)."""
    export = tmp_path / "queue.jsonl"
    exported = _goldgate(
        "adjudication", "export", str(reports.baseline), "-o", str(export), cwd=tmp_path,
        limit=150 << 20,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert "exported 0 answers" in exported.stdout
    assert export.read_bytes() == b""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (150 << 20, 150 << 20))

    calibrated = subprocess.run(
        [sys.executable, "-c", CALIBRATION_READ, str(reports.baseline)], cwd=tmp_path,
        env=cli_env(None), capture_output=True, text=True, preexec_fn=limited, timeout=300,
        check=False,
    )  # fmt: skip
    assert (calibrated.returncode, calibrated.stdout) == (0, "0\n"), calibrated.stderr[-2000:]
