"""The ``score`` comparison: one check per score key of a Python eval's attempt.

An eval attempt's result document holds its scores in the order they were made, at
``/scores``, each ``{key, value?, passed?, notes?}`` plus where it came from (``at``: the
``file:line`` of a failed assertion; ``by``: the evaluator that made it) or, for a score that
could not be taken, ``error``: the one sentence saying why. The check for key ``K``
(expectation ``{"key": K}`` at ``/scores``) is a pure function of that list:

- ``error`` when any ``K`` score could not be taken (no ``value`` nor ``passed``, a value
  outside 0..1, an evaluator that raised): a check that could not run never passes;
- ``passed`` when every ``K`` score that has ``passed`` passed, ``failed`` otherwise, its
  reason naming the first that did not (an assertion by its place, an evaluator by name)
  and saying its notes (an assertion's message), as EZVals shows them;
- ``not_run`` when this attempt made no ``K`` score with ``passed`` (other attempts of the
  case did): absent is not a failure, and not a pass either.

Reasons name keys, evaluators and source places, and a failed score's notes: the sentence
the eval's author wrote for a failure (an ``assert``'s message), kept in the report as EZVals
keeps it. Notes are shortened to one line of at most ``NOTES_SHOWN`` characters. An author
often puts the output itself in that sentence (``assert out == x, f"got {out}"``), so what CI
shows by default (the comment, the summary, JUnit, annotations, the terminal, the HTML page)
takes ``public_reason``: the reason without its notes, as private as the output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from goldgate.scoring.outcomes import CheckOutcome, Outcome

__all__ = [
    "SCORES_PATH",
    "SCORE_COMPARISON",
    "add_value",
    "public_reason",
    "score_check",
    "score_key",
    "value_figures",
]

SCORE_COMPARISON: Final = "score"
SCORES_PATH: Final = "/scores"
NOTES_SHOWN: Final = 300


def score_key(expected: Any) -> str | None:
    """The key a ``score`` expectation checks (``{"key": K}``), or ``None`` if malformed."""
    if isinstance(expected, Mapping) and isinstance(expected.get("key"), str):
        key: str = expected["key"]
        return key
    return None


def _notes(notes: Any) -> str:
    if not isinstance(notes, str):
        return ""
    line = " ".join(notes.split())
    return line if len(line) <= NOTES_SHOWN else line[: NOTES_SHOWN - 3] + "..."


def _failure(entry: Mapping[str, Any], key: str) -> str:
    where = entry.get("at")
    by = entry.get("by")
    if isinstance(where, str):
        said = f"the assertion at {where} failed"
    elif isinstance(by, str):
        said = f"evaluator '{by}' scored '{key}' as not passed"
    else:
        said = f"score '{key}' did not pass"
    notes = _notes(entry.get("notes"))
    return f"{said}: {notes}" if notes else said


_WITH_NOTES: Final = re.compile(
    r"(the assertion at .+?:\d+ failed|evaluator '.*?' scored '.*?' as not passed"
    r"|score '.*?' did not pass): .*?( \(\d+ of \d+ '.*' scores passed\))?"
)


def public_reason(reason: str) -> str:
    """A failed score check's reason (``_failure``) without the author's notes, which may
    hold the output: what CI shows unless values are asked for. Any other reason as it is."""
    match = _WITH_NOTES.fullmatch(reason)
    if match is None:
        return reason
    said, tally = match.group(1), match.group(2) or ""
    return f"{said} (its message is in the report){tally}"


_PASSED: Final = CheckOutcome(Outcome.PASSED)


def score_check(scores: Any, expected: Any) -> CheckOutcome:
    """The outcome of the ``score`` expectation ``expected`` against the list at ``/scores``."""
    if type(scores) is list and len(scores) == 1 and type(expected) is dict:
        # The common case, decided without building lists: one passing score of the key.
        only = scores[0]
        if (
            type(only) is dict
            and only.get("passed") is True
            and "error" not in only
            and only.get("key") == expected.get("key")
            and type(only["key"]) is str
        ):
            return _PASSED
    key = score_key(expected)
    if key is None:
        return CheckOutcome(Outcome.ERROR, "a score expectation names no key")
    if not isinstance(scores, list | tuple):
        return CheckOutcome(Outcome.ERROR, "the attempt's result holds no list of scores")
    judged: list[Mapping[str, Any]] = []
    for entry in scores:
        if type(entry) is not dict and not isinstance(entry, Mapping):
            continue
        if entry.get("key") != key:
            continue
        error = entry.get("error")
        if error is not None:
            return CheckOutcome(Outcome.ERROR, str(error))
        if isinstance(entry.get("passed"), bool):
            judged.append(entry)
    if not judged:
        return CheckOutcome(Outcome.NOT_RUN, f"this attempt made no '{key}' score with passed")
    failed = [entry for entry in judged if not entry["passed"]]
    if not failed:
        return CheckOutcome(Outcome.PASSED)
    reason = _failure(failed[0], key)
    if len(judged) > 1:
        reason += f" ({len(judged) - len(failed)} of {len(judged)} '{key}' scores passed)"
    return CheckOutcome(Outcome.FAILED, reason)


def add_value(values: dict[str, list[float]], entry: Mapping[str, Any]) -> None:
    """Sum score ``entry``'s numeric value into ``values`` (key -> [sum, min, count]); an
    entry that could not be taken or holds no number adds nothing. ``entry["key"]`` is a
    string. Also what reading a report back recomputes (``report.verify``)."""
    value = entry.get("value")
    if "error" in entry or isinstance(value, bool) or not isinstance(value, int | float):
        return
    figures = values.get(entry["key"])
    if figures is None:
        values[entry["key"]] = [float(value), float(value), 1.0]
    else:
        figures[0] += value
        figures[1] = min(figures[1], value)
        figures[2] += 1


def value_figures(values: Mapping[str, list[float]]) -> dict[str, float | None]:
    """The summary figures ``KEY.mean``, ``KEY.min`` and ``KEY.count`` of summed values."""
    figures: dict[str, float | None] = {}
    for key, (total, low, count) in values.items():
        figures[f"{key}.mean"] = total / count
        figures[f"{key}.min"] = low
        figures[f"{key}.count"] = count
    return figures
