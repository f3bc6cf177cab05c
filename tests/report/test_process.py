"""A large run scores and writes its report in a process forked for it
(``goldgate.report.process``) while the run's own process calls the target: the report is
the very one the run writes alone, an interrupt still finishes it, and a report process
that dies ends the run with one sentence and no report."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.accelerators import cpu_budget
from goldgate.base.errors import RuntimeFailureError
from goldgate.report import unstarted
from goldgate.report.build import SuiteCollector
from goldgate.report.process import (
    _AHEAD,
    _BATCH,
    REPORT_PROCESS_FROM,
    RemoteCollector,
    ReportProcess,
    _transportable,
    _Writing,
)
from goldgate.report.stream import ReportWriter
from helpers import forkserver
from helpers.processes import assert_gone
from run.support import GOLDGATE, Project, cli_env, expect, new_project, read_report_json

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or cpu_budget() < 2,
    reason="a report process is forked only on Linux with a second CPU to run it",
)

CASES = REPORT_PROCESS_FROM + 76

PROBE_APP = '''
import asyncio, os
from pathlib import Path

def _children():
    """How many processes this one has forked and not yet reaped: the report process."""
    try:
        return len(Path(f"/proc/self/task/{os.getpid()}/children").read_text().split())
    except OSError:
        return -1

async def handle(request):
    payload = request["envelope"]["payload"]
    mode = payload["mode"]
    if mode == "raise":
        raise ValueError("the application broke")
    if mode == "marker":
        Path(payload["marker"]).write_text("reached", encoding="utf-8")
        await asyncio.sleep(60)
    document = {"execution": {"status": "completed"},
                "payload": {"category": payload["category"], "answer": payload["answer"]}}
    if mode == "children":
        document["children"] = _children()
    if mode == "odd":  # what a report cannot hold: the attempt's error, never the run's
        odd = payload["odd"]
        if odd == "raise":
            raise ValueError("a truncated message \\ud83d")
        document["payload"]["odd"] = {
            "surrogate": "a truncated answer \\ud83d",
            "digits": 10 ** 5000,
            "nan": float("nan"),
            "key": {"\\udc80": 1},
        }[odd]
    return document
'''


def _case(index: int, mode: str = "ok", **payload: Any) -> dict[str, Any]:
    category = ("billing", "refund", "access")[index % 3]
    answer = f"Ticket T-{index} goes to {category}."
    expectations = [
        expect("category", "/payload/category", "billing"),  # a third pass
        expect("mentions", "/payload/answer", {"contains": [category, "Ticket"]}, "text"),
        expect("ticket", "/payload/answer", {"matches": [rf"T-{index}\b"]}, "text"),
        expect("tags", "/payload/tags", ["a"], "set"),  # absent: fails with its reason
    ]
    return {
        "id": f"case-{index:05d}",
        "input": {
            "payload": {"mode": mode, "category": category, "answer": answer, **payload},
            "metadata": {"index": index},
        },
        "expectations": expectations,
    }


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project (as tests/run's fixture makes it), for the probe target."""
    return new_project(tmp_path / "project")


def _with_probe(project: Project) -> Project:
    """``project`` with the probe target as its workflow ``probe``."""
    (project.root / "probe_app.py").write_text(PROBE_APP, encoding="utf-8")
    project.workflows["probe"] = {"revision": "p-1", "target": {"python": "probe_app:handle"}}
    return project


def _case_file(project: Project, name: str, cases: list[dict[str, Any]]) -> str:
    """``cases`` written as the case file ``evaluation/cases/<name>.json``; its reference."""
    path = project.root / "evaluation" / "cases" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cases, indent=1), encoding="utf-8")
    return f"cases/{name}.json"


