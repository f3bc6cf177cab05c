"""The publishing step reads each report once (issue 43): `goldgate action` in compare mode
scans the candidate and the baseline once each (the comparison's index and the baseline's
latencies come from that scan), verifies each once, and, with the accelerators on, has them
verified by a forked helper while it compares and renders, publishing nothing until the
helper verified the very bytes used. Refusals are the same either way, nothing written.
In-process (``run_action``), on a 40-case report."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from goldgate.app.action.step import WORK_FOLDER
from goldgate.base import accelerators
from goldgate.base.errors import ReportRefusedError
from goldgate.comparison import opened
from goldgate.report import background, scan, verified, verify
from goldgate.report.io import read_report
from helpers.benchmarks import load_benchmarks
from helpers.verifying import forged, fork_possible, honest_bytes, switched


@pytest.fixture(scope="module")
def honest() -> bytes:
    return honest_bytes()


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    yield from switched(monkeypatch)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Counter[str]]]:
    """Every scan of a report file and every verification made in this process from now
    on, by file name (none remembered before)."""
    made: dict[str, Counter[str]] = {"scans": Counter(), "verifications": Counter()}
    real_report, real_verify = scan._Scanner.report, verify.verify_report

    def scanned(self: Any) -> Any:
        made["scans"][Path(self.path).name] += 1
        return real_report(self)

    def verifying(value: Any, report: Any, path: str, take: Any = None) -> None:
        made["verifications"][Path(path).name] += 1
        real_verify(value, report, path, take)

    monkeypatch.setattr(scan._Scanner, "report", scanned)
    monkeypatch.setattr(verify, "verify_report", verifying)
    monkeypatch.setattr(opened, "verify_report", verifying)
    verified.forget_verified()
    yield made
    verified.forget_verified()


def _publish(
    folder: Path, candidate: bytes, baseline: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, list[str], Path]:
    """``goldgate action`` in compare mode (the publishing step, JUnit and the HTML page, the
    comment off) in ``folder``: its code, what it said, and ``folder``."""
    from goldgate.app.action.modes import run_action

    folder.mkdir()
    (folder / "candidate.json").write_bytes(candidate)
    (folder / "baseline.json").write_bytes(baseline)
    monkeypatch.chdir(folder)
    env = load_benchmarks().publishing_environment(
        folder, folder / "candidate.json", folder / "baseline.json"
    )
    said: list[str] = []
    return run_action(env, said.append), said, folder


@dataclass(frozen=True)
class Step:
    """What a test of the publishing step works with: its folder, the monkeypatch, the
    reads counted (``reads``) and the accelerators' switch."""

    tmp_path: Path
    monkeypatch: pytest.MonkeyPatch
    reads: dict[str, Counter[str]]
    switch: Callable[[str], None]


@pytest.fixture
def step(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reads: dict[str, Counter[str]],
    switch: Callable[[str], None],
) -> Step:
    return Step(tmp_path, monkeypatch, reads, switch)


def _written(folder: Path) -> list[str]:
    """What the step wrote besides its step outputs and summary."""
    work = folder / WORK_FOLDER
    made = sorted(path.name for path in work.iterdir()) if work.is_dir() else []
    return made + (["junit.xml"] if (folder / "junit.xml").exists() else [])


def test_each_report_is_scanned_once_and_verified_once(
    honest: bytes,
    step: Step,
) -> None:
    """The comparison's index and the baseline's latencies come from the scan that verifies
    each report: no second scan, no read for the page's latencies; the counts the step
    outputs are those of the report read whole."""
    from goldgate.render.view import build_view

    step.switch("0")
    baseline = json.dumps(json.loads(honest), indent=1).encode()  # other bytes, same report
    code, said, folder = _publish(step.tmp_path / "out", honest, baseline, step.monkeypatch)
    assert code == json.loads(honest)["verdict"]["exit_code"], said
    assert step.reads["scans"] == {"candidate.json": 1, "baseline.json": 1}
    assert step.reads["verifications"] == {"candidate.json": 1, "baseline.json": 1}
    assert any("comparison" in name for name in _written(folder)), said
    counts = build_view(read_report(folder / "candidate.json")).counts
    outputs = (folder / "output").read_text("utf-8")
    for output, count in (("passed", counts["passed"]), ("failed", counts["failure"])):
        assert f"{output}<<" in outputs
        assert f"\n{count}\n" in outputs.split(f"{output}<<", 1)[1]


