"""A checked case as a report records it, read back without validating it again.

A run reads each case of a streamed case file (``gold/_stream``) and of Python evals
(``evals.plan``) as a ``RecordedCase``: named tuples built from the checked JSON, several
times cheaper than the ``Case`` model. This is their public home: the run, scoring, report
and evals stages import them from here, never from the gold stage's private ``_stream``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

if TYPE_CHECKING:  # annotations only: Python evals run without the gold models (pydantic)
    from goldgate.gold.models import Case

__all__ = [
    "RecordedCase",
    "RecordedCases",
    "RecordedEnvelope",
    "RecordedExpectation",
    "new_recorded_case",
    "recorded_case",
]

_new_tuple = tuple.__new__


class RecordedExpectation(NamedTuple):
    """What a report's case record says of an expectation, read from the checked JSON."""

    name: str
    path: str
    comparison: str
    scorer: str | None
    expected: Any
    judge: str | None = None

    @classmethod
    def of(cls, raw: dict[str, Any]) -> RecordedExpectation:
        get = raw.get
        # tuple.__new__ at once: a named tuple's own __new__ is one more Python call
        return _new_tuple(
            cls,
            (
                raw["name"],
                raw["path"],
                get("comparison", "exact"),
                get("scorer"),
                raw["expected"],
                get("judge"),
            ),
        )


class RecordedEnvelope(NamedTuple):
    payload: dict[str, Any]
    metadata: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"payload": self.payload, "metadata": self.metadata}


class RecordedCase(NamedTuple):
    """A checked case as a report records it, read back without validating it again: what
    every attempt of a streamed case file reads (a named tuple: built several times faster
    than a model or a frozen dataclass, and as immutable)."""

    id: str
    family: str | None
    split: str | None
    input: RecordedEnvelope
    expectations: tuple[RecordedExpectation, ...]

    @classmethod
    def of(cls, raw: dict[str, Any]) -> RecordedCase:
        envelope = raw["input"]
        get = raw.get
        expectation = RecordedExpectation.of
        return new_recorded_case(
            raw["id"],
            family=get("family"),
            split=get("split"),
            payload=envelope["payload"],
            metadata=envelope["metadata"],
            expectations=tuple([expectation(item) for item in raw["expectations"]]),
        )


def new_recorded_case(
    case_id: str,
    *,
    family: str | None,
    split: str | None,
    payload: Any,
    metadata: Any,
    expectations: tuple[RecordedExpectation, ...],
) -> RecordedCase:
    """``RecordedCase(case_id, ..., RecordedEnvelope(payload, metadata), expectations)``
    without the named tuples' generated ``__new__`` (a run makes one per attempt)."""
    envelope = _new_tuple(RecordedEnvelope, (payload, metadata))
    return _new_tuple(RecordedCase, (case_id, family, split, envelope, expectations))


class RecordedCases(Sequence["Case"]):
    """A suite's cases that can also give each case as a report records it
    (``RecordedCase``), cheaper than the ``Case`` model indexing builds, and every id
    without building any case: what a run reads. Every subclass is listed in
    ``_RECORDING`` as it is made, so that ``recorded_case`` tells one by its exact type."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _RECORDING.add(cls)

    def recorded(self, index: int) -> RecordedCase:
        raise NotImplementedError

    @property
    def ids(self) -> Sequence[str]:
        raise NotImplementedError


_RECORDING: set[type[RecordedCases]] = set()
"""Every subclass of ``RecordedCases`` (``RecordedCases.__init_subclass__``)."""


def recorded_case(cases: Sequence[Case], index: int) -> Case | RecordedCase:
    """Case ``index`` of a suite's ``cases`` as a report records it: cheaply where they can
    (``RecordedCases``: a streamed case file, eval cases), the case itself otherwise."""
    # The exact type, looked up in a set: an isinstance against an ABC-derived class costs
    # more than the rest of this call (once per attempt).
    if type(cases) in _RECORDING:
        return cast(RecordedCases, cases).recorded(index)
    return cases[index]
