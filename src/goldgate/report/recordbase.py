"""What every record of the report shares: its methods, its reading config, shared records.

The records (``report.records``, ``report.caserecords``) are frozen stdlib dataclasses that a
run builds without pydantic and ``report.models`` reads through pydantic. Nothing here
imports pydantic at module import: ``READ`` is pydantic's config as a plain dict, and
``Shared`` builds its validator only when ``report.models`` builds its adapters.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`), as in
# the records: pydantic resolves them when report.models builds its adapters.
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, ValidationInfo
    from pydantic_core import CoreSchema

__all__ = ["READ", "SHARED", "Record", "Shared"]

READ = {"extra": "forbid", "defer_build": True}
"""pydantic's config for each record as ``report.models`` reads it (``__pydantic_config__``, a
plain dict: no pydantic here): an unknown key is refused, as everywhere in a report; the
adapter is built when ``report.models`` asks for it, with the names the records' string
annotations need (see ``report.models.adapter``)."""


class Record:
    """repr, == and hash as a frozen dataclass generates them: by the fields, in order.

    Each record is ``dataclass(frozen=True, repr=False, eq=False)`` and takes these: dataclass
    compiles every method it generates, class by class, and generating these three for every
    record doubled the records' import, which every run pays (tests/report/test_records.py
    holds them to what dataclass generates)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__dataclass_fields__)

    def __repr__(self) -> str:
        shown = (f"{name}={getattr(self, name)!r}" for name in self.__dataclass_fields__)
        return f"{type(self).__qualname__}({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())


SHARED = "shared records"
"""The validation context key of a dict in which reading a report shares equal records."""


class Shared:
    """``Annotated`` metadata of a tuple of small records (a report has hundreds of thousands
    of checks, most of them ``{"outcome": "passed"}``) that reading validates into records
    shared by every equal one: frozen, so one instance serves them all, and a report reads
    into a fraction of the memory. ``name`` keeps the records of different fields apart."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get_pydantic_core_schema__(
        self, source: Any, handler: "GetCoreSchemaHandler"
    ) -> "CoreSchema":
        from pydantic_core import core_schema

        return core_schema.with_info_wrap_validator_function(
            partial(_shared, self.name), handler(source)
        )


def _shared(name: str, value: Any, handler: Callable[[Any], Any], info: "ValidationInfo") -> Any:
    """``value`` validated, its equal records shared: only where the validation context
    holds the cache (``report.io``); a list holding anything new is validated whole, so a
    problem is still named at its place."""
    cache = info.context.get(SHARED) if isinstance(info.context, dict) else None
    if cache is None or type(value) is not list:
        return handler(value)
    keys: list[Any] = []
    found: list[Any] = []
    missing = False
    try:
        for item in value:
            if type(item) is not dict:
                return handler(value)
            # Types are part of the key: 1, 1.0 and True are equal in Python, not in JSON.
            key = (name, tuple(item.items()), tuple(map(type, item.values())))
            record = cache.get(key)
            missing = missing or record is None
            keys.append(key)
            found.append(record)
    except TypeError:  # an unhashable value (a list, an object): validated as it is
        return handler(value)
    if not missing:
        return tuple(found)
    records = handler(value)
    for key, record in zip(keys, records, strict=True):
        cache.setdefault(key, record)
    return records
