"""What one attempt says for one metric, as a run collects it (without the metric models,
which only the metric's computation needs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from goldgate.base.jsonvalue import MISSING

__all__ = ["Observation", "ObservationStatus"]

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
