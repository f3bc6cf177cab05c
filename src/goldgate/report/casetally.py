"""One suite's cases read back into the figures its record states (``report.verify``): each
case's attempts counted, each stored check typed and, where its comparison is pure and the
report has details, scored again from the attempt's result and the case's gold; the
observations of the suite's metrics; the checks waiting for a person and their queue.

Split from ``report.verify``, which compares what this tallies with what the suite stores.
A malformed case raises ``KeyError``, ``TypeError``, ``ValueError`` or ``AttributeError``
here, which ``report.verify`` turns into the refusal that names the case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from goldgate.base.errors import ReportRefusedError
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import format_pointer, parse_pointer, resolve
from goldgate.gold.compiled import CompiledExpectation, compile_expectation
from goldgate.gold.kinds import Kinds, comparison_kinds
from goldgate.gold.maxima import ATTEMPT_ROOT
from goldgate.gold.recorded import RecordedExpectation
from goldgate.report.agreement import (
    agree,
    check_disagreement,
    same_check,
    stored_count,
    stored_flag,
    stored_optional_flag,
)
from goldgate.report.livefigures import LiveTally
from goldgate.report.verdicts import CHECK_OUTCOMES, RUNTIME_FAILURES, Figures
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.evalscores import add_value
from goldgate.scoring.kinds import KINDS, rescored_kinds
from goldgate.scoring.kinds.kind import VerdictOf
from goldgate.scoring.observations import ObservationStatus, ObservationTally
from goldgate.scoring.score import attempt_document, score_compiled

if TYPE_CHECKING:
    from goldgate.gold.models import TextOptions
    from goldgate.report.models import SuiteRecord

__all__ = ["CaseTally", "compile_stored"]

_PLAIN_KEYS = frozenset({"outcome", "reason"})


class _Check(NamedTuple):
    """What ``Figures.add`` reads of a check, taken from its stored record."""

    outcome: str
    adjudication: bool
    assertions_declared: int | None
    assertions_held: int | None
    actual: Any
    json_parsed: bool | None
    required_keys_declared: int | None
    required_keys_found: int | None


_PLAIN_VIEWS = {
    outcome: _Check(outcome, False, None, None, None, None, None, None)
    for outcome in CHECK_OUTCOMES
}
"""The view of a stored check that holds only its outcome (and reason): most of them."""


def compile_stored(
    expectation: Mapping[str, Any],
    known: dict[str, Any] | None = None,
    kinds: Kinds | None = None,
) -> CompiledExpectation:
    """A stored expectation (its plain JSON; a left-out comparison is ``exact``) compiled,
    to be scored again; ``known`` shares compiled patterns between a suite's cases, and
    ``kinds`` is the registry, read once by a reader that compiles many."""
    name, path = expectation["name"], expectation["path"]
    get = expectation.get
    # Built at once (a named tuple's own __new__ is one more Python call): a report's reader
    # compiles every distinct expectation it meets, most of a case's source_span ones.
    fields = (name, path, get("comparison") or "exact", get("scorer"), get("expected"))
    stored = _new(RecordedExpectation, (*fields, get("judge")))
    return compile_expectation(stored, known, kinds=kinds)


_new = tuple.__new__


_DICT = frozenset({dict})


def _read_every_check(stored: Sequence[Any]) -> None:
    """Each stored check's ``json_parsed`` read, as scoring them all before typing any did:
    a check that is no object is refused for that (``AttributeError``), whatever precedes
    it. Called where one is no object."""
    for check in stored:
        check.get("json_parsed")


class _Gold(NamedTuple):
    """A stored expectation compiled (``compile_stored``), with what verifying its checks
    reads of it: worked out once for every case that holds the same expectation."""

    compiled: CompiledExpectation
    rescored: bool
    """Its comparison is pure: its stored checks are scored again."""
    verdict: VerdictOf | None
    """Its kind's verdict, where the kind scores that alone (``verdict_kind``) and its path
    parses: what a plain stored check's outcome is compared with."""
    tokens: tuple[str, ...]
    """Its path parsed (empty where it does not parse: it has no verdict then)."""
    at_attempt: bool
    """It points at the attempt's own figures (``scoring.score.attempt_document``)."""
    observed: bool
    """It points where one of the suite's metrics looks."""


