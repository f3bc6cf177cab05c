"""Case files streamed: checked case by case as they are read, kept as places in the file,
read back when the run asks. What loads must equal what the whole-file path loads, and
anything the stream cannot take must reach the whole-file path, which words the problem."""

from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldgate.base.errors import InvalidInputError
from goldgate.base.jsonvalue import canonical_bytes, canonical_json
from goldgate.base.strictjson import parse_json_text
from goldgate.gold._stream import casefile
from goldgate.gold._stream.casefile import ElementReader
from goldgate.gold._stream.caseids import CaseIds
from goldgate.gold._stream.store import LazyCases, LazyCompiled
from goldgate.gold.errors import GoldChangedError, GoldCheckError, NotStreamable
from goldgate.gold.load import check_gold, load_gold
from goldgate.gold.settings.load import load_settings
from goldgate.gold.suites import GoldSuite, suite_fingerprint
from helpers.strategies import json_values


def _stream(data: bytes, chunk: int, monkeypatch: pytest.MonkeyPatch) -> list[casefile.Element]:
    """Every element of the JSON array ``data``, read ``chunk`` bytes at a time."""
    monkeypatch.setattr(casefile, "_CHUNK", chunk)
    reader = ElementReader(io.BytesIO(data))
    return list(iter(reader.next, None))


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(json_values, min_size=1, max_size=6),
    indent=st.none() | st.integers(0, 2),
    chunk=st.sampled_from([1, 2, 7, 64, 1 << 20]),
)
def test_elements_are_the_array_and_say_where_their_bytes_are(
    values: list[Any], indent: int | None, chunk: int
) -> None:
    text = json.dumps(values, indent=indent, ensure_ascii=False)
    data = text.encode()
    document = parse_json_text("cases.json", text)
    with pytest.MonkeyPatch.context() as patch:
        found = _stream(data, chunk, patch)

    assert [element.value for element in found] == document.value
    for index, element in enumerate(found):
        piece = data[element.offset : element.offset + element.length]
        assert json.loads(piece) == document.value[index]  # type: ignore[index]
        assert element.checksum == zlib.crc32(piece)
        assert element.line == document.position((index,))[0]
        assert element.has_floats == _holds_float(element.value)


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_canonical_bytes_are_canonical_json_whatever_the_path(value: Any) -> None:
    expected = canonical_json(value).encode()
    assert canonical_bytes(value) == expected
    if not _holds_float(value):
        assert canonical_bytes(value, has_floats=False) == expected


def _holds_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_holds_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_float(item) for item in value)
    return False


