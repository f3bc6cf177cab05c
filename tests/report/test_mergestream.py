"""``report merge`` walks its shards side by side where each holds its cases in the order of
their positions (issue 43: nothing kept a case), and decides the order from every position
otherwise: the same bytes as the shards merged whole (``merge_reports``, ``report_chunks``),
on a report with details and every optional field of a case set (retries, cache, costs,
stderr, exceptions and their frames), failed attempts, usage, unicode, integers past
64 bits and floats such as 1e-7 and -0.0, and the same refusals."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.app.merge import merge_shard_reports
from goldgate.base import accelerators
from goldgate.base.errors import InvalidInputError
from goldgate.gold.models import Case, Expectation, Metric
from goldgate.report import mergecase, mergestream
from goldgate.report.io import read_report, report_bytes
from goldgate.report.livefigures import run_live
from goldgate.report.merge import ShardReport, merge_reports
from goldgate.report.mergestream import MergedStream
from goldgate.report.models import (
    CaseRecord,
    ExceptionRecord,
    FrameRecord,
    Report,
    adapter,
    validated,
)
from goldgate.report.plain import record_json
from goldgate.report.streamread import StreamedReport, streamed_report
from goldgate.report.verified import forget_verified, is_verified
from goldgate.run.api import EvaluationSuite, EvaluationVariant, evaluate
from helpers.reports import coherent

ODD: list[Any] = [2**70, 1e-7, -0.0, 1e300, "héllo ☃ \u2028 𝄞", {"nested": [None, True, 0.5]}]


def _evaluated(odd: list[Any], tokens: int) -> Report:
    """30 cases whose answers and gold hold the values of ``odd``, their usage ``tokens``
    and more."""

    async def answer(envelope: dict[str, Any]) -> dict[str, object]:
        number = envelope["payload"]["n"]
        if number % 9 == 4:
            raise RuntimeError(f"no answer for {number} ☃")
        return {
            "execution": {"status": "completed"},
            "payload": {"label": "ab"[number % 2], "odd": odd[number % len(odd)]},
            "usage": {"tokens": tokens + number, "seconds": 1e-7 * number},
        }

    cases = [
        Case(
            id=f"c{number}",
            input={"payload": {"n": number, "odd": odd[number % len(odd)]}, "metadata": {}},
            expectations=[
                Expectation("label", "/payload/label", "a"),
                Expectation("odd", "/payload/odd", odd[(number + 1) % len(odd)]),
            ],
        )
        for number in range(30)
    ]
    metric = Metric(name="kind", path="/payload/label", kind="classification", labels=["a", "b"])
    suite = EvaluationSuite("s", cases, thresholds={"kind.accuracy": 0.4})
    variant = EvaluationVariant("v", "r1", answer)
    return anyio.run(lambda: evaluate(suite, variant, metrics=[metric]))


@pytest.fixture(scope="module")
def whole() -> Report:
    return _evaluated(ODD, 2**65)


@pytest.fixture(scope="module")
def streamable() -> Report:
    """``whole``'s values with integers within 64 bits, which a shard is streamed with (one
    past them is read whole: ``report.scan``)."""
    return _evaluated([2**63 + 1, *ODD[1:]], 2**64 - 100)


@pytest.fixture
def merging_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No helper forked: the order of cases is what is tested here."""
    monkeypatch.setenv(accelerators.VARIABLE, "0")
    accelerators.refresh()
    yield
    monkeypatch.delenv(accelerators.VARIABLE)
    accelerators.refresh()


def _every_field(case: CaseRecord, number: int) -> CaseRecord:
    """``case`` with every optional field of its records set (a live target's retries, cache
    and costs, a command's stderr, a python target's exception and its frames)."""
    frame = FrameRecord(file="app/ünï.py", line=7 + number, function="answer")
    attempts = tuple(
        dataclasses.replace(
            attempt,
            retries=number % 3,
            cached=number % 4 == 1,
            cost=0.5 * number if number % 5 else -0.0,
            judge_cost=1e-7 * number,
            stderr=f"tail ☃ {number}\n",
            exception=None
            if attempt.status == "completed"
            else ExceptionRecord(
                type="RuntimeError", where=frame, message="no ☃", frames=(frame, frame)
            ),
        )
        for attempt in case.attempts
    )
    return dataclasses.replace(
        case, position=number, line=number + 1, family="fam", split="dev", attempts=attempts
    )