_AT_ATTEMPT = attrgetter("at_attempt")
_UNSEEN = object()


class _Stored(NamedTuple):
    """A completed attempt's stored checks, with what verifying them reads."""

    case: Mapping[str, Any]
    attempt: Mapping[str, Any]
    stored: Sequence[Mapping[str, Any]]
    golds: Sequence[_Gold] | None
    result: Any
    envelope: Mapping[str, Any]
    here: tuple[str | int, ...]
    """The case's place in the report (the attempt's checks are at ``checks_at``)."""
    number: int
    """The attempt's place in its case."""

    def checks_at(self) -> tuple[str | int, ...]:
        return (*self.here, "attempts", self.number, "checks")


class CaseTally:
    """One suite's attempts, read back in case-major order into what its record states:
    the same tallies ``SuiteCollector`` keeps as a run goes."""

    def __init__(
        self, record: SuiteRecord, details: bool, json_options: TextOptions, path: str
    ) -> None:
        self.details = details
        self.skipped = record.status == "skipped"
        self.json_options = json_options
        self.rescored = rescored_kinds()
        self.verdicts = {
            name: kind.verdict
            for name, kind in KINDS.items()
            if kind.verdict is not None and name in self.rescored
        }
        self.path = path
        self.attempts: Counter[str] = Counter()
        self.checks: Counter[str] = Counter()
        self.figures = Figures()
        self.definitions = record.metric_definitions
        self.observations = [ObservationTally() for _ in self.definitions]
        self.scopes = [None if m.cases is None else frozenset(m.cases) for m in self.definitions]
        self.tokens = [parse_pointer(m.path) for m in self.definitions]
        self._metrics = list(
            zip(self.definitions, self.tokens, self.scopes, self.observations, strict=True)
        )
        self._metric_paths = [m.path for m in self.definitions]
        self._observed = frozenset(self.tokens)
        self._looked: dict[tuple[str, ...], Any] = {}
        """What the attempt being tallied holds where a metric looks, as a check of it looked
        there (in its result, not made an attempt document): not resolved again."""
        self._absent = [MISSING] * len(self.definitions)
        self._repeated = False  # whether the case being tallied has more than one attempt
        self._last: tuple[Any, list[_Check]] | None = None
        """The case's attempt last verified (its result's and checks' bytes), its checks."""
        self._gold: tuple[Mapping[str, Any], list[Any]] | None = None
        """The case last observed, and its gold at each metric's path."""
        self.values: dict[str, list[float]] = {}
        self.queue: list[dict[str, Any]] = []
        self.waiting: list[tuple[str, int, str]] = []
        self.known: dict[str, Any] = {}  # compiled patterns, shared by the suite's cases
        self.kinds = comparison_kinds()
        self.golds: dict[bytes, _Gold] = {}
        self.live, self.latencies = LiveTally(), list[float]()

    def case(self, case: Mapping[str, Any], here: tuple[str | int, ...]) -> None:
        """One case's attempts into the tallies, each rescorable check scored again."""
        expectations = case["expectations"]
        golds: list[_Gold] | None = None
        self._last = None  # an attempt is reused within its case only: its gold is theirs
        self._repeated = len(attempts := case["attempts"]) > 1
        envelope = case.get("input") if self.details else None
        for number, attempt in enumerate(attempts):
            if self._looked:
                self._looked = {}
            status = attempt["status"]
            self.attempts[status] += 1
            self.live.add_stored(attempt)
            if attempt.get("latency_ms") is not None:
                self.latencies.append(attempt["latency_ms"])
            if status == "skipped" and not self.skipped:
                pointer = format_pointer((*here, "attempts", number, "status"))
                raise ReportRefusedError(
                    f"{self.path}: stored {pointer} is 'skipped' in a suite that was not "
                    "skipped (only a suite not authorized to run skips its attempts); the "
                    "report was altered or is corrupt."
                )
            stored = attempt.get("checks") or ()
            result = attempt.get("result") if self.details else None
            if status != "completed":
                if stored:  # an attempt that did not complete has none: all are not_run
                    agree(self.path, (*here, "attempts", number, "checks"), stored, [])
                self.checks["not_run"] += len(expectations)
            else:
                if len(stored) != len(expectations):
                    raise ValueError(
                        f"attempt {number}: {len(stored)} checks for "
                        f"{len(expectations)} expectations"
                    )
                if self.details and golds is None:
                    golds = [self._gold_of(e) for e in expectations]
                if self.details and not isinstance(result, dict):
                    raise ValueError(
                        f"attempt {number}: a completed attempt of a report written with "
                        "details has no result"
                    )
                given = (case, attempt, stored, golds, result, envelope or {}, here, number)
                self._checks(_new(_Stored, given))
            if self.definitions and self.details:
                self._observe(case, attempt, status, result)

    def _gold_of(self, expectation: Mapping[str, Any]) -> _Gold:
        """Compiled once per distinct stored expectation (its bytes), of the last 4096."""
        try:
            key = orjson.dumps(expectation)
        except TypeError:  # an integer past 64 bits: compiled every time
            return self._new_gold(expectation)
        found = self.golds.get(key)
        if found is None:
            if len(self.golds) >= 4096:
                self.golds.clear()
            found = self.golds[key] = self._new_gold(expectation)
        return found

    def _new_gold(self, expectation: Mapping[str, Any]) -> _Gold:
        compiled = compile_stored(expectation, self.known, self.kinds)
        comparison, tokens = compiled.comparison, compiled.tokens
        rescored = comparison in self.rescored
        verdict = self.verdicts.get(comparison) if rescored and tokens is not None else None
        at_attempt = tokens is not None and tokens[:1] == (ATTEMPT_ROOT,)
        observed = tokens in self._observed
        return _new(_Gold, (compiled, rescored, verdict, tokens or (), at_attempt, observed))

    def _checks(self, given: _Stored) -> None:
        case, attempt, stored, _, result, *_ = given
        # An attempt whose result and stored checks are the very bytes of the case's attempt
        # before it (``--repeat`` of a steady application) is that attempt again: its checks
        # were verified, scored again and typed then, and are only counted now.
        key: Any = None  # a case's only attempt is no attempt again: no key
        if self._repeated:
            try:
                key = (orjson.dumps(result), orjson.dumps(stored))
            except TypeError:  # an integer past 64 bits: verified every time
                key = None
        last = self._last
        if key is not None and last is not None and last[0] == key:
            views = last[1]
            for position, view in enumerate(views):
                self.checks[view.outcome] += 1
                if view.adjudication:
                    self._waits(case, attempt, position, view.actual)
        else:
            views = self._verified(given)
            self._last = None if key is None else (key, views)
        self.figures.add(views)
        scores = result.get("scores") if isinstance(result, dict) else None
        if type(scores) is list:  # a Python eval's numeric scores (its KEY.mean figures)
            for entry in scores:
                if type(entry) is dict and type(entry.get("key")) is str:
                    add_value(self.values, entry)

    def _verified(self, given: _Stored) -> list[_Check]:
        """The attempt's stored checks, typed, counted and (pure comparisons, with details)
        scored again from its result and gold."""
        case, attempt, stored, golds, result, envelope, *_ = given
        scored: Any = None
        if golds is not None:
            if not _DICT.issuperset(map(type, stored)):
                _read_every_check(stored)
            scored = result
            if result and any(map(_AT_ATTEMPT, golds)):
                figures = {"latency_ms": attempt.get("latency_ms"), "cost": attempt.get("cost")}
                scored = attempt_document(result, [gold[0] for gold in golds], **figures)
        views = []
        for position, check in enumerate(stored):
            outcome = check["outcome"]
            plain = _PLAIN_VIEWS.get(outcome) if check.keys() <= _PLAIN_KEYS else None
            if plain is not None:  # most checks: an outcome and perhaps its reason
                view = plain
            else:
                view = self._view(check, outcome, golds, position, result)
            self.checks[outcome] += 1
            views.append(view)
            if golds is not None and (gold := golds[position]).rescored:
                # A plain check agrees with a kind that scores a verdict alone exactly where
                # its outcome is the verdict's (``same_check`` of such an outcome reads no
                # other field): the check's outcome is built only to say where it differs.
                compiled, _, verdict, tokens, _, observed = gold
                agrees = False
                if plain is not None and verdict is not None:
                    actual = resolve(scored, tokens)
                    if observed and scored is result:
                        self._looked[tokens] = actual
                    agrees = verdict(actual, compiled, envelope).outcome == outcome
                if not agrees:
                    wants_json = check.get("json_parsed") is not None
                    options = self.json_options if wants_json else None
                    again = score_compiled(compiled, scored, envelope, options)
                    if not same_check(view, check, again):
                        where = (*given.checks_at(), position)
                        check_disagreement(check, again, where, self.path)
            if view.adjudication:
                self._waits(case, attempt, position, view.actual)
        return views

    def _view(
        self,
        check: Mapping[str, Any],
        outcome: str,
        golds: Sequence[_Gold] | None,
        position: int,
        result: Any,
    ) -> _Check:
        """A stored check with more than its outcome and reason, its fields' types checked;
        with the value it looked at where the figures need it (a text check's answer)."""
        if outcome not in CHECK_OUTCOMES:
            raise ValueError(f"unknown check outcome {outcome!r}")
        actual: Any = None
        if golds is not None:
            gold = golds[position].compiled
            if gold.comparison == "text" and gold.tokens is not None:
                found = resolve(result, gold.tokens)
                actual = None if found is MISSING else found
        view = _Check(
            outcome,
            stored_flag(check, "adjudication"),
            stored_count(check, "assertions_declared"),
            stored_count(check, "assertions_held"),
            actual,
            stored_optional_flag(check, "json_parsed"),
            stored_count(check, "required_keys_declared"),
            stored_count(check, "required_keys_found"),
        )
        stored_flag(check, "adjudicated")
        if (view.required_keys_found or 0) > (view.required_keys_declared or 0):
            raise ValueError("a check found more required keys than it declared")
        return view

    def _waits(
        self,
        case: Mapping[str, Any],
        attempt: Mapping[str, Any],
        position: int,
        actual: Any,
    ) -> None:
        expectation = case["expectations"][position]
        name = expectation["name"]
        self.waiting.append((case["id"], attempt["attempt"], name))
        if isinstance(actual, str):
            entry = {
                "case": case["id"],
                "attempt": attempt["attempt"],
                "check": name,
                "note": note_of(expectation.get("expected")),
                "digest": output_digest(actual),
            }
            said = attempt["checks"][position].get("judge")
            if said is not None:  # the check's judge, as the queue states it
                entry["judge"] = {k: said.get(k) for k in ("name", "revision", "verdict", "reason")}
            self.queue.append(entry)

    def _observe(
        self, case: Mapping[str, Any], attempt: Mapping[str, Any], status: str, result: Any
    ) -> None:
        """What the attempt says for each metric, as the run observed it
        (``build._observation``)."""
        case_id = case["id"]
        gold = self._gold
        if gold is None or gold[0] is not case:
            paths = {e["path"]: e.get("expected") for e in reversed(case["expectations"])}
            gold = self._gold = (case, list(map(paths.get, self._metric_paths, self._absent)))
        observed = status == "completed" and result is not None
        state: ObservationStatus = (
            "observed" if observed else "error" if status in RUNTIME_FAILURES else "skipped"
        )
        for (metric, tokens, scope, found), expected in zip(self._metrics, gold[1], strict=True):
            if scope is not None and case_id not in scope:
                continue
            if expected is MISSING:
                raise ValueError(f"no expectation at the path of metric {metric.name!r}")
            predicted = self._looked.get(tokens, _UNSEEN) if observed else MISSING
            if predicted is _UNSEEN:
                predicted = resolve(result, tokens)
            found.observe(
                case_id, attempt["attempt"], gold=expected, status=state, predicted=predicted
            )
