"""A report is data, not a verdict: what a report states about itself is recomputed from its
attempts and gold when it is read, and a report whose stored figure disagrees is refused.

Recomputed for every suite: each check's outcome where its comparison is built in and pure
(exact, set, source_span, text, an eval's score) and the report holds what it was scored on
(written with details: the attempt's result, the case's gold and input), with the text
fields it records (assertions declared and held, waiting for a person, parsed as JSON);
the counts of attempts and checks; the summary figures; the metrics (over the observations,
from the suite's metric definitions, with details); the thresholds' measured values and
whether they held; the checks waiting for a person and their queue; the suite's verdict;
its live figures (``report.livefigures``). Then the run's verdict and live totals. The
figures are computed by the very functions a run uses, so an honest report always agrees.

Kept as stored, since nothing in the report can recompute them: a ``custom`` check's outcome
(the scorer is user code), every outcome of a report written without details (nothing to
score again) and what only the run knew (a threshold's minimum, a text check's required
keys found, ``text.chars`` without details). docs/report-format.md says the same.

The figures come from ``report.verdicts``; comparing and refusing is ``report.agreement``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from goldgate.base.errors import ReportRefusedError
from goldgate.base.jsonvalue import MISSING
from goldgate.base.pointers import format_pointer, parse_pointer, resolve
from goldgate.gold.compiled import CompiledExpectation, compile_expectation
from goldgate.gold.recorded import RecordedExpectation
from goldgate.report.agreement import (
    agree,
    check_disagreement,
    same_check,
    stored_count,
    stored_flag,
    stored_optional_flag,
)
from goldgate.report.figures import suite_counts, suite_figures
from goldgate.report.livefigures import LiveTally, agree_run_live, plain_thresholds
from goldgate.report.plain import record_json
from goldgate.report.stream import queued_entry
from goldgate.report.verdicts import (
    CHECK_OUTCOMES,
    RUNTIME_FAILURES,
    Figures,
    run_verdict,
    suite_metrics,
)
from goldgate.scoring.adjudication import note_of, output_digest
from goldgate.scoring.evalscores import add_value, value_figures
from goldgate.scoring.kinds import rescored_kinds
from goldgate.scoring.observations import ObservationStatus, ObservationTally
from goldgate.scoring.score import attempt_document, score_compiled

if TYPE_CHECKING:
    from goldgate.gold.models import TextOptions
    from goldgate.report.models import Report, SuiteRecord
    from goldgate.scoring.outcomes import CheckOutcome

__all__ = [
    "CaseTaker",
    "compile_stored",
    "verify_report",
]

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
    expectation: Mapping[str, Any], known: dict[str, Any] | None = None
) -> CompiledExpectation:
    """A stored expectation (its plain JSON; a left-out comparison is ``exact``) compiled,
    to be scored again; ``known`` shares compiled patterns between a suite's cases."""
    stored = RecordedExpectation(
        expectation["name"],
        expectation["path"],
        expectation.get("comparison") or "exact",
        expectation.get("scorer"),
        expectation.get("expected"),
        expectation.get("judge"),
    )
    return compile_expectation(stored, known)


class _Broken(Exception):  # private control flow, never leaves here: not a GoldgateError
    """A stored value of the wrong shape, found where a figure is recomputed."""

    def __init__(self, where: tuple[str | int, ...], why: str) -> None:
        super().__init__(why)
        self.where = where


CaseTaker = Callable[[int, int, Any], None]
"""(suite index, case index, the case's plain JSON): called with each case before it is
tallied (``report.io`` validates it there)."""


