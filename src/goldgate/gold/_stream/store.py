"""The cases of a streamed case file, read back from the file when the run needs them.

Loading checks every case of a case file as it streams by (``gold._stream.casefile``) and keeps
only where each case's bytes are, so memory does not grow with the gold. ``LazyCases`` and
``LazyCompiled`` are the suite's ``cases`` and ``compiled`` over that store: a case is read
back (one ``pread``), checked against its checksum, parsed and built again without validating
(the bytes are those that validated) when asked for, and its expectations compiled once per
read. The runner asks in order, a few at a time, so a small cache of recent cases serves
every attempt of a case and the report's record of it. The first cases this process checked
itself, up to ``KEPT_BYTES`` of the file, are kept as checked instead, until the run reads
them: small gold is then never read twice.

The file stays open from the check to the end of the run: a file replaced since (an editor's
save, a checkout) is still read as it was checked; a file rewritten in place is noticed by the
checksums of the cases read back after the change and ends the run with ``GoldChangedError``
(a kept case is the gold that was checked: nothing is read for it).

A case is read back as a ``RecordedCase``, whose public home is ``gold.recorded``: the other
stages import it from there, never from this private package.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import weakref
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar, overload

from goldgate.base.errors import InvalidInputError
from goldgate.base.files import open_regular_file
from goldgate.base.textsafe import escape_control
from goldgate.gold._stream.casefile import reparse
from goldgate.gold._stream.caseids import CaseIds
from goldgate.gold.compiled import CompiledExpectation, compile_expectations
from goldgate.gold.errors import GoldChangedError
from goldgate.gold.patterns import PatternCode, rebuild_pattern
from goldgate.gold.recorded import RecordedCase, RecordedCases

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import Case

__all__ = ["CaseStore", "LazyCases", "LazyCompiled"]

_CACHED = 512
"""Cases kept once read: more than run at once, so each is read about once per run."""
KEPT_BYTES = 2 << 20
"""Cases this process checked are kept, as the run reads them, until their bytes in the case
file add up to this (about 17 MiB of objects; some 4,500 cases of 460 bytes): the run reads
them without reading, parsing and compiling them again. The rest are read back."""
KEPT_PATTERN_BYTES = 48 << 20
"""Compiled patterns are kept from the check for the run until they take this much memory
(some 150,000 short patterns of 320 bytes, or 45,000 of 50 characters): gold with more
compiles the rest again when their cases are read back (20 us a pattern or more)."""

T = TypeVar("T")


class _OpenFiles:
    """The case files held open, at most ``limit`` at once (a manifest may name thousands
    of case files, and a process may open only so many). The least recently read is closed
    first; its store reopens the file when it is read again, and refuses one that was
    replaced since the check.

    A run reads a file's cases in order, so a read that follows on from the one before
    takes ``READ_AHEAD`` bytes at once and the next cases are sliced from them: one system
    call (and one lock) for dozens of cases. Only the latest such window is kept, whatever
    the number of files. The bytes it holds are the file's when it was read; each case's
    checksum is still compared, so a case that differs from the checked one is still
    refused."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._open: dict[object, BinaryIO] = {}
        """Each store's key (never the store: a store must be free to go) -> its file."""
        self._window: tuple[object, int, bytes] | None = None
        """The key, offset and bytes of the latest read ahead."""
        self._follows: tuple[object, int] | None = None
        """The key and end offset of the latest read: a read starting just after reads
        ahead (cases are apart by a comma and some white space)."""

    def hold(self, key: object, handle: BinaryIO) -> None:
        with self._lock:
            self._hold(key, handle)

    def _hold(self, key: object, handle: BinaryIO) -> None:
        self._open[key] = handle
        while len(self._open) > self.limit:
            oldest = next(iter(self._open))
            self._open.pop(oldest).close()

    def read(self, key: object, reopen: Callable[[], BinaryIO], length: int, offset: int) -> bytes:
        """``length`` bytes at ``offset`` of the file of ``key`` (reopened when it was
        closed); under the lock, so that no other thread closes it meanwhile."""
        with self._lock:
            end = offset + length
            window = self._window
            if window is not None and window[0] is key:
                start = offset - window[1]
                if start >= 0 and end - window[1] <= len(window[2]):
                    self._follows = (key, end)
                    return window[2][start : start + length]
            follows = self._follows
            ahead = follows is not None and follows[0] is key and 0 <= offset - follows[1] < _GAP
            handle = self._open.pop(key, None)
            if handle is None:
                handle = reopen()
            self._hold(key, handle)  # the most recently read now
            data = os.pread(handle.fileno(), max(length, READ_AHEAD) if ahead else length, offset)
            self._follows = (key, end)
            if not ahead:
                return data
            self._window = (key, offset, data)
            return data[:length]

    def release(self, key: object) -> None:
        with self._lock:
            handle = self._open.pop(key, None)
            if self._window is not None and self._window[0] is key:
                self._window = None
            if self._follows is not None and self._follows[0] is key:
                self._follows = None
        if handle is not None:
            handle.close()