def _shards(
    report: Report, folder: Path, *, reverse: bool = False, drop: int = -1, second: bool = False
) -> list[Path]:
    """``report`` as the reports of shards 1/2 and 2/2 (every third case in the second), each
    coherent; the second's cases in reverse where ``reverse``, case ``drop`` in none. With
    ``second``, a second suite follows, its cases all in the first shard."""
    [suite] = report.suites
    cases = [_every_field(case, n) for n, case in enumerate(suite.cases)]
    parts = [
        [case for n, case in enumerate(cases) if n % 3 != 2 and n != drop],
        [case for n, case in enumerate(cases) if n % 3 == 2 and n != drop],
    ]
    if reverse:
        parts[1].reverse()
    paths = []
    for number, part in enumerate(parts, 1):
        suites = [dataclasses.replace(suite, whole_case_count=len(cases), cases=tuple(part))]
        if second:
            alone = tuple(cases) if number == 1 else ()
            suites.append(dataclasses.replace(suites[0], name="t", cases=alone))
        shard = dataclasses.replace(
            report,
            options=dataclasses.replace(report.options, shard=f"{number}/2"),
            suites=tuple(suites),
        )
        paths.append(folder / f"shard-{number}.json")
        made = validated(Report, coherent(record_json(shard)))
        made = dataclasses.replace(made, live=run_live(suite.live for suite in made.suites))
        paths[-1].write_bytes(report_bytes(made))
    return paths


@pytest.mark.usefixtures("merging_here")
@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "out-of-order"])
def test_merged_bytes_are_those_of_the_shards_merged_whole(
    whole: Report, tmp_path: Path, reverse: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _shards(whole, tmp_path, reverse=reverse)
    output = tmp_path / "merged.json"
    packed: list[int] = []  # where the order was decided from every position
    decide = MergedStream._packed
    monkeypatch.setattr(
        MergedStream, "_packed", lambda self, *args: packed.append(1) or decide(self, *args)
    )
    merge_shard_reports(paths[::-1], output)
    assert packed == ([1] if reverse else [])
    expected = merge_reports([ShardReport(str(path), read_report(path)) for path in paths])
    assert output.read_bytes() == report_bytes(expected)
    merged = read_report(output)
    assert [case.id for case in merged.suites[0].cases] == [f"c{n}" for n in range(30)]
    attempts = [attempt for case in merged.suites[0].cases for attempt in case.attempts]
    assert {attempt.status for attempt in attempts} == {"completed", "failed"}
    assert attempts[0].usage == {"tokens": 2**65, "seconds": 0.0}
    assert attempts[4].exception is not None
    assert merged.suites[0].live is not None


@pytest.mark.usefixtures("merging_here")
def test_a_case_in_no_shard_is_refused_with_nothing_written(whole: Report, tmp_path: Path) -> None:
    paths = _shards(whole, tmp_path, drop=7)
    output = tmp_path / "merged.json"
    with pytest.raises(InvalidInputError, match=r"suite 's': 1 of its 30 cases are in no shard"):
        merge_shard_reports(paths, output)
    assert not output.exists()


@pytest.mark.usefixtures("merging_here")
def test_a_truncated_shard_is_refused_with_nothing_written(whole: Report, tmp_path: Path) -> None:
    paths = _shards(whole, tmp_path)
    data = paths[1].read_bytes()
    paths[1].write_bytes(data[: len(data) // 2])
    output = tmp_path / "merged.json"
    with pytest.raises(InvalidInputError, match=r"shard-2\.json:\d+:\d+: not a JSON report"):
        merge_shard_reports(paths, output)
    assert not output.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["shard-1.json", "shard-2.json"]


@pytest.fixture
def accelerated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(accelerators.VARIABLE, "1")
    accelerators.refresh()
    yield
    accelerators.refresh()


@pytest.mark.usefixtures("accelerated")
def test_cases_written_without_pydantic_are_those_it_writes(
    streamable: Report, tmp_path: Path
) -> None:
    """Accelerated, a merge makes each case's merged bytes and record from its plain JSON
    (``report.mergecase``): the very bytes of pydantic's path, on every optional field,
    failed attempts, unicode, large integers, 1e-7 and -0.0."""
    paths = _shards(streamable, tmp_path, reverse=True)
    made: list[Any] = []
    real = mergecase.full_case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mergestream, "full_case", lambda plain: made.append(real(plain)) or made[-1])
        with contextlib.ExitStack() as opened:
            shards = [opened.enter_context(streamed_report(path)) for path in paths]
            written = b"".join(MergedStream(shards).chunks())
    assert len(made) == 30  # every case took the path without pydantic
    assert None not in made
    expected = merge_reports([ShardReport(str(path), read_report(path)) for path in paths])
    assert written == report_bytes(expected)
    case_json = adapter(CaseRecord)
    for plain, record in made:
        validated_case = case_json.validate_python({**plain, "position": record.position})
        assert record == validated_case
        assert {**plain, "position": record.position} == case_json.dump_python(
            validated_case, mode="json"
        )


def _made_by_helpers(
    paths: list[Path], opened: contextlib.ExitStack
) -> tuple[bytes, list[StreamedReport], list[list[bytes]]]:
    """The bytes merging the shards at ``paths`` read whole gives; the shards streamed
    unverified (open until ``opened`` closes); and what ``make_cases`` hands for each, as a
    helper would (verifying it)."""
    expected = report_bytes(
        merge_reports([ShardReport(str(path), read_report(path)) for path in paths])
    )
    shards = [opened.enter_context(streamed_report(path, verify=False)) for path in paths]
    whole: list[list[bytes]] = [[] for _ in shards]
    forget_verified()  # read whole above
    for shard, made in zip(shards, whole, strict=True):
        mergestream.make_cases(shard, made.append)
    return expected, shards, whole


@pytest.mark.usefixtures("accelerated")
@pytest.mark.parametrize("stopped", [False, True], ids=["handed-all", "stopped"])
@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "out-of-order"])
def test_cases_made_elsewhere_are_joined_into_the_same_bytes(
    streamable: Report, tmp_path: Path, reverse: bool, stopped: bool
) -> None:
    """Each shard's cases as a helper makes them as it verifies them (``make_cases``,
    handed over in order: ``report.background``), then its tally of them, give the very
    bytes this process makes, and the same figures; what a helper did not make (it stopped:
    its tally made here; a case left to pydantic's path, handed over empty) and a suite
    whose shards are out of order are made here."""
    paths = _shards(streamable, tmp_path, reverse=reverse)
    with contextlib.ExitStack() as opened:
        expected, shards, whole = _made_by_helpers(paths, opened)
        assert all(is_verified(shard.digest) for shard in shards)  # see test_verified.py
        assert [len(made) for made in whole] == [21, 11]  # the cases, then their tally
        assert all(whole[0])
        whole[0][3] = b""  # left to this process
        given = [iter(whole[0][:12] if stopped else whole[0]), iter(whole[1])]
        assert b"".join(MergedStream(shards, given).chunks()) == expected
        # Each taken, or let go of where out of order.
        assert [next(made, None) for made in given] == [None, None]


