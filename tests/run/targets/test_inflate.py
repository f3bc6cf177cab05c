"""An answer's content encodings undone with every layer bounded (``_inflate``), and the
waits a provider's headers ask for (``_exchange.retry_after``): in process, no server."""

from __future__ import annotations

import gzip
import math
import time
import zlib

import pytest

from goldgate.run.errors import Refused
from goldgate.run.targets._exchange import retry_after
from goldgate.run.targets._inflate import Inflater

DOCUMENT = b'{"payload": {"answer": "hi"}}'


def inflate(data: bytes, codings: list[str], limit: int = 1 << 20, chunk: int = 7) -> bytes:
    inflater = Inflater(codings, limit)
    out = bytearray()
    for start in range(0, len(data), chunk):
        out += inflater.feed(data[start : start + chunk])
    return bytes(out)


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("data", "codings"),
    [
        (DOCUMENT, []),
        (DOCUMENT, ["identity"]),
        (gzip.compress(DOCUMENT), ["gzip"]),
        (gzip.compress(DOCUMENT), ["X-Gzip"]),
        (zlib.compress(DOCUMENT), ["deflate"]),
        (raw_deflate(DOCUMENT), ["deflate"]),  # as some servers send it
        (gzip.compress(gzip.compress(DOCUMENT)), ["gzip", "gzip"]),
        (zlib.compress(gzip.compress(DOCUMENT)), ["gzip", " deflate ", "identity"]),
        (gzip.compress(DOCUMENT) + b"trailing", ["gzip"]),  # ignored, as httpx does
    ],
    # Named, not derived from the bytes: gzip stamps the time it ran into its header, so ids
    # made from the data differ between xdist workers that collect a second apart.
    ids=[
        "plain",
        "identity",
        "gzip",
        "x-gzip",
        "zlib",
        "raw-deflate",
        "gzip-gzip",
        "gzip-deflate-identity",
        "gzip-trailing",
    ],
)
def test_codings_are_undone_in_order(data: bytes, codings: list[str]) -> None:
    assert inflate(data, codings) == DOCUMENT


@pytest.mark.parametrize("codings", [["gzip"], ["gzip", "gzip"], ["gzip", "deflate"]])
def test_every_layer_is_bounded_while_it_is_undone(codings: list[str]) -> None:
    big = bytes(64 << 20)  # 64 MiB of zeros: 64 KB as gzip
    data = gzip.compress(big, 1)
    if codings[1:] == ["gzip"]:
        data = gzip.compress(data)
    elif codings[1:] == ["deflate"]:
        data = zlib.compress(data)
    inflater = Inflater(codings, 1 << 20)
    reason = None
    for start in range(0, len(data), 65536):
        try:
            produced = inflater.feed(data[start : start + 65536])
        except Refused as refused:
            reason = refused.reason
            break
        assert len(produced) <= (1 << 20) + 1
    assert reason == "exceeded 1048576 bytes once its gzip encoding was undone"
    assert all(layer.produced <= (1 << 20) + 1 for layer in inflater.layers)


def test_the_raw_answer_is_bounded_too() -> None:
    with pytest.raises(Refused, match=r"^exceeded 10 bytes$"):
        inflate(b"x" * 11, [], limit=10)


@pytest.mark.parametrize(
    ("codings", "reason"),
    [
        (["br"], "has a content encoding goldgate does not undo (br); it asks for gzip, "
                 "deflate only"),
        (["gzip", "zstd"], "has a content encoding goldgate does not undo (zstd); it asks "
                           "for gzip, deflate only"),
        (["\x1b[31m"], "has a content encoding goldgate does not undo; it asks for gzip, "
                       "deflate only"),
    ],
)  # fmt: skip
def test_a_coding_it_cannot_undo_is_refused(codings: list[str], reason: str) -> None:
    with pytest.raises(Refused) as refused:
        Inflater(codings, 100)
    assert refused.value.reason == reason


def test_a_corrupt_stream_is_refused() -> None:
    with pytest.raises(Refused, match=r"^has a gzip content encoding that is corrupt$"):
        inflate(b"\x1f\x8b" + b"\xff" * 40, ["gzip"])


NOW = 1_000_000.0


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after-ms": "-5", "retry-after": "9"}, 9.0),  # no wait: the next header
        ({"retry-after-ms": "nan"}, None),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "1" + "0" * 400}, math.inf),  # too large for a float: infinite
        ({"retry-after-ms": "1e999"}, math.inf),
        ({"retry-after": "Thu, 01 Jan 1970 00:00:00 GMT"}, 0.0),  # past: at once
        ({"retry-after": "Thu, 12 Jan 1970 13:46:40 GMT"}, 0.0),
        ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, 253402300799.0 - NOW),
        ({"retry-after": "Mon, 01 Jan 99999 00:00:00 GMT"}, None),  # no such date
        ({"retry-after": "soon"}, None),
    ],
)
def test_the_waits_a_provider_asks_for(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers, now=NOW) == seconds


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo", "America/Los_Angeles"])
def test_a_date_in_minus_0000_is_utc_whatever_the_local_zone(
    zone: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-0000`` (RFC 5322: UTC, the sender's zone unknown) is read as UTC: the year 9999
    east of Greenwich is never a ValueError that fails the attempt out of turn, nor a wait
    that moves with the runner's zone."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        late = retry_after({"retry-after": "Fri, 31 Dec 9999 23:59:59 -0000"}, now=NOW)
        soon = retry_after({"retry-after": "Mon, 12 Jan 1970 13:46:50 -0000"}, now=NOW)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert (late, soon) == (253402300799.0 - NOW, 10.0)