READ_AHEAD = 1 << 16
"""Bytes read at once by a read that follows on from the one before."""
_GAP = 4096
"""How far past the end of the latest read a read may start and still follow on from it
(the separator between two cases: a comma and white space)."""
OPEN_FILES = _OpenFiles(64)


class CaseStore:
    """Where each case of one case file is, and the file itself, held open since it was
    checked (among the ``OPEN_FILES`` limit)."""

    def __init__(self, handle: BinaryIO, source: str, path: Path, *, keep: bool = True) -> None:
        self.source = source
        self.keeps = keep
        """Whether cases and patterns are kept from the check for a run (not for a check
        alone, which would never use them)."""
        self.path = path
        status = os.fstat(handle.fileno())
        self._identity = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
        self.offsets = array("q")
        self.lengths = array("q")
        self.checksums = array("L")
        self.lines = array("l")
        self.ids = CaseIds()
        self._lock = threading.Lock()
        self._cases: OrderedDict[int, Case] = OrderedDict()
        self._gold: OrderedDict[int, tuple[RecordedCase, tuple[CompiledExpectation, ...]]] = (
            OrderedDict()
        )
        self._kept: dict[int, tuple[RecordedCase, tuple[CompiledExpectation, ...]]] = {}
        """Cases the check kept (``KEPT_BYTES``), until the run reads each."""
        self._kept_bytes = 0
        self._last_recorded: tuple[int, RecordedCase] | None = None
        self.patterns: dict[str, re.Pattern[str]] = {}
        """Patterns the check compiled (here, or in a helper: ``adopt``), each taken by the
        first case that uses it."""
        self._pattern_bytes = 0
        self.key = object()
        """This store's place among ``OPEN_FILES``."""
        OPEN_FILES.hold(self.key, handle)
        weakref.finalize(self, OPEN_FILES.release, self.key)

    def reopen(self) -> BinaryIO:
        """The case file opened again, when it is the very file that was checked."""
        try:
            handle = open_regular_file(self.path, self.source, what="a JSON file")
        except InvalidInputError as error:
            raise _gold_changed(self.source, "changed", str(error)) from None
        status = os.fstat(handle.fileno())
        if (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns) != self._identity:
            handle.close()
            raise _gold_changed(self.source, "was replaced")
        return handle

    def add(
        self,
        case_id: str,
        compiled: tuple[CompiledExpectation, ...],
        *,
        offset: int,
        length: int,
        checksum: int,
        line: int,
        checked: Any = None,
    ) -> None:
        """One more case, where it is and its expectations as the check compiled them;
        ``checked``: the case as this process parsed and checked it, kept while there is
        room (``KEPT_BYTES``)."""
        if self.keeps:
            self._keep_checked(compiled, length, checked)
        self.ids.append(case_id)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.checksums.append(checksum)
        self.lines.append(line)

    def _keep_checked(
        self, compiled: tuple[CompiledExpectation, ...], length: int, checked: Any
    ) -> None:
        """The case about to be added as checked, while ``KEPT_BYTES`` allow; else the
        patterns it compiled, while ``KEPT_PATTERN_BYTES`` allow."""
        if checked is not None and self._kept_bytes + length <= KEPT_BYTES:
            self._kept_bytes += length
            self._kept[len(self.ids)] = (RecordedCase.of(checked), compiled)
            return  # its patterns are kept with it
        for expectation in compiled:
            if expectation.text is not None and self._pattern_bytes < KEPT_PATTERN_BYTES:
                for assertion in expectation.text.assertions:
                    if assertion.pattern is not None:
                        self._keep(assertion.pattern)

    def adopt(self, patterns: Iterable[PatternCode]) -> None:
        """Patterns a checking helper compiled (``gold._stream.parallel``), rebuilt for the run."""
        if not self.keeps:
            return
        for made in patterns:
            if self._pattern_bytes >= KEPT_PATTERN_BYTES:
                return
            if made.pattern not in self.patterns:
                self._keep(rebuild_pattern(made))

    def _keep(self, pattern: re.Pattern[str]) -> None:
        text = pattern.pattern
        if text not in self.patterns:
            self.patterns[text] = pattern
            # The pattern object holds its program; the key is the gold's own string.
            self._pattern_bytes += sys.getsizeof(pattern) + sys.getsizeof(text)

    def __len__(self) -> int:
        return len(self.ids)

    def case(self, index: int) -> Case:
        """Case ``index`` as the model validation gives (for code that asks the suite's
        ``cases``; a run reads ``gold`` instead)."""
        with self._lock:
            case = self._cases.get(index)
            if case is None:
                case = self._read(index)
                _remember(self._cases, index, case)
            return case

    def gold(self, index: int) -> tuple[RecordedCase, tuple[CompiledExpectation, ...]]:
        """Case ``index`` as an attempt needs it, with its expectations compiled: read back
        once for both, and built without models (the bytes are those that were checked)."""
        with self._lock:
            entry = self._gold.get(index)
            if entry is None:
                entry = self._kept.pop(index, None)
                if entry is None:
                    case = RecordedCase.of(self._bytes_parsed(index))
                    entry = (case, compile_expectations(case.expectations, self.patterns))
                _remember(self._gold, index, entry)
            return entry

    def recorded(self, index: int) -> RecordedCase:
        """Case ``index`` as a report records it, for an attempt that never started: read
        back without models and without compiling (see ``RecordedCase``)."""
        with self._lock:
            entry = self._gold.get(index) or self._kept.get(index)
            if entry is not None:
                return entry[0]
            last = self._last_recorded  # the attempts of a case come one after another
            if last is None or last[0] != index:
                last = self._last_recorded = (index, RecordedCase.of(self._bytes_parsed(index)))
            return last[1]

    def compiled(self, index: int) -> tuple[CompiledExpectation, ...]:
        return self.gold(index)[1]

    def _bytes_parsed(self, index: int) -> Any:
        """Case ``index`` parsed from its bytes, which must be those that were checked."""
        length = self.lengths[index]
        try:
            data = OPEN_FILES.read(self.key, self.reopen, length, self.offsets[index])
        except OSError as error:
            raise self._changed(index, error.strerror) from None
        if len(data) != length or zlib.crc32(data) != self.checksums[index]:
            raise self._changed(index)
        return reparse(data)

    def _read(self, index: int) -> Case:
        # The bytes are those that validated (the checksum matched): not validated again.
        from goldgate.gold.models import trusted_case  # only for code that asks for models

        try:
            case = trusted_case(self._bytes_parsed(index))
        except (KeyError, TypeError):  # pragma: no cover - the checksum matched
            raise self._changed(index) from None
        if case.id != self.ids[index]:  # pragma: no cover - the checksum matched
            raise self._changed(index)
        return case

    def _changed(self, index: int, why: str | None = None) -> GoldChangedError:
        return _gold_changed(f"{self.source}:{self.lines[index]}", "changed", why)


