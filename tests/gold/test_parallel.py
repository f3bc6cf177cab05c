"""A large case file is checked on two cores: a forked helper checks batches of cases while
this process parses the file and checks the rest. What loads must be what the sequential
check loads, bad gold anywhere must still reach the whole-file path, and a helper that fails
must cost nothing but time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import zlib
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from tests.gold.test_streamed import same_gold

from goldgate.base import accelerators
from goldgate.gold import patterns
from goldgate.gold._stream import parallel, streamed
from goldgate.gold.load import check_gold, load_gold
from goldgate.gold.settings.load import load_settings
from goldgate.gold.suites import GoldSuite
from helpers.processes import assert_gone

pytestmark = pytest.mark.skipif(
    not parallel.parallel_possible(),
    reason="the helper is forked only on Linux, with two CPUs and no other thread running",
)


def _project(gold_project: Any, count: int) -> Any:
    """The gold project with ``count`` more cases: text patterns of their own, floats,
    non-ASCII ids, labels for the suite's metric."""
    base = gold_project.cases[0]
    for index in range(count):
        case = json.loads(json.dumps(base))
        case["id"] = f"extra-{index}-é"
        case["note"] = f"weight {index / 7}"
        case["expectations"].append(
            {"name": "ticket", "path": "/payload/answer", "comparison": "text",
             "expected": {"matches": [f"T-{index}\\b"], "contains": "T-"}}
        )  # fmt: skip
        gold_project.cases.append(case)
    return gold_project.write()


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> list[parallel.Helper]:
    """One helper forked once 8 cases are checked, taking every batch of 4 after the one it
    started in (it always has room); the helpers started. ``monkeypatch`` ``HELPERS`` on
    this module for more helpers."""
    monkeypatch.setattr(streamed, "PARALLEL_FROM", 8)
    monkeypatch.setattr(streamed, "BATCH", 4)
    monkeypatch.setattr(parallel, "_AHEAD", 10**6)
    started: list[parallel.Helper] = []

    def start(
        fd: int, check: parallel.CaseCheck, send_patterns: bool = True
    ) -> list[parallel.Helper]:
        for _ in range(HELPERS):
            helper = parallel.start_helper(fd, check, send_patterns)
            assert helper is not None
            started.append(helper)
        return list(started)

    monkeypatch.setattr(streamed, "start_helpers", start)
    return started


HELPERS = 1


def _load(project: Any) -> GoldSuite:
    return load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")


def _sequential(project: Any) -> GoldSuite:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streamed, "parallel_possible", lambda: False)
        return _load(project)


