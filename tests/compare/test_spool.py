"""A comparison's per-case lists are spooled to a file past ``spool.HELD`` items (issue 43):
read back they are the items appended, in order, by index, slice and iteration; the
comparison file written from them is the bytes of the whole model dumped; and spooling holds
a fixed amount of memory where a held list grows with it."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from goldgate.comparison import comparison_bytes
from goldgate.comparison import spool as spool_module
from goldgate.comparison.models import (
    AttemptChange,
    CheckChange,
    Finding,
    SuiteComparison,
    finding_change,
)
from goldgate.comparison.spool import Budget, Listed, Spooler
from goldgate.report.stream import dumps


def _change(number: int) -> AttemptChange:
    return AttemptChange(
        case_id=f"case-{number:06d} ünïcode",
        attempt=1 + number % 3,
        change="regressed" if number % 2 else "improved",
        candidate_status="completed",
        baseline_status="failed" if number % 5 == 0 else "completed",
        rescored=number % 7 == 0,
        checks=tuple(
            CheckChange(name=f"check {k}", candidate="failed", baseline=None if k else "passed")
            for k in range(number % 3)
        ),
    )


def _finding(number: int) -> Finding:
    change = ("regressed", "improved", "flaky", "input changed")[number % 4]
    return Finding(case_id=f"case-{number}", attempt=number % 3, change=change, detail='d\n"x"')


@pytest.mark.parametrize("held", [0, 3, 10_000])
def test_a_spooled_list_reads_back_as_appended(monkeypatch: pytest.MonkeyPatch, held: int) -> None:
    monkeypatch.setattr(spool_module, "HELD", held)
    items = [_change(number) for number in range(500)]
    spooler = Spooler(AttemptChange)
    spooler.extend(items)
    listed = spooler.done()
    assert listed.spooled is (held < 500)
    assert len(listed) == 500
    assert list(listed) == items
    assert listed == tuple(items)
    assert listed[0] == items[0]
    assert listed[-1] == items[-1]
    assert listed[137] == items[137]
    assert listed[:20] == tuple(items[:20])
    assert listed[490:600] == tuple(items[490:])
    assert listed[10:40:7] == tuple(items[10:40:7])
    assert listed[5:5] == ()
    with pytest.raises(IndexError):
        listed[500]
    assert list(listed.lines()) == [dumps(item.model_dump(mode="json")) for item in items]
    ids = Spooler(str)
    ids.extend(item.case_id for item in items)
    assert list(ids.done()) == [item.case_id for item in items]


def test_the_lists_of_a_comparison_share_what_they_hold() -> None:
    """One budget for every list of a comparison, whatever its number of suites: a list
    that spools gives back what it held."""
    budget = Budget(10)
    first, second = Spooler(str, budget=budget), Spooler(str, budget=budget)
    first.extend(str(number) for number in range(8))
    second.extend(str(number) for number in range(3))  # 2 held, the third spools them
    assert budget.left == 2
    third = Spooler(str, budget=budget)
    third.extend(str(number) for number in range(2))
    assert budget.left == 0
    done = [spooler.done() for spooler in (first, second, third)]
    assert [listed.spooled for listed in done] == [False, True, False]
    assert [len(listed) for listed in done] == [8, 3, 2]
    assert list(done[1]) == ["0", "1", "2"]


def test_lists_spooled_together_share_a_file_and_read_back_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A comparison's spooled lists take turns in one file (one descriptor whatever their
    number): each reads back its own items, in blocks and one by one."""
    monkeypatch.setattr(spool_module, "_BLOCK", 64)  # blocks of a few items
    budget = Budget(0)
    changes, ids = Spooler(AttemptChange, budget=budget), Spooler(str, budget=budget)
    for number in range(300):
        changes.append(_change(number))
        ids.append(f"id {number}")
        if number % 3 == 0:
            ids.append(f"id {number} again")
    listed_changes, listed_ids = changes.done(), ids.done()
    assert list(listed_changes) == [_change(number) for number in range(300)]
    assert listed_ids[1] == "id 0 again"
    assert len(listed_ids) == 400
    assert listed_ids[-1] == "id 299"
    assert listed_changes[100:103] == tuple(_change(number) for number in range(100, 103))


def test_findings_are_counted_as_they_are_spooled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "HELD", 2)
    spooler = Spooler(Finding, key=finding_change)
    spooler.extend(_finding(number) for number in range(9))
    counts = spooler.done().counts(finding_change)
    assert counts == {"regressed": 3, "improved": 2, "flaky": 2, "input changed": 2}


