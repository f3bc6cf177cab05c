"""The cases of a streamed case file, read back from the file when the run needs them.

Loading checks every case of a case file as it streams by (``dataset.casefile``) and keeps
only where each case's bytes are, so memory does not grow with the gold. ``LazyCases`` and
``LazyCompiled`` are the suite's ``cases`` and ``compiled`` over that store: a case is read
back (one ``pread``), checked against its checksum, parsed and validated again when asked for,
and its expectations compiled once per read. The runner asks in order, a few at a time, so a
small cache of recent cases serves every attempt of a case and the report's record of it.

The file stays open from the check to the end of the run: a file replaced since (an editor's
save, a checkout) is still read as it was checked; a file rewritten in place is noticed by the
checksums and ends the run with ``GoldChangedError``.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
import zlib
from array import array
from collections.abc import Iterator, Sequence
from typing import BinaryIO, Generic, TypeVar, overload

from pydantic import ValidationError

from goldgate.dataset.casefile import reparse
from goldgate.dataset.compiled import CompiledExpectation, compile_expectations
from goldgate.dataset.models import Case
from goldgate.errors import InvalidInputError
from goldgate.textsafe import escape_control

__all__ = ["CaseStore", "GoldChangedError", "LazyCases", "LazyCompiled"]

_CACHED = 512
"""Cases kept once read: more than run at once, so each is read about once per run."""
KEPT_PATTERNS = 1 << 17
"""Compiled patterns kept from the check for the run (about 40 MB at most): gold with more
patterns compiles the rest again when their cases are read back."""

T = TypeVar("T")


class GoldChangedError(InvalidInputError):
    """A case file was rewritten in place while goldgate was running from it."""


class CaseStore:
    """Where each case of one case file is, and the file itself, open since it was checked."""

    def __init__(self, handle: BinaryIO, source: str) -> None:
        self.source = source
        self._handle = handle
        self._descriptor = handle.fileno()
        self.offsets = array("q")
        self.lengths = array("q")
        self.checksums = array("L")
        self.lines = array("l")
        self.ids: list[str] = []
        self._lock = threading.Lock()
        self._cases: dict[int, Case] = {}
        self._compiled: dict[int, tuple[CompiledExpectation, ...]] = {}
        self.patterns: dict[str, re.Pattern[str]] = {}
        """Patterns the check compiled, each taken by the first case that uses it."""
        weakref.finalize(self, handle.close)

    def add(
        self,
        case_id: str,
        compiled: tuple[CompiledExpectation, ...],
        offset: int,
        length: int,
        checksum: int,
        line: int,
    ) -> None:
        """One more case, where it is and its expectations as the check compiled them."""
        for expectation in compiled:
            if expectation.text is not None and len(self.patterns) < KEPT_PATTERNS:
                for assertion in expectation.text.assertions:
                    if assertion.pattern is not None:
                        self.patterns.setdefault(assertion.pattern.pattern, assertion.pattern)
        self.ids.append(case_id)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.checksums.append(checksum)
        self.lines.append(line)

    def __len__(self) -> int:
        return len(self.ids)

    def case(self, index: int) -> Case:
        with self._lock:
            case = self._cases.get(index)
            if case is None:
                case = self._read(index)
                _remember(self._cases, index, case)
            return case

    def compiled(self, index: int) -> tuple[CompiledExpectation, ...]:
        with self._lock:
            compiled = self._compiled.get(index)
        if compiled is None:
            case = self.case(index)
            with self._lock:
                compiled = compile_expectations(case.expectations, self.patterns)
                _remember(self._compiled, index, compiled)
        return compiled

    def _read(self, index: int) -> Case:
        length = self.lengths[index]
        try:
            data = os.pread(self._descriptor, length, self.offsets[index])
        except OSError as error:
            raise self._changed(index, error.strerror) from None
        if len(data) != length or zlib.crc32(data) != self.checksums[index]:
            raise self._changed(index)
        try:
            case = Case.model_validate(reparse(data))
        except (ValueError, ValidationError):  # pragma: no cover - the checksum matched
            raise self._changed(index) from None
        if case.id != self.ids[index]:  # pragma: no cover - the checksum matched
            raise self._changed(index)
        return case

    def _changed(self, index: int, why: str | None = None) -> GoldChangedError:
        detail = f" ({why})" if why else ""
        return GoldChangedError(
            f"{escape_control(self.source)}:{self.lines[index]}: the case file changed while "
            f"goldgate was running from it{detail}; the gold must not change during a run. "
            "Run again."
        )


def _remember(cache: dict[int, T], index: int, value: T) -> None:
    if len(cache) >= _CACHED:
        del cache[next(iter(cache))]  # the oldest: cases are asked for in order
    cache[index] = value


class _View(Sequence[T], Generic[T]):
    """A sequence over the store's cases, all of them or those at ``positions`` (a shard)."""

    def __init__(self, store: CaseStore, positions: Sequence[int] | None = None) -> None:
        self.store = store
        self.positions = positions

    def __len__(self) -> int:
        return len(self.store) if self.positions is None else len(self.positions)

    def _position(self, index: int) -> int:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return index if self.positions is None else self.positions[index]

    def _get(self, position: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._get(self._position(index))

    def __iter__(self) -> Iterator[T]:
        for index in range(len(self)):
            yield self[index]

    @property
    def ids(self) -> list[str]:
        """Each case's id, without reading any case."""
        ids = self.store.ids
        return ids if self.positions is None else [ids[p] for p in self.positions]


class LazyCases(_View[Case]):
    """A suite's cases, read back from their file when asked for."""

    def _get(self, position: int) -> Case:
        return self.store.case(position)

    def select(self, positions: Sequence[int]) -> LazyCases:
        """The cases at ``positions`` of this view (a shard)."""
        return LazyCases(self.store, [self._position(p) for p in positions])


class LazyCompiled(_View[tuple[CompiledExpectation, ...]]):
    """A suite's compiled expectations, compiled when their case is read back."""

    def _get(self, position: int) -> tuple[CompiledExpectation, ...]:
        return self.store.compiled(position)

    def select(self, positions: Sequence[int]) -> LazyCompiled:
        return LazyCompiled(self.store, [self._position(p) for p in positions])