def verify_report(
    value: Mapping[str, Any], report: Report, path: str, take: CaseTaker | None = None
) -> None:
    """Refuse (``ReportRefusedError``, naming the field by JSON pointer) a report whose stored
    figures are not what its attempts and gold give. ``value`` is the report's plain JSON,
    migrated; ``report`` is it validated (its suites' cases may be left out: they are read
    from ``value``). With ``take``, each case is handed to it first and let go of once
    tallied (its place in ``value`` set to None): a reader that builds the case's record
    there never holds the whole report twice."""
    from goldgate.gold.models import TextOptions  # pydantic: only where a report is verified

    details = value["options"].get("include_details") is True
    json_options = TextOptions.model_validate({"json": True})
    for index, (raw, record) in enumerate(zip(value["suites"], report.suites, strict=True)):
        try:
            _verify_suite(raw, record, details, json_options, index, path, take)
        except _Broken as error:
            where = format_pointer(error.where)
            raise ReportRefusedError(f"{path}: not a valid report at {where}: {error}.") from None
    complete = value.get("complete")
    if type(complete) is not bool:
        raise ReportRefusedError(f"{path}: not a valid report at /complete: not a boolean.")
    adjudication = sum(suite.adjudication for suite in report.suites)
    interruption = value.get("interruption")
    verdict = run_verdict(
        report.suites,
        not complete,
        adjudication,
        interruption=interruption if isinstance(interruption, str) else None,
    )
    stored = value.get("verdict")
    if isinstance(stored, Mapping):  # a field a format left out reads as its default
        stored = {**record_json(report.verdict), **stored}
    agree(path, ("verdict",), stored, record_json(verdict))
    agree_run_live(path, report.live, report.suites)


class _Stored(NamedTuple):
    """A completed attempt's stored checks, with what verifying them reads."""

    case: Mapping[str, Any]
    attempt: Mapping[str, Any]
    stored: Sequence[Mapping[str, Any]]
    compiled: Sequence[CompiledExpectation] | None
    result: Any
    envelope: Mapping[str, Any]
    where: tuple[str | int, ...]