_PLAIN_CASE: dict[str, Any] = {
    "id": "c",
    "expectations": [{"name": "e", "path": "/a", "expected": [1]}],
    "attempts": [{"attempt": 1, "status": "completed", "latency_ms": 0.5,
                  "checks": [{"outcome": "passed"}]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("attempts", 0, "latency_ms"), 3),  # pydantic writes 3.0
        (("attempts", 0, "attempt"), 1.0),  # pydantic writes 1
        (("attempts", 0, "attempt"), "1"),
        (("attempts", 0, "cached"), 1),  # pydantic writes true
        (("attempts", 0, "checks", 0, "adjudication"), 0),
        (("attempts", 0, "checks", 0, "unknown"), None),  # refused by pydantic
        (("line",), True),
        (("expectations", 0, "name"), 5),
        (("id",), None),
    ],
    ids=["int-for-float", "float-for-int", "text-for-int", "int-for-bool", "int-for-bool-in-check",
         "unknown-key", "bool-for-int", "int-for-text", "null-for-text"],
)  # fmt: skip
def test_a_value_pydantic_would_convert_takes_its_path(
    where: tuple[str | int, ...], value: Any
) -> None:
    case = json.loads(json.dumps(_PLAIN_CASE))
    assert mergecase.full_case(case) is not None
    place: Any = case
    for step in where[:-1]:
        place = place[step]
    place[where[-1]] = value
    assert mergecase.full_case(case) is None
    missing = json.loads(json.dumps(_PLAIN_CASE))
    del missing["attempts"][0]["status"]
    assert mergecase.full_case(missing) is None


def test_cases_past_64_bits_are_made_as_pydantic_makes_them(whole: Report, tmp_path: Path) -> None:
    """Each case of a shard as its file holds it (integers past 64 bits, every optional
    field) made by ``report.mergecase`` as pydantic validates and writes it."""
    case_json = adapter(CaseRecord)
    for path in _shards(whole, tmp_path):
        for plain in json.loads(path.read_bytes())["suites"][0]["cases"]:
            made = mergecase.full_case(plain)
            assert made is not None
            full, record = made
            assert record == case_json.validate_python(plain)
            assert full == case_json.dump_python(record, mode="json")


