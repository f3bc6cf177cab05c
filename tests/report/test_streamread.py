"""A report read as a stream of cases (issue 43, ``report.scan``, ``report.streamread``):
the same records and refusals as a whole read, holding where each case is rather than the
cases; a file the stream cannot take is read whole; a case changed between the two reads
is refused; a case too large for the memory left is one sentence, exit 2."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import GoldgateError, ReportRefusedError
from goldgate.report.io import read_report, read_report_and_digest
from goldgate.report.models import Report
from goldgate.report.scan import scan_report
from goldgate.report.streamread import streamed_report

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A current-format report as goldgate writes it (compact, one line), from the
    migrated fixture (40 cases: metrics, thresholds, text assertions, adjudication)."""
    from goldgate.report.io import write_report

    report = read_report(FIXTURES / "report_v1_generated.json")
    return write_report(report, tmp_path_factory.mktemp("stream") / "report.json")


def _caseless(report: Report) -> Report:
    return replace(report, suites=tuple(replace(suite, cases=()) for suite in report.suites))


def _streamed(path: Path) -> tuple[Report, list[list[Any]], str, bool]:
    with streamed_report(path) as streamed:
        cases = [list(streamed.cases(index)) for index in range(len(streamed.report.suites))]
        return streamed.report, cases, streamed.digest, streamed._handle is not None


@pytest.mark.parametrize("layout", ["as written", "indented"])
def test_a_streamed_report_is_the_report_read_whole(
    written: Path, tmp_path: Path, layout: str
) -> None:
    path = written
    if layout == "indented":  # any whitespace and layout: still read a case at a time
        path = tmp_path / "indented.json"
        path.write_text(json.dumps(json.loads(written.read_bytes()), indent=2))
    whole, digest = read_report_and_digest(path)
    report, cases, streamed_digest, streamed = _streamed(path)
    assert streamed
    assert report == _caseless(whole)
    assert cases == [list(suite.cases) for suite in whole.suites]
    assert streamed_digest == digest
    assert sum(map(len, cases)) == 40


def test_the_scan_holds_where_cases_are_not_the_cases(written: Path) -> None:
    with written.open("rb") as handle:
        scanned = scan_report(handle, str(written))
        assert scanned is not None
        index = scanned.indexes[0]
        assert index is not None
        assert len(index) == 40
        data = written.read_bytes()
        first = data[index.offsets[0] : index.offsets[0] + index.lengths[0]]
        assert json.loads(first) == json.loads(data)["suites"][0]["cases"][0]


def test_an_older_format_is_read_whole_and_migrated() -> None:
    path = FIXTURES / "report_v1_example.json"
    report, cases, _, streamed = _streamed(path)
    assert not streamed
    whole = read_report(path)
    assert report == whole
    assert cases == [list(suite.cases) for suite in whole.suites]


def _refusal(path: Path) -> str:
    with pytest.raises(GoldgateError) as whole:
        read_report(path)
    with pytest.raises(GoldgateError) as streamed, streamed_report(path):
        pass
    assert str(streamed.value) == str(whole.value)
    assert streamed.value.exit_code == whole.value.exit_code == 2
    return str(streamed.value)


def test_a_forged_figure_is_refused_as_a_whole_read_refuses_it(
    written: Path, tmp_path: Path
) -> None:
    value = json.loads(written.read_bytes())
    value["suites"][0]["counts"]["attempts"]["completed"] += 1
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(value, separators=(",", ":")))
    assert "the report was altered or is corrupt" in _refusal(forged)


