"""A case of a report reduced to what comparing needs.

A report of 100,000 attempts is 40 MB of JSON and most of it is result documents, which
full validation would copy into models. A reduced case (``CaseSide``) keeps, per attempt,
its status, latency, usage and its checks' outcomes as one short string (``P`` passed,
``F`` failed, ``E`` error, ``N`` not_run), and for a text check a person may judge, how it
was decided and the digest of the answer (so that a verdict recorded between two runs is
told from a changed answer); its input as read, whose canonical bytes (equal bytes, equal
values) are made only where re-scoring needs them (``case_key`` makes those of input and
gold for every case, as digests); and, where the caller asks for them, the saved result
documents (partial comparison re-scores those). Cases are checked by hand as they are
reduced, so a malformed report is refused with the place it breaks. A comparison reduces
one case of each side at a time (``comparison.opened``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter
from sys import intern
from typing import Any, NamedTuple

import orjson

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.jsonvalue import MISSING, canonical_json
from goldgate.base.pointers import resolve_pointer
from goldgate.scoring.adjudication import output_digest

__all__ = [
    "CODES",
    "AttemptSide",
    "CaseKey",
    "CaseSide",
    "Judged",
    "case_key",
    "gold_key",
    "reduce_case",
    "same_gold",
    "same_input",
]

CODES = {"passed": "P", "failed": "F", "error": "E", "not_run": "N"}
OUTCOMES = {code: outcome for outcome, code in CODES.items()}
_CODE = CODES.__getitem__
_OUTCOME = itemgetter("outcome")
_STATUSES = frozenset({"completed", "failed", "timed_out", "skipped", "cancelled"})


def canonical(value: Any) -> bytes:
    """Sorted-key JSON bytes: the identity of a value (orjson, or the canonical writer for
    what orjson refuses, such as integers beyond 64 bits). Copied to its own size: orjson's
    bytes keep the buffer it wrote into (4 KB for a short text), and a side keeps two per
    case."""
    try:
        return bytes(memoryview(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)))
    except orjson.JSONEncodeError:
        return canonical_json(value).encode("utf-8")


class Expectation(NamedTuple):
    """One expectation as compared (a tuple: made for every case of both reports)."""

    name: str
    path: str
    comparison: str
    scorer: str | None
    expected: Any

    def key(self) -> bytes:
        return canonical([self.name, self.path, self.comparison, self.scorer, self.expected])


VERDICT = "verdict"
"""A person's recorded verdict decided the check."""
WAITING = "waiting"
"""The check waits for a person's verdict: it has no outcome of its own (``not_run``)."""
QUEUED = "queued"
"""The check joined the adjudication queue but its assertions decided it."""
JUDGED = "judged:"
"""A calibrated judge decided the check: the state is ``judged:NAME@REVISION``, so that a
changed judge revision, or a judge decided on one side only, is told apart (a gold change)."""

Judged = tuple[str, str | None]
"""How a check a person may judge was decided (``VERDICT``, ``WAITING`` or ``QUEUED``) and
the digest of the answer it is about (``None`` when the result was not saved)."""


class AttemptSide(NamedTuple):
    """One attempt as compared (a tuple: 100,000 of them are made per report)."""

    attempt: int
    status: str
    latency_ms: float | None
    usage: Any
    codes: str
    """One letter per expectation, in gold order (``CODES``)."""
    result: Mapping[str, Any] | None = None
    """Kept only for the cases a caller asked for."""
    judged: tuple[Judged | None, ...] = ()
    """Per check, for text checks a person judged or may judge; empty when none was."""
    cost: float | None = None
    """The attempt's cost at its workflow's pricing (live suites)."""
    judge_cost: float | None = None
    """What asking judges about the attempt's answers cost, apart from ``cost``."""


@dataclass(frozen=True, slots=True)
class CaseSide:
    id: str
    input: Any
    """The case's input as read (``None`` without details): ``input_key`` makes its
    canonical bytes where they are needed (re-scoring), not for every case."""
    expectations: tuple[Expectation, ...]
    names: tuple[str, ...]
    attempts: tuple[AttemptSide, ...]

    def input_key(self) -> bytes:
        """The input's canonical bytes (``case_key``'s), ``b""`` where it has none."""
        return b"" if self.input is None else canonical(self.input)


