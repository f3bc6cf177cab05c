"""``report.scan`` over a report's bytes (issue 43): each case found where goldgate writes
the next one (``},{"id":``) and parsed from the bytes, at its byte offset; text that is
hostile to that (the pattern where it is not a case's end, a repeated key, a lone
surrogate, invalid UTF-8, a truncated file, a long integer, another layout, text past ASCII
before the cases) scanned as the whole read takes it, or left to the whole read (None)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from goldgate.report.scan import _AHEAD, _CHUNK, scan_report

_HEAD = b'{"format":"goldgate.report/2","suites":[{"name":"s","cases":['
_TAIL = b']}],"complete":true}\n'


def _report(*cases: bytes, between: bytes = b",", head: bytes = _HEAD) -> bytes:
    return head + between.join(cases) + _TAIL


def _scanned(tmp_path: Path, data: bytes) -> tuple[list[Any], list[bytes]] | None:
    """The cases the scan handed its hook and each case's bytes where its index says they
    are, both checked against the cases read again; None where it left the file to the
    whole read."""
    path = tmp_path / "report.json"
    path.write_bytes(data)
    met: list[Any] = []
    with path.open("rb") as handle:
        scanned = scan_report(handle, str(path), lambda suite, place, case: met.append(case))
        if scanned is None:
            return None
        assert scanned.digest == "sha256:" + hashlib.sha256(data).hexdigest()
        index = scanned.indexes[0]
        assert index is not None
        pieces = [
            data[at : at + size] for at, size in zip(index.offsets, index.lengths, strict=True)
        ]
        assert list(scanned.value["suites"][0]["cases"]) == met
    assert [json.loads(piece) for piece in pieces] == met
    return met, pieces


def _written(case: Any) -> bytes:
    return json.dumps(case, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "cases",
    [
        pytest.param([{"id": "a", "s": '},{"id":'}, {"id": "b"}], id="the pattern in a string"),
        pytest.param(
            [{"id": "a", "in": [{"id": 1}, {"id": 2}]}, {"id": "b"}],
            id="the pattern between objects of a case",
        ),
        pytest.param(
            [{"id": "a", "in": [{"id": n} for n in range(9)]}, {"id": "b"}, {"id": "c"}],
            id="the pattern between objects of a case, again and again",
        ),
        pytest.param(
            [{"id": "a", "n": 1234567890123456789, "m": -9223372036854775808}, {"id": "b"}],
            id="19 digits within 64 bits",
        ),
        pytest.param(
            [{"id": "a", "s": "12345678901234567890123"}, {"id": "b"}], id="23 digits in a string"
        ),
        pytest.param(
            [{"id": "a", "e": "\U0001f600 é \u2028", "k": "\\u0041"}, {"id": "b"}],
            id="an escaped pair and text past ASCII",
        ),
        pytest.param([{"id": "a", "f": 1e-7, "g": 1e16, "z": -0.0}, {"id": "b"}], id="floats"),
    ],
)
def test_cases_are_found_in_the_bytes_and_parsed_as_written(
    tmp_path: Path, cases: list[Any]
) -> None:
    written = [_written(case) for case in cases]
    scanned = _scanned(tmp_path, _report(*written))
    assert scanned == (cases, written)
    for case, value in zip(cases, scanned[0], strict=True):
        assert [type(item) for item in value.values()] == [type(item) for item in case.values()]


def test_an_escaped_surrogate_pair_is_one_character(tmp_path: Path) -> None:
    written = [b'{"id":"a","e":"\\ud83d\\ude00"}', b'{"id":"b"}']
    assert _scanned(tmp_path, _report(*written)) == (
        [{"id": "a", "e": "\U0001f600"}, {"id": "b"}],
        written,
    )


@pytest.mark.parametrize(
    "between",
    [b", ", b",\n  ", b" ,", b"\n,\n", b"\t,\r\n"],
    ids=["space", "newline", "space before", "newlines", "tab and CRLF"],
)
def test_cases_in_another_layout_are_found_at_their_bytes(tmp_path: Path, between: bytes) -> None:
    cases = [{"id": f"c{place}", "text": "é" * place} for place in range(4)]
    written = [_written(case) for case in cases]
    assert _scanned(tmp_path, _report(*written, between=between)) == (cases, written)


def test_offsets_are_bytes_after_text_past_ascii(tmp_path: Path) -> None:
    """Text of several bytes a character before the cases (the report's, the suite's) and
    in them: each case's offset and length count bytes."""
    head = _HEAD.replace(b'"name":"s"', '"name":"sü\U0001f600\u2028","x":"日本"'.encode())
    cases = [{"id": "é" * place, "n": place} for place in range(5)]
    written = [_written(case) for case in cases]
    assert _scanned(tmp_path, _report(*written, head=head)) == (cases, written)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(b'{"id":"a","k":1,"k":2}', id="a repeated key"),
        pytest.param(b'{"id":"a","o":{"k":1,"k":1}}', id="a repeated key inside"),
        pytest.param(b'{"id":"a","k":1,"\\u006b":2}', id="a repeated key escaped"),
        pytest.param(b'{"id":"a","k\\u003a":1}', id="an escaped colon"),
        pytest.param(b'{"id":"a","k":"\\\\u003a"}', id="text like an escaped colon"),
        pytest.param(b'{"id":"a","s":"\\ud800"}', id="a lone surrogate"),
        pytest.param(b'{"id":"a","s":"\\udc00x"}', id="a lone low surrogate"),
        pytest.param(b'{"id":"a","n":123456789012345678901234}', id="an integer past 64 bits"),
        pytest.param(b'{"id":"a","n":NaN}', id="NaN"),
        pytest.param(b'{"id":"a","n":1e400}', id="a float too large"),
        pytest.param(b'{"id":"a","s":"\xff"}', id="invalid UTF-8 in a case"),
        pytest.param(b'{"id":"a","s":"\xc0\x80"}', id="an overlong encoding in a case"),
        pytest.param(b'{"id":"a","s":"\xed\xa0\x80"}', id="a surrogate in UTF-8"),
        pytest.param(b'{"id":"a","d":' + b"[" * 600 + b"]" * 600 + b"}", id="nested too deep"),
        pytest.param(
            b'{"id":"a","d":' + b"[" * 300 + b"]" * 300 + b"}", id="nested past what orjson writes"
        ),
    ],
)
@pytest.mark.parametrize("place", ["first", "middle", "last"])
def test_a_case_the_stream_cannot_take_leaves_the_file_to_the_whole_read(
    tmp_path: Path, case: bytes, place: str
) -> None:
    """What the strict reader refuses, and what the scan cannot tell it would take (an
    escaped colon, nesting orjson cannot write to count its colons): None, wherever the case
    is among the suite's."""
    fine = [b'{"id":"x"}', b'{"id":"y"}']
    cases = {"first": [case, *fine], "middle": [fine[0], case, fine[1]], "last": [*fine, case]}
    assert _scanned(tmp_path, _report(*cases[place])) is None


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data.replace(b'"s"', b'"s\xff"'), id="in the suite's name"),
        pytest.param(lambda data: data.replace(b'},{"id":"b"', b'},\xa0{"id":"b"'), id="between"),
        pytest.param(lambda data: data.replace(b"\n", b"\n\xc3"), id="at the end"),
        pytest.param(lambda data: data + b"\xe2\x82", id="a character cut at the end"),
    ],
)
def test_invalid_utf8_outside_the_cases_leaves_the_file_to_the_whole_read(
    tmp_path: Path, damage: Any
) -> None:
    data = _report(b'{"id":"a"}', b'{"id":"b"}', b'{"id":"c"}')
    assert _scanned(tmp_path, data) is not None
    assert _scanned(tmp_path, damage(data)) is None