def _suite(held: int, monkeypatch: pytest.MonkeyPatch, size: int) -> SuiteComparison:
    """A suite comparison whose lists are spooled past ``held`` items; 'flaky' findings only
    (its classes must agree with them)."""
    from goldgate.comparison.models import (
        Classes,
        CountDelta,
        Delta,
        Figures,
        Latency,
        McNemar,
        Unmatched,
        Usage,
    )

    monkeypatch.setattr(spool_module, "HELD", held)
    changes = Spooler(AttemptChange)
    changes.extend(_change(number) for number in range(size))
    findings = Spooler(Finding, key=finding_change)
    findings.extend(
        Finding(case_id=f"c{number}", attempt=0, change="flaky", detail="noisy")
        for number in range(size)
    )
    ids = Spooler(str)
    ids.extend(f"added {number}" for number in range(size))
    none = Delta(candidate=None, baseline=None, delta=None)
    from goldgate.comparison.models import AttemptCounts

    return SuiteComparison(
        name="suite",
        status="compared",
        repeat=CountDelta(candidate=1, baseline=1, delta=0),
        figures=Figures(
            attempts=AttemptCounts(),
            attempt_pass_rate=none,
            check_pass_rate=none,
            mcnemar=McNemar(improved=0, regressed=0, p_value=1.0),
            expectations=(),
            runtime_failures=CountDelta(candidate=0, baseline=0, delta=0),
            latency=Latency(comparable=True, p50=none, p95=none),
            usage=Usage(comparable=True),
        ),
        changes=changes.done(),
        unmatched=Unmatched(added=ids.done(), removed=("x",)),
        unit="attempt",
        rule="r",
        classes=Classes(flaky=size),
        findings=findings.done(),
    )


def test_the_file_of_spooled_lists_is_the_whole_models_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The streamed writer (``comparison_chunks``) gives the bytes ``dumps(model_dump())``
    gives, held or spooled; the realistic comparisons are in test_partial.py and
    test_one_classification.py."""
    from goldgate.comparison.models import (
        Comparable,
        Comparison,
        DatasetRecord,
        ReportRef,
        VariantRecord,
    )

    written = []
    for held in (100_000, 1):
        suite = _suite(held, monkeypatch, 500)
        ref = ReportRef(
            path="r.json",
            digest="sha256:0",
            started_at="2026-12-07T00:00:00+00:00",
            dataset=DatasetRecord(name="d", revision="1", fingerprint="sha256:1"),
            variant=VariantRecord(name="v", revision="2", configuration_revision=None),
        )
        comparison = Comparison(
            goldgate_version="0",
            created_at="now",
            mode="partial",
            candidate=ref,
            baseline=ref,
            comparable=Comparable(candidate_attempts=1, compared_attempts=1, share=1.0),
            regressions=False,
            classes=suite.classes.plus(suite.classes),
            overall=suite.figures,
            suites=(suite, suite),
        )
        assert suite.changes.spooled is (held == 1)
        data = comparison_bytes(comparison)
        assert data == dumps(comparison.model_dump(mode="json")) + b"\n"
        assert Comparison.model_validate_json(data) == comparison
        written.append(data)
    assert written[0] == written[1]


def _traced_peak(count: int) -> int:
    """Peak bytes traced while ``count`` attempt changes are spooled and read back."""
    gc.collect()
    tracemalloc.start()
    try:
        spooler = Spooler(AttemptChange)
        for number in range(count):
            spooler.append(_change(number))
        listed = spooler.done()
        assert sum(1 for _ in listed) == count
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_spooling_holds_a_fixed_amount_not_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``HELD`` items a list costs 12 bytes an item: 4,000 more changes spooled add
    under 0.5 MB to the traced peak, where held in memory they add over 4 MB (the second
    figure: what this test would measure were the lists held whole)."""
    monkeypatch.setattr(spool_module, "HELD", 100)
    monkeypatch.setattr(spool_module, "_BLOCK", 1 << 16)  # its buffers: 64 KB, not 1 MB
    _traced_peak(100)  # the models' first use allocates what every later one shares
    spooled = _traced_peak(2_000), _traced_peak(6_000)
    monkeypatch.setattr(spool_module, "HELD", 1_000_000)
    held = _traced_peak(2_000), _traced_peak(6_000)
    assert spooled[1] - spooled[0] < 1 << 19, spooled
    assert held[1] - held[0] > 4 << 20, held


def test_a_held_list_pickles_and_a_spooled_one_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    import copy
    import pickle

    listed = Listed(str, ("a", "b"))
    assert pickle.loads(pickle.dumps(listed)) == ("a", "b")
    assert repr(listed) == "Listed(2 items, held)"
    monkeypatch.setattr(spool_module, "HELD", 0)
    spooler = Spooler(str)
    spooler.extend(("a", "b"))
    spooled = spooler.done()
    assert copy.deepcopy(spooled) is spooled
    with pytest.raises(TypeError, match="cannot be sent to another process"):
        pickle.dumps(spooled)