_Fields = tuple[Any, Any, Any, Any, Any]


def _fields(item: Any) -> _Fields:
    """A stored expectation's name, path, comparison (``exact`` where left out), scorer and
    expected value: what compares and what makes its case's gold key."""
    return (
        item["name"],
        item["path"],
        item.get("comparison") or "exact",
        item.get("scorer"),
        item.get("expected"),
    )


def _expectations(raw: Any) -> tuple[Expectation, ...]:
    if not isinstance(raw, list):
        raise TypeError("expectations must be an array")
    found = []
    new = tuple.__new__  # Expectation(...) would go through a Python-level __new__
    for item in raw:  # ``_fields``, inlined: this runs for every expectation of both sides
        name, path = item["name"], item["path"]
        get = item.get
        comparison, scorer, expected = get("comparison") or "exact", get("scorer"), get("expected")
        if not (isinstance(name, str) and isinstance(path, str) and isinstance(comparison, str)):
            raise TypeError("an expectation's name, path and comparison are strings")
        if scorer is not None and not isinstance(scorer, str):
            raise TypeError("an expectation's scorer is a string")
        # Interned: every case of a suite names the same few, which the parser made anew each
        # time (a side of 100,000 cases held them 200,000 times).
        found.append(new(Expectation, (intern(name), intern(path), comparison, scorer, expected)))
    return tuple(found)


def _judged_state(check: Any) -> str | None:
    if not isinstance(check, dict):
        raise TypeError("a check is an object")
    if check.get("adjudicated") is True:
        return VERDICT
    said = check.get("judge")
    if isinstance(said, dict) and said.get("decided") is True:
        return f"{JUDGED}{said.get('name')}@{said.get('revision')}"
    if check.get("adjudication") is True:
        return WAITING if check.get("outcome") == "not_run" else QUEUED
    return None


def _answer_digest(result: Any, path: str) -> str | None:
    try:
        answer = resolve_pointer(result, path) if isinstance(result, dict) else MISSING
    except PointerSyntaxError:
        return None
    return output_digest(answer) if isinstance(answer, str) else None


def _judged(
    raw: Any, text_checks: tuple[tuple[int, str], ...], size: int
) -> tuple[Judged | None, ...]:
    """How each text check of a completed attempt was decided, where a person judged it or
    may judge it; ``()`` when no check was."""
    checks = raw["checks"]
    found: list[Judged | None] | None = None
    for position, path in text_checks:
        state = _judged_state(checks[position])
        if state is not None:
            if found is None:
                found = [None] * size
            found[position] = (state, _answer_digest(raw.get("result"), path))
    return () if found is None else tuple(found)


def _attempts(
    raws: Any, size: int, keep: bool, text_checks: tuple[tuple[int, str], ...] = ()
) -> tuple[AttemptSide, ...]:
    """A case's attempts, checked as they are reduced (this loop runs once per attempt of
    both reports: it is kept lean). ``text_checks``: (position, path) of each text check."""
    not_run = "N" * size
    reduced = []
    new = tuple.__new__  # AttemptSide(...) would go through a Python-level __new__
    for raw in raws:
        status = raw["status"]
        judged: tuple[Judged | None, ...] = ()
        if status == "completed":
            codes = "".join(map(_CODE, map(_OUTCOME, raw["checks"])))
            if len(codes) != size:
                raise ValueError(f"{len(codes)} checks for {size} expectations")
            if text_checks:
                judged = _judged(raw, text_checks, size)
        elif status in _STATUSES:
            codes = not_run
        else:
            raise ValueError(f"unknown attempt status {status!r}")
        number = raw["attempt"]
        if type(number) is not int or number < 1:
            raise TypeError("attempt must be a positive integer")
        latency = raw.get("latency_ms")
        if latency is not None and type(latency) is not float and type(latency) is not int:
            raise TypeError("latency_ms must be a number")
        result = raw.get("result") if keep else None
        usage, cost, judge_cost = raw.get("usage"), raw.get("cost"), raw.get("judge_cost")
        reduced.append(
            new(
                AttemptSide,
                (number, status, latency, usage, codes, result, judged, cost, judge_cost),
            )
        )
    return tuple(reduced)