def test_a_forged_check_is_refused_at_its_case(written: Path, tmp_path: Path) -> None:
    value = json.loads(written.read_bytes())
    case = value["suites"][0]["cases"][3]
    checks = case["attempts"][0]["checks"]
    checks[0]["outcome"] = "failed" if checks[0]["outcome"] == "passed" else "passed"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(value, separators=(",", ":")))
    assert "/suites/0/cases/3/attempts/0/checks" in _refusal(forged)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("line", 0, "greater than or equal to 1"),
        ("checks", [{"outcome": "passed", "extra": 1}], "Extra inputs are not permitted"),
        ("latency_ms", True, None),  # validation takes a bool for a number: read, not refused
    ],
)
def test_a_case_its_record_refuses_is_refused_at_its_case(
    written: Path, tmp_path: Path, field: str, value: Any, words: str | None
) -> None:
    """Plain cases are checked by hand (report/caseshape.py), the rest validated: a case
    the record refuses is refused where it is, as a whole read refuses it."""
    data = json.loads(written.read_bytes())
    case = data["suites"][0]["cases"][5]
    holder = case if field == "line" else case["attempts"][0]
    if field == "checks":
        value = value * len(holder["checks"])
    holder[field] = value
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(data, separators=(",", ":")))
    if words is None:
        assert read_report(damaged).suites[0].cases[5].attempts[0].latency_ms == 1
        with streamed_report(damaged):
            return
    refusal = _refusal(damaged)
    assert "/suites/0/cases/5/" in refusal
    assert words in refusal


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data + b"x", id="trailing data"),
        pytest.param(lambda data: data.replace(b'"id":', b'"id":1,"id":', 1), id="repeated key"),
        pytest.param(lambda data: data.replace(b":0.", b':NaN,"x":0.', 1), id="NaN"),
        pytest.param(lambda data: data[:50] + b"\xff" + data[50:], id="not UTF-8"),
    ],
)
def test_text_the_stream_cannot_take_is_refused_as_a_whole_read_refuses_it(
    written: Path, tmp_path: Path, damage: Any
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_bytes(damage(written.read_bytes()))
    assert str(broken) in _refusal(broken)


def test_a_case_changed_between_the_reads_is_refused(written: Path, tmp_path: Path) -> None:
    path = tmp_path / "changing.json"
    data = written.read_bytes()
    path.write_bytes(data)
    with streamed_report(path) as streamed:
        index = streamed._indexes[0]
        assert index is not None
        at = index.offsets[5] + 2  # inside case 5: a byte of its first key
        changed = bytearray(data)
        changed[at] = ord("X") if changed[at] != ord("X") else ord("Y")
        path.write_bytes(bytes(changed))
        assert [streamed.case(0, place).id for place in range(5)]  # cases before it read
        with pytest.raises(ReportRefusedError, match="changed while it was read"):
            list(streamed.cases(0))


def test_a_case_too_large_for_the_memory_left_is_one_sentence(
    written: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.report import readbound

    monkeypatch.setattr(readbound._LEDGER, "left", lambda: 10 * readbound.MEGABYTE)
    with pytest.raises(ReportRefusedError) as refused, streamed_report(written):
        pass
    message = str(refused.value)
    assert message.startswith(f"{written}: a case of ")
    assert "too large to read in the memory this process may use" in message
    assert len(message.splitlines()) == 1


def test_cases_across_chunks_are_read_whole(tmp_path: Path) -> None:
    """A case larger than the scanner's chunk, a number split by a chunk's end and text past
    ASCII: each case's bytes found, and read again, exactly."""
    from goldgate.report.scan import _CHUNK, LazyCases

    head = '{"format":"goldgate.report/2","suites":[{"name":"s","cases":[{"pad":"'
    number = 1234567890123456789
    pad = "p" * (_CHUNK - len(head) - len('"},{"n":') - 3)  # the number straddles the chunk
    cases: list[Any] = [{"pad": pad}, {"n": number}, {"big": "é" * _CHUNK}, {"u": "ü\u2028"}]
    text = head + pad + '"},' + ",\n ".join(json.dumps(c, ensure_ascii=False) for c in cases[1:])
    path = tmp_path / "chunks.json"
    path.write_text(text + ' ]}],"complete":true}\n', "utf-8")
    with path.open("rb") as handle:
        scanned = scan_report(handle, str(path))
        assert scanned is not None
        lazy = scanned.value["suites"][0]["cases"]
        assert isinstance(lazy, LazyCases)
        assert list(lazy) == cases
        assert scanned.value["complete"] is True
        assert scanned.largest_case == len(json.dumps(cases[2], ensure_ascii=False).encode())


class _Counted:
    """The scanner's standard-library decoder, counting the values it decodes."""

    def __init__(self, decoder: Any) -> None:
        self.decoder, self.calls = decoder, 0

    def raw_decode(self, text: str, at: int) -> Any:
        self.calls += 1
        return self.decoder.raw_decode(text, at)


@pytest.mark.parametrize("limited", [False, True], ids=["no memory limit", "a memory limit"])
def test_cases_as_written_are_parsed_as_the_standard_library_parses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limited: bool
) -> None:
    """A case written as goldgate writes it (compact, the next case after ``},{"id":``) is
    parsed by orjson, the values the standard library's decoder gives: not where the text
    between them is not the case's end (an object of its own starting with ``id``) more
    than ``scan._TRIES`` times, holds a
    run of 19 digits (maybe an integer orjson reads as a float) and is not what orjson
    writes of it (``1e-07``, which orjson writes ``1e-7``), or a memory limit applies; a
    repeated key is still the whole read's to refuse."""
    from goldgate.report import scan

    counted = _Counted(scan._DECODER)
    monkeypatch.setattr(scan, "_DECODER", counted)
    if limited:
        monkeypatch.setattr(scan, "memory_left", lambda: 1 << 40)
    cases: list[Any] = [
        {"id": "a", "input": [{"id": n} for n in range(5)]},  # not its end, 4 times: decoded
        {"id": "a2", "input": [{"id": 1}, {"id": 2}]},  # not its end, once: orjson's
        {"id": "b", "n": 1234567890123456789, "m": -0.0, "e": 1e-7},  # 19 digits: decoded
        {"id": "b2", "n": 1234567890123456789, "m": -0.0},  # as orjson writes it: orjson's
        {"id": "c", "f": 1.5e300, "g": 1e-5, "s": "é\u2028\\", "t": [True, None, {}]},
        {"id": "d", "x": 0.1, "y": [1, [2, [3]]]},
        {"id": "e"},  # the last: decoded
    ]
    head = '{"format":"goldgate.report/2","suites":[{"name":"s","cases":'
    body = json.dumps(cases, ensure_ascii=False, separators=(",", ":"))
    path = tmp_path / "compact.json"
    path.write_text(head + body + '}],"complete":true}', "utf-8")
    met: list[Any] = []
    with path.open("rb") as handle:
        scanned = scan_report(handle, str(path), lambda suite, place, raw: met.append(raw))
        assert scanned is not None
        assert met == cases
        assert [type(value) for case in met for value in case.values()] == [
            type(value) for case in cases for value in case.values()
        ]
        assert list(scanned.value["suites"][0]["cases"]) == cases
    keys_and_values = 8  # of the report and its suite: format, suites, name, cases, complete
    assert counted.calls == keys_and_values + (len(cases) if limited else 3)
    repeated = tmp_path / "repeated.json"
    repeated.write_text(head + body.replace('"x":', '"x":1,"x":') + "}]}", "utf-8")
    with repeated.open("rb") as handle:
        assert scan_report(handle, str(repeated)) is None
