"""Data made safe to show: one line, no control characters, bounded length, plain figures.

Names, ids and reasons come from gold, targets and report files, so every renderer treats
them as hostile: a newline could start a workflow command in a CI log, a control character
could rewrite a terminal, a 100,000-character id could blow a comment's size limit.
Format-specific escaping (Markdown, XML, workflow commands) is applied on top, by each
renderer.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from goldgate.base import english
from goldgate.base.textsafe import redact

# C0 and C1 controls, DEL, lone surrogates, bidirectional overrides, isolates and marks,
# zero-width and other invisible format characters (soft hyphen, interlinear annotation,
# tags: they make text read differently from what it is, or hide a mention or a workflow
# command from a check), line and paragraph separators, and the non-characters XML refuses.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\ud800-\udfff\u061c\u180e\u200b-\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000e0000-\U000e007f]+"
)
ELLIPSIS = "…"

NAME_LIMIT = 200
"""Characters of a name or id shown before it is shortened."""
REASON_LIMIT = 400
"""Characters of a reason shown before it is shortened."""
VALUE_LIMIT = 160
"""Characters of an expected or actual value (as JSON) shown before it is shortened."""


def one_line(text: object, limit: int = REASON_LIMIT) -> str:
    """``text`` on one line: every known secret value ``***`` (``textsafe.redact``), every
    run of unsafe characters one space, and anything past ``limit`` characters replaced by
    an ellipsis. Every renderer puts data through this (or ``name``, ``json_value``)."""
    # Secrets go first: escaping or shortening could split one from its match.
    cleaned = _UNSAFE.sub(" ", redact(str(text), fresh=False)).strip()
    if len(cleaned) > limit:
        return cleaned[: limit - 1] + ELLIPSIS
    return cleaned


def name(text: object) -> str:
    """A name or id, made safe and bounded."""
    return one_line(text, NAME_LIMIT)


def json_value(value: Any, present: bool = True, limit: int = VALUE_LIMIT) -> str:
    """An expected or actual value as compact JSON on one line, bounded (at ``limit``
    characters); ``(absent)`` when nothing was at the path (which is not ``null``)."""
    if not present:
        return "(absent)"
    try:
        # Each string is redacted before it is written as JSON: escaped (once more for a
        # string holding JSON), a secret would no longer match.
        text = json.dumps(_redacted(value), ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # NaN from a hand-made report: show it, do not fail
        text = repr(value)
    return one_line(text, limit)


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value, fresh=False)
    if isinstance(value, dict):
        return {redact(str(key), fresh=False): _redacted(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item) for item in value]
    return value


def bound(minimum: float | None, maximum: float | None) -> str:
    """A threshold's bound as it reads: its minimum, or ``at most X`` for a maximum (cost,
    latency), so that nobody takes a cost limit for a floor."""
    return ratio(minimum) if maximum is None else f"at most {ratio(maximum)}"


def ratio(value: float | None) -> str:
    """A ratio in [0, 1] as a short decimal (0.95, 1, 0.3333); ``n/a`` when unmeasured."""
    if value is None or not math.isfinite(value):
        return "n/a"
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def percent(value: float | None) -> str:
    """A ratio as a percentage with one decimal (95.0%); ``n/a`` when unmeasured."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value * 100:.1f}%"


def seconds(latency_ms: float | None) -> float | None:
    """A latency in milliseconds as seconds rounded to 3 decimals (JUnit's limit)."""
    if latency_ms is None or not math.isfinite(latency_ms) or latency_ms < 0:
        return None
    return round(latency_ms / 1000, 3)


count = english.count
"""``1 case``, ``2 cases``: the one pluralisation (``base.english.count``), here for the
renderers."""