@pytest.mark.parametrize("side", ["candidate", "baseline"])
def test_a_forged_report_is_refused_and_nothing_is_published(
    honest: bytes,
    step: Step,
    side: str,
) -> None:
    step.switch("0")
    candidate = forged(honest) if side == "candidate" else honest
    baseline = forged(honest) if side == "baseline" else honest
    code, said, folder = _publish(step.tmp_path / "out", candidate, baseline, step.monkeypatch)
    assert code == 2
    assert any(f"{side}.json: stored /suites/0/attempt_count is" in s for s in said), said
    assert _written(folder) == []


def test_publish_refuses_a_report_other_than_the_one_the_hand_off_recorded(
    honest: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switch: Callable[[str], None]
) -> None:
    """``goldgate publish`` compares the hand-off's digest with the digest of the bytes it
    verified and publishes, not with the file as it was before: a report swapped after the
    hand-off was checked is refused, nothing written."""
    from goldgate.app.action.finish import conclude
    from goldgate.app.action.inputs import read_inputs
    from goldgate.app.action.step import StepRun

    switch("0")
    folder = tmp_path / "out"
    folder.mkdir()
    report = folder / "candidate.json"
    report.write_text(json.dumps(json.loads(honest), indent=1))  # not the bytes recorded
    monkeypatch.chdir(folder)
    env = load_benchmarks().publishing_environment(folder, report, report)
    env.pop("INPUT_BASELINE")
    said: list[str] = []
    run = StepRun(env, said.append)
    recorded = hashlib.sha256(honest).hexdigest()
    assert conclude(run, read_inputs(env), None, report, 0, recorded=recorded) == 2
    assert any("is not the one the run step recorded" in s for s in said), said
    assert _written(folder) == []
    report.write_bytes(honest)  # the bytes recorded: published
    run = StepRun(env, said.append)
    code = conclude(run, read_inputs(env), None, report, 0, recorded=recorded)
    assert code == json.loads(honest)["verdict"]["exit_code"]
    assert "junit.xml" in _written(folder)


def _published(folder: Path) -> dict[str, str]:
    """What a publication wrote, the comparison without its creation time."""
    found = {}
    for name in _written(folder):
        path = folder / "junit.xml" if name == "junit.xml" else folder / WORK_FOLDER / name
        if "comparison" in name:
            value = json.loads(path.read_bytes())
            value.pop("created_at")
            found["comparison"] = json.dumps(value)
        else:
            found[name] = path.read_text("utf-8")
    found["summary"] = (folder / "summary").read_text("utf-8")
    return found


# In an interpreter of their own (helpers/fresh.py): a pytest worker runs threads of its own,
# and a helper is never forked beside another thread.
@pytest.mark.fresh_interpreter
@pytest.mark.slow  # forks helpers
def test_with_a_helper_verifying_meanwhile_the_outputs_are_the_same(
    honest: bytes,
    step: Step,
) -> None:
    """The accelerators on: neither report is verified here (the helper did, on the bytes
    used), and everything written is what the step writes verifying as it reads; a forged
    candidate or baseline is refused in the same words, nothing written."""
    fork_possible()
    baseline = json.dumps(json.loads(honest), indent=1).encode()
    scans = _scans_in_every_process(step)
    runs = {}
    for value in ("1", "0"):  # in the same folder: the outputs name it
        step.switch(value)
        verified.forget_verified()
        step.reads["verifications"].clear()
        scans.write_text("")
        code, said, folder = _publish(step.tmp_path / "out", honest, baseline, step.monkeypatch)
        runs[value] = code, said, _published(folder)
        folder.rename(step.tmp_path / f"honest-{value}")
        if value == "1":
            assert "report verify helper" in accelerators.used()
            assert step.reads["verifications"] == {}, "the helper verified both"
            # The helpers verify each report from the scan made here: none scans again.
            made = Counter(scans.read_text("utf-8").split())
            assert made == {"candidate.json": 1, "baseline.json": 1}
    assert runs["1"] == runs["0"]
    assert "comparison" in runs["1"][2]
    for side in ("candidate", "baseline"):
        for value in ("1", "0"):
            step.switch(value)
            verified.forget_verified()
            candidate = forged(honest) if side == "candidate" else honest
            other = forged(baseline) if side == "baseline" else baseline
            code, said, folder = _publish(step.tmp_path / "out", candidate, other, step.monkeypatch)
            runs[value] = code, said, _written(folder)
            folder.rename(step.tmp_path / f"{side}-{value}")
        assert runs["1"] == runs["0"]
        code, said, written = runs["1"]
        assert code == 2
        assert written == []
        assert any(f"{side}.json: stored /suites/0/attempt_count is" in s for s in said), said