def _gold_changed(place: str, what: str, why: str | None = None) -> GoldChangedError:
    """The one sentence that ends a run whose case file ``what`` (changed, was replaced) at
    ``place`` since it was checked."""
    detail = f" ({why})" if why else ""
    return GoldChangedError(
        f"{escape_control(place)}: the case file {what} while goldgate was running from "
        f"it{detail}; the gold must not change during a run. Run again."
    )


def _remember(cache: OrderedDict[int, T], index: int, value: T) -> None:
    if len(cache) >= _CACHED:
        cache.popitem(last=False)  # the oldest: cases are asked for in order
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
    def ids(self) -> Sequence[str]:
        """Each case's id, without reading any case."""
        ids = self.store.ids
        return ids if self.positions is None else [ids[p] for p in self.positions]


class LazyCases(_View["Case"], RecordedCases):
    """A suite's cases, read back from their file when asked for."""

    def _get(self, position: int) -> Case:
        return self.store.case(position)

    def select(self, positions: Sequence[int]) -> LazyCases:
        """The cases at ``positions`` of this view (a shard)."""
        return LazyCases(self.store, array("q", [self._position(p) for p in positions]))

    def recorded(self, index: int) -> RecordedCase:
        """Case ``index`` as a report records it (``CaseStore.recorded``)."""
        return self.store.recorded(self._position(index))

    def gold(self, index: int) -> tuple[RecordedCase, tuple[CompiledExpectation, ...]]:
        """Case ``index`` and its compiled expectations, as a run needs them
        (``CaseStore.gold``)."""
        return self.store.gold(self._position(index))


class LazyCompiled(_View[tuple[CompiledExpectation, ...]]):
    """A suite's compiled expectations, compiled when their case is read back."""

    def _get(self, position: int) -> tuple[CompiledExpectation, ...]:
        return self.store.compiled(position)

    def select(self, positions: Sequence[int]) -> LazyCompiled:
        return LazyCompiled(self.store, array("q", [self._position(p) for p in positions]))
