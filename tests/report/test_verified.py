"""Each report verified once per process (issue 43, ``report.verified``): a second reader of
the same bytes (whole, as a stream, as a side of a comparison) skips verifying them; other
bytes at the same path are verified again, and a refusal is never remembered. A forked
helper verifies reports while this process goes on (``report.background``): what it
verified counts here, what it refused is left for the reader to refuse."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from goldgate.base import accelerators
from goldgate.base.errors import ReportRefusedError
from goldgate.comparison import opened
from goldgate.report import background, verified, verify
from goldgate.report.io import read_report, read_report_and_digest
from goldgate.report.streamread import streamed_report
from helpers.benchmarks import load_benchmarks
from helpers.verifying import forged as _forged
from helpers.verifying import fork_possible, honest_bytes, switched

# One worker starts the pytest of this module's ``forkable`` tests in an interpreter of its
# own (helpers/fresh.py), and makes its reports, not each worker that draws one of its tests
# (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("verified")

FIXTURES = Path(__file__).parent / "fixtures"

# In an interpreter of their own (helpers/fresh.py): a pytest worker runs threads of its own,
# and a helper is never forked beside another thread.
forkable = pytest.mark.fresh_interpreter


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return honest_bytes()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every verification in this process from now on (the one function every reader
    calls, under both names it is imported by), none remembered before."""
    made: list[str] = []
    real = verify.verify_report

    def counted(value: Any, report: Any, path: str, take: Any = None) -> None:
        made.append(Path(path).name)
        real(value, report, path, take)

    monkeypatch.setattr(verify, "verify_report", counted)
    monkeypatch.setattr(opened, "verify_report", counted)
    verified.forget_verified()
    yield made
    verified.forget_verified()


def _read_every_way(path: Path) -> None:
    read_report(path)
    with streamed_report(path) as streamed:
        assert sum(streamed.case_count(i) for i in range(len(streamed.report.suites))) == 40
    _side(path)