def test_a_truncated_file_leaves_it_to_the_whole_read(tmp_path: Path) -> None:
    written = [_written({"id": f"c{place}", "n": place}) for place in range(3)]
    data = _report(*written)
    assert _scanned(tmp_path, data) is not None
    for cut in range(1, len(data) - 1):  # every place but the final newline's
        assert _scanned(tmp_path, data[:cut]) is None, data[:cut]


def test_cases_past_a_chunk_of_bytes_are_found_exactly(tmp_path: Path) -> None:
    """Cases as written across the chunks the scan reads, one larger than a chunk, text past
    ASCII cut by a chunk's end: each at its bytes, parsed as the whole read parses it."""
    cases: list[Any] = [
        {"id": f"c{place}", "t": "é" * (place * 997 % 5000)} for place in range(600)
    ]
    cases.insert(300, {"id": "big", "t": "ü" * _CHUNK})
    written = [_written(case) for case in cases]
    assert _scanned(tmp_path, _report(*written)) == (cases, written)


def test_cases_are_read_again_in_any_order_and_handed_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading the cases again in order reads a run of them at once: the same cases as read
    one at a time in any order, and the index, handed to another process meanwhile (pickled),
    reads them from a file opened there."""
    import pickle

    cases = [{"id": f"c{place}", "t": "é" * (place % 7) * 200} for place in range(3000)]
    path = tmp_path / "report.json"
    path.write_bytes(_report(*map(_written, cases)))
    with path.open("rb") as handle:
        scanned = scan_report(handle, str(path))
        assert scanned is not None
        index = scanned.indexes[0]
        assert index is not None
        order = [*range(10), 2999, *range(5, 3000), 7, 6, *range(2998, -1, -1)]
        assert [index.read(handle, str(path), place) for place in order] == [
            cases[place] for place in order
        ]
        assert index.read(handle, str(path), 40) == cases[40]  # reads ahead from case 40
        crossed = pickle.loads(pickle.dumps(index))
    reads: list[int] = []
    real = os.pread

    def counted(descriptor: int, size: int, offset: int) -> bytes:
        reads.append(size)
        return real(descriptor, size, offset)

    monkeypatch.setattr(os, "pread", counted)
    with path.open("rb") as other:
        assert [crossed.read(other, str(path), place) for place in range(3000)] == cases
    assert len(reads) <= path.stat().st_size // _AHEAD + 2


@pytest.mark.parametrize("limited", [False, True], ids=["no memory limit", "a memory limit"])
def test_values_are_decoded_from_windows_of_the_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limited: bool
) -> None:
    """Values the standard library's decoder reads (the report's own, cases not written as
    goldgate writes them), decoded a window of bytes at a time: numbers and text past ASCII
    ending on a window's edge or past it, each the value a whole read gives, each case at
    its bytes."""
    from goldgate.report import scan

    if limited:
        monkeypatch.setattr(scan, "memory_left", lambda: 1 << 40)
    figures = {f"f{size}": int("7" * (size % 18 + 1)) for size in range(1, 40)}
    texts = {f"t{size}": "é" * size for size in (2047, 2048, 4095, 4096, 8191, 20000)}
    numbers = [int("9" * (size % 18 + 1)) * 10**size for size in range(0, 4200, 7)]
    small = [int("9" * (size % 18 + 1)) for size in range(2000)]
    cases: list[Any] = [*numbers, {"id": "a", "n": small}, "é" * 5000, 1.5, None]
    written = [_written(case) for case in cases]
    head = _HEAD.replace(b'"name":"s"', _written({"name": "s", **figures, **texts})[1:-1])
    data = _report(*written, between=b" ,\n", head=head)
    scanned = _scanned(tmp_path, data)
    assert scanned == (cases, written)
    path = tmp_path / "report.json"
    with path.open("rb") as handle:
        value = scan_report(handle, str(path))
        assert value is not None
        suite = value.value["suites"][0]
        assert {key: suite[key] for key in [*figures, *texts]} == {**figures, **texts}


@pytest.mark.parametrize("most", [1, 3])
def test_suites_of_a_case_or_a_few_each_have_their_cases_at_their_bytes(
    tmp_path: Path, most: int
) -> None:
    """Many suites of one case or a few (where the next case's start is searched for past
    each suite's last case, and where it was not found is not searched again): every
    suite's cases, each at its bytes."""
    suites = [
        {
            "name": f"s{place}",
            "cases": [{"id": f"c{place}.{n}"} for n in range(place % (most + 1))],
            "k": 1,
        }
        for place in range(300)
    ]
    data = _written({"format": "goldgate.report/2", "suites": suites, "complete": True})
    path = tmp_path / "report.json"
    path.write_bytes(data)
    with path.open("rb") as handle:
        scanned = scan_report(handle, str(path))
        assert scanned is not None
        for suite, index, value in zip(
            suites, scanned.indexes, scanned.value["suites"], strict=True
        ):
            assert index is not None
            assert [
                data[at : at + size] for at, size in zip(index.offsets, index.lengths, strict=True)
            ] == [_written(case) for case in suite["cases"]]
            assert list(value["cases"]) == suite["cases"]
            assert value["k"] == 1
