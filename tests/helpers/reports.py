"""Reports edited on purpose, made coherent again: a test that forges what a report holds
(an extra case, another gold) to reach a check beyond the reader's own verification
recomputes every figure the report states, as a run would have written them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from goldgate.report.build import check_json
from goldgate.report.models import Report, SuiteRecord, validated
from goldgate.report.plain import record_json
from goldgate.report.rebuild import rebuild_suite
from goldgate.report.verdicts import run_verdict, suite_thresholds, suite_verdict
from goldgate.report.verify import compile_stored
from goldgate.scoring.kinds import rescored_kinds
from goldgate.scoring.score import score_compiled


def _rescored(value: dict[str, Any]) -> None:
    """Every check of a pure comparison scored again from its stored result and gold."""
    for suite in value["suites"]:
        for case in suite["cases"]:
            gold = [compile_stored(e) for e in case["expectations"]]
            for attempt in case["attempts"]:
                if attempt["status"] != "completed" or attempt.get("result") is None:
                    continue
                for position, check in enumerate(attempt["checks"]):
                    if gold[position].comparison not in rescored_kinds():
                        continue
                    fresh = score_compiled(
                        gold[position], attempt["result"], case.get("input") or {}
                    )
                    attempt["checks"][position] = {
                        **{k: v for k, v in check_json(fresh).items() if k != "json_parsed"},
                        **{k: check[k] for k in ("json_parsed", "required_keys_found",
                                                 "required_keys_declared") if k in check},
                    }  # fmt: skip


def _rebuilt(suite: SuiteRecord) -> SuiteRecord:
    """``rebuild_suite``, keeping a Python eval's value figures (``KEY.mean``...), which it
    does not compute, and what its thresholds and verdict make of them."""
    rebuilt = rebuild_suite(suite, suite.cases)
    summary = {**rebuilt.summary}
    summary.update({k: v for k, v in suite.summary.items() if k not in summary})
    minimums = {threshold.key: threshold.minimum for threshold in suite.thresholds}
    thresholds = suite_thresholds(minimums, summary, rebuilt.metrics)
    verdict = (
        suite_verdict(rebuilt.counts, thresholds, bool(minimums))
        if suite.status == "ran"
        else suite.verdict
    )
    return replace(rebuilt, summary=summary, thresholds=tuple(thresholds), verdict=verdict)


def coherent(value: dict[str, Any], *, rescore: bool = True) -> dict[str, Any]:
    """``value`` (a report's JSON) with its checks of pure comparisons scored again, and its
    counts, summaries, metrics, thresholds, queues and verdicts recomputed from its attempts
    and gold. ``rescore=False`` keeps the checks as they
    are: a forgery whose every figure agrees with its forged check outcomes."""
    if rescore:
        _rescored(value)
    report = validated(Report, value)
    suites = tuple(_rebuilt(suite) for suite in report.suites)
    verdict = run_verdict(suites, not report.complete, sum(s.adjudication for s in suites))
    return record_json(replace(report, suites=suites, verdict=verdict))


def read_whole_only(data: bytes) -> bytes:
    """A report's text that the stream cannot take, so that every reader reads it whole (a
    test of the whole read): an escaped colon (``\\u003a``) opens its dataset's name, text
    ``report.scan`` leaves to the whole read's strict parser."""
    marker = b'"dataset":{"name":"'
    assert data.count(marker) == 1
    return data.replace(marker, marker + b"\\u003a")