def _project(project: Project, cases: list[dict[str, Any]], *, case_file: bool = False) -> Project:
    """The probe suite; ``case_file``: its cases in a case file (streamed: read back from it
    in both processes), else inline (held in memory with the manifest)."""
    _with_probe(project)
    metric = {
        "name": "queue",
        "path": "/payload/category",
        "kind": "classification",
        "labels": ["billing", "refund", "access"],
    }
    gold = _case_file(project, "large", cases) if case_file else cases
    return project.suite("large", "probe", gold, metrics=[metric]).write()


def _cases() -> list[dict[str, Any]]:
    modes = {7: "children", 11: "raise", 500: "raise"}
    return [_case(index, modes.get(index, "ok")) for index in range(CASES)]


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what differs from run to run: times and the probe's answer."""
    for key in ("started_at", "finished_at", "duration_seconds"):
        report.pop(key)
    for suite in report["suites"]:
        for case in suite["cases"]:
            for attempt in case["attempts"]:
                attempt.pop("latency_ms", None)
                attempt.get("result", {}).pop("children", None)
    return report


def _raw(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return report


def _probe(report: dict[str, Any]) -> int:
    attempt = report["suites"][0]["cases"][7]["attempts"][0]
    return int(attempt["result"]["children"])


def _one_cpu() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


# Who scores an attempt is decided as it starts: the report process while it keeps up (at
# most _AHEAD batches unread), else the run's process. Each way must give the same report.
_SPLITS = {
    "as the run decides": None,
    "the report process scores every attempt": 10**9,
    "the run's process scores every attempt": 0,
}


_CLI = "import sys; from goldgate.cli import main; sys.argv[0] = 'goldgate'; main()"
"""goldgate's console script, for ``python -c`` after a patch."""


def _run(project: Project, output: Path, ahead: int | None, *, one_cpu: bool = False) -> Any:
    args = ["evaluate", "--config", str(project.settings_path), "--repeat", "2"]
    args += ["--output", str(output)]
    command = [*GOLDGATE, *args]
    if ahead is not None:
        patch = f"import goldgate.report.process as p; p._AHEAD = {ahead}"
        command = [sys.executable, "-c", f"{patch}; {_CLI}", *args]
    return forkserver.run(  # forked where it can be (not on one CPU, not patched)
        command, cwd=project.root, env=cli_env(), capture_output=True, text=True, timeout=120,
        preexec_fn=_one_cpu if one_cpu else None,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("case_file", [False, True], ids=["inline gold", "a case file"])
def test_the_report_is_the_one_the_run_writes_alone(project: Project, case_file: bool) -> None:
    """Each split of _SPLITS against the one run on one CPU, made once."""
    _project(project, _cases(), case_file=case_file)
    alone = project.output("alone.json")
    # On one CPU neither a checking helper nor a report process is forked.
    second = _run(project, alone, None, one_cpu=True)
    assert second.returncode == 4, second.stderr  # a case's target raises
    without = _raw(alone)
    assert _probe(without) == 0
    expected = _comparable(without)
    for index, (split, ahead) in enumerate(_SPLITS.items()):
        forked = project.output(f"forked-{index}.json")
        first = _run(project, forked, ahead)
        assert first.returncode == 4, (split, first.stderr)
        # The summary, but for its first line's duration.
        assert (
            first.stdout.splitlines()[1:]
            == (second.stdout.replace(alone.name, forked.name).splitlines()[1:])
        ), split
        with_process = _raw(forked)
        assert _probe(with_process) == 1, split
        assert _comparable(with_process) == expected, split
        suite = with_process["suites"][0]
        assert suite["counts"]["attempts"]["failed"] == 4  # two cases, two attempts each
        assert suite["metrics"][0]["name"] == "queue"


_ODD = {20: "surrogate", 300: "digits", 640: "nan", 900: "key", 1090: "raise"}


@pytest.mark.slow
def test_values_no_report_can_hold_are_their_attempts_error_with_or_without_the_process(
    project: Project,
) -> None:
    cases = _cases()
    for index, odd in _ODD.items():
        cases[index] = _case(index, "odd", odd=odd)
    _project(project, cases)
    forked, alone = project.output("forked.json"), project.output("alone.json")
    first = _run(project, forked, None)
    second = forkserver.run(
        [*GOLDGATE, "evaluate", "--config", str(project.settings_path), "--repeat", "2",
         "--output", str(alone)],
        cwd=project.root, env=cli_env({"GOLDGATE_ACCELERATORS": "0"}), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip

    assert (first.returncode, second.returncode) == (4, 4), first.stderr + second.stderr
    with_process, without = _raw(forked), _raw(alone)
    assert (_probe(with_process), _probe(without)) == (1, 0)
    assert _comparable(with_process) == _comparable(without)
    cases_written = with_process["suites"][0]["cases"]
    assert len(cases_written) == CASES  # every other attempt is kept
    returned = "python target returned a result that is not JSON: it holds"
    reasons = {
        "surrogate": f"{returned} a string that is not UTF-8 at /payload/odd",
        "digits": f"{returned} an integer with too many digits at /payload/odd",
        "nan": f"{returned} a number that is NaN or infinite at /payload/odd",
        "key": f"{returned} an object key that is not UTF-8 at /payload/odd",
        "raise": "python target raised ValueError; the exception record holds a string that "
        "is not UTF-8 at /message, which a report cannot hold",
    }
    for index, odd in _ODD.items():
        for attempt in cases_written[index]["attempts"]:
            assert (attempt["status"], attempt["reason"]) == ("failed", reasons[odd])
    assert cases_written[21]["attempts"][0]["status"] == "completed"


def _start(project: Project, marker: Path) -> subprocess.Popen[str]:
    cases = _cases()
    cases[REPORT_PROCESS_FROM + 10] = _case(REPORT_PROCESS_FROM + 10, "marker", marker=str(marker))
    _project(project, cases)
    return forkserver.Popen(
        [*GOLDGATE, "evaluate", "--config", str(project.settings_path), "--output",
         str(project.output())],
        cwd=project.root, env=cli_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def _wait_for(marker: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not marker.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the run never reached the marker:\n{process.communicate()[1]}")
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "group"),
    [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, True)],
    ids=["SIGINT to goldgate", "SIGINT to its process group", "SIGTERM to its process group"],
)
def test_an_interrupted_run_finishes_its_report_through_the_report_process(
    project: Project, signum: signal.Signals, group: bool
) -> None:
    marker = project.root / "reached"
    process = _start(project, marker)
    _wait_for(marker, process)
    if group:  # a terminal's Ctrl-C, or a CI runner stopping the job: the report process too
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    report = read_report_json(project.output())
    assert (report["complete"], report["interruption"]) == (False, signum.name)
    suite = report["suites"][0]
    assert _probe(report) == 1
    assert len(suite["cases"]) == CASES
    statuses = [case["attempts"][0]["status"] for case in suite["cases"]]
    finished = REPORT_PROCESS_FROM + 10
    assert statuses[:finished].count("completed") == finished - 2  # two raise
    assert set(statuses[finished:]) == {"cancelled"}
    assert suite["counts"]["attempts"]["cancelled"] == CASES - finished
    outcomes = [[check["outcome"] for check in case["attempts"][0]["checks"]]
                for case in suite["cases"][:2]]  # fmt: skip
    assert outcomes == [
        ["passed", "passed", "passed", "failed"],
        ["failed", "passed", "passed", "failed"],
    ]


def _children_of(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


@pytest.mark.slow
def test_a_report_process_that_dies_ends_the_run_in_one_sentence(project: Project) -> None:
    marker = project.root / "reached"
    process = _start(project, marker)
    _wait_for(marker, process)
    [run] = _children_of(process.pid)  # the supervised run (goldgate.app.supervisor)
    children = _children_of(run)
    assert len(children) == 1  # the report process (the checking helper has ended)
    os.kill(children[0], signal.SIGKILL)
    process.send_signal(signal.SIGINT)  # the run stops and must finish its report there
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 4, stderr
    assert "Traceback" not in stderr
    assert "the process writing the report ended" in stderr
    assert "so the report could not be finished" in stderr
    output = project.output()
    assert not output.exists()
    assert not list(output.parent.glob(".goldgate-*")), "the temporary file was left behind"


def test_a_report_process_whose_run_is_killed_ends_and_leaves_nothing(
    project: Project, reaper: bool
) -> None:
    # SIGKILL to goldgate alone (the OOM killer, a tool that kills only the pid it started):
    # the report process must see its end of the pipe close, not wait for it forever.
    marker = project.root / "reached"
    process = _start(project, marker)
    _wait_for(marker, process)
    [run] = _children_of(process.pid)  # the supervised run, killed with goldgate
    children = _children_of(run)
    assert len(children) == 1  # the report process
    process.kill()
    process.wait(timeout=60)
    assert_gone([run, *children], strict=reaper, within=30)
    process.communicate(timeout=60)  # its output pipes closed with the report process
    output = project.output()
    assert not output.exists()
    assert not list(output.parent.glob(".goldgate-*")), "the temporary file was left behind"


# --- the report process's side, in this process --------------------------------------------


class _FailingFile:
    """A report file whose writes raise what ``error`` is."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.discarded = False

    def write(self, data: bytes) -> None:
        raise self.error

    def publish(self) -> tuple[Path, None]:
        raise AssertionError("a failed report is never published")

    def discard(self) -> None:
        self.discarded = True


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (OSError(28, "No space left on device"), "the process writing the report failed (OSError)"),
        (RuntimeFailureError("cannot be written anywhere"), "cannot be written anywhere"),
    ],
)
def test_a_failure_in_the_report_process_answers_the_next_question(
    error: BaseException, expected: str
) -> None:
    report_file = _FailingFile(error)
    writing = _Writing([], report_file)  # type: ignore[arg-type]
    assert writing.take((0, b'{"format":')) is None  # _BYTES: no answer wanted
    assert writing.take((0, b"more")) is None  # ignored once failed
    answer = writing.take((5,))  # _PUBLISH
    assert answer is not None
    failed, value = answer
    assert failed is True
    assert isinstance(value, RuntimeFailureError)
    assert expected in str(value)


def test_only_goldgates_own_errors_cross_as_they_are() -> None:
    mine = RuntimeFailureError("a sentence")
    assert _transportable(mine) is mine
    foreign = _transportable(KeyError("secret-value"))
    assert isinstance(foreign, RuntimeFailureError)
    assert "secret-value" not in str(foreign)
    assert "(KeyError)" in str(foreign)


@pytest.mark.slow
def test_a_small_run_forks_no_report_process(project: Project) -> None:
    _project(project, [_case(index, "children" if index == 0 else "ok") for index in range(20)])
    result, report = project.evaluate()
    assert result.code == 1, result.stderr
    assert report is not None
    assert report["suites"][0]["cases"][0]["attempts"][0]["result"]["children"] == 0


def test_the_run_scores_what_it_starts_while_the_report_process_lags() -> None:
    """``has_room`` (asked as each attempt starts) is the report process's own word on how
    many batches it has read: past ``_AHEAD`` unread, the run's process scores."""
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [], _FailingFile(OSError()))  # type: ignore[arg-type]
    assert process.has_room()
    for _ in range(_AHEAD * _BATCH):
        process.write(b"x")
    assert not process.has_room()  # _AHEAD batches sent, none read
    for _ in range(_AHEAD):
        assert len(theirs.recv()) == _BATCH
    theirs.send(_AHEAD)  # ... and then all of them read
    assert not process.has_room()  # not heard yet: words are read as the next batch goes
    for _ in range(_BATCH):
        process.write(b"x")
    assert process.has_room()
    mine.close()
    theirs.close()


def test_attempts_never_started_go_as_one_message_a_row() -> None:
    """A run interrupted with 100,000 attempts to go sends them as a few messages (each a
    first position and a count), not one each: rows break where the position skips or the
    status or reason changes."""
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [], _FailingFile(OSError()))  # type: ignore[arg-type]
    collector = RemoteCollector(process, 2, has_metrics=False)
    for index in range(3):  # positions 1 .. 5 (repeat 2)
        for attempt in (1, 2):
            if (index, attempt) != (0, 1):
                assert collector.add_unfinished(index, attempt, "cancelled", "interrupted")
    collector.add_unfinished(4, 1, "cancelled", "interrupted")  # position 8: a gap
    collector.add_unfinished(4, 2, "skipped", "unauthorized")  # another status
    process._flush()
    assert theirs.recv() == [
        (3, 1, 5, "cancelled", "interrupted"),
        (3, 8, 1, "cancelled", "interrupted"),
        (3, 9, 1, "skipped", "unauthorized"),
    ]
    assert not RemoteCollector(process, 1, has_metrics=True).add_unfinished(0, 1, "x", "y")
    mine.close()
    theirs.close()


def _plain_suite(project: Project, count: int) -> Any:
    """A suite of ``count`` cases without metrics, loaded here (nothing is imported)."""
    from goldgate.gold.load import load_gold
    from goldgate.gold.settings.load import load_settings

    cases = [_case(index) for index in range(count)]
    _with_probe(project).suite("plain", "probe", cases).write()
    return load_gold(load_settings(project.settings_path)).suite("plain")


def _records_written_alone(suite: Any, cases: range, repeat: int) -> bytes:
    """What a SuiteCollector writes for ``cases`` never started, from their first."""
    written = bytearray()
    writer = ReportWriter(written.extend)
    alone = SuiteCollector(suite, repeat, True, writer.case)
    for index in cases:
        for attempt in range(1, repeat + 1):
            assert alone.add_unfinished(index, attempt, "cancelled", "interrupted")
    return bytes(written)


@pytest.mark.parametrize("shared_bytes", [64 << 20, 1], ids=["all of it", "up to a limit"])
def test_the_later_half_of_a_long_row_never_started_is_written_here(
    project: Project, monkeypatch: pytest.MonkeyPatch, shared_bytes: int
) -> None:
    """An interrupted run's attempts never started, in a row to the suite's end: the report
    process writes the first half, this process the records of the rest, from a case's
    first attempt, as a SuiteCollector would (up to ``SHARED_BYTES``; the rest goes back)."""

    monkeypatch.setattr(unstarted, "SHARE_FROM", 4)
    monkeypatch.setattr(unstarted, "SHARED_BYTES", shared_bytes)
    monkeypatch.setattr(unstarted, "CHUNK", 1000)  # several chunks
    suite = _plain_suite(project, 10)
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [suite], _FailingFile(OSError()))  # type: ignore[arg-type]
    collector = RemoteCollector(process, 2, has_metrics=False, suite=suite, include_details=True)
    for position in range(3, 20):  # from case 1's second attempt to the end (repeat 2)
        index, attempt = divmod(position, 2)
        assert collector.add_unfinished(index, attempt + 1, "cancelled", "interrupted")
    process.share_unfinished(suite, 2, True)
    process._flush()

    assert theirs.recv() == [(3, 3, 9, "cancelled", "interrupted")]  # to case 6 (position 12)
    shared = 4 if shared_bytes > 1 else 1  # cases 6 .. 9, or case 6 alone past the limit
    records = _records_written_alone(suite, range(6, 6 + shared), 2)
    counts = ({"cancelled": 2 * shared}, {"not_run": 8 * shared}, 2 * shared)
    assert theirs.recv() == [(7, shared, *counts, len(records))]
    received = b""
    while len(received) < len(records):  # in chunks of at most CHUNK
        received += theirs.recv_bytes()
    assert received == records
    if shared_bytes == 1:  # the rest goes back to the report process
        assert theirs.recv() == [(3, 14, 6, "cancelled", "interrupted")]
    assert not theirs.poll()
    mine.close()
    theirs.close()