def _scans_in_every_process(step: Step) -> Path:
    """A file that every scan of a report, in this process or a helper forked from it, adds
    the report's name to (a line each)."""
    noted = step.tmp_path / "scans.txt"
    counted = scan._Scanner.report  # the ``reads`` fixture's, which calls the real one

    def scanned(self: Any) -> Any:
        with noted.open("a", encoding="utf-8") as out:
            out.write(Path(self.path).name + "\n")
        return counted(self)

    step.monkeypatch.setattr(scan._Scanner, "report", scanned)
    return noted


class _StandIn:
    """Stands in for the forked helper (``report.background.Background``): when waited for,
    it notes what the step had written and said by then, and answers that it verified the
    reports (``verifies``) or that it verified none."""

    def __init__(self, folder: Path, said: list[str], verifies: bool) -> None:
        self.folder, self.said, self.verifies = folder, said, verifies
        self.seen: tuple[list[str], int] | None = None

    def wait(self) -> int:
        self.seen = _written(self.folder), len(self.said)
        if not self.verifies:
            return 0
        for name in ("candidate.json", "baseline.json"):
            data = (self.folder / name).read_bytes()
            verified.note_verified(f"sha256:{hashlib.sha256(data).hexdigest()}")
        return 2

    def close(self) -> None:
        return None


def _published_alone_then_ready(
    honest: bytes, step: Step
) -> tuple[tuple[int, list[str], Any], Path, dict[str, str]]:
    """What the step publishes verifying as it reads (``honest`` against a copy of it
    written otherwise), then the same reports in a fresh folder, this process's reads and
    verifications forgotten: that, the folder and the step's environment there."""
    step.switch("0")
    baseline = json.dumps(json.loads(honest), indent=1).encode()
    code, said, folder = _publish(step.tmp_path / "out", honest, baseline, step.monkeypatch)
    alone = code, said, _published(folder)
    folder.rename(step.tmp_path / "alone")
    verified.forget_verified()
    for counted in step.reads.values():
        counted.clear()
    folder.mkdir()
    (folder / "candidate.json").write_bytes(honest)
    (folder / "baseline.json").write_bytes(baseline)
    step.monkeypatch.chdir(folder)
    env = load_benchmarks().publishing_environment(
        folder, folder / "candidate.json", folder / "baseline.json"
    )
    return alone, folder, env


class _AheadStandIn(_StandIn):
    """Stands in for a helper that scans a report ahead (``report.background.
    scan_ahead_in_background``): it hands the scan made here of ``path``, each case given to
    ``hooks``, as the helper hands its own, then answers as ``_StandIn`` does."""

    def __init__(
        self, folder: Path, said: list[str], verifies: bool, path: Path, hooks: Any
    ) -> None:
        super().__init__(folder, said, verifies)
        self.path, self.hooks = path, tuple(hooks)

    def handed(self) -> Any:
        return background._scanned(self.path, background._each(self.hooks)), self.hooks


@pytest.mark.parametrize("verifies", [True, False], ids=["verified", "refused"])
def test_nothing_is_published_before_the_helpers_that_scanned_ahead_answered(
    honest: bytes,
    step: Step,
    verifies: bool,
) -> None:
    """Both reports scanned by helpers forked before they are needed (which then verify
    them): each is scanned once, by its helper, never here; nothing is written or said
    before both answered; then the step publishes what it publishes verifying as it reads,
    or, where they did not verify the reports, runs again verifying them itself."""
    from goldgate.app.action.modes import run_action

    alone, folder, env = _published_alone_then_ready(honest, step)
    said: list[str] = []
    helpers: list[_AheadStandIn] = []

    def ahead(path: Path, hooks: Any) -> _AheadStandIn:
        helpers.append(_AheadStandIn(folder, said, verifies, path, hooks))
        return helpers[-1]

    step.monkeypatch.setattr(background, "fork_possible", lambda: True)
    step.monkeypatch.setattr(background, "scan_ahead_in_background", ahead)
    code = run_action(env, said.append)
    assert (code, said, _published(folder)) == alone
    assert [helper.path.name for helper in helpers] == ["candidate.json", "baseline.json"]
    before_start = len([s for s in said if "GITHUB_EVENT_NAME" in s])
    for helper in helpers:
        assert helper.seen == ([], before_start), "written or said before a helper answered"
    if verifies:  # scanned once each, by the stand-ins: the step streamed from their scans
        assert step.reads == {"scans": {"candidate.json": 1, "baseline.json": 1},
                              "verifications": {}}  # fmt: skip
    else:
        assert step.reads["verifications"] == {"candidate.json": 1, "baseline.json": 1}