def _gold_key(expectations: list[_Fields]) -> bytes:
    """The identity of a case's gold: its expectations' fields in order."""
    return canonical([list(fields) for fields in expectations])


class CaseKey(NamedTuple):
    """What a comparison keeps of a case before it compares (``comparison.opened``)."""

    id: str
    input_key: bytes
    """``b""`` where the case has no input (a report written without details)."""
    gold_key: bytes
    attempts: int


def gold_key(raw: Any) -> bytes:
    """The canonical bytes of a case's gold as ``case_key`` has them (equal bytes: the same
    gold); ``KeyError``, ``TypeError`` or ``ValueError`` where it is malformed."""
    items = raw["expectations"]
    if not isinstance(items, list):
        raise TypeError("expectations must be an array")
    return _gold_key([_fields(item) for item in items])


def _same_text(mine: Any, theirs: Any) -> bool:
    """Whether orjson writes ``mine`` and ``theirs`` as the same text (then they are the
    same JSON: equal types, equal values, in the same order); False where it cannot."""
    try:
        return orjson.dumps(mine) == orjson.dumps(theirs)
    except orjson.JSONEncodeError:  # an integer past 64 bits: told by the slower way
        return False


def same_input(mine: Any, theirs: Any) -> bool:
    """Whether two inputs are the same (their canonical bytes, ``CaseSide.input_key``,
    equal): at once where they are the very same JSON."""
    return _same_text(mine, theirs) or canonical(mine) == canonical(theirs)


def same_gold(raw: Any, other: Any) -> bool:
    """Whether two cases' gold is the same (``gold_key``'s bytes equal): at once where their
    stored expectations are the very same JSON, else by their keys; the errors of
    ``gold_key``."""
    return same_expectations(raw, other) or gold_key(raw) == gold_key(other)


def case_key(raw: Any) -> CaseKey:
    """A case's id, input, gold and number of attempts, as ``reduce_case`` has them, without
    reducing its attempts; ``KeyError``, ``TypeError`` or ``ValueError`` where it is
    malformed."""
    case_id = raw["id"]
    if not isinstance(case_id, str):
        raise TypeError("a case id is a string")
    gold = gold_key(raw)
    attempts = raw["attempts"]
    if not isinstance(attempts, list):
        raise TypeError("attempts must be an array")
    raw_input = raw.get("input")
    input_key = b"" if raw_input is None else canonical(raw_input)
    return CaseKey(case_id, input_key, gold, len(attempts))


def reduce_case(raw: Any, keep: bool, like: CaseSide | None = None) -> CaseSide:
    """A case's plain JSON reduced to what comparing needs (``keep``: with its attempts'
    result documents); ``KeyError``, ``TypeError`` or ``ValueError`` where it is malformed.
    ``like``: a case reduced from stored expectations that are the very JSON text of
    ``raw``'s (``same_expectations``), whose reduced expectations are taken, not made again
    (the other side of a compared pair, most of the time)."""
    case_id = raw["id"]
    if not isinstance(case_id, str):
        raise TypeError("a case id is a string")
    if like is None:
        expectations = _expectations(raw["expectations"])
        names = tuple(e.name for e in expectations)
    else:
        expectations, names = like.expectations, like.names
    text_checks = tuple(
        (position, e.path) for position, e in enumerate(expectations) if e.comparison == "text"
    )
    attempts = _attempts(raw["attempts"], len(expectations), keep, text_checks)
    return CaseSide(case_id, raw.get("input"), expectations, names, attempts)


def same_expectations(raw: Any, other: Any) -> bool:
    """Whether two cases' plain JSON hold their expectations as the very same JSON text
    (then they reduce to equal expectations, and the same gold); False where either is not
    an object with a list of them (their reduction says what is wrong)."""
    if type(raw) is not dict or type(other) is not dict:
        return False
    mine, theirs = raw.get("expectations"), other.get("expectations")
    return type(mine) is list and type(theirs) is list and _same_text(mine, theirs)
