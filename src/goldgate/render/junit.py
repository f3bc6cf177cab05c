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
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from junit_xml import TestCase, TestSuite  # type: ignore[import-untyped]

from goldgate.render import text
from goldgate.render.fanout import BaseSink, feed, whole
from goldgate.render.judges import judge_lines
from goldgate.render.junitcases import (
    Passed,
    clean_illegal,
    new_testcase,
    passed_xml,
    passing_testcases,
    problem_xml,
    xml_text,
)
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
from goldgate.report.caserecords import CaseRecord
from goldgate.report.models import ThresholdRecord
from goldgate.report.passing import PassingCase
from goldgate.report.records import JudgeStandingRecord
from goldgate.scoring.metrics import ClassificationMetricResult

_SUITE_TIME = re.compile(r'(<(?:testsuites|testsuite)\b[^>]*? )time="([^"]*)"')
# A testcase's time was rounded to 3 decimals before junit-xml wrote it with "%f", which
# prints that float as exactly those digits and "000": dropping them needs no callback.
_CASE_TIME = re.compile(r'(<testcase\b[^>]*? time="[0-9]+\.[0-9]{3})000"')
_BAD_TIME = re.compile(
    r'<(?:testsuites|testsuite|testcase)\b[^>]*? time="(?![0-9]+(?:\.[0-9]{1,3})?")([^"]*)"'
)


DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _where(item: AttemptItem) -> str:
    location = item.location
    if location.source is None:
        return f"case {item.label}"
    line = f":{location.line}" if location.line is not None else ""
    return f"{location.source}{line}: case {item.label}"


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
    case = new_testcase(xml_text(item.label, text.NAME_LIMIT), classname, item.record.latency_ms)
    problem = item.problem
    regressed = ""
    if regression is not None:
        regressed = f"{regression.change} against the baseline: {regression.detail}"
    if absorbed and problem == "failure":
        checks = item.checks(("failed",))
        lines = [xml_text(_where(item))]
        lines += [xml_text(f"failed: {check.name}: {check.reason or 'failed'}") for check in checks]
        why = f"{regressed}; {item.reason}" if regressed else item.reason
        case.add_skipped_info(message=xml_text(f"{ABSORBED}: {why}"), output="\n".join(lines))
        return case
    if problem == "runtime":
        reason = xml_text(f"{regressed}: {item.reason}" if regressed else item.reason)
        case.add_error_info(
            message=reason,
            output=xml_text(f"{_where(item)}: {item.reason}"),
            error_type=item.status,
        )
    elif problem in ("check_error", "failure"):
        checks = item.checks()
        lines = [xml_text(_where(item))]
        lines += [
            xml_text(f"{check.outcome}: {check.name}: {check.reason or check.outcome}")
            for check in checks
        ]
        message = xml_text(item.reason or problem)
        if problem == "check_error":
            if regressed:
                message = xml_text(f"{regressed}; {item.reason or problem}")
            case.add_error_info(message=message, output="\n".join(lines), error_type="check error")
        elif regressed:
            case.add_failure_info(
                message=xml_text(regressed), output="\n".join(lines), failure_type="regression"
            )
        else:
            case.add_failure_info(
                message=message, output="\n".join(lines), failure_type="gold disagreement"
            )
    elif problem == "skipped":
        case.add_skipped_info(message=xml_text(skip_reason or item.reason))
    elif problem == "cancelled":
        case.add_skipped_info(message=xml_text(f"cancelled: {item.reason}"))
    return case