class _FullDisk:
    """A temporary file on a full disk."""

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def tell(self) -> int:
        return 0

    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize("failure", ["no temporary file", "a full disk"])
def test_records_that_cannot_be_kept_here_are_left_to_the_report_process(
    project: Project, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:

    def temporary_file() -> _FullDisk:
        if failure == "no temporary file":
            raise PermissionError(13, "Permission denied")
        return _FullDisk()

    monkeypatch.setattr(unstarted, "SHARE_FROM", 4)
    monkeypatch.setattr(tempfile, "TemporaryFile", temporary_file)  # as report.process calls it
    suite = _plain_suite(project, 10)
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [suite], _FailingFile(OSError()))  # type: ignore[arg-type]
    collector = RemoteCollector(process, 1, has_metrics=False, suite=suite, include_details=True)
    for index in range(2, 10):
        collector.add_unfinished(index, 1, "cancelled", "interrupted")
    process.share_unfinished(suite, 1, True)
    process._flush()
    if failure == "no temporary file":  # the row left whole
        assert theirs.recv() == [(3, 2, 8, "cancelled", "interrupted")]
    else:  # its first half already sent, the second half follows as a row
        assert theirs.recv() == [(3, 2, 4, "cancelled", "interrupted")]
        assert theirs.recv() == [(3, 6, 4, "cancelled", "interrupted")]
    assert not theirs.poll()
    mine.close()
    theirs.close()


