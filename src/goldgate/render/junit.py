"""JUnit XML for the checks tab, written with the junit-xml library.

One ``testsuite`` per suite and one ``testcase`` per attempt (``classname`` the suite,
``name`` the case id with ``#n`` when the suite repeats, ``time`` the latency in seconds).
Exactly one outcome per testcase, most severe first:

- ``error``: a runtime failure (the attempt failed or timed out) or a check that could not
  run (outcome ``error``);
- ``failure``: gold disagreement: the first failing check's name and reason as the message,
  the case's gold file and line and every failing check in the text; with a comparison, an
  attempt that regressed against the baseline (in the comparison's one classification: its
  own unit, or its case over repeats) is a failure of type ``regression`` whose message
  says which checks went from pass to fail;
- ``skipped``: every attempt of a live suite that was not authorized (with the reason),
  every attempt an interrupted run cancelled, and every attempt with gold disagreement in a
  suite that passed on its thresholds: its message starts ``absorbed by the suite's
  thresholds`` and names the failing checks (see below);
- nothing: the attempt passed (checks waiting for a person do not fail it).

A suite with thresholds also has one testcase named ``(thresholds)``: a ``failure`` naming
each missed threshold, or nothing when all held. So a consumer's default conclusion (a
failure or an error anywhere fails the check: EnricoMi's publish-unit-test-result-action and
dorny/test-reporter alike) agrees with goldgate's verdict: a suite the thresholds passed
shows no failure, and a failed suite always shows at least one. Absorbed attempts are
``skipped`` rather than hidden in properties or ``system-out`` because every consumer counts
and lists skipped testcases with their message, while none shows properties and few show
output: they stay visible without failing the check. Every testcase has a ``time`` (0 where
nothing was measured).

Each testsuite's properties hold its verdict, what decided it, its figures, thresholds and
metrics, and with a comparison its classification's counts (``comparison.regressed``...)
and the cases whose gold or input changed (``comparison.gold changed.cases``,
``comparison.input changed.cases``). Only safe text: names, ids, statuses, reasons and
numbers, never values.

The output is valid against Jenkins' junit-10 schema except for the ``disabled`` attribute
junit-xml always writes on ``testsuites`` and ``testsuite``. junit-xml writes a testcase's
time with six decimals and a suite's as a raw float sum (``1.2000000000000002``, ``1e-05``),
while junit-10 allows at most three: every ``time`` is rewritten and then checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from junit_xml import TestCase, TestSuite, to_xml_report_string  # type: ignore[import-untyped]

from goldgate.render import text
from goldgate.render.judges import judge_lines
from goldgate.render.registry import RenderContext
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    Location,
    SuiteView,
    build_view,
    classify,
)
from goldgate.report.models import ThresholdRecord
from goldgate.report.records import JudgeStandingRecord
from goldgate.scoring.metrics import ClassificationMetricResult

# XML 1.0 allows tab, newline, carriage return, U+0020-U+D7FF, U+E000-U+FFFD and the
# astral planes; junit-xml strips the rest only from what it writes as raw UTF-8, so a lone
# surrogate would reach the encoder first. Everything is cleaned before it is handed over.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SUITE_TIME = re.compile(r'(<(?:testsuites|testsuite)\b[^>]*? )time="([^"]*)"')
# A testcase's time was rounded to 3 decimals before junit-xml wrote it with "%f", which
# prints that float as exactly those digits and "000": dropping them needs no callback.
_CASE_TIME = re.compile(r'(<testcase\b[^>]*? time="[0-9]+\.[0-9]{3})000"')
_BAD_TIME = re.compile(
    r'<(?:testsuites|testsuite|testcase)\b[^>]*? time="(?![0-9]+(?:\.[0-9]{1,3})?")([^"]*)"'
)
_PLAIN = re.compile(r"[!-~](?:[ -~]*[!-~])?")


DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _xml(value: object, limit: int = text.REASON_LIMIT) -> str:
    """Data as junit-xml receives it: one line (so no line of the file starts with data),
    bounded, and only characters XML can hold."""
    if isinstance(value, str) and len(value) <= limit and _PLAIN.fullmatch(value):
        return value  # the common case, printable ASCII, costs one match per testcase
    return _NOT_XML.sub("", text.one_line(value, limit))


def _where(item: AttemptItem) -> str:
    location = item.location
    if location.source is None:
        return f"case {item.label}"
    line = f":{location.line}" if location.line is not None else ""
    return f"{location.source}{line}: case {item.label}"


class _Seconds(float):
    """A testcase's time that junit-xml always writes: it leaves out a time that is false,
    and every testcase must have one (0 where nothing was measured)."""

    def __bool__(self) -> bool:
        return True


def _testcase(name: str, classname: str, latency_ms: float | None) -> TestCase:
    seconds = text.seconds(latency_ms)
    return TestCase(name=name, classname=classname, elapsed_sec=_Seconds(seconds or 0.0))


ABSORBED = "absorbed by the suite's thresholds"
"""How the message of a failing attempt of a suite its thresholds passed starts."""
THRESHOLDS_CASE = "(thresholds)"
"""The name of a suite's testcase for its thresholds."""