def test_every_code_point_is_spelled_the_same_by_both_paths() -> None:
    points = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    value = {points[:70000]: points[70000:], "é": [1, None, True], "a": {"\x7f": "\u2028"}}
    assert canonical_bytes(value, has_floats=False) == canonical_json(value).encode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b"[]",
        b"{}",
        b"[1,]",
        b"[1] x",
        b"[1",
        b"[1 2]",
        b"\xef\xbb\xbf[1]",
        b'[{"a":1,"a":2}]',
        b"[NaN]",
        b"[1e999]",
        b'["\\ud800"]',
        b'["\xff"]',
        b'["\xc3"]',
        b"[" + b"[" * 600 + b"]" * 600 + b"]",
    ],
)
@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_what_the_stream_cannot_take_goes_to_the_whole_file_path(
    data: bytes, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(NotStreamable):
        _stream(data, chunk, monkeypatch)


def test_a_multibyte_character_split_across_chunks_is_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = '[ "é😀", {"k": "ü"} ]'.encode()
    for chunk in range(1, len(data) + 1):
        found = _stream(data, chunk, monkeypatch)
        assert [element.value for element in found] == ["é😀", {"k": "ü"}]
        assert data[found[1].offset : found[1].offset + found[1].length] == '{"k": "ü"}'.encode()


def _big_project(gold_project: Any, count: int) -> Any:
    """The gold project with ``count`` more cases in its case file: text patterns, floats,
    non-ASCII, metrics' labels."""
    base = gold_project.cases[0]
    for index in range(count):
        case = json.loads(json.dumps(base))
        case["id"] = f"extra-{index}-é"
        case["note"] = f"weight {index / 7}"
        gold_project.cases.append(case)
    return gold_project.write()


def _whole_file_suite(project: Any, name: str) -> GoldSuite:
    """The suite as the whole-file path loads it (the stream refused at once)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("goldgate.gold.load.stream_suite", lambda *args, **kwargs: None)
        dataset = load_gold(load_settings(project.root / project.SETTINGS))
    return dataset.suite(name)


def same_gold(mine: GoldSuite, theirs: GoldSuite) -> None:
    """Two loads of one suite hold the same gold: cases, lines, fingerprint, scorers, and
    expectations compiled alike (patterns included)."""
    assert mine.fingerprint == theirs.fingerprint
    assert list(mine.cases) == list(theirs.cases)
    assert list(mine.lines) == list(theirs.lines)
    assert mine.scorer_names() == theirs.scorer_names()
    for left, right in zip(mine.compiled, theirs.compiled, strict=True):
        assert [(e.name, e.path, e.comparison, e.expected, e.tokens) for e in left] == [
            (e.name, e.path, e.comparison, e.expected, e.tokens) for e in right
        ]
        for a, b in zip(left, right, strict=True):
            assert (a.text is None) == (b.text is None)
            ours = a.text.assertions if a.text else ()
            others = b.text.assertions if b.text else ()
            assert [(x.key, x.operand, x.pattern and x.pattern.pattern) for x in ours] == [
                (x.key, x.operand, x.pattern and x.pattern.pattern) for x in others
            ]


def test_a_streamed_suite_equals_the_whole_file_suite(gold_project: Any) -> None:
    project = _big_project(gold_project, 40)
    streamed = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    whole = _whole_file_suite(project, "filed")

    assert isinstance(streamed.cases, LazyCases)
    assert isinstance(streamed.compiled, LazyCompiled)
    assert isinstance(whole.cases, tuple)
    same_gold(streamed, whole)
    assert [c.id for c in streamed.cases[::-1]] == [c.id for c in whole.cases[::-1]]
    assert streamed.cases_source == whole.cases_source
    for count in (2, 3):
        for index in range(1, count + 1):
            left, right = streamed.shard(index, count), whole.shard(index, count)
            assert [c.id for c in left.cases] == [c.id for c in right.cases]
            assert left.positions == right.positions
            assert list(left.lines) == list(right.lines)
            assert left.whole_case_count == right.whole_case_count


def test_the_streamed_fingerprint_is_the_whole_content_fingerprint(gold_project: Any) -> None:
    project = _big_project(gold_project, 5)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    raw = json.loads((project.root / project.CASE_FILE).read_text())
    manifest = json.loads((project.root / project.DATASET).read_text())
    from goldgate.gold.models import Suite

    definition = next(s for s in manifest["suites"] if s["name"] == "filed")
    assert suite.fingerprint == suite_fingerprint(Suite.model_validate(definition), raw)


def test_bad_gold_in_a_case_file_is_worded_by_the_whole_file_path(gold_project: Any) -> None:
    gold_project.cases[1]["expectations"][0]["name"] = ""
    gold_project.cases.append(json.loads(json.dumps(gold_project.cases[0])))  # duplicate id
    project = gold_project.write()
    result = check_gold(load_settings(project.root / project.SETTINGS))

    assert result.dataset is None
    messages = [violation.render() for violation in result.violations]
    assert any("duplicate case id" in message for message in messages), messages
    assert any("filed.json:" in message and "name" in message for message in messages)


def test_a_case_file_rewritten_during_the_run_ends_it_plainly(gold_project: Any) -> None:
    project = _big_project(gold_project, 3)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    path: Path = project.root / project.CASE_FILE
    data = path.read_bytes()
    with path.open("r+b") as handle:  # in place: the same file, other bytes
        handle.write(data.replace(b"extra-2", b"extra-X"))

    assert suite.cases[0].id == gold_project.cases[0]["id"]  # the case is cached or unchanged
    with pytest.raises(GoldChangedError, match=r"filed\.json:\d+: the case file changed"):
        list(suite.cases)


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths asked of each ``os.pread`` by the case store, from now on."""
    from goldgate.gold._stream import store

    lengths: list[int] = []
    real = store.os.pread

    def pread(fd: int, length: int, offset: int) -> bytes:
        lengths.append(length)
        return real(fd, length, offset)

    monkeypatch.setattr(store.os, "pread", pread)
    return lengths


@pytest.fixture
def read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """No case is kept from the check (``KEPT_BYTES``): every case is read back."""
    from goldgate.gold._stream import store

    monkeypatch.setattr(store, "KEPT_BYTES", 0)


@pytest.mark.slow
def test_the_first_cases_checked_are_kept_and_read_no_more(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cases up to ``KEPT_BYTES`` of the file are kept as checked: the run reads nothing for
    them, even after the file changed, and gets what reading them back would give; the
    cases past them are read back (and a change is noticed there)."""
    from goldgate.gold._stream import store

    project = _big_project(gold_project, 300)
    path: Path = project.root / project.CASE_FILE
    size = path.stat().st_size
    monkeypatch.setattr(store, "KEPT_BYTES", size // 2)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    whole = _whole_file_suite(project, "filed")
    data = path.read_bytes()
    with path.open("r+b") as handle:  # in place: every case changes
        handle.write(data.replace(b'"extra-', b'"EXTRA-'))
    reads = _counted_reads(monkeypatch)

    kept: list[Any] = []
    refused: GoldChangedError | None = None
    for index in range(len(suite.cases)):
        try:
            kept.append(suite.attempt_gold(index))
        except GoldChangedError as error:
            refused = error
            break
    assert re.search(r"filed\.json:\d+: the case file changed", str(refused))
    assert len(reads) == 1  # only the first case past the kept ones was read: refused
    assert 100 < len(kept) < 200  # about half the file's bytes
    assert [case.id for case, _ in kept] == [case.id for case in whole.cases[: len(kept)]]
    assert [compiled for _, compiled in kept] == list(whole.compiled[: len(kept)])
    assert suite.attempt_gold(3) is kept[3]  # its attempts, and the report, read the same


@pytest.mark.slow
@pytest.mark.usefixtures("read_back")
def test_cases_read_in_order_share_one_read_ahead(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.gold._stream.store import READ_AHEAD

    project = _big_project(gold_project, 300)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(suite.cases, LazyCases)
    whole = _whole_file_suite(project, "filed")
    reads = _counted_reads(monkeypatch)

    gold = [suite.attempt_gold(index) for index in range(len(suite.cases))]

    size = (project.root / project.CASE_FILE).stat().st_size
    assert size > 2 * READ_AHEAD  # several windows, each read once
    assert reads[0] < 4096
    assert all(length == READ_AHEAD for length in reads[1:])
    assert len(reads) <= 2 + size // (READ_AHEAD - 4096)
    assert [case.id for case, _ in gold] == [case.id for case in whole.cases]
    assert [compiled for _, compiled in gold] == list(whole.compiled)


@pytest.mark.slow
def test_a_case_read_out_of_order_reads_only_itself(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _big_project(gold_project, 300)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    whole = _whole_file_suite(project, "filed")
    reads = _counted_reads(monkeypatch)

    for index in (250, 3, 120, 77):
        assert suite.cases[index] == whole.cases[index]

    assert len(reads) == 4
    assert max(reads) < 4096


@pytest.mark.slow
@pytest.mark.usefixtures("read_back")
def test_a_case_rewritten_after_its_read_ahead_is_refused_past_it(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cases served from a read ahead are the bytes that were checked (their checksums
    match); the first case read from the file after it changed is refused."""
    project = _big_project(gold_project, 300)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    reads = _counted_reads(monkeypatch)
    suite.attempt_gold(0)
    suite.attempt_gold(1)  # follows on: reads ahead
    assert len(reads) == 2
    path: Path = project.root / project.CASE_FILE
    data = path.read_bytes()
    with path.open("r+b") as handle:  # in place: every later case changes
        handle.write(data.replace(b'"extra-', b'"EXTRA-'))

    served = 2
    refused: GoldChangedError | None = None
    while refused is None:
        try:
            case, _ = suite.attempt_gold(served)
        except GoldChangedError as error:
            refused = error
            continue
        assert len(reads) == 2  # from the window read before the change
        assert case.id == gold_project.cases[served]["id"]
        served += 1
    assert re.search(r"filed\.json:\d+: the case file changed", str(refused))
    assert len(reads) == 3  # the first case past the window was read again: refused
    assert served > 10  # many cases came from the one read


def test_a_case_file_replaced_during_the_run_is_read_as_it_was_checked(
    gold_project: Any,
) -> None:
    project = _big_project(gold_project, 3)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    path: Path = project.root / project.CASE_FILE
    before = [case["id"] for case in json.loads(path.read_text())]
    replacement = path.with_suffix(".new")
    replacement.write_text("[]")
    replacement.replace(path)  # what an editor's save or a checkout does

    assert [case.id for case in suite.cases] == before


def test_whole_file_errors_still_name_their_place(gold_project: Any) -> None:
    project = gold_project.write()
    path: Path = project.root / project.CASE_FILE
    path.write_text(path.read_text().replace('"id"', '"id": 1, "id"', 1))
    with pytest.raises(GoldCheckError, match=r"filed\.json:\d+:\d+: "):
        load_gold(load_settings(project.root / project.SETTINGS))


def test_a_case_as_recorded_says_what_the_validated_case_says(gold_project: Any) -> None:
    gold_project.cases[0]["family"] = "refunds"
    gold_project.cases[0]["split"] = "holdout"
    project = _big_project(gold_project, 4)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(suite.cases, LazyCases)

    for index in range(len(suite.cases)):
        recorded = suite.cases.recorded(index)
        case = suite.cases[index]
        assert (recorded.id, recorded.family, recorded.split) == (case.id, case.family, case.split)
        assert recorded.input.as_json() == case.input.as_json()
        assert [
            (e.name, e.path, e.comparison, e.scorer, e.expected) for e in recorded.expectations
        ] == [(e.name, e.path, e.comparison, e.scorer, e.expected) for e in case.expectations]
    fresh = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(fresh.cases, LazyCases)
    assert type(fresh.cases.recorded(1)).__name__ == "RecordedCase"  # not validated again
    assert fresh.cases.recorded(0).family == "refunds"


@pytest.mark.parametrize("details", [True, False])
def test_a_recorded_case_is_written_as_the_case_itself_would_be(
    gold_project: Any, details: bool
) -> None:
    from goldgate.report.build import case_json

    gold_project.cases[0]["family"] = "refunds"
    project = _big_project(gold_project, 2)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    fresh = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(fresh.cases, LazyCases)
    for index in range(len(suite.cases)):
        case, recorded = suite.cases[index], fresh.cases.recorded(index)
        assert type(recorded).__name__ == "RecordedCase"
        assert case_json(fresh, index, recorded, [], details, recorded.expectations) == (
            case_json(suite, index, case, [], details, case.expectations)
        )


def _many_case_files(gold_project: Any, count: int) -> Any:
    project = gold_project.write()
    manifest = json.loads((project.root / project.DATASET).read_text())
    filed = next(s for s in manifest["suites"] if s["name"] == "filed")
    for index in range(count):
        name = f"cases/more-{index}.json"
        (project.root / "evaluation" / name).write_text(json.dumps(gold_project.cases))
        manifest["suites"].append({**filed, "name": f"more-{index}", "cases": name})
    (project.root / project.DATASET).write_text(json.dumps(manifest))
    return project


def test_only_so_many_case_files_are_held_open(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.gold._stream.store import OPEN_FILES

    monkeypatch.setattr(OPEN_FILES, "limit", 3)
    project = _many_case_files(gold_project, 7)
    dataset = load_gold(load_settings(project.root / project.SETTINGS))
    streamed = [s for s in dataset.suites if isinstance(s.cases, LazyCases)]
    assert len(streamed) == 8
    for suite in streamed:  # each read reopens a file closed to make room
        assert [c.id for c in suite.cases] == [c["id"] for c in gold_project.cases]
        assert len(OPEN_FILES._open) <= 3


def test_a_case_file_replaced_after_it_was_closed_is_refused(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.gold._stream.store import OPEN_FILES

    monkeypatch.setattr(OPEN_FILES, "limit", 1)
    project = _many_case_files(gold_project, 2)
    dataset = load_gold(load_settings(project.root / project.SETTINGS))
    first = dataset.suite("filed")  # its file was closed to make room for the later ones
    path: Path = project.root / project.CASE_FILE
    replacement = path.with_suffix(".new")
    replacement.write_bytes(path.read_bytes())  # the same bytes, another file
    replacement.replace(path)
    with pytest.raises(GoldChangedError, match=r"filed\.json: the case file was replaced"):
        first.cases[0]


def test_a_dataset_let_go_closes_its_case_files(gold_project: Any) -> None:
    import gc

    from goldgate.gold._stream.store import OPEN_FILES

    before = set(OPEN_FILES._open)
    project = _many_case_files(gold_project, 3)
    dataset = load_gold(load_settings(project.root / project.SETTINGS))
    assert len(set(OPEN_FILES._open) - before) == 4
    del dataset
    gc.collect()
    assert set(OPEN_FILES._open) - before == set()


def test_escaped_pairs_stream_and_lone_surrogates_are_placed(gold_project: Any) -> None:
    gold_project.cases[0]["note"] = "\U0001f600 and \u00e9"
    project = gold_project.write()
    path: Path = project.root / project.CASE_FILE
    path.write_text(json.dumps(gold_project.cases))  # ensure_ascii: "\ud83d\ude00"
    assert "\\ud83d\\ude00" in path.read_text()
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(suite.cases, LazyCases)
    assert suite.cases[0].note == "\U0001f600 and \u00e9"

    path.write_text(path.read_text().replace("\\ude00", "x", 1))  # now a lone high surrogate
    with pytest.raises(GoldCheckError, match=r"filed\.json:1:\d+: string holds a lone UTF-16"):
        load_gold(load_settings(project.root / project.SETTINGS))


def test_long_runs_of_whitespace_are_skipped_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n" * 3 + "[" + " \n" * 5000 + '{"a": 1},' + "\r\n\t " * 4000 + '"é"' + "\n" * 999 + "]"
    document = parse_json_text("cases.json", text)
    seen: list[int] = []
    original = casefile._Text.more

    def more(self: Any) -> None:
        seen.append(len(self.buffer) - self.mark)  # what is kept across a read
        original(self)

    monkeypatch.setattr(casefile._Text, "more", more)
    found = _stream(text.encode(), 64, monkeypatch)

    assert [element.value for element in found] == [{"a": 1}, "é"]
    assert [element.line for element in found] == [document.position((i,))[0] for i in (0, 1)]
    data = text.encode()
    assert [data[e.offset : e.offset + e.length] for e in found] == [b'{"a": 1}', '"é"'.encode()]
    assert max(seen) < 64  # never more than a chunk held back


def test_a_read_error_while_streaming_is_worded_by_the_whole_file_path(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = gold_project.write()

    class Broken:
        def __init__(self, handle: Any) -> None:
            raise OSError(5, "Input/output error")

    monkeypatch.setattr("goldgate.gold._stream.streamed.ElementReader", Broken)
    unreadable = InvalidInputError("filed.json: cannot be read (Input/output error).")
    monkeypatch.setattr("goldgate.gold.load.load_json_file", _failing_for("filed.json", unreadable))
    result = check_gold(load_settings(project.root / project.SETTINGS))

    assert result.dataset is None
    assert any("cannot be read (Input/output error)" in v.render() for v in result.violations)


def _failing_for(name: str, error: Exception) -> Any:
    from goldgate.base.strictjson import load_json_file

    def load(path: Path, *, display: str | None = None) -> Any:
        if path.name == name:
            raise error
        return load_json_file(path, display=display)

    return load


@pytest.mark.parametrize(
    "number", [2**64, -(2**63) - 1, 10**40, 2**64 - 1, 2**63, 1234567890123456789]
)
def test_integers_beyond_64_bits_read_back_as_they_were_checked(
    gold_project: Any, number: int
) -> None:
    """orjson reads an integer beyond 64 bits as a float: read back, gold must hold the very
    integer that was checked (exact comparisons, records and fingerprints depend on it)."""
    gold_project.cases[0]["input"]["payload"]["big"] = number
    gold_project.cases[0]["expectations"][0]["expected"] = [number, {"n": -number}]
    project = _big_project(gold_project, 3)
    suite = load_gold(load_settings(project.root / project.SETTINGS)).suite("filed")
    assert isinstance(suite.cases, LazyCases)

    case, compiled = suite.attempt_gold(0)
    assert case.input.payload["big"] == number
    assert type(case.input.payload["big"]) is int
    assert compiled[0].expected == [number, {"n": -number}]
    assert type(compiled[0].expected[0]) is int
    assert suite.cases[0] == _whole_file_suite(project, "filed").cases[0]


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(st.text(st.characters(exclude_categories=())), max_size=40),
    other=st.text(st.characters(exclude_categories=())),
)
def test_case_ids_held_as_bytes_give_back_every_id(ids: list[str], other: str) -> None:
    held = CaseIds()
    for number, case_id in enumerate(ids):
        assert (case_id in held) == (case_id in ids[:number])  # what finds a repeated id
        held.append(case_id)
    for _state in ("indexed", "sealed"):
        assert all(case_id in held for case_id in ids)
        assert (other in held) == (other in ids)
        assert 3 not in held
        held.seal()
    assert len(held) == len(ids)
    assert list(held) == ids
    assert [held[index] for index in range(-len(ids), len(ids))] == ids + ids
    assert held[1:-1:2] == ids[1:-1:2]
    for outside in (len(ids), -len(ids) - 1):
        with pytest.raises(IndexError):
            held[outside]
