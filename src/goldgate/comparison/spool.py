"""A comparison's per-case lists (its changes, findings, case views and unmatched ids) held
outside memory as they are found (issue 43): ``Listed`` is the read-only sequence every
reader of a comparison gets, ``Spooler`` what the comparison appends to as it walks the
cases.

The lists of one comparison stay in memory while they are short (``HELD`` items in all, a
``Budget`` they share: an ordinary pull request's, with no file made); past that a list's
items are written, each the compact JSON the comparison file holds, to one anonymous
temporary file the comparison's lists share (one descriptor, whatever their number), which
goes when they do. Where each item starts and its length are kept in memory (12 bytes an
item); an item is parsed again when it is read. Iterating reads the file a block at a time
where a list's items lie one after the other; an index or a slice reads only what it names
(the capped lists a renderer shows are their first few).
"""

from __future__ import annotations

import os
import tempfile
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import GenericAlias
from typing import Any, Generic, TypeVar, get_args, overload

import orjson
from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

from goldgate.report.stream import dumps

__all__ = ["HELD", "Budget", "Listed", "Spooler"]

T = TypeVar("T")

HELD = 8192
"""Items the lists of one comparison keep in memory before they are spooled to files (a
comparison of some ten thousand attempts keeps all of its lists in memory: a file would only
cost time there): at about a kilobyte an item, some 8 MB, whatever the number of suites."""

_BLOCK = 1 << 20
"""Bytes read at a time while a spooled list is iterated."""


class _Codec(Generic[T]):
    """How an item becomes one line of JSON and back: a pydantic model, or a string."""

    __slots__ = ("decode", "encode", "kind")

    def __init__(self, kind: type[T]) -> None:
        self.kind = kind
        self.encode: Callable[[T], bytes]
        self.decode: Callable[[bytes], T]
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            model: type[BaseModel] = kind
            self.encode = lambda item: dumps(_model(item).model_dump(mode="json"))
            self.decode = lambda line: _checked(kind, model.model_validate_json(line))
        else:
            self.encode = dumps
            self.decode = lambda line: _checked(kind, orjson.loads(line))


def _model(item: object) -> BaseModel:
    assert isinstance(item, BaseModel)
    return item


def _checked(kind: type[T], value: object) -> T:
    assert isinstance(value, kind)
    return value


class _SpoolFile:
    """An anonymous temporary file (its name removed at once), appended to through a buffer
    and read by position; closed when the last list or spooler holding it goes."""

    __slots__ = ("__weakref__", "_buffer", "descriptor", "end")

    def __init__(self) -> None:
        descriptor, name = tempfile.mkstemp(prefix="goldgate-comparison-")
        os.unlink(name)
        self.descriptor = descriptor
        self.end = 0
        self._buffer = bytearray()
        weakref.finalize(self, os.close, descriptor)

    def append(self, line: bytes) -> int:
        """Append ``line``; where it starts."""
        start = self.end
        self._buffer += line
        self.end += len(line)
        if len(self._buffer) >= _BLOCK:
            self.flush()
        return start

    def flush(self) -> None:
        with memoryview(self._buffer) as whole:
            view = whole
            while view:
                view = view[os.write(self.descriptor, view) :]
            view.release()
        self._buffer.clear()