def _problem_testcase(
    item: AttemptItem,
    classname: str,
    skip_reason: str | None,
    regression: ChangeItem | None = None,
    absorbed: bool = False,
) -> TestCase:
    case = _testcase(_xml(item.label, text.NAME_LIMIT), classname, item.record.latency_ms)
    problem = item.problem
    regressed = ""
    if regression is not None:
        regressed = f"{regression.change} against the baseline: {regression.detail}"
    if absorbed and problem == "failure":
        checks = item.checks(("failed",))
        lines = [_xml(_where(item))]
        lines += [_xml(f"failed: {check.name}: {check.reason or 'failed'}") for check in checks]
        why = f"{regressed}; {item.reason}" if regressed else item.reason
        case.add_skipped_info(message=_xml(f"{ABSORBED}: {why}"), output="\n".join(lines))
        return case
    if problem == "runtime":
        reason = _xml(f"{regressed}: {item.reason}" if regressed else item.reason)
        case.add_error_info(
            message=reason, output=_xml(f"{_where(item)}: {item.reason}"), error_type=item.status
        )
    elif problem in ("check_error", "failure"):
        checks = item.checks()
        lines = [_xml(_where(item))]
        lines += [
            _xml(f"{check.outcome}: {check.name}: {check.reason or check.outcome}")
            for check in checks
        ]
        message = _xml(item.reason or problem)
        if problem == "check_error":
            if regressed:
                message = _xml(f"{regressed}; {item.reason or problem}")
            case.add_error_info(message=message, output="\n".join(lines), error_type="check error")
        elif regressed:
            case.add_failure_info(
                message=_xml(regressed), output="\n".join(lines), failure_type="regression"
            )
        else:
            case.add_failure_info(
                message=message, output="\n".join(lines), failure_type="gold disagreement"
            )
    elif problem == "skipped":
        case.add_skipped_info(message=_xml(skip_reason or item.reason))
    elif problem == "cancelled":
        case.add_skipped_info(message=_xml(f"cancelled: {item.reason}"))
    return case


def _testcases(suite: SuiteView, comparison: ComparisonView | None) -> list[TestCase]:
    """One testcase per attempt, in case-major order. Passing attempts (most of them) are
    read straight from the records; only an attempt with a problem becomes a view item."""
    record = suite.record
    classname = _xml(record.name, text.NAME_LIMIT)
    repeated = record.repeat > 1
    absorbed = bool(record.thresholds) and record.verdict == "passed"
    cases = []
    for case in record.cases:
        name = _xml(case.id, text.NAME_LIMIT)
        location = Location(record.cases_source, case.line)
        for attempt in case.attempts:
            problem = classify(attempt)
            if problem is None:
                label = f"{name}#{attempt.attempt}" if repeated else name
                cases.append(_testcase(label, classname, attempt.latency_ms))
            else:
                item = AttemptItem(record.name, case, attempt, record.repeat, problem, location)
                regression = (
                    None
                    if comparison is None
                    else comparison.regression_of(record.name, case.id, attempt.attempt)
                )
                cases.append(
                    _problem_testcase(item, classname, record.skip_reason, regression, absorbed)
                )
    if record.thresholds and record.status != "skipped":
        cases.append(_thresholds_testcase(suite, classname))
    return cases


def _thresholds_testcase(suite: SuiteView, classname: str) -> TestCase:
    """The suite's thresholds as one testcase: a failure naming each missed one."""
    case = _testcase(THRESHOLDS_CASE, classname, None)
    missed = [item.record for item in suite.thresholds if not item.record.held]
    if missed:
        words = "; ".join(
            f"{t.key}: {_bound(t)}, actual {text.ratio(t.actual)}"
            for t in missed
        )
        count = f"{len(missed)} of {len(suite.thresholds)} thresholds missed"
        case.add_failure_info(
            message=_xml(f"{count}: {words}"),
            output=_xml(suite.decided_by),
            failure_type="threshold",
        )
    return case


