"""What one attempt says for one metric, as a run collects it (without the metric models,
which only the metric's computation needs)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Final, Literal, TypeAlias

from goldgate.base.jsonvalue import MISSING, canonical_json

__all__ = ["Observation", "ObservationStatus", "ObservationTally"]

ObservationStatus: TypeAlias = Literal["observed", "skipped", "error"]
_STATUSES: Final = frozenset({"observed", "skipped", "error"})


@dataclass(frozen=True)
class Observation:
    """One attempt's contribution to a metric.

    ``gold`` is the case's expected value at the metric's path; ``status`` says whether the
    attempt produced a result document (``observed``), was skipped, or failed (``error``);
    ``predicted`` is the value at the metric's path in that document, ``MISSING`` when absent.
    """

    case_id: str
    attempt: int
    gold: Any
    status: ObservationStatus
    predicted: Any = MISSING

    def __post_init__(self) -> None:
        if self.status not in _STATUSES:
            raise ValueError(f"observation status must be one of {sorted(_STATUSES)}")


class ObservationTally:
    """A metric's observations as a tally: each distinct observation (its gold, status and
    prediction) once, the first attempt that made it and how many did, in the order first
    made. A metric counts observations (``scoring.metrics``), so the observations it is
    given again (iterating the tally: each distinct one as many times as it was made, in that order)
    give the result all of them in the suite's order give, and the refusal of gold outside
    its catalog names the same first case; held meanwhile: the distinct observations, not
    one an attempt (issue 43: reading a report does not grow with its cases)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: dict[tuple[object, ...], list[Any]] = {}

    def add(self, observation: Observation) -> None:
        key = (_key(observation.gold), observation.status, _key(observation.predicted))
        found = self.seen.get(key)
        if found is None:
            self.seen[key] = [observation, 1]
        else:
            found[1] += 1

    def observe(
        self, case_id: str, attempt: int, *, gold: Any, status: ObservationStatus, predicted: Any
    ) -> None:
        """``add(Observation(case_id, attempt, gold, status, predicted))``, the observation
        made only where it is new (a tally keeps the first of each)."""
        found = self.seen.get((_key(gold), status, _key(predicted)))
        if found is None:
            self.add(Observation(case_id, attempt, gold, status, predicted))
        else:
            found[1] += 1

    def __iter__(self) -> Iterator[Observation]:
        for observation, count in self.seen.values():
            yield from repeat(observation, count)


def _key(value: Any) -> tuple[object, ...]:
    """What tells two observed values apart as a metric does (by type and value: ``1``,
    ``1.0``, ``True`` and ``"1"`` are different labels or none)."""
    if value is MISSING:
        return (MISSING,)
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    return (kind, canonical_json(value))
