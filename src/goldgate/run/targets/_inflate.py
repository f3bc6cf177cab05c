"""An answer's content encodings (``Content-Encoding``), undone with every layer bounded.

httpx would inflate a gzip answer in one call per chunk read, with no bound on what comes
out: a few kilobytes of nested ``gzip, gzip`` become gigabytes in memory before any size
check sees them. ``Inflater`` undoes the codings itself, chunk by chunk, asking zlib for at
most one byte more than the bound allows at every layer, so that an answer past the bound is
refused after reading at most the bound (plus one byte) from each layer, whatever it claims.
(Once a layer was given room for all its output, zlib holds nothing back: no flush is needed
at the end.)

Undone: ``gzip`` (and ``x-gzip``), ``deflate`` (zlib-wrapped, or raw as some servers send it)
and ``identity``, in any nesting; exchanges ask for these only (``ACCEPT_ENCODING``). Any
other coding (``br``, ``zstd``, ...) is refused with a sentence, never passed on undecoded.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable

from goldgate.run.errors import Refused

ACCEPT_ENCODING = "gzip, deflate"
"""What an exchange asks for: the codings ``Inflater`` undoes."""

_GZIP = zlib.MAX_WBITS | 16
_NAMED = re.compile(r"[a-z0-9][a-z0-9._+-]{0,30}")


class _Layer:
    """One coding, undone with its output bounded by ``limit`` bytes in all."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding = coding
        self.limit = limit
        self.produced = 0
        self.first = True
        self.decompressor = zlib.decompressobj(_GZIP if coding == "gzip" else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes:
        if not data or self.decompressor.eof:
            return b""  # whatever follows the end of the stream is ignored, as httpx does
        room = self.limit - self.produced
        try:
            out = self.decompressor.decompress(data, room + 1)
        except zlib.error:
            if not (self.first and self.coding == "deflate"):
                raise Refused(f"has a {self.coding} content encoding that is corrupt") from None
            # deflate without its zlib wrapper, as some servers send it.
            self.decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
            self.first = False
            return self.feed(data)
        self.first = False
        self.produced += len(out)
        if self.produced > self.limit:
            raise Refused(f"exceeded {self.limit} bytes once its {self.coding} encoding was undone")
        return out


class Inflater:
    """Undoes ``codings`` (as ``Content-Encoding`` lists them: the first applied first),
    each layer's output and the raw input bounded by ``limit`` bytes."""

    def __init__(self, codings: Iterable[str], limit: int) -> None:
        self.limit = limit
        self.raw = 0
        self.size = 0
        self.layers: list[_Layer] = []
        for coding in codings:
            name = coding.strip().lower()
            if name in ("", "identity"):
                continue
            if name == "x-gzip":
                name = "gzip"
            if name not in ("gzip", "deflate"):
                shown = f" ({name})" if _NAMED.fullmatch(name) else ""
                raise Refused(
                    f"has a content encoding goldgate does not undo{shown}; it asks for "
                    f"{ACCEPT_ENCODING} only"
                )
            self.layers.append(_Layer(name, limit))
        self.layers.reverse()  # the last coding applied is undone first

    def feed(self, chunk: bytes) -> bytes:
        """The decoded bytes of one raw chunk; ``Refused`` past the bound."""
        self.raw += len(chunk)
        if self.raw > self.limit:
            raise Refused(f"exceeded {self.limit} bytes")
        data = chunk
        for layer in self.layers:
            data = layer.feed(data)
        self.size += len(data)
        if self.size > self.limit:
            raise Refused(f"exceeded {self.limit} bytes")
        return data