def _case_testcases(
    suite: SuiteView, comparison: ComparisonView | None, case: CaseRecord
) -> Iterator[TestCase | Passed]:
    """One testcase per attempt of ``case``, a case of ``suite``. Passing attempts (most of
    them) are read straight from the records; only an attempt with a problem becomes a view
    item."""
    record = suite.record
    classname = xml_text(record.name, text.NAME_LIMIT)
    repeated = record.repeat > 1
    absorbed = bool(record.thresholds) and record.verdict == "passed"
    name = xml_text(case.id, text.NAME_LIMIT)
    location = Location(record.cases_source, case.line)
    for attempt in case.attempts:
        problem = classify(attempt)
        if problem is None:
            label = f"{name}#{attempt.attempt}" if repeated else name
            yield Passed(label, classname, attempt.latency_ms)
        else:
            item = AttemptItem(record.name, case, attempt, record.repeat, problem, location)
            regression = (
                None
                if comparison is None
                else comparison.regression_of(record.name, case.id, attempt.attempt)
            )
            yield _problem_testcase(item, classname, record.skip_reason, regression, absorbed)


def _thresholds_testcase(suite: SuiteView, classname: str) -> TestCase:
    """The suite's thresholds as one testcase: a failure naming each missed one."""
    case = new_testcase(THRESHOLDS_CASE, classname, None)
    missed = [item.record for item in suite.thresholds if not item.record.held]
    if missed:
        words = "; ".join(f"{t.key}: {_bound(t)}, actual {text.ratio(t.actual)}" for t in missed)
        count = f"{len(missed)} of {len(suite.thresholds)} thresholds missed"
        case.add_failure_info(
            message=xml_text(f"{count}: {words}"),
            output=xml_text(suite.decided_by),
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
            f"{_bound(threshold)}, actual {text.ratio(threshold.actual)}, {state}{decided}"
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
    return {xml_text(key, text.NAME_LIMIT): xml_text(value) for key, value in properties.items()}


def _unit_label(item: ChangeItem) -> str:
    return item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"


def _suite_head(suite: SuiteView, timestamp: str, properties: dict[str, str], tally: _Tally) -> str:
    """The suite's start tag (its figures from ``tally``) and its properties, as junit-xml
    writes them."""
    record = suite.record
    attributes = {
        "disabled": str(tally.disabled),
        "errors": str(tally.errors),
        "failures": str(tally.failures),
        "name": xml_text(record.name, text.NAME_LIMIT),
        "skipped": str(tally.skipped),
        "tests": str(tally.tests),
        "time": str(tally.time),
    }
    if stamp := xml_text(timestamp):
        attributes["timestamp"] = stamp
    if record.cases_source and (file := xml_text(record.cases_source)):
        attributes["file"] = file
    element = ET.Element("testsuite", attributes)
    holder = ET.SubElement(element, "properties")
    for key, value in properties.items():
        ET.SubElement(holder, "property", {"name": key, "value": value})
    written = ET.tostring(element, encoding="unicode")
    return _tidy(written.removesuffix("</testsuite>"))


def _case_xml(case: TestCase) -> str:
    """One testcase element as junit-xml writes it."""
    element = TestSuite("", [case]).build_xml_doc(encoding="utf-8")[0]
    return _tidy(ET.tostring(element, encoding="unicode"))


def _tidy(xml: str) -> str:
    """What is done to junit-xml's document, done to a part of it: illegal characters out,
    times with three decimals (checked), one element a line."""
    body = _SUITE_TIME.sub(_three_decimals, _CASE_TIME.sub(r'\1"', clean_illegal(xml)))
    check_times(body)
    return body.replace("><", ">\n<")


@dataclass
class _Tally:
    """A suite's figures, as junit-xml counts them from its testcases."""

    disabled: int = 0
    errors: int = 0
    failures: int = 0
    skipped: int = 0
    tests: int = 0
    time: float = 0
    chars: int = 0
    """Characters of the suite's testcases as written to the spool."""

    def add(self, case: TestCase, chars: int) -> None:
        self.disabled += not case.is_enabled
        self.errors += case.is_error()
        self.failures += case.is_failure()
        self.skipped += case.is_skipped()
        self.tests += 1
        self.time = self.time + case.elapsed_sec
        self.chars += chars

    def add_passed(self, seconds: float, chars: int) -> None:
        """``add`` for a passing testcase of ``seconds`` (``passed_xml``)."""
        self.tests += 1
        self.time = self.time + seconds
        self.chars += chars


class JUnitSink(BaseSink):
    """JUnit written as a pass over the cases meets them: each testcase to ``spool`` as it
    is made (the caller's write: a temporary file, or a list), each suite's figures kept;
    ``assemble`` then writes the document in order, the suites' start tags (whose figures
    are known only after their testcases) around the spooled testcases. Byte for byte what
    ``render_junit`` gives."""

    def __init__(self, context: RenderContext, spool: Callable[[str], object]) -> None:
        self._comparison = context.comparison
        self._timestamp = context.report.started_at
        self._judges = context.report.judges
        self._spool = spool
        self._tally = _Tally()
        self._heads: list[tuple[str, _Tally]] = []

    def suite(self, suite: SuiteView) -> None:
        self._tally = _Tally()

    takes_passing = True

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        for testcase in _case_testcases(suite, self._comparison, case):
            if type(testcase) is Passed:
                self._add_passed(testcase)
            else:
                assert isinstance(testcase, TestCase)
                self._add(testcase)

    def passing(self, suite: SuiteView, case: PassingCase) -> None:
        for testcase in passing_testcases(suite, case):
            self._add_passed(testcase)

    def _add_passed(self, testcase: Passed) -> None:
        if (written := passed_xml(testcase)) is not None:
            piece = written[0] + "\n"
            self._spool(piece)
            self._tally.add_passed(written[1], len(piece))
        else:
            self._add(testcase.testcase())

    def _add(self, testcase: TestCase) -> None:
        piece = (problem_xml(testcase) or _case_xml(testcase)) + "\n"
        self._spool(piece)
        self._tally.add(testcase, len(piece))

    def suite_end(self, suite: SuiteView) -> None:
        record = suite.record
        if record.thresholds and record.status != "skipped":
            self._add(_thresholds_testcase(suite, xml_text(record.name, text.NAME_LIMIT)))
        properties = _properties(suite, self._comparison, self._judges)
        head = _suite_head(suite, self._timestamp, properties, self._tally)
        self._heads.append((head, self._tally))

    def assemble(self, write: Callable[[str], object], copy: Callable[[int], None]) -> None:
        """The document to ``write``; ``copy(n)`` copies the next ``n`` characters of the
        spool (each suite's testcases, in order)."""
        if not self._heads:
            write(DECLARATION + "<testsuites />\n")
            return
        totals: dict[str, int | float] = {"disabled": 0, "errors": 0, "failures": 0, "tests": 0}
        time: float = 0
        for _, tally in self._heads:
            for key in totals:
                totals[key] += getattr(tally, key)
            time += float(str(tally.time))
        attributes = {key: str(value) for key, value in totals.items()} | {"time": str(time)}
        element = ET.Element("testsuites", attributes)
        ET.SubElement(element, "x")
        head = ET.tostring(element, encoding="unicode").removesuffix("<x /></testsuites>")
        write(DECLARATION + _tidy(head) + "\n")
        for suite_head, tally in self._heads:
            write(suite_head + "\n")
            copy(tally.chars)
            write("</testsuite>\n")
        write("</testsuites>\n")


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
    pieces: list[str] = []
    sink = JUnitSink(context, pieces.append)
    feed(whole(view.suites), (sink,))
    document: list[str] = []
    spooled = iter(pieces)

    def copy(chars: int) -> None:
        while chars > 0:
            piece = next(spooled)
            document.append(piece)
            chars -= len(piece)

    sink.assemble(document.append, copy)
    return "".join(document)


def _bound(threshold: ThresholdRecord) -> str:
    """``minimum 0.9``, or ``maximum 1200`` for a maximum (cost, latency)."""
    if threshold.maximum is not None:
        return f"maximum {text.ratio(threshold.maximum)}"
    return f"minimum {text.ratio(threshold.minimum)}"