@pytest.mark.slow
def test_a_suite_checked_with_a_helper_equals_one_checked_alone(
    gold_project: Any, small_batches: list[parallel.Helper]
) -> None:
    project = _project(gold_project, 120)
    helped = _load(project)

    assert len(small_batches) == 1
    helper = small_batches[0]
    total = len(json.loads((project.root / project.CASE_FILE).read_text()))
    assert helper.sent == -(-(total - 12) // 4)  # every batch after the one it started in
    assert not helper.failed
    assert not helper.process.is_alive()  # stopped once the check was done
    same_gold(helped, _sequential(project))


@pytest.mark.slow
def test_a_large_case_file_has_its_helper_from_the_first_case(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(gold_project, 120)
    size = (project.root / project.CASE_FILE).stat().st_size
    monkeypatch.setattr(streamed, "PARALLEL_BYTES", size)  # as large as the threshold
    helped = _load(project)

    assert len(small_batches) == 1
    total = len(json.loads((project.root / project.CASE_FILE).read_text()))
    assert small_batches[0].sent == -(-total // 4)  # every batch: none checked here first
    same_gold(helped, _sequential(project))

    small_batches.clear()
    monkeypatch.setattr(streamed, "PARALLEL_BYTES", size + 1)  # smaller than the threshold
    _load(project)
    assert small_batches[0].sent == -(-(total - 12) // 4)


@pytest.mark.slow
def test_the_patterns_a_helper_compiled_are_not_compiled_again_for_the_run(
    gold_project: Any, small_batches: list[parallel.Helper]
) -> None:
    """A helper answers with the programs of the patterns it compiled; this process rebuilds
    them, so reading every case back for the run compiles no pattern at all, and the rebuilt
    patterns are those a compilation gives."""
    project = _project(gold_project, 120)
    helped = _load(project)
    assert small_batches[0].sent > 0

    misses = patterns._compile.cache_info().misses  # type: ignore[attr-defined]
    run = [helped.compiled[index] for index in range(len(helped.cases))]
    # (a pattern many cases share, taken by the first, comes from the cache for the others)
    assert patterns._compile.cache_info().misses == misses  # type: ignore[attr-defined]
    ticket = [
        expectation.text.assertions[0].pattern
        for expectations in run[-100:]  # checked by the helper
        for expectation in expectations
        if expectation.name == "ticket" and expectation.text is not None
    ]
    assert len(ticket) == 100
    assert all(pattern is not None and pattern == re.compile(pattern.pattern) for pattern in ticket)
    same_gold(helped, _sequential(project))


@pytest.mark.slow
def test_the_patterns_kept_for_the_run_are_bounded(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``KEPT_PATTERN_BYTES``, neither side keeps a pattern: those cases compile theirs
    when they are read back, and the run reads the same gold."""
    from goldgate.gold._stream import store

    budget = 6_000
    monkeypatch.setattr(store, "KEPT_PATTERN_BYTES", budget)
    monkeypatch.setattr(store, "KEPT_BYTES", 0)
    patterns._compile.cache_clear()  # type: ignore[attr-defined]  # the helper compiles anew
    project = _project(gold_project, 120)
    helped = _load(project)
    assert isinstance(helped.cases, store.LazyCases)
    kept = helped.cases.store.patterns
    sizes = [sys.getsizeof(pattern) + sys.getsizeof(text) for text, pattern in kept.items()]
    assert sum(sizes) >= budget > sum(sizes[:-1])  # stopped at the first past the budget
    assert 0 < len(kept) < 100
    same_gold(helped, _sequential(project))


@pytest.mark.slow
def test_a_check_alone_keeps_nothing_for_a_run_that_does_not_follow(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate --check`` keeps neither checked cases nor compiled patterns, and its helper
    sends no programs; loading for a run keeps both, the helper's patterns included."""
    from goldgate.gold._stream import store

    sent: list[int] = []
    adopt = store.CaseStore.adopt

    def counted(self: store.CaseStore, programs: Any) -> None:
        programs = tuple(programs)
        sent.append(len(programs))
        adopt(self, programs)

    monkeypatch.setattr(store.CaseStore, "adopt", counted)
    monkeypatch.setattr(store, "KEPT_BYTES", 2_000)  # a few cases kept, then patterns
    project = _project(gold_project, 120)
    settings = load_settings(project.root / project.SETTINGS)
    patterns._compile.cache_clear()  # type: ignore[attr-defined]  # the helper compiles anew
    checked = check_gold(settings).dataset
    assert checked is not None
    alone = checked.suite("filed")
    assert isinstance(alone.cases, store.LazyCases)
    assert (alone.cases.store._kept, alone.cases.store.patterns) == ({}, {})
    assert sent
    assert sum(sent) == 0  # the helper answered without the programs of its patterns

    sent.clear()
    patterns._compile.cache_clear()  # type: ignore[attr-defined]
    loaded = _load(project)
    assert isinstance(loaded.cases, store.LazyCases)
    assert loaded.cases.store._kept
    assert sum(sent) >= 100  # the helper checked all but the first dozen cases
    assert len(loaded.cases.store.patterns) >= 100
    same_gold(alone, loaded)


@pytest.mark.slow
def test_bad_gold_in_a_helpers_batch_is_worded_by_the_whole_file_path(
    gold_project: Any, small_batches: list[parallel.Helper]
) -> None:
    project = _project(gold_project, 120)
    cases = json.loads((project.root / project.CASE_FILE).read_text())
    cases[101]["expectations"][-1]["expected"]["matches"] = ["(unclosed"]
    (project.root / project.CASE_FILE).write_text(json.dumps(cases, indent=1))
    result = check_gold(load_settings(project.root / project.SETTINGS))

    assert small_batches
    assert small_batches[0].sent > 0
    assert result.dataset is None
    messages = [violation.render() for violation in result.violations]
    assert len(messages) == 1, messages
    assert "not a valid regular expression: missing )" in messages[0]
    assert f"{Path(project.CASE_FILE).name}:" in messages[0]
    assert "(at /101/expectations/" in messages[0], messages[0]


@pytest.mark.slow
def test_a_helper_that_dies_costs_only_time(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(gold_project, 120)

    parent, real = os.getpid(), parallel.check_spans

    def die(*args: Any) -> parallel.Answer:  # the helper dies at its first batch
        if os.getpid() != parent:
            os._exit(3)
        return real(*args)  # this process checks what the helper did not answer

    monkeypatch.setattr(parallel, "check_spans", die)
    helped = _load(project)

    assert small_batches[0].failed
    assert small_batches[0].sent > 0
    same_gold(helped, _sequential(project))


def test_a_helper_whose_parent_is_killed_ends(tmp_path: Path, reaper: bool) -> None:
    # The parent dies without stopping its helper (SIGKILL, the OOM killer): the helper must
    # see its end of the pipe close rather than wait for the next batch forever.
    script = (
        "import os\n"
        "from goldgate.gold._stream import parallel\n"
        f"fd = os.open({str(tmp_path)!r}, os.O_RDONLY)\n"
        "none = frozenset()\n"
        "helper = parallel.start_helper(fd, lambda raw, position: (False, none, none))\n"
        "print(helper.process.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    helper = int(parent.stdout.readline())
    parent.wait(timeout=60)
    assert_gone([helper], strict=reaper, within=30)
    parent.stdout.close()


def test_bytes_other_than_those_read_are_not_good_gold(tmp_path: Any) -> None:
    path = tmp_path / "cases.json"
    data = b'{"id": "a"}'
    path.write_bytes(data)

    def check(raw: Any, position: int) -> tuple[bool, frozenset[str], frozenset[str]]:
        return False, frozenset(), frozenset()

    with path.open("rb") as handle:
        changed = parallel.check_spans(handle.fileno(), [(0, len(data), 12345, 0)], check)
        same = parallel.check_spans(handle.fileno(), [(0, len(data), zlib.crc32(data), 0)], check)
    assert changed.good is False
    assert same == parallel.Answer(True, False, frozenset(), ("a",), (b'{"id":"a"}',))


@pytest.mark.parametrize(
    "data", [b'{"id": "a", "id": "b"}', b'{"id": NaN}', b'{"id": "\\ud800"}', b'{"id": 1e999}']
)
def test_the_helper_parses_as_strictly_as_the_stream(tmp_path: Any, data: bytes) -> None:
    path = tmp_path / "cases.json"
    path.write_bytes(data)
    with path.open("rb") as handle:
        answer = parallel.check_spans(
            handle.fileno(),
            [(0, len(data), zlib.crc32(data), 0)],
            lambda raw, position: (False, frozenset(), frozenset()),
        )
    assert answer.good is False


def test_no_helper_is_forked_while_another_thread_runs() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert parallel.parallel_possible() is False
    finally:
        release.set()
        other.join()
    assert parallel.parallel_possible() is True


@pytest.mark.parametrize(
    ("v2", "v1", "expected"),
    [
        ("max 100000", None, 8.0),
        ("150000 100000", None, 1.5),
        ("400000 100000", None, 4.0),
        (None, ("-1", "100000"), 8.0),
        (None, ("100000", "100000"), 1.0),
        (None, None, 8.0),
        ("garbage", None, 8.0),
    ],
)
def test_a_containers_cpu_quota_counts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    v2: str | None,
    v1: tuple[str, str] | None,
    expected: float,
) -> None:
    """A container limited to one and a half CPUs gets no helper, whatever CPUs it sees."""
    quota_v2, quota_v1, period_v1 = (tmp_path / name for name in ("max", "quota", "period"))
    if v2 is not None:
        quota_v2.write_text(v2 + "\n")
    if v1 is not None:
        quota_v1.write_text(v1[0] + "\n")
        period_v1.write_text(v1[1] + "\n")
    monkeypatch.setattr(
        accelerators, "_QUOTAS", ((str(quota_v2), None), (str(quota_v1), str(period_v1)))
    )
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: set(range(8)))
    assert parallel.cpu_budget() == expected
    assert parallel.parallel_possible() is (expected >= 2)


def _break(text: str, how: str) -> str:
    """The case file's text with one case in a helper's batch made bad gold in way ``how``."""
    marker = '"id": "extra-101-\\u00e9"'
    assert marker in text
    broken = {
        "duplicate key": marker + ', "id": "again"',
        "NaN": marker + ', "note": NaN',
        "lone surrogate": '"id": "extra-101-\\ud800"',
        "infinite number": marker + ', "weight": 1e999',
        "duplicate id": '"id": "extra-100-\\u00e9"',
        "unknown field": marker + ', "colour": "red"',
        "deep nesting": marker + ', "note": ' + "[" * 600 + "]" * 600,
    }[how]
    return text.replace(marker, broken, 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "how",
    ["duplicate key", "NaN", "lone surrogate", "infinite number", "duplicate id",
     "unknown field", "deep nesting"],
)  # fmt: skip
def test_bad_gold_anywhere_is_refused_as_the_sequential_check_refuses_it(
    gold_project: Any, small_batches: list[parallel.Helper], how: str
) -> None:
    project = _project(gold_project, 120)
    path = project.root / project.CASE_FILE
    path.write_text(_break(json.dumps(json.loads(path.read_text()), indent=1), how))
    settings = load_settings(project.root / project.SETTINGS)

    helped = check_gold(settings)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streamed, "parallel_possible", lambda: False)
        alone = check_gold(settings)

    assert small_batches  # the helper was started for the first version
    assert helped.dataset is None
    assert alone.dataset is None
    assert [v.render() for v in helped.violations] == [v.render() for v in alone.violations]
    assert helped.violations


@pytest.mark.slow
def test_work_shared_between_both_sides_still_equals_the_sequential_check(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one unanswered batch at most, this process checks batches itself meanwhile:
    cases checked on either side reach the store and the fingerprint in file order."""
    monkeypatch.setattr(parallel, "_AHEAD", 1)
    project = _project(gold_project, 400)
    helped = _load(project)

    batches = -(-(len(helped.cases) - 12) // 4)
    assert 0 < small_batches[0].sent < batches  # both sides checked some
    same_gold(helped, _sequential(project))


@pytest.mark.slow
def test_a_slow_helper_does_not_let_cases_pile_up_here(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cases checked here wait behind an unanswered batch at most ``_WAITING`` at a time:
    past that, this process waits for the helper's answer."""
    parent, real = os.getpid(), parallel.check_spans
    longest = 0

    def slow(*args: Any) -> parallel.Answer:
        if os.getpid() != parent:
            time.sleep(0.02)
        return real(*args)

    class Watched(deque):  # type: ignore[type-arg]
        def append(self, item: Any) -> None:
            nonlocal longest
            super().append(item)
            longest = max(longest, len(self))

    monkeypatch.setattr(parallel, "check_spans", slow)
    monkeypatch.setattr(parallel, "_AHEAD", 1)
    monkeypatch.setattr(streamed, "_WAITING", 6)
    monkeypatch.setattr(streamed, "deque", Watched)
    project = _project(gold_project, 200)
    helped = _load(project)

    assert small_batches[0].sent > 1
    assert 6 < longest <= 6 + 4  # waited: at most one more batch's cases came in meanwhile
    same_gold(helped, _sequential(project))


@pytest.mark.slow
def test_several_helpers_share_the_batches_and_the_result_is_thesame_gold(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the runner has more CPUs, one helper per spare CPU (at most three)."""
    monkeypatch.setattr(sys.modules[__name__], "HELPERS", 3)
    monkeypatch.setattr(parallel, "_AHEAD", 2)
    project = _project(gold_project, 400)
    helped = _load(project)

    assert len(small_batches) == 3
    assert all(helper.sent > 0 for helper in small_batches)  # each took batches
    assert not any(helper.process.is_alive() for helper in small_batches)
    same_gold(helped, _sequential(project))


@pytest.mark.parametrize(("budget", "wanted"), [(1.5, 0), (2.0, 1), (3.5, 2), (16.0, 3)])
def test_one_helper_per_spare_cpu_at_most_three(
    monkeypatch: pytest.MonkeyPatch, budget: float, wanted: int
) -> None:
    started: list[int] = []

    def start(fd: int, check: parallel.CaseCheck, send_patterns: bool) -> int:
        started.append(fd)
        return fd

    monkeypatch.setattr(parallel, "cpu_budget", lambda: budget)
    monkeypatch.setattr(parallel, "start_helper", start)
    none: frozenset[str] = frozenset()
    assert len(parallel.start_helpers(7, lambda raw, position: (False, none, none))) == wanted
    assert started == [7] * wanted


@pytest.mark.slow
def test_a_check_alone_compiles_no_flat_pattern_and_still_finds_bad_ones(
    gold_project: Any, small_batches: list[parallel.Helper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate --check`` compiles a pattern only where it may not compile: flat ones
    (``T-12\\b``) surely do, and are left alone, here and in the helper; a pattern that is
    not flat is compiled, and a bad one is found wherever it is. Loading for a run compiles
    them all."""
    from goldgate.gold import compiled

    project = _project(gold_project, 120)
    settings = load_settings(project.root / project.SETTINGS)
    compile_pattern = compiled.compile_pattern

    def refused(pattern: str) -> Any:
        # In the helper, this fails its batch: the whole-file path then compiles it here.
        assert not pattern.startswith("T-"), f"{pattern} was compiled"
        return compile_pattern(pattern)

    monkeypatch.setattr(compiled, "compile_pattern", refused)
    patterns._compile.cache_clear()  # type: ignore[attr-defined]
    checked = check_gold(settings)
    assert checked.dataset is not None
    assert small_batches[0].sent > 0
    assert not small_batches[0].failed

    compiled_here: list[str] = []

    def counted(pattern: str) -> Any:
        compiled_here.append(pattern)
        return compile_pattern(pattern)

    monkeypatch.setattr(compiled, "compile_pattern", counted)
    patterns._compile.cache_clear()  # type: ignore[attr-defined]
    loaded = _load(project)
    assert len([pattern for pattern in compiled_here if pattern.startswith("T-")]) >= 8
    same_gold(checked.dataset.suite("filed"), loaded)

    cases = json.loads((project.root / project.CASE_FILE).read_text())
    cases[101]["expectations"][-1]["expected"]["matches"] = ["T-(unclosed"]
    (project.root / project.CASE_FILE).write_text(json.dumps(cases, indent=1))
    result = check_gold(settings)
    assert result.dataset is None
    assert [v.message for v in result.violations] == [
        "pattern 1 is not a valid regular expression: missing ), unterminated subpattern "
        "at position 2"
    ]
