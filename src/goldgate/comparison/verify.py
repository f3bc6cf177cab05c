"""A comparison file is data, not a verdict, like a report: what it classifies is recomputed.

Where the baseline it names is on disk with the digest it records, the comparison is made
again from the two reports and every figure must be what it says (the time it was made, the
goldgate version and the paths as given aside). Otherwise what it says must at least agree
with itself: each suite's improved, regressed and mixed counts are its listed changes, the
overall counts are the suites' sums, and ``regressions`` is set only when an attempt
regressed or is mixed.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from itertools import zip_longest
from pathlib import Path
from typing import Any

from goldgate.base.errors import GoldgateError, ReportRefusedError
from goldgate.base.jsonvalue import json_equal
from goldgate.comparison.models import CLASSES, Comparison

__all__ = ["report_file_digest", "verify_comparison"]

_AS_MADE = {"created_at", "goldgate_version"}
"""Fields of a comparison that a second comparison of the same reports does not repeat."""


def verify_comparison(comparison: Comparison, path: str, candidate: Path) -> None:
    """Refuse (``ReportRefusedError``) the comparison read from ``path``, whose candidate is
    the report at ``candidate``, where its figures are not what its reports give."""
    baseline = Path(comparison.baseline.path)
    if _digest_of(baseline) == comparison.baseline.digest:
        _recomputed(comparison, path, candidate, baseline)
    else:
        _consistent(comparison, path)


def report_file_digest(path: Path) -> str:
    """The sha256 of a report file's bytes, read for that alone (within the memory bound:
    once its size, and nothing held after)."""
    from goldgate.report.digests import bytes_digest
    from goldgate.report.io import read_report_bytes

    return bytes_digest(read_report_bytes(path, held=0, peak=1))


def _digest_of(path: Path) -> str | None:
    try:
        return report_file_digest(path)
    except (OSError, GoldgateError):  # not there: the comparison is checked against itself
        return None


def _recomputed(comparison: Comparison, path: str, candidate: Path, baseline: Path) -> None:
    from goldgate.comparison import compare

    try:
        made = datetime.fromisoformat(comparison.created_at)
    except ValueError:
        raise ReportRefusedError(f"{path}: created_at is not a date and time.") from None
    again = compare(candidate, baseline, partial=comparison.mode == "partial", now=made)
    stored = _plain(comparison)
    fresh = _plain(again)
    for side in ("candidate", "baseline"):  # the paths as given when each was made
        fresh[side]["path"] = stored[side]["path"]
    for key in type(again).model_fields:
        if key in _AS_MADE:
            continue
        if key == "suites":  # compared piece by piece: the fresh lists may be spooled
            same = _same_pieces(comparison.suites, again.suites)
        else:
            same = json_equal(stored.get(key), fresh[key])
        if not same:
            raise ReportRefusedError(
                f"{path}: stored /{key} is not what comparing its candidate and baseline "
                "reports gives; the comparison was altered or is corrupt."
            )


def _plain(comparison: Comparison) -> dict[str, Any]:
    return comparison.model_dump(mode="json", exclude={*_AS_MADE, "suites"})


def _same_pieces(stored: object, fresh: object) -> bool:
    """Whether two parts of comparisons are the same JSON, compared as their file's pieces
    (``json_pieces``): a list spooled to a file is read once, never held whole. The stored
    side was validated into the same models, so the same values give the same bytes."""
    from goldgate.comparison import json_pieces

    missing = object()
    return all(
        mine == theirs
        for mine, theirs in zip_longest(json_pieces(stored), json_pieces(fresh), fillvalue=missing)
    )


def _refused(path: str, where: str, stored: Any, computed: Any) -> ReportRefusedError:
    return ReportRefusedError(
        f"{path}: stored {where} is {stored!r} but its own entries give {computed!r}; the "
        "comparison was altered or is corrupt."
    )


def _consistent(comparison: Comparison, path: str) -> None:
    totals: Counter[str] = Counter()
    for index, suite in enumerate(comparison.suites):
        listed = Counter(change.change for change in suite.changes)
        counts = suite.figures.attempts
        for name in CLASSES[:3]:
            stored = _count(counts, name)
            if stored != listed[name]:
                where = f"/suites/{index}/figures/attempts/{name}"
                raise _refused(path, where, stored, listed[name])
        for name in CLASSES:
            totals[name] += _count(counts, name)
    overall = comparison.overall.attempts
    for name in CLASSES:
        if _count(overall, name) != totals[name]:
            where = f"/overall/attempts/{name.replace(' ', '_')}"
            raise _refused(path, where, _count(overall, name), totals[name])
    if comparison.regressions != bool(comparison.classes.regressions):
        raise _refused(path, "/regressions", comparison.regressions, not comparison.regressions)


def _count(counts: Any, name: str) -> int:
    """The count of the class ``name`` ("gold changed" is the field ``gold_changed``)."""
    return int(getattr(counts, name.replace(" ", "_")))