class Listed(Sequence[T]):
    """A read-only sequence of a comparison's items (frozen models or strings): held in
    memory, or spooled to a temporary file (``Spooler``). ``counts`` are the items counted by
    the key the list was made with (``Spooler(..., key=)``), known without reading them."""

    __slots__ = ("_codec", "_file", "_held", "_lengths", "_offsets", "_places")

    def __init__(
        self,
        kind: type[T],
        held: tuple[T, ...] = (),
        *,
        spooled: tuple[_SpoolFile, array[int], array[int]] | None = None,
        places: Mapping[str, array[int]] | None = None,
    ) -> None:
        self._codec = _Codec(kind)
        self._held = held
        self._file: _SpoolFile | None = None if spooled is None else spooled[0]
        self._offsets: array[int] = array("Q") if spooled is None else spooled[1]
        self._lengths: array[int] = array("L") if spooled is None else spooled[2]
        self._places = None if places is None else dict(places)

    @property
    def spooled(self) -> bool:
        """Whether the items are in a file rather than in memory."""
        return self._file is not None

    def places(self, key: Callable[[T], str]) -> Mapping[str, array[int]]:
        """Where the items of each value of ``key`` are, in order (8 bytes an item): those
        found when the list was made (by the same key: the caller's to keep), else found
        now, reading the items once."""
        if self._places is None:
            found: dict[str, array[int]] = {}
            for place, item in enumerate(self):
                found.setdefault(key(item), array("Q")).append(place)
            self._places = found
        return self._places

    def counts(self, key: Callable[[T], str]) -> Mapping[str, int]:
        """The items counted by ``key``, in the order their values first occur."""
        return {value: len(places) for value, places in self.places(key).items()}

    def __len__(self) -> int:
        return len(self._offsets) if self._file is not None else len(self._held)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if self._file is None:
            return self._held[index]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return tuple(self[place] for place in range(start, stop, step))
            return tuple(self._read(start, stop))
        place = index + len(self) if index < 0 else index
        if not 0 <= place < len(self):
            raise IndexError("list index out of range")
        return next(self._read(place, place + 1))

    def __iter__(self) -> Iterator[T]:
        if self._file is None:
            return iter(self._held)
        return self._read(0, len(self))

    def lines(self) -> Iterator[bytes]:
        """Each item's compact JSON, as the comparison file holds it, in order."""
        if self._file is None:
            return map(self._codec.encode, self._held)
        return self._lines(0, len(self))

    def _read(self, start: int, stop: int) -> Iterator[T]:
        return map(self._codec.decode, self._lines(start, stop))

    def _lines(self, start: int, stop: int) -> Iterator[bytes]:
        """Items ``start`` to ``stop``'s JSON, read a block at a time where they lie one
        after the other in the file (a comparison's lists share one file)."""
        assert self._file is not None
        descriptor, offsets, lengths = self._file.descriptor, self._offsets, self._lengths
        place = start
        while place < stop:
            first = offsets[place]
            end, after = first + lengths[place], place + 1
            while after < stop and offsets[after] == end and end - first < _BLOCK:
                end += lengths[after]
                after += 1
            block = os.pread(descriptor, end - first, first)
            if len(block) != end - first:
                raise OSError("a comparison's spool file ended early")
            position = 0
            for each in range(place, after):
                yield block[position : position + lengths[each]]
                position += lengths[each]
            place = after

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Listed | tuple | list):
            return NotImplemented
        return len(self) == len(other) and all(
            mine == theirs for mine, theirs in zip(self, other, strict=True)
        )

    def __hash__(self) -> int:
        return hash(len(self))

    def __copy__(self) -> Listed[T]:
        return self  # read-only: a copy is the list itself

    def __deepcopy__(self, memo: dict[int, object]) -> Listed[T]:
        return self

    def __reduce__(self) -> tuple[object, ...]:
        if self._file is not None:  # its file is this process's own
            raise TypeError("a spooled list cannot be sent to another process")
        return (_held_list, (self._codec.kind, self._held))

    def __repr__(self) -> str:
        where = "spooled" if self._file is not None else "held"
        return f"Listed({len(self)} items, {where})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validated as a JSON array of its items (the file format); a ``Listed`` given in
        Python is taken as it is; serialized as the array again."""
        (kind,) = get_args(source)
        items = handler.generate_schema(GenericAlias(tuple, (kind, Ellipsis)))
        from_items = core_schema.no_info_after_validator_function(
            lambda value: cls(kind, tuple(value)), items
        )
        return core_schema.json_or_python_schema(
            json_schema=from_items,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_items], mode="left_to_right"
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                tuple, return_schema=items
            ),
        )


def _held_list(kind: type[T], held: tuple[T, ...]) -> Listed[T]:
    return Listed(kind, held)


class Budget:
    """The items the spoolers of one comparison may still keep in memory, and the one file
    their spooled items go to (made when the first list spools: one descriptor a
    comparison, whatever the number of its lists)."""

    __slots__ = ("_file", "left")

    def __init__(self, items: int | None = None) -> None:
        self.left = HELD if items is None else items
        self._file: _SpoolFile | None = None

    def file(self) -> _SpoolFile:
        if self._file is None:
            self._file = _SpoolFile()
        return self._file


class Spooler(Generic[T]):
    """Items appended in order, kept in memory while ``budget`` (shared by a comparison's
    spoolers; by default one of ``HELD`` items of its own) lasts and spooled past it;
    ``done()`` is the ``Listed`` of them. ``key`` finds where each value of it is as the
    items come."""

    def __init__(
        self,
        kind: type[T],
        key: Callable[[T], str] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self._budget = Budget() if budget is None else budget
        self._kind = kind
        self._codec = _Codec(kind)
        self._key = key
        self._places: dict[str, array[int]] = {}
        self._held: list[T] = []
        self._file: _SpoolFile | None = None
        self._offsets: array[int] = array("Q")
        self._lengths: array[int] = array("L")

    def append(self, item: T) -> None:
        if self._key is not None:
            self._places.setdefault(self._key(item), array("Q")).append(len(self))
        if self._file is not None:
            self._write(item)
            return
        if self._budget.left > 0:
            self._budget.left -= 1
            self._held.append(item)
            return
        self._file = self._budget.file()
        held, self._held = self._held, []
        self._budget.left += len(held)  # let go of: others may hold as many
        for each in (*held, item):
            self._write(each)

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.append(item)

    def __len__(self) -> int:
        return len(self._offsets) if self._file is not None else len(self._held)

    def _write(self, item: T) -> None:
        assert self._file is not None
        line = self._codec.encode(item)
        self._offsets.append(self._file.append(line))
        self._lengths.append(len(line))

    def done(self) -> Listed[T]:
        places = self._places if self._key is not None else None
        if self._file is None:
            return Listed(self._kind, tuple(self._held), places=places)
        self._file.flush()
        return Listed(self._kind, spooled=(self._file, self._offsets, self._lengths), places=places)
