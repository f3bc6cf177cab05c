"""What makes two report sides incomparable: ``InvalidInputError`` naming the first thing.

Both sides must be complete and written with details, and agree on the scorers' revisions.
Each pair of suites must name the same target; without ``--partial`` the reports must also
hold the same suites, cases (by id, input and gold) and metric catalogs, in order. The
refusals name what differs, and values only by their digest.
"""

from __future__ import annotations

from goldgate.base.errors import InvalidInputError
from goldgate.comparison.opened import CaseKeys, ReportSide, SuiteSide
from goldgate.comparison.sides import CaseSide
from goldgate.report.digests import bytes_digest, value_digest
from goldgate.report.models import MetricResult

__all__ = [
    "catalog",
    "no_details",
    "one_side_only",
    "other_case",
    "other_gold",
    "other_input",
    "require_complete",
    "require_same_cases",
    "require_same_catalogs",
    "require_same_scorers",
    "require_same_suites",
    "require_same_target",
]


def _refuse(what: str) -> InvalidInputError:
    return InvalidInputError(f"cannot compare: {what}.")


def _sides(label: str, candidate: object, baseline: object) -> str:
    return f"{label} is {candidate!r} in the candidate but {baseline!r} in the baseline"


def _digests(label: str, candidate: bytes | object, baseline: bytes | object) -> str:
    def digest(value: bytes | object) -> str:
        return bytes_digest(value) if isinstance(value, bytes) else value_digest(value)

    return f"{label} differs (candidate {digest(candidate)}, baseline {digest(baseline)})"


def require_complete(side: ReportSide) -> None:
    """The report's own fields say it is complete (each case's input is checked as the
    comparison reads it: ``no_details``)."""
    header = side.header
    if not header.complete:
        raise _refuse(
            f"the {side.label} report {side.path} is incomplete (interrupted by "
            f"{header.interruption or 'a signal'}); compare needs complete attempts"
        )


def no_details(label: str, path: str, suite: str, case_id: str) -> InvalidInputError:
    """The refusal of a case that has no input (its report written without details)."""
    return _refuse(
        f"the {label} report {path} was written without details "
        f"(suite {suite!r}, case {case_id!r} has no input); compare needs "
        "inputs to match"
    )


def require_same_scorers(candidate: ReportSide, baseline: ReportSide) -> None:
    before = {scorer.name: scorer.revision for scorer in baseline.header.scorers}
    for scorer in candidate.header.scorers:
        if scorer.name in before and before[scorer.name] != scorer.revision:
            raise _refuse(
                _sides(f"scorer {scorer.name!r} revision", scorer.revision, before[scorer.name])
            )


def require_same_target(candidate: SuiteSide, baseline: SuiteSide) -> None:
    where = f"suite {candidate.name!r}: "
    now, before = candidate.record, baseline.record
    for label in ("workflow", "flow", "step"):
        if getattr(now, label) != getattr(before, label):
            raise _refuse(
                where + _sides(f"the {label}", getattr(now, label), getattr(before, label))
            )
    if now.target.kind != before.target.kind:
        raise _refuse(where + _sides("the target kind", now.target.kind, before.target.kind))
    if value_digest(now.target.identity) != value_digest(before.target.identity):
        raise _refuse(
            where + _digests("the target identity", now.target.identity, before.target.identity)
        )


def catalog(metric: MetricResult) -> tuple[str, str, tuple[str | None, ...]]:
    return metric.kind, metric.path, tuple(metric.labels)


def require_same_catalogs(candidate: SuiteSide, baseline: SuiteSide) -> None:
    where = f"suite {candidate.name!r}: "
    before = {metric.name: metric for metric in baseline.record.metrics}
    now = {metric.name: metric for metric in candidate.record.metrics}
    for name in [*now, *(n for n in before if n not in now)]:
        if name not in before or name not in now:
            side = "candidate" if name in now else "baseline"
            raise _refuse(where + f"metric {name!r} is in the {side} only")
        if catalog(now[name]) != catalog(before[name]):
            raise _refuse(
                where
                + _digests(
                    f"the catalog of metric {name!r}", catalog(now[name]), catalog(before[name])
                )
            )