def test_records_kept_to_be_shared_stay_few_and_small() -> None:
    """``report.mergecase`` shares alike checks and expectations between cases, keeping
    at most 1,024 of each, none holding more than 256 characters of text: what a merge
    keeps does not grow with its shards."""
    [kept] = [
        nested.shared
        for nested in mergecase._spec(CaseRecord).nested
        if nested.name == "expectations"
    ]
    assert kept is not None
    kept.clear()
    for number in range(3_000):
        case = json.loads(json.dumps(_PLAIN_CASE))
        case["expectations"][0] = {"name": f"e{number}", "path": "/a", "expected": "x" * number}
        assert mergecase.full_case(case) is not None
        assert len(kept) <= 1_024
    assert max(len(value["expected"]) for value in kept.values()) <= 256


def test_alike_records_are_made_once() -> None:
    """Alike checks and expectations of different cases are one record, made once (issue
    43: a helper makes every case's record for the suite's figures), and what is kept for it
    stays bounded with the records kept to be shared."""
    cases = [json.loads(json.dumps(_PLAIN_CASE)) for _ in range(2)]
    for case in cases:
        case["expectations"][0]["expected"] = "x"  # hashable: shared (an array is not)
    first, second = (mergecase.full_case(case) for case in cases)
    assert first is not None
    assert second is not None
    assert first[1] == second[1]
    assert first[1].attempts[0].checks[0] is second[1].attempts[0].checks[0]
    assert first[1].expectations[0] is second[1].expectations[0]
    assert first[1].attempts[0] is not second[1].attempts[0]  # not shared: made each time
    [nested] = [n for n in mergecase._spec(CaseRecord).nested if n.name == "expectations"]
    assert nested.records is not None
    for number in range(3_000):
        case = json.loads(json.dumps(_PLAIN_CASE))
        case["expectations"][0] = {"name": f"e{number}", "path": "/a", "expected": "x"}
        assert mergecase.full_case(case) is not None
        assert len(nested.records) <= 1_024


@pytest.mark.parametrize("expected", [{"a": [1, {"b": None}]}, [1, 2.5], "x"])
def test_an_expectation_of_any_value_is_made_as_pydantic_makes_it(expected: Any) -> None:
    """An expectation whose expected value is an object or an array (unhashable: never
    shared) is made as pydantic validates and writes it, as a text one is."""
    case = json.loads(json.dumps(_PLAIN_CASE))
    case["expectations"] = [{"name": "e", "path": "/a", "expected": expected}] * 2
    made = mergecase.full_case(case)
    assert made is not None
    full, record = made
    case_json = adapter(CaseRecord)
    assert record == case_json.validate_python(case)
    assert full == case_json.dump_python(record, mode="json")


@pytest.mark.usefixtures("accelerated")
@pytest.mark.parametrize("helpers", [2, 1], ids=["two-helpers", "one-helper"])
def test_several_suites_made_elsewhere_are_joined_into_the_same_bytes(
    streamable: Report, tmp_path: Path, helpers: int
) -> None:
    """A tally handed after each suite's cases, a shard's of a suite it holds no case of
    among them; where one shard had no helper, its cases are made and tallied here."""
    paths = _shards(streamable, tmp_path, second=True)
    with contextlib.ExitStack() as opened:
        expected, shards, whole = _made_by_helpers(paths, opened)
        assert [len(made) for made in whole] == [20 + 1 + 30 + 1, 10 + 1 + 1]
        given = [iter(made) for made in whole[:helpers]] + [None] * (2 - helpers)
        assert b"".join(MergedStream(shards, given).chunks()) == expected
        assert [next(made, None) for made in given if made is not None] == [None] * helpers


def test_the_merged_text_is_handed_on_in_batches_a_large_case_not_copied() -> None:
    """The merged report's text is handed on joined (``_Pieces``), not two pieces a case;
    where a case's bytes alone pass the batch they are handed on as they are, not copied
    once more (a merge holds a large case once)."""
    small = mergestream._Pieces()
    for _ in range(3):
        small.append(b",")
        small.append(b"{}")
    assert small.size == 9
    assert small.taken() == [b",{},{},{}"]
    assert (small.held, small.size) == ([], 0)
    large = mergestream._Pieces()
    case = b"x" * (2 * mergestream._BATCH)
    large.append(b",")
    large.append(case)
    taken = large.taken()
    assert taken == [b",", case]
    assert taken[1] is case
