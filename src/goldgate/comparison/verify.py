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
from goldgate.comparison.models import CLASSES, COMPARISON_FORMAT, Comparison

__all__ = ["report_file_digest", "streamed_comparison", "verify_comparison"]

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


_HEAD = 1 << 20
"""Bytes of a comparison file read for what precedes its figures (its format, when it was
made, its mode and its two reports: a few kilobytes)."""


def streamed_comparison(path: Path, candidate: Path) -> Comparison | None:
    """The comparison file at ``path`` (whose candidate is the report at ``candidate``) read
    as a stream (issue 43): where its baseline is on disk with the digest it records, the
    comparison is made again from the two reports and the file must be, byte for byte, that
    comparison's file (as made then, by that version, with those paths): then that
    comparison is it, and the file was never held whole. None where that does not hold (a
    file written otherwise, altered, not a comparison, its baseline gone): the caller reads
    it whole and verifies it (``verify_comparison``), refusing it in the words it always has."""
    from goldgate.base.files import open_regular_file
    from goldgate.comparison import compare, comparison_chunks

    try:
        with open_regular_file(path, str(path), what="a comparison") as handle:
            head = _head(handle.read(_HEAD))
            if head is None:
                return None
            made, mode, version, paths = head
            if _digest_of(Path(paths[1][0])) != paths[1][1]:
                return None
            fresh = compare(candidate, Path(paths[1][0]), partial=mode == "partial", now=made)
            expected = fresh.model_copy(
                update={
                    "goldgate_version": version,
                    "candidate": fresh.candidate.model_copy(update={"path": paths[0][0]}),
                    "baseline": fresh.baseline.model_copy(update={"path": paths[1][0]}),
                }
            )
            handle.seek(0)
            for piece in comparison_chunks(expected):
                if handle.read(len(piece)) != piece:
                    return None
            return expected if handle.read(1) == b"" else None
    except (OSError, GoldgateError):
        return None


def _head(data: bytes) -> tuple[datetime, str, str, tuple[tuple[str, str], ...]] | None:
    """When the comparison in ``data`` (its first bytes, compact JSON as goldgate writes it)
    was made, its mode, goldgate's version and each report's path and digest; None where
    its members up to ``baseline`` are not those of a comparison file as written."""
    import json

    text = data.decode("utf-8", errors="ignore")  # a character cut at the end: never read
    decoder, found, place = json.JSONDecoder(), dict[str, Any](), 1
    try:
        if not text.startswith("{"):
            return None
        while "baseline" not in found:
            key, place = decoder.raw_decode(text, place)
            if not isinstance(key, str) or key in found or text[place] != ":":
                return None
            found[key], place = decoder.raw_decode(text, place + 1)
            if text[place] != ",":
                return None
            place += 1
        if list(found) != _HEAD_KEYS or found["format"] != COMPARISON_FORMAT:
            return None
        paths = tuple((found[side]["path"], found[side]["digest"]) for side in _SIDES)
        made = datetime.fromisoformat(found["created_at"])
        mode, version = found["mode"], found["goldgate_version"]
    except (ValueError, IndexError, KeyError, TypeError):
        return None
    texts = [mode, version, *(each for pair in paths for each in pair)]
    if not all(isinstance(each, str) for each in texts):
        return None
    return made, mode, version, paths


_SIDES = ("candidate", "baseline")
_HEAD_KEYS = ["format", "goldgate_version", "created_at", "mode", *_SIDES]
