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

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from goldgate.base.errors import InvalidInputError, PointerSyntaxError, ReportRefusedError
from goldgate.base.pointers import format_pointer, parse_pointer
from goldgate.report.agreement import agree
from goldgate.report.casetally import CaseTally, compile_stored
from goldgate.report.figures import suite_counts, suite_figures
from goldgate.report.livefigures import agree_run_live, plain_thresholds
from goldgate.report.plain import record_json
from goldgate.report.stream import queued_entry
from goldgate.report.verdicts import run_verdict, suite_metrics
from goldgate.scoring.evalscores import value_figures

if TYPE_CHECKING:
    from goldgate.gold.models import TextOptions
    from goldgate.report.models import Report, SuiteRecord

__all__ = [
    "CaseTaker",
    "compile_stored",
    "verify_report",
]


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
    try:
        tally = CaseTally(record, details, json_options, path)
    except PointerSyntaxError as error:  # a metric's path: named where it is
        raise _Broken(_bad_metric_path(record, here), str(error)) from None
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
        try:
            metrics = () if skipped else suite_metrics(tally.definitions, tally.observations)
        except InvalidInputError as error:  # gold the suite's own metrics cannot take
            raise _Broken((*here, "metric_definitions"), str(error).rstrip(".")) from None
        computed = [metric.model_dump(mode="json") for metric in metrics]
        agree(path, (*here, "metrics"), stored("metrics"), computed)
    bounds = {threshold.key: threshold.bound for threshold in record.thresholds}
    figures = suite_figures(tally, record.status, summary=summary, metrics=metrics, bounds=bounds)
    stored_thresholds = plain_thresholds(stored("thresholds"))
    agree(path, (*here, "thresholds"), stored_thresholds, plain_thresholds(figures.thresholds))
    agree(path, (*here, "verdict"), stored("verdict"), figures.verdict)
    tally.live.agree(path, (*here, "live"), record)


def _bad_metric_path(record: SuiteRecord, here: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """Where the first metric definition whose path is not a JSON pointer is."""
    for place, definition in enumerate(record.metric_definitions):
        try:
            parse_pointer(definition.path)
        except PointerSyntaxError:
            return (*here, "metric_definitions", place, "path")
    return (*here, "metric_definitions")


def _verify_queue(stored: Any, tally: CaseTally, where: tuple[str | int, ...], path: str) -> None:
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