@pytest.mark.parametrize("verifies", [True, False], ids=["verified", "refused"])
def test_nothing_is_published_before_the_helper_answered(
    honest: bytes,
    step: Step,
    verifies: bool,
) -> None:
    """With a helper verifying meanwhile, the step compares and renders but writes nothing,
    says nothing, before the helper answered; then it publishes what the step publishes
    verifying as it reads, or, where the helper did not verify the reports, runs again
    verifying them itself."""
    from goldgate.app.action.modes import run_action

    alone, folder, env = _published_alone_then_ready(honest, step)
    said: list[str] = []
    helper = _StandIn(folder, said, verifies)
    step.monkeypatch.setattr(background, "fork_possible", lambda: True)
    step.monkeypatch.setattr(background, "scan_ahead_in_background", lambda *_: None)
    step.monkeypatch.setattr(
        background, "verify_streamed_in_background", lambda reports, **_: helper
    )
    code = run_action(env, said.append)
    assert (code, said, _published(folder)) == alone
    before_start = len([s for s in said if "GITHUB_EVENT_NAME" in s])
    assert helper.seen == ([], before_start), "written or said before the helper answered"
    expected = {} if verifies else {"candidate.json": 1, "baseline.json": 1}
    assert step.reads["verifications"] == expected


def test_a_baseline_of_the_candidate_s_very_bytes_is_verified_once(
    honest: bytes, step: Step
) -> None:
    """One helper verifies bytes the step uses twice (a report compared with a copy of
    itself): the baseline's are the candidate's, verified already."""
    step.switch("0")
    folder = step.tmp_path / "out"
    handed: list[list[str]] = []

    def helper(reports: list[Any], **_: Any) -> _StandIn:
        handed.append([Path(report.path).name for report in reports])
        return _StandIn(folder, [], verifies=True)

    step.monkeypatch.setattr(background, "fork_possible", lambda: True)
    step.monkeypatch.setattr(background, "scan_ahead_in_background", lambda *_: None)
    step.monkeypatch.setattr(background, "verify_streamed_in_background", helper)
    code, said, _ = _publish(folder, honest, honest, step.monkeypatch)
    assert code == json.loads(honest)["verdict"]["exit_code"], said
    assert handed == [["candidate.json"]]
    assert step.reads["verifications"] == {}, "the stand-in verified it"


def test_a_report_changed_after_its_helper_scanned_it_is_refused_nothing_published(
    honest: bytes, step: Step
) -> None:
    """The candidate rewritten (the same size, other bytes: a case id reversed, which its
    figures no longer match) once its helper has scanned (and verified) it: the step publishes
    nothing from the scan of other bytes (each case read is checked against the scan) and
    refuses the report in the sentence of a file changed while it was read, nothing
    written."""
    from goldgate.app.action.modes import run_action

    _, folder, env = _published_alone_then_ready(honest, step)
    first = json.dumps(json.loads(honest)["suites"][0]["cases"][0]["id"]).encode()
    changed = honest.replace(first, first[::-1], 1)
    assert (len(changed), changed != honest) == (len(honest), True)

    class Rewritten(_AheadStandIn):
        def handed(self) -> Any:
            taken = super().handed()
            self.digest = taken[0].digest
            if self.path.name == "candidate.json":
                self.path.write_bytes(changed)
            return taken

        def wait(self) -> int:  # as a helper does: it verified the very bytes it scanned
            verified.note_verified(self.digest)
            return 1

    said: list[str] = []
    step.monkeypatch.setattr(background, "fork_possible", lambda: True)
    step.monkeypatch.setattr(
        background,
        "scan_ahead_in_background",
        lambda path, hooks: Rewritten(folder, said, True, path, hooks),
    )
    # The command line makes the refusal its one sentence and exit 2 (cli.py).
    with pytest.raises(ReportRefusedError, match=r"candidate\.json: changed while it was read"):
        run_action(env, said.append)
    assert _written(folder) == []