def _gold_difference(candidate: CaseSide, baseline: CaseSide) -> str:
    now, before = candidate.expectations, baseline.expectations
    if len(now) != len(before):
        return _sides("the number of expectations", len(now), len(before))
    for mine, theirs in zip(now, before, strict=True):
        for label in ("name", "path", "comparison", "scorer"):
            if getattr(mine, label) != getattr(theirs, label):
                return f"expectation {mine.name!r}: " + _sides(
                    label, getattr(mine, label), getattr(theirs, label)
                )
        if mine.key() != theirs.key():
            return f"expectation {mine.name!r}: " + _digests(
                "expected", mine.expected, theirs.expected
            )
    return "the gold differs"  # pragma: no cover - equal expectations have equal keys


def _digest(sha256: bytes) -> str:
    return "sha256:" + sha256.hex()


def other_case(suite: str, position: int, now: str, before: str) -> InvalidInputError:
    """The refusal (full mode) of two cases at the same place (from 1) with other ids."""
    return _refuse(f"suite {suite!r}: " + _sides(f"case {position}", now, before) + _PARTIAL)


def one_side_only(suite: str, case_id: str, side: str) -> InvalidInputError:
    """The refusal (full mode) of a case past the other side's last."""
    return _refuse(f"suite {suite!r}: case {case_id!r} is in the {side} only" + _PARTIAL)


def other_input(suite: str, case_id: str, mine: bytes, theirs: bytes) -> InvalidInputError:
    """The refusal (full mode) of a case whose input's sha256 differs (``mine``, ``theirs``)."""
    differs = f"the input differs (candidate {_digest(mine)}, baseline {_digest(theirs)})"
    return _refuse(f"suite {suite!r}, case {case_id!r}: " + differs + _PARTIAL)


def other_gold(suite: str, candidate: CaseSide, baseline: CaseSide) -> InvalidInputError:
    """The refusal (full mode) of a case whose gold differs, saying how."""
    difference = _gold_difference(candidate, baseline)
    case = f"suite {suite!r}, case {candidate.id!r}: "
    return _refuse(case + "the gold differs: " + difference + _PARTIAL)


def require_same_cases(
    candidate: SuiteSide, baseline: SuiteSide, now_keys: CaseKeys, before_keys: CaseKeys
) -> None:
    """The same cases in the same order, by id, input and gold: decided from the sides'
    ``CaseKeys``; the cases are read again only to say how a gold differs. (Where no id
    repeats, ``comparison.walk`` decides the same place by place, without them.)"""
    for position, (now, before) in enumerate(
        zip(now_keys.ids, before_keys.ids, strict=False), start=1
    ):
        if now != before:
            raise other_case(candidate.name, position, now, before)
    if len(now_keys) != len(before_keys):
        longer = now_keys if len(now_keys) > len(before_keys) else before_keys
        extra = longer.ids[min(len(now_keys), len(before_keys))]
        side = "candidate" if longer is now_keys else "baseline"
        raise one_side_only(candidate.name, extra, side)
    for place, case_id in enumerate(now_keys.ids):
        mine, theirs = now_keys.input_digest(place), before_keys.input_digest(place)
        if mine != theirs:
            raise other_input(candidate.name, case_id, mine, theirs)
        if now_keys.gold_digest(place) != before_keys.gold_digest(place):
            raise other_gold(candidate.name, candidate.case(place), baseline.case(place))


_PARTIAL = " (--partial compares what matches and lists the rest)"


def require_same_suites(candidate: ReportSide, baseline: ReportSide) -> None:
    now = [suite.name for suite in candidate.suites]
    before = [suite.name for suite in baseline.suites]
    for position, (mine, theirs) in enumerate(zip(now, before, strict=False), start=1):
        if mine != theirs:
            raise _refuse(_sides(f"suite {position}", mine, theirs) + _PARTIAL)
    if len(now) != len(before):
        extra = now[len(before)] if len(now) > len(before) else before[len(now)]
        side = "candidate" if len(now) > len(before) else "baseline"
        raise _refuse(f"suite {extra!r} is in the {side} only" + _PARTIAL)