def test_records_a_failed_report_process_does_not_write_are_still_read() -> None:
    """After a failure the report process writes nothing, but it reads every chunk of the
    records that were sent, so that what it reads next is the next batch."""
    from goldgate.report.process import _RENDERED

    mine, theirs = multiprocessing.Pipe()
    writing = _Writing([], _FailingFile(OSError()))  # type: ignore[arg-type]
    writing.failure = RuntimeFailureError("the report could not be written")
    for chunk in (b"a" * 10, b"b" * 5):
        mine.send_bytes(chunk)
    mine.send(["the next batch"])
    records = unstarted.Records(theirs, 15)
    assert writing.take((_RENDERED, 1, {}, {}, 1, 15, records)) is None
    records.skip()
    assert theirs.recv() == ["the next batch"]
    mine.close()
    theirs.close()


def test_an_answer_read_with_the_counts_is_the_answer_its_call_gets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The report process may answer a question before ``_flush`` (which sends it) has read
    its counts: the answer read there is the one ``call`` returns, never taken for a count
    (``call`` used to wait for an answer already read, 600 s, and the run had no report)."""
    import goldgate.report.process as process_module

    monkeypatch.setattr(process_module, "_PATIENCE", 2.0)
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [], _FailingFile(OSError()))  # type: ignore[arg-type]
    theirs.send(1)  # what the report process says once it read the batch: its count,
    theirs.send((False, "the suite's record"))  # and, as fast, its answer
    assert process.call((process_module._RECORD, None, None, 0.0)) == "the suite's record"
    assert process._read == 1
    assert theirs.recv() == [(process_module._RECORD, None, None, 0.0)]
    failure = RuntimeFailureError("the report could not be written")
    theirs.send(2)
    theirs.send((True, failure))
    with pytest.raises(RuntimeFailureError, match="could not be written"):
        process.call((process_module._PUBLISH,))
    mine.close()
    theirs.close()


def test_a_short_row_or_one_short_of_the_end_is_left_whole(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setattr(unstarted, "SHARE_FROM", 4)
    suite = _plain_suite(project, 10)
    mine, theirs = multiprocessing.Pipe()
    process = ReportProcess(object(), mine, [suite], _FailingFile(OSError()))  # type: ignore[arg-type]
    collector = RemoteCollector(process, 1, has_metrics=False, suite=suite, include_details=True)
    for index in (7, 8, 9):  # three: short of unstarted.SHARE_FROM
        collector.add_unfinished(index, 1, "cancelled", "interrupted")
    process.share_unfinished(suite, 1, True)
    for index in range(0, 5):  # a long row that stops short of the suite's end
        collector.add_unfinished(index, 1, "skipped", "unauthorized")
    process.share_unfinished(suite, 1, True)
    process._flush()
    assert theirs.recv() == [
        (3, 7, 3, "cancelled", "interrupted"),
        (3, 0, 5, "skipped", "unauthorized"),
    ]
    mine.close()
    theirs.close()


def test_an_interrupted_run_shares_its_long_row_and_writes_the_report_of_one_cpu(
    project: Project,
) -> None:
    """Both processes write the attempts never started (about half the time to the report
    on disk), in the suite interrupted and in the next, whose cases are streamed from a
    case file; the report is the one a run on one CPU writes."""
    marker = project.root / "reached"
    stop = REPORT_PROCESS_FROM + 10
    cases = [_case(index) for index in range(stop + unstarted.SHARE_FROM)]
    cases[stop] = _case(stop, "marker", marker=str(marker))
    after = [_case(index) for index in range(unstarted.SHARE_FROM // 2 + 100)]
    _with_probe(project).suite("plain", "probe", cases)
    project.suite("after", "probe", _case_file(project, "after", after)).write()
    reports: list[dict[str, Any]] = []
    one_cpu = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
    for prefix in ([*GOLDGATE], [sys.executable, "-c", one_cpu + _CLI]):
        marker.unlink(missing_ok=True)
        output = project.output(f"{len(reports)}.json")
        args = ["evaluate", "--config", str(project.settings_path), "--repeat", "2"]
        process = forkserver.Popen(  # the second (python -c) is a real start
            [*prefix, *args, "--output", str(output)], cwd=project.root, env=cli_env(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        _wait_for(marker, process)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        reports.append(_comparable(_raw(output)))
    shared, alone = reports
    first, second = shared["suites"]
    assert first["counts"]["attempts"]["cancelled"] == 2 * unstarted.SHARE_FROM  # the marker on
    assert len(first["cases"]) == len(cases)
    assert second["counts"]["attempts"]["cancelled"] == 2 * len(after)
    assert len(second["cases"]) == len(after)
    assert shared == alone


def test_gold_that_fills_memory_forks_no_report_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked process copies the memory both touch: past ``REPORT_PROCESS_MAX_RSS`` of
    this process, the run writes its report itself."""
    import goldgate.report.process as process_module

    monkeypatch.setattr(process_module, "single_threaded", lambda: True)
    monkeypatch.setattr(process_module, "REPORT_PROCESS_MAX_RSS", 1 << 40)
    assert process_module.report_process_wanted([], 10**6)
    monkeypatch.setattr(process_module, "REPORT_PROCESS_MAX_RSS", 1 << 20)  # 1 MiB
    assert not process_module.report_process_wanted([], 10**6)
    assert not process_module.report_process_wanted([], REPORT_PROCESS_FROM - 1)


def test_the_memory_cap_reads_memory_now_not_a_peak_carried_over_exec() -> None:
    """Linux carries ``ru_maxrss`` over ``exec``: goldgate started (forked) by a process
    holding 300 MiB would seem to hold it too, and never fork a report process. Whose
    memory the cap reads is goldgate's own, now."""
    ballast = b"x" * (300 << 20)
    probe = (
        "import resource; from goldgate.base.memory import resident_bytes; "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, resident_bytes())"
    )
    done = subprocess.run(  # a preexec_fn makes it a real fork of this large process
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True,
        preexec_fn=lambda: None,
    )  # fmt: skip
    peak, now = (int(figure) for figure in done.stdout.split())
    assert len(ballast) == 300 << 20
    assert now < 100 << 20, f"read {now} bytes (ru_maxrss says {peak})"