def test_the_same_bytes_are_verified_once_a_process(
    honest: bytes, calls: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(honest)
    _read_every_way(path)
    assert calls == ["report.json"]
    copy = tmp_path / "copy.json"  # the same bytes under another name: verified already
    copy.write_bytes(honest)
    _read_every_way(copy)
    assert calls == ["report.json"]
    path.unlink()
    path.write_text(json.dumps(json.loads(honest), indent=1))  # other bytes: verified again
    _read_every_way(path)
    assert calls == ["report.json", "report.json"]


def _stream(path: Path) -> None:
    with streamed_report(path):
        pass


def _side(path: Path) -> None:
    with opened.opened_side(path, "candidate"):
        pass


READERS = {
    "whole": read_report,
    "stream": _stream,
    "side": _side,
}


@pytest.mark.parametrize("reader", list(READERS))
def test_other_bytes_at_a_path_read_before_are_refused(
    honest: bytes, calls: list[str], tmp_path: Path, reader: str
) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(honest)
    _read_every_way(path)
    path.unlink()
    path.write_bytes(_forged(honest))
    for _ in range(2):  # a refusal is not remembered: made again, in the same words
        with pytest.raises(ReportRefusedError, match=r"/suites/0/attempt_count"):
            READERS[reader](path)
    assert calls == ["report.json", "report.json", "report.json"]


def test_a_report_read_whole_after_a_stream_is_the_report_verified(
    honest: bytes, calls: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(honest)
    with streamed_report(path):
        pass
    verified.forget_verified()
    first, digest = read_report_and_digest(path)
    again, digest_again = read_report_and_digest(path)  # not verified: validated all the same
    assert (again, digest_again) == (first, digest)
    assert calls == ["report.json", "report.json"]


@pytest.mark.parametrize("forge", [False, True], ids=["honest", "forged"])
def test_a_stream_verified_later_is_verified_from_its_scan(
    honest: bytes, calls: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forge: bool
) -> None:
    """``verify_streamed`` (what ``report merge``'s helpers run): a report streamed without
    verifying it is verified from the scan made then, not scanned again, with the refusal
    verifying it as it was read makes."""
    from goldgate.report import scan, streamread

    path = tmp_path / "report.json"
    path.write_bytes(_forged(honest) if forge else honest)
    scans: list[str] = []
    real = scan.scan_report

    def counted(handle: Any, source: str, on_case: Any = None) -> Any:
        scans.append(Path(source).name)
        return real(handle, source, on_case)

    monkeypatch.setattr(streamread, "scan_report", counted)
    with streamed_report(path, verify=False) as streamed:
        assert calls == []
        if forge:
            with pytest.raises(ReportRefusedError, match=r"/suites/0/attempt_count") as later:
                streamread.verify_streamed(streamed)
            assert not verified.is_verified(streamed.digest)
        else:
            streamread.verify_streamed(streamed)
            assert verified.is_verified(streamed.digest)
    assert (calls, scans) == (["report.json"], ["report.json"])
    if forge:
        with pytest.raises(ReportRefusedError) as first:
            _stream(path)
        assert str(later.value) == str(first.value)


def test_a_scan_handed_to_another_process_streams_the_same_report(
    honest: bytes, calls: list[str], tmp_path: Path
) -> None:
    """``handed_scan`` / ``streamed_from_scan`` (how ``report merge``'s helpers hand the
    shards they scan): the scan, pickled as it crosses the pipe, streams the report it was
    made from (its cases read by offset) and is verified from as the scan made here; a
    case whose bytes changed since is refused at that case."""
    import pickle

    from goldgate.report import streamread

    path = tmp_path / "report.json"
    path.write_bytes(honest)
    with streamed_report(path, verify=False) as scanned:
        handed = streamread.handed_scan(scanned)
        assert handed is not None
        crossed = pickle.loads(pickle.dumps(handed))
        expected = [list(scanned.cases(i)) for i in range(len(scanned.report.suites))]
    with streamread.streamed_from_scan(path, crossed) as streamed:
        assert (streamed.report, streamed.digest) == (scanned.report, scanned.digest)
        assert [list(streamed.cases(i)) for i in range(len(streamed.report.suites))] == expected
        assert calls == []
        streamread.verify_streamed(streamed)
        assert calls == ["report.json"]
        assert streamread.handed_scan(streamed) is not None
    with streamed_report(path) as verified_here:  # a report verified as read: nothing to hand
        assert streamread.handed_scan(verified_here) is None
    first = json.dumps(json.loads(honest)["suites"][0]["cases"][0]["id"]).encode()
    changed = honest.replace(first, first[::-1], 1)  # the same size: other bytes, in place
    assert (len(changed), changed != honest) == (len(honest), True)
    path.write_bytes(changed)
    with (
        streamread.streamed_from_scan(path, crossed) as streamed,
        pytest.raises(ReportRefusedError, match="changed while it was read"),
    ):
        next(streamed.cases(0))


@forkable
@pytest.mark.slow  # forks a helper process
def test_a_helper_verifies_in_another_process_and_refusals_are_left_to_the_reader(
    honest: bytes, calls: list[str], tmp_path: Path
) -> None:
    fork_possible()
    first, forged, last = (tmp_path / f"{name}.json" for name in ("first", "forged", "last"))
    first.write_bytes(honest)
    forged.write_bytes(_forged(honest))
    last.write_text(json.dumps(json.loads(honest), indent=1))
    with contextlib.ExitStack() as opened:
        streamed = [
            opened.enter_context(streamed_report(path, verify=False))
            for path in (first, forged, last)
        ]
        helper = background.verify_streamed_in_background(streamed)
        assert helper is not None, "a helper is forked with the accelerators on and two CPUs"
        assert helper.wait() == 1  # the first; it stops at the refusal
    _, digest = read_report_and_digest(first)
    assert verified.is_verified(digest)
    with pytest.raises(ReportRefusedError, match=r"forged\.json.*attempt_count"):
        read_report(forged)
    read_report(last)
    assert calls == ["forged.json", "last.json"]  # first.json only in the helper
    assert "report verify helper" in accelerators.used()


@forkable
@pytest.mark.slow  # forks helper processes
def test_a_helper_scans_ahead_hands_its_scan_and_hooks_then_verifies(
    honest: bytes, calls: list[str], tmp_path: Path
) -> None:
    """``scan_ahead_in_background``: the helper hands the scan this process would make (the
    same report streamed from it) and its copy of the hook, which saw every case; then it
    verifies the report (its digest verified here once waited for). A forged report's scan is
    handed too, and left for the reader to refuse."""
    from goldgate.report import streamread
    from goldgate.report.idrepeats import IdHook

    fork_possible()
    path, forged = tmp_path / "report.json", tmp_path / "forged.json"
    path.write_bytes(honest)
    forged.write_bytes(_forged(honest))
    here = IdHook(str(path))
    with streamed_report(path, verify=False, on_case=here) as scanned:
        expected = streamread.handed_scan(scanned)
    helper = background.scan_ahead_in_background(path, [IdHook(str(path))])
    assert helper is not None, "a helper is forked with the accelerators on and two CPUs"
    scan, (hook,) = helper.handed()

    def kept(handed: Any) -> Any:
        return handed.value, handed.digest, [index.__getstate__() for index in handed.indexes]

    assert kept(scan) == kept(expected)
    assert (hook.count(0), hook.repeats(0)) == (here.count(0), here.repeats(0)) == (40, False)
    assert helper.wait() == 1
    assert verified.is_verified(scan.digest)
    refused = background.scan_ahead_in_background(forged, [])
    assert refused is not None
    forged_scan, hooks = refused.handed()
    assert (forged_scan is not None, hooks) == (True, ())
    assert refused.wait() == 0  # the helper refused it: the reader refuses it
    assert not verified.is_verified(forged_scan.digest)
    with pytest.raises(ReportRefusedError, match=r"forged\.json.*attempt_count"):
        read_report(forged)
    assert calls == ["forged.json"]  # report.json only in its helper


def test_no_helper_is_forked_with_the_accelerators_off(
    honest: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(honest)
    monkeypatch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    try:
        assert background.scan_ahead_in_background(path, []) is None
        with streamed_report(path, verify=False) as streamed:
            assert background.verify_streamed_in_background([streamed]) is None
    finally:
        monkeypatch.delenv(accelerators.VARIABLE)
        accelerators.refresh()


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two shards' reports of the generated gold (``evaluate --shard K/2``)."""
    from run.support import run_cli

    folder = tmp_path_factory.mktemp("shards")
    project = folder / "project"
    shutil.copytree(FIXTURES / "v1_generated", project, ignore=shutil.ignore_patterns(".goldgate"))
    paths = []
    for k in (1, 2):
        paths.append(folder / f"shard-{k}.json")
        run_cli(
            "evaluate", "--config", str(project / "config" / "settings.yaml"),
            "--output", str(paths[-1]), "--shard", f"{k}/2", cwd=project,
        )  # fmt: skip
    return paths


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    yield from switched(monkeypatch)


@forkable
@pytest.mark.slow  # runs evaluate twice (once a module) and forks helpers
def test_merge_has_its_shards_verified_by_a_helper_and_writes_the_same_bytes(
    shards: list[Path],
    tmp_path: Path,
    calls: list[str],
    switch: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On, each shard's helper also made its cases as the merged report writes them and
    tallied them (``report.shardtally``), and this process only joined them: it made and
    tallied none of them itself (each counted here, not in a helper)."""
    fork_possible()
    from goldgate.app.merge import merge_shard_reports
    from goldgate.report.mergestream import MergedStream
    from goldgate.report.rebuild import SuiteRebuild

    tallied: list[object] = []
    made: list[object] = []
    add, case = SuiteRebuild.add, MergedStream._case
    monkeypatch.setattr(SuiteRebuild, "add", lambda self, c: tallied.append(1) or add(self, c))
    monkeypatch.setattr(
        MergedStream, "_case", staticmethod(lambda *a, **k: made.append(1) or case(*a, **k))
    )
    merged = {}
    for value in ("1", "0"):
        switch(value)
        verified.forget_verified()
        calls.clear()
        tallied.clear()
        made.clear()
        merged[value] = tmp_path / f"merged-{value}.json"
        merge_shard_reports(shards, merged[value])
        # On, the helper verified both shards while this process wrote; off, both here.
        assert calls == ([] if value == "1" else ["shard-1.json", "shard-2.json"])
        cases = sum(len(read_report(path).suites[0].cases) for path in shards)
        assert cases
        assert (len(made), len(tallied)) == ((0, 0) if value == "1" else (cases, cases))
    assert merged["1"].read_bytes() == merged["0"].read_bytes()


@forkable
@pytest.mark.slow  # runs evaluate twice (once a module) and forks helpers
@pytest.mark.parametrize("forged", [["shard-2.json"], ["shard-1.json", "shard-2.json"]])
def test_merge_refuses_the_first_forged_shard_and_writes_nothing(
    shards: list[Path],
    tmp_path: Path,
    calls: list[str],
    switch: Callable[[str], None],
    forged: list[str],
) -> None:
    fork_possible()
    from goldgate.app.merge import merge_shard_reports

    given = []
    for shard in shards:
        given.append(tmp_path / shard.name)
        data = shard.read_bytes()
        given[-1].write_bytes(_forged(data) if shard.name in forged else data)
    for value in ("1", "0"):  # the same refusal whether the helper verified or this process
        switch(value)
        verified.forget_verified()
        output = tmp_path / f"merged-{value}.json"
        with pytest.raises(ReportRefusedError, match=rf"{forged[0]}.*attempt_count"):
            merge_shard_reports(given, output)
        assert not output.exists()
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".goldgate")] == []


@forkable
@pytest.mark.slow  # forks a helper
def test_the_publishing_step_has_the_baseline_verified_by_a_helper(
    honest: bytes, tmp_path: Path, calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``goldgate action`` in compare mode: the candidate and the baseline are verified by a
    helper while they are compared and rendered here (``app.action.verifying``), and
    neither is verified again here (whole, as a stream, or as a side)."""
    fork_possible()
    from goldgate.app.action.modes import run_action

    candidate, baseline = tmp_path / "candidate.json", tmp_path / "baseline.json"
    candidate.write_bytes(honest)
    baseline.write_text(json.dumps(json.loads(honest), indent=1))  # other bytes, same report
    monkeypatch.chdir(tmp_path)
    env = load_benchmarks().publishing_environment(tmp_path, candidate, baseline)
    said: list[str] = []
    code = run_action(env, said.append)
    assert code == json.loads(honest)["verdict"]["exit_code"], said
    assert calls == []
    assert list((tmp_path / ".goldgate" / "action").glob("*comparison*.json")), said


@pytest.mark.slow  # runs evaluate twice (once a module)
def test_merge_refuses_a_shard_changed_between_its_read_and_its_verification(
    shards: list[Path], tmp_path: Path, calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A helper that verified nothing leaves the shards to this process, which verifies them
    before publishing: bytes other than those merged are refused, not verified instead."""
    from goldgate.app.merge import merge_shard_reports

    given = [tmp_path / shard.name for shard in shards]
    for shard, path in zip(shards, given, strict=True):
        path.write_bytes(shard.read_bytes())

    class Changing:
        def made(self) -> Iterator[bytes]:  # none: each case is made here
            return iter(())

        def wait(self) -> int:  # meanwhile, the second shard is written again (other bytes)
            given[1].write_text(json.dumps(json.loads(given[1].read_bytes()), indent=1))
            return 0

        def close(self) -> None:
            pass

    monkeypatch.setattr(background, "scan_in_background", lambda paths: None)  # both read here
    monkeypatch.setattr(background, "verify_streamed_in_background", lambda *shards: Changing())
    monkeypatch.setattr(background, "fork_possible", lambda: True)  # a pytest worker's threads
    output = tmp_path / "merged.json"
    with pytest.raises(ReportRefusedError, match=r"shard-2\.json: changed while it was read"):
        merge_shard_reports(given, output)
    assert not output.exists()