class _Tally:
    """One suite's attempts, read back in case-major order into what its record states:
    the same tallies ``SuiteCollector`` keeps as a run goes."""

    def __init__(
        self, record: SuiteRecord, details: bool, json_options: TextOptions, path: str
    ) -> None:
        self.details = details
        self.skipped = record.status == "skipped"
        self.json_options = json_options
        self.rescored = rescored_kinds()
        self.path = path
        self.attempts: Counter[str] = Counter()
        self.checks: Counter[str] = Counter()
        self.figures = Figures()
        self.definitions = record.metric_definitions
        self.observations = [ObservationTally() for _ in self.definitions]
        self.scopes = [None if m.cases is None else frozenset(m.cases) for m in self.definitions]
        self.tokens = [parse_pointer(m.path) for m in self.definitions]
        self._repeated = False  # whether the case being tallied has more than one attempt
        self._last: tuple[Any, list[_Check]] | None = None
        """The case's attempt last verified (its result's and checks' bytes), its checks."""
        self._gold: tuple[Mapping[str, Any], list[Any]] | None = None
        """The case last observed, and its gold at each metric's path."""
        self.values: dict[str, list[float]] = {}
        self.queue: list[dict[str, Any]] = []
        self.waiting: list[tuple[str, int, str]] = []
        self.known: dict[str, Any] = {}  # compiled patterns, shared by the suite's cases
        self.compiled: dict[bytes, CompiledExpectation] = {}
        self.live, self.latencies = LiveTally(), list[float]()

    def case(self, case: Mapping[str, Any], here: tuple[str | int, ...]) -> None:
        """One case's attempts into the tallies, each rescorable check scored again."""
        expectations = case["expectations"]
        compiled: list[CompiledExpectation] | None = None
        self._last = None  # an attempt is reused within its case only: its gold is theirs
        self._repeated = len(attempts := case["attempts"]) > 1
        envelope = case.get("input") if self.details else None
        for number, attempt in enumerate(attempts):
            status = attempt["status"]
            self.attempts[status] += 1
            self.live.add_stored(attempt)
            self.latencies += [] if attempt.get("latency_ms") is None else [attempt["latency_ms"]]
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
                if self.details and compiled is None:
                    compiled = [self._compiled(e) for e in expectations]
                if self.details and not isinstance(result, dict):
                    raise ValueError(
                        f"attempt {number}: a completed attempt of a report written with "
                        "details has no result"
                    )
                where = (*here, "attempts", number, "checks")
                self._checks(
                    _Stored(case, attempt, stored, compiled, result, envelope or {}, where)
                )
            if self.definitions and self.details:
                self._observe(case, attempt, status, result)

    def _compiled(self, expectation: Mapping[str, Any]) -> CompiledExpectation:
        """Compiled once per distinct stored expectation (its bytes), of the last 4096."""
        try:
            key = orjson.dumps(expectation)
        except TypeError:  # an integer past 64 bits: compiled every time
            return compile_stored(expectation, self.known)
        found = self.compiled.get(key)
        if found is None:
            if len(self.compiled) >= 4096:
                self.compiled.clear()
            found = self.compiled[key] = compile_stored(expectation, self.known)
        return found

    def _checks(self, given: _Stored) -> None:
        case, attempt, stored, _, result, _, _ = given
        # An attempt whose result and stored checks are the very bytes of the case's attempt
        # before it (``--repeat`` of a steady application) is that attempt again: its checks
        # were verified, scored again and typed then, and are only counted now.
        key: Any = None  # a case's only attempt is no attempt again: no key
        with suppress(TypeError):  # an integer past 64 bits: verified every time
            key = (orjson.dumps(result), orjson.dumps(stored)) if self._repeated else None
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
        case, attempt, stored, compiled, result, envelope, where = given
        fresh = None
        if compiled is not None:
            figures = {"latency_ms": attempt.get("latency_ms"), "cost": attempt.get("cost")}
            scored = attempt_document(result, compiled, **figures) if result else result
            fresh = self._scored(compiled, scored, envelope, stored)
        views = []
        for position, check in enumerate(stored):
            outcome = check["outcome"]
            plain = _PLAIN_VIEWS.get(outcome) if check.keys() <= _PLAIN_KEYS else None
            if plain is not None:  # most checks: an outcome and perhaps its reason
                view = plain
            else:
                view = self._view(check, outcome, compiled, position, result)
            self.checks[outcome] += 1
            views.append(view)
            if fresh is not None:
                again = fresh[position]
                if again is not None and not same_check(view, check, again):
                    check_disagreement(check, again, (*where, position), self.path)
            if view.adjudication:
                self._waits(case, attempt, position, view.actual)
        return views

    def _scored(
        self,
        compiled: Sequence[CompiledExpectation],
        result: Any,
        envelope: Mapping[str, Any],
        stored: Sequence[Mapping[str, Any]],
    ) -> tuple[CheckOutcome | None, ...]:
        """Each check of a pure comparison scored again (None for the rest)."""
        parsed = (check.get("json_parsed") is not None for check in stored)
        return tuple(
            score_compiled(gold, result, envelope, self.json_options if wants_json else None)
            if gold.comparison in self.rescored
            else None
            for gold, wants_json in zip(compiled, parsed, strict=True)
        )

    def _view(
        self,
        check: Mapping[str, Any],
        outcome: str,
        compiled: Sequence[CompiledExpectation] | None,
        position: int,
        result: Any,
    ) -> _Check:
        """A stored check with more than its outcome and reason, its fields' types checked;
        with the value it looked at where the figures need it (a text check's answer)."""
        if outcome not in CHECK_OUTCOMES:
            raise ValueError(f"unknown check outcome {outcome!r}")
        actual: Any = None
        if compiled is not None:
            gold = compiled[position]
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
        if self._gold is None or self._gold[0] is not case:
            paths = {e["path"]: e.get("expected") for e in reversed(case["expectations"])}
            self._gold = (case, [paths.get(m.path, MISSING) for m in self.definitions])
        for metric, tokens, scope, expected, found in zip(
            self.definitions,
            self.tokens,
            self.scopes,
            self._gold[1],
            self.observations,
            strict=True,
        ):
            if scope is not None and case_id not in scope:
                continue
            if expected is MISSING:
                raise ValueError(f"no expectation at the path of metric {metric.name!r}")
            state: ObservationStatus
            if status == "completed" and result is not None:
                predicted: Any = resolve(result, tokens)
                state = "observed"
            else:
                predicted = MISSING
                state = "error" if status in RUNTIME_FAILURES else "skipped"
            found.observe(
                case_id, attempt["attempt"], gold=expected, status=state, predicted=predicted
            )