def _properties(
    suite: SuiteView,
    comparison: ComparisonView | None,
    judges: Sequence[JudgeStandingRecord] = (),
) -> dict[str, str]:
    record = suite.record
    properties = {
        "verdict": record.verdict,
        "decided_by": suite.decided_by,
        "status": record.status,
        "workflow": record.workflow,
        "target": record.target.kind,
        "cases": str(record.case_count),
        "repeat": str(record.repeat),
    }
    if record.skip_reason is not None:
        properties["skip_reason"] = record.skip_reason
    for outcome, number in record.counts.checks.items():
        properties[f"checks.{outcome}"] = str(number)
    for key, value in record.summary.items():
        properties[key] = text.ratio(value)
    properties["adjudication"] = str(record.adjudication)
    for line in judge_lines(judges, (record,)):
        properties[f"judge.{line.judge}"] = line.sentence
    if record.judge_cost is not None:
        properties["judge_cost"] = f"{record.judge_cost:.6g}"
    for item in suite.thresholds:
        threshold = item.record
        state = "held" if threshold.held else "missed"
        decided = ", decided the verdict" if item.decided else ""
        properties[f"threshold.{threshold.key}"] = (
            f"{_bound(threshold)}, actual {text.ratio(threshold.actual)}, "
            f"{state}{decided}"
        )
    for metric in record.metrics:
        prefix = f"metric.{metric.name}"
        properties[f"{prefix}.support"] = str(metric.support)
        properties[f"{prefix}.coverage"] = text.ratio(metric.coverage)
        if isinstance(metric, ClassificationMetricResult):
            properties[f"{prefix}.accuracy"] = text.ratio(metric.accuracy)
        else:
            properties[f"{prefix}.exact_set_accuracy"] = text.ratio(metric.exact_set_accuracy)
        properties[f"{prefix}.micro_f1"] = text.ratio(metric.micro.f1)
        properties[f"{prefix}.macro_f1"] = text.ratio(metric.macro.f1)
    if comparison is not None:
        # The comparison's one classification, the counts its summary line and the Markdown
        # show; the cases whose gold or input changed by name.
        counts = comparison.suite_counts.get(record.name)
        if counts is not None:
            for change, number in counts.items():
                properties[f"comparison.{change}"] = str(number)
        for label, items in (
            ("gold changed", comparison.gold_changes),
            ("input changed", comparison.input_changes),
        ):
            ids = [_unit_label(item) for item in items if item.suite == record.name]
            if ids:
                properties[f"comparison.{label}.cases"] = ", ".join(ids)
    return {_xml(key, text.NAME_LIMIT): _xml(value) for key, value in properties.items()}


def _unit_label(item: ChangeItem) -> str:
    return item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"


def _testsuite(
    suite: SuiteView,
    timestamp: str,
    comparison: ComparisonView | None,
    judges: Sequence[JudgeStandingRecord] = (),
) -> TestSuite:
    record = suite.record
    return TestSuite(
        name=_xml(record.name, text.NAME_LIMIT),
        test_cases=_testcases(suite, comparison),
        timestamp=_xml(timestamp),
        file=_xml(record.cases_source) if record.cases_source else None,
        properties=_properties(suite, comparison, judges),
    )


def _three_decimals(match: re.Match[str]) -> str:
    try:
        seconds = float(match.group(2))
    except ValueError:
        seconds = 0.0
    return f'{match.group(1)}time="{max(seconds, 0.0):.3f}"'


def check_times(xml: str) -> None:
    """``ValueError`` unless every ``time`` is a plain decimal with at most 3 decimals."""
    bad = _BAD_TIME.search(xml)
    if bad is not None:
        raise ValueError(f"JUnit time {bad.group(1)!r} has more than 3 decimals")


def render_junit(context: RenderContext) -> str:
    """The JUnit XML document for ``context.report``; with ``context.comparison``, a
    regressed attempt's failure says which checks went from pass to fail."""
    view = build_view(context.report, context.comparison)
    report = view.report
    suites = [
        _testsuite(suite, report.started_at, view.comparison, report.judges)
        for suite in view.suites
    ]
    body = to_xml_report_string(suites, prettyprint=False, encoding="utf-8")
    body = _SUITE_TIME.sub(_three_decimals, _CASE_TIME.sub(r'\1"', body))
    check_times(body)
    # One element per line, so that a diff of two files reads; `><` only occurs between
    # tags, since the serializer escapes `<` and `>` in text and attribute values alike.
    return DECLARATION + body.replace("><", ">\n<") + "\n"


def _bound(threshold: ThresholdRecord) -> str:
    """``minimum 0.9``, or ``maximum 1200`` for a maximum (cost, latency)."""
    if threshold.maximum is not None:
        return f"maximum {text.ratio(threshold.maximum)}"
    return f"minimum {text.ratio(threshold.minimum)}"
