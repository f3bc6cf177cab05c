"""What one check produced: its outcome, a safe one-sentence reason, and what it looked at.

A reason is a gate message: it names types, lengths, counts, paths and pattern indexes, never
the actual value, the expected value or the case input, so it is safe to print anywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, Literal

from goldgate.base.frozen import built

__all__ = [
    "ABSENT_REASON",
    "NO_TEXT_OPTIONS",
    "CheckOutcome",
    "JudgeOutcome",
    "Outcome",
    "TextOptionFigures",
    "check_of_values",
    "check_values",
    "not_run",
    "not_run_reason",
]

ABSENT_REASON = "nothing at the path (absent)"
"""The reason of every comparison whose path resolves to nothing (absent is never null)."""


class Outcome(StrEnum):
    """How one check ended."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    """The check could not run: a scorer raised, the gold is malformed, a source is out of range."""
    NOT_RUN = "not_run"
    """The attempt failed or was skipped, or the check declares nothing to verify."""


JudgeVerdict = Literal["pass", "fail"]


@dataclass(frozen=True)
class JudgeOutcome:
    """What a judge said of one answer: its verdict (None: no verdict), whether that decided
    the check, and its reason (private, like every reason taken from data: a report keeps it
    only with details, and no safe rendering shows it)."""

    name: str
    revision: str
    verdict: JudgeVerdict | None
    decided: bool
    reason: str | None = None

    @property
    def label(self) -> str:
        """``name@revision``, as renderings name a judge."""
        return f"{self.name}@{self.revision}"


@dataclass(frozen=True)
class CheckOutcome:
    """One expectation applied to one attempt.

    ``actual`` is a plain (thawed) copy of the value found at the expectation's path, ``None``
    when nothing was there (``actual_present`` tells absent from JSON ``null``). The text
    fields are ``None`` for other comparisons.
    """

    outcome: Outcome
    reason: str | None = None
    actual_present: bool = False
    actual: Any = None
    assertions_declared: int | None = None
    assertions_held: int | None = None
    adjudication: bool = False
    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None
    adjudicated: bool = False
    """A person's verdict, recorded in the project's verdict store for this very answer,
    decided the check (``goldgate.adjudication``); it no longer waits in the queue."""
    judge: JudgeOutcome | None = None
    """What the expectation's judge said of the answer (``scoring.judges``): it decided the
    check (``decided``) or only suggested a verdict beside the queued answer."""

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome):
            object.__setattr__(self, "outcome", Outcome(self.outcome))
        if self.outcome is not Outcome.PASSED and not self.reason:
            raise ValueError(f"a check outcome '{self.outcome}' needs a reason")
        if not self.actual_present and self.actual is not None:
            raise ValueError("an absent actual value must be recorded as None")

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED


def not_run(reason: str) -> CheckOutcome:
    """The outcome of a check whose attempt failed or was skipped: nothing was looked at."""
    return CheckOutcome(Outcome.NOT_RUN, reason)


def not_run_reason(status: str, reason: str | None) -> str:
    """The reason every check of an attempt that did not complete (``status``, and the
    attempt's own ``reason``) carries."""
    if status == "failed":
        return f"the attempt failed: {reason}"
    return reason or f"the attempt is {status}"


@dataclass(frozen=True)
class TextOptionFigures:
    """What a suite's text options found in one answer (``CheckOutcome``'s fields of the
    same names): whether it parsed as JSON (``json``) and how many of the ``requiredKeys``
    it has, of how many; None where the suite does not set that option."""

    json_parsed: bool | None = None
    required_keys_found: int | None = None
    required_keys_declared: int | None = None


NO_TEXT_OPTIONS = TextOptionFigures()
"""The figures of a check whose suite sets no text option (or that is no text check)."""


def scored(
    outcome: Outcome,
    reason: str | None,
    *,
    actual_present: bool,
    actual: Any,
    assertions_declared: int | None = None,
    assertions_held: int | None = None,
    adjudication: bool = False,
    options: TextOptionFigures = NO_TEXT_OPTIONS,
) -> CheckOutcome:
    """``CheckOutcome(...)`` with these fields, built without running its checks: for the
    comparisons' own outcomes, which hold its invariants by construction (an ``Outcome``, a
    reason unless passed, ``actual`` None when absent). Every attempt makes one per check.
    A text check also says how many of its assertions were declared and held, whether it
    waits for a person (``adjudication``) and what the suite's text ``options`` found."""
    return built(
        CheckOutcome,
        {
            "outcome": outcome,
            "reason": reason,
            "actual_present": actual_present,
            "actual": actual,
            "assertions_declared": assertions_declared,
            "assertions_held": assertions_held,
            "adjudication": adjudication,
            "json_parsed": options.json_parsed,
            "required_keys_found": options.required_keys_found,
            "required_keys_declared": options.required_keys_declared,
            "adjudicated": False,
            "judge": None,
        },
    )


_FIELDS = tuple(field.name for field in fields(CheckOutcome))
check_values: Callable[[CheckOutcome], tuple[Any, ...]] = attrgetter(*_FIELDS)
"""A check's fields in declaration order: what crosses to another process (a tuple pickles
in a fraction of the time the object takes)."""


def check_of_values(values: tuple[Any, ...]) -> CheckOutcome:
    """The check ``check_values`` gave ``values`` of."""
    return built(CheckOutcome, dict(zip(_FIELDS, values, strict=True)))
