"""The text engine as a library: one answer scored against the assertions its case declares.

``score(output, expect)`` answers in the engine contract of seed 004 (``{scores, pass,
reason, detail}``) and is the ``text`` comparison itself: the same compiled assertions, the
same counting and the same one-sentence reasons (``goldgate.scoring.text``), so a number
this function gives is the number a report gives for the same answer and ``expect``.

- ``scores``: ``expect.satisfied`` (held / declared; absent when nothing is declared, since
  absent is not zero), ``json.parse`` (0 or 1, only with ``json=True``),
  ``schema.requiredCoverage`` (found / declared, only with ``required_keys``) and the
  counter ``text.chars`` (only for a text answer).
- ``pass``: ``True`` when every declared assertion held, ``False`` when one did not or could
  not run (a broken pattern, ``requiredKeys`` on text that is not JSON, a malformed
  ``expect``), ``None`` when ``expect`` declares nothing (prose, or only a ``note``): the
  answer waits for a person (``detail["adjudication"]``).
- ``reason``: one sentence about the first failure, ``None`` when it passed.
- ``detail``: ``outcome`` (passed, failed, error, not_run), ``assertions_declared``,
  ``assertions_held``, ``adjudication`` and, with the options, ``json_parsed``,
  ``required_keys_found`` and ``required_keys_declared``.

Suite-wide options are recorded, never asserted: ``json`` and ``required_keys`` add scores a
threshold can gate on, they do not change ``pass``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goldgate.gold.compiled import compile_text
from goldgate.gold.models import TextOptions
from goldgate.scoring.outcomes import CheckOutcome, Outcome
from goldgate.scoring.text import score_text

__all__ = ["check_outcome", "engine_result", "score", "text_options"]


def text_options(json: bool = False, required_keys: Sequence[str] = ()) -> TextOptions | None:
    """The suite options of the ``text`` comparison, ``None`` when there are none. A bad
    option is a ``TypeError`` or ``ValueError`` naming it (a caller's mistake, not a score)."""
    if not isinstance(json, bool):
        raise TypeError(f"json must be a bool, not {type(json).__name__}.")
    if isinstance(required_keys, str) or not isinstance(required_keys, Sequence):
        raise TypeError("required_keys must be a sequence of dot paths, not a single string.")
    for index, path in enumerate(required_keys):
        if not isinstance(path, str) or not path or "" in path.split("."):
            raise ValueError(
                f"required_keys[{index}] must be a dot path with no empty segment, not {path!r}."
            )
    if not json and not required_keys:
        return None
    return TextOptions.model_validate({"json": json, "requiredKeys": list(required_keys)})


def check_outcome(
    output: Any, expect: Any, *, json: bool = False, required_keys: Sequence[str] = ()
) -> CheckOutcome:
    """The ``text`` comparison's outcome for ``output`` (the check a report would record)."""
    return score_text(output, compile_text(expect), text_options(json, required_keys))


def score(
    output: Any, expect: Any, *, json: bool = False, required_keys: Sequence[str] = ()
) -> dict[str, Any]:
    """Score one answer against its case's ``expect``: ``{scores, pass, reason, detail}``."""
    outcome = check_outcome(output, expect, json=json, required_keys=required_keys)
    return engine_result(outcome, output)


def engine_result(outcome: CheckOutcome, output: Any) -> dict[str, Any]:
    """A text check's outcome in the engine contract."""
    scores: dict[str, float] = {}
    declared = outcome.assertions_declared
    if declared:
        scores["expect.satisfied"] = (outcome.assertions_held or 0) / declared
    if outcome.json_parsed is not None:
        scores["json.parse"] = 1.0 if outcome.json_parsed else 0.0
    if outcome.required_keys_declared:
        scores["schema.requiredCoverage"] = (
            outcome.required_keys_found or 0
        ) / outcome.required_keys_declared
    if isinstance(output, str):
        scores["text.chars"] = float(len(output))
    detail: dict[str, Any] = {
        "outcome": outcome.outcome.value,
        "assertions_declared": declared or 0,
        "assertions_held": outcome.assertions_held or 0,
        "adjudication": outcome.adjudication,
    }
    for name in ("json_parsed", "required_keys_found", "required_keys_declared"):
        value = getattr(outcome, name)
        if value is not None:
            detail[name] = value
    waiting = outcome.outcome is Outcome.NOT_RUN
    passed = None if waiting else outcome.outcome is Outcome.PASSED
    return {"scores": scores, "pass": passed, "reason": outcome.reason, "detail": detail}