def _verify_suite(
    raw: Mapping[str, Any],
    record: SuiteRecord,
    details: bool,
    json_options: TextOptions,
    index: int,
    path: str,
    take: CaseTaker | None,
) -> None:
    here: tuple[str | int, ...] = ("suites", index)
    tally = _Tally(record, details, json_options, path)
    stored = partial(_stored, raw, record)
    cases = raw["cases"]
    for position, case in enumerate(cases):
        if take is not None:
            take(index, position, case)
        try:
            tally.case(case, (*here, "cases", position))
        except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as error:
            why = f"missing {error}" if isinstance(error, KeyError) else str(error) or "malformed"
            raise _Broken((*here, "cases", position), why) from None
        if take is not None:
            cases[position] = None  # tallied and taken: its plain JSON is let go of
    attempts = tally.attempts
    if record.status == "skipped":  # a suite skipped as a whole: every attempt skipped
        unskipped = sum(attempts.values()) - attempts["skipped"]
        agree(path, (*here, "status"), stored("status"), "ran" if unskipped else "skipped")
    agree(path, (*here, "case_count"), stored("case_count"), len(raw["cases"]))
    agree(path, (*here, "attempt_count"), stored("attempt_count"), sum(attempts.values()))
    agree(path, (*here, "counts"), stored("counts"), record_json(suite_counts(tally)))
    stored_summary = stored("summary")
    summary = tally.figures.summary()
    if details:
        summary.update(value_figures(tally.values))
    elif isinstance(stored_summary, Mapping):  # what only the results could say, as stored
        summary["text.chars"] = stored_summary.get("text.chars")
        summary.update({k: v for k, v in stored_summary.items() if k not in summary})
    agree(path, (*here, "summary"), stored_summary, summary)
    agree(path, (*here, "adjudication"), stored("adjudication"), tally.figures.adjudication)
    _verify_queue(stored("adjudication_queue"), tally, (*here, "adjudication_queue"), path)
    skipped = record.status == "skipped"
    metrics: Sequence[Any] = record.metrics
    # A report without metric definitions (format 1, migrated) keeps its metrics as stored.
    if skipped or (details and (tally.definitions or not record.metrics)):
        metrics = () if skipped else suite_metrics(tally.definitions, tally.observations)
        computed = [metric.model_dump(mode="json") for metric in metrics]
        agree(path, (*here, "metrics"), stored("metrics"), computed)
    bounds = {threshold.key: threshold.bound for threshold in record.thresholds}
    figures = suite_figures(tally, record.status, summary=summary, metrics=metrics, bounds=bounds)
    stored_thresholds = plain_thresholds(stored("thresholds"))
    agree(path, (*here, "thresholds"), stored_thresholds, plain_thresholds(figures.thresholds))
    agree(path, (*here, "verdict"), stored("verdict"), figures.verdict)
    tally.live.agree(path, (*here, "live"), record)


def _verify_queue(stored: Any, tally: _Tally, where: tuple[str | int, ...], path: str) -> None:
    if tally.details:
        stored = [queued_entry(e) for e in stored] if type(stored) is list else stored
        agree(path, where, stored, tally.queue)
        return
    # Without the answers, which checks waited is known but not what was queued for them:
    # every queued entry must name one of them, in order.
    if not isinstance(stored, list):
        agree(path, where, stored, [])
        return
    remaining = iter(tally.waiting)
    for position, entry in enumerate(stored):
        key = (entry.get("case"), entry.get("attempt"), entry.get("check"))
        if type(entry) is not dict or not any(key == each for each in remaining):
            raise ReportRefusedError(
                f"{path}: stored {format_pointer((*where, position))} names no check of its "
                "attempts that waits for a person; the report was altered or is corrupt."
            )


def _stored(raw: Mapping[str, Any], record: SuiteRecord, key: str) -> Any:
    """The suite's stored ``key``; where its format left it out, the default it reads as."""
    if key in raw:
        return raw[key]
    default = getattr(record, key)
    return [record_json(each) for each in default] if type(default) is tuple else default
