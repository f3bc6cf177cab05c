"""Garbage collection around long-lived objects: paused while they are built, and frozen out
of later collections, so that no collection scans them again (``goldgate.base.memory``).

The collector's counts and frozen generation are the process's: what earlier tests left in a
test process (frozen objects being freed, threads allocating or collecting) moved them while
these tests ran. They run in an interpreter of their own (``helpers/fresh.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from goldgate.app import evaluate
from goldgate.base import accelerators
from goldgate.base.memory import (
    RUN_YOUNG_THRESHOLD,
    collections_paused,
    collections_spaced,
    long_lived,
)
from goldgate.run import session
from goldgate.run.session import Session

# One worker starts the pytest of this module in an interpreter of its own (helpers/fresh.py),
# not each worker that draws one of its tests (--dist loadgroup).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.fresh_interpreter,
    pytest.mark.xdist_group("gc_memory"),
]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_triage"


@pytest.fixture(autouse=True)
def accelerated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This tuning is an accelerator: these tests hold it with the switch on, whatever an
    earlier test in this worker left cached (``accelerators.enabled`` is read once)."""
    monkeypatch.delenv(accelerators.VARIABLE, raising=False)
    accelerators.refresh()
    assert accelerators.enabled()
    yield
    accelerators.refresh()


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every cyclic collection that starts while the test runs."""
    started: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


def test_collections_paused_restores_the_collector_as_it_was() -> None:
    assert gc.isenabled()
    with collections_paused():
        assert not gc.isenabled()
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still pauses
    assert gc.isenabled()

    gc.disable()
    try:
        with collections_paused():
            pass
        assert not gc.isenabled()  # not enabled by a block that did not disable it
    finally:
        gc.enable()


def test_what_a_long_lived_block_builds_is_frozen_and_never_scanned(
    collections: list[int],
) -> None:
    frozen_before = gc.get_freeze_count()
    collections.clear()  # one the fixtures' own setup set off is not the block's
    with long_lived():
        kept = [[index] for index in range(20_000)]  # past every collection threshold
        assert collections == []
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(kept)
    assert gc.get_count()[0] < 100  # nothing left waiting to be scanned by the next collection


def _fail_building(block: Any) -> None:
    with block:
        kept = [[index] for index in range(1_000)]
        raise RuntimeError(len(kept))


def test_a_long_lived_block_that_fails_freezes_nothing() -> None:
    frozen_before = gc.get_freeze_count()
    with pytest.raises(RuntimeError):
        _fail_building(long_lived())
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen_before


def test_collections_spaced_sets_the_young_threshold_and_restores_it() -> None:
    before = gc.get_threshold()
    with collections_spaced(5_000):
        assert gc.get_threshold() == (5_000, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError):
        _fail_building(collections_spaced())
    assert gc.get_threshold() == before


class _Prepared(Exception):
    """Stops the run where it would start."""


def _example_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> session.RunRequest:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    return session.RunRequest(
        config=EXAMPLE / "config" / "settings.yaml",
        output=tmp_path / "report.json",
        variant_revision="test",
    )


def test_a_prepared_run_starts_without_a_collection_scanning_its_gold(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, collections: list[int]
) -> None:
    # Loading 10,000 cases left millions of objects for the first collection after the load
    # to scan (20 ms) before the run froze them: the run prepares with collections paused.
    seen: dict[str, object] = {}

    def execute(session: Session, emergency_exit: object, progress: object = None) -> None:
        seen["collections"] = list(collections)
        seen["young"] = gc.get_count()[0]
        seen["cases"] = sum(len(suite.cases) for suite in session.dataset.suites)
        raise _Prepared

    monkeypatch.setattr(Session, "execute", execute)
    with pytest.raises(_Prepared):
        evaluate.run_evaluation(_example_request(tmp_path, monkeypatch))

    assert seen["cases"] > 0
    assert seen["collections"] == []
    assert isinstance(seen["young"], int)
    assert seen["young"] < 100


@pytest.mark.parametrize("stage", ["_report_file", "anyio.run"])
def test_a_run_and_its_report_process_collect_the_young_generation_spaced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stage: str
) -> None:
    # The report process is forked in _report_file: it inherits the threshold set there.
    thresholds: list[int] = []

    def stop(*args: object, **kwargs: object) -> None:
        thresholds.append(gc.get_threshold()[0])
        raise _Prepared

    owner = session.anyio if stage == "anyio.run" else session
    monkeypatch.setattr(owner, stage.rpartition(".")[2], stop)
    before = gc.get_threshold()
    with pytest.raises(_Prepared):
        evaluate.run_evaluation(_example_request(tmp_path, monkeypatch))

    assert thresholds == [RUN_YOUNG_THRESHOLD]
    assert gc.get_threshold() == before
    assert not (tmp_path / "report.json").exists()
