"""JUnit XML: valid against junit-10 (the ``disabled`` attribute junit-xml writes aside),
read back by junitparser with exact counts, times with at most three decimals, one outcome
per testcase, only characters XML can hold."""

from __future__ import annotations

import re
from typing import Any

import junitparser
import pytest
from lxml import etree

from goldgate.render.junit import ABSORBED, THRESHOLDS_CASE, check_times, render_junit
from goldgate.render.registry import RenderContext
from goldgate.render.view import build_view
from goldgate.report.models import Report, ThresholdRecord

from .builders import attempt, case, report, suite
from .checks import no_workflow_commands
from .corpus import REPORTS

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")


def validate(xml: str, schema: Any) -> etree._Element:
    """Parse ``xml``, drop the ``disabled`` attributes junit-xml always writes (the one
    known difference from junit-10) and validate the rest."""
    root = etree.fromstring(xml.encode("utf-8"))
    for element in root.iter():
        element.attrib.pop("disabled", None)
    assert schema.validate(root), schema.error_log
    return root


def expected_counts(value: Report) -> list[dict[str, int]]:
    """Per suite, what its JUnit must count: a testcase per attempt, and one for its
    thresholds (a failure when one was missed); a failing attempt of a suite its thresholds
    passed is skipped (absorbed), so that no consumer fails the check on it."""
    view = build_view(value)
    counts = []
    for suite_view in view.suites:
        record = suite_view.record
        problems = [item.problem for item in suite_view.attempts()]
        absorbed = (
            problems.count("failure") if record.thresholds and record.verdict == "passed" else 0
        )
        gated = bool(record.thresholds) and record.status != "skipped"
        missed = gated and not all(t.held for t in record.thresholds)
        counts.append(
            {
                "tests": len(problems) + gated,
                "failures": problems.count("failure") - absorbed + missed,
                "errors": problems.count("runtime") + problems.count("check_error"),
                "skipped": problems.count("skipped") + problems.count("cancelled") + absorbed,
            }
        )
    return counts


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_valid_and_read_back_with_exact_counts(
    corpus: dict[str, Report], junit_schema: Any, name: str
) -> None:
    value = corpus[name]
    xml = render_junit(RenderContext(value))
    root = validate(xml, junit_schema)
    parsed = junitparser.JUnitXml.fromstring(xml.encode("utf-8"))
    suites = list(parsed)
    expected = expected_counts(value)

    assert len(suites) == len(value.suites)
    for suite_xml, record, counts in zip(suites, value.suites, expected, strict=True):
        cases = list(suite_xml)
        assert suite_xml.tests == counts["tests"] == len(cases)
        assert len(cases) == record.attempt_count + (
            bool(record.thresholds) and record.status != "skipped"
        )
        assert suite_xml.failures == counts["failures"]
        assert suite_xml.errors == counts["errors"]
        assert suite_xml.skipped == counts["skipped"]
        outcomes = [type(case.result[0]).__name__ if case.result else "Pass" for case in cases]
        assert outcomes.count("Failure") == counts["failures"]
        assert outcomes.count("Error") == counts["errors"]
        assert outcomes.count("Skipped") == counts["skipped"]
        assert all(len(case.result) <= 1 for case in cases)
    assert root.get("tests") == str(sum(c["tests"] for c in expected))
    assert all(case.get("file") is None for case in root.iter("testcase"))
    assert all(re.fullmatch(r"\d+\.\d{3}", case.get("time", "")) for case in root.iter("testcase"))
    check_times(xml)
    no_workflow_commands(xml)


def test_attempt_names_time_and_outcomes(corpus: dict[str, Report]) -> None:
    root = etree.fromstring(render_junit(RenderContext(corpus["repeats"])).encode("utf-8"))
    python = root.find("testsuite[@name='python']")
    assert python is not None
    cases = python.findall("testcase")

    assert [c.get("name") for c in cases[:4]] == ["ok#1", "ok#2", "ok#3", "wrong#1"]
    assert {c.get("classname") for c in cases} == {"python"}
    assert all(re.fullmatch(r"\d+\.\d{3}", c.get("time", "")) for c in cases)
    failure = cases[3].find("failure")
    assert failure is not None
    assert failure.get("message") == "category: the string has 7 code points, the expected string 6"
    assert failure.text is not None
    assert failure.text.startswith("evaluation/dataset.json:31: case wrong#1\n")
    error = cases[6].find("error")
    assert error is not None
    assert (error.get("type"), error.get("message")) == (
        "failed",
        "the attempt failed: python target raised ValueError at fixture_app.py:40",
    )
    check_error = cases[9].find("error")
    assert check_error is not None
    assert check_error.get("type") == "check error"
    assert check_error.get("message") == "custom: scorer 'boom' raised KeyError"
    properties = {p.get("name"): p.get("value") for p in python.iter("property")}
    assert properties["verdict"] == "error"
    assert properties["threshold.pass_rate"] == "minimum 0.9, actual 0.6667, missed"
    assert properties["metric.queue.accuracy"] == "0.5"


def test_skipped_live_suites_and_cancelled_attempts(corpus: dict[str, Report]) -> None:
    skipped = etree.fromstring(render_junit(RenderContext(corpus["skipped"])).encode("utf-8"))
    messages = {s.get("message") for s in skipped.iter("skipped")}
    assert messages == {"live workflow 'live' runs only with --live"}

    interrupted = etree.fromstring(
        render_junit(RenderContext(corpus["interrupted"])).encode("utf-8")
    )
    cancelled = [s.get("message") for s in interrupted.iter("skipped")]
    assert cancelled == ["cancelled: the run was interrupted (SIGINT)"] * 4


def test_suite_time_is_rounded_although_junit_xml_sums_raw_floats() -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floats, and 0.00001 s is written 1e-05 by str().
    tiny = [attempt(1, latency_ms=0.01)]
    sums = [attempt(1, latency_ms=100.0), attempt(2, latency_ms=200.0)]
    value = report([suite("sums", [case("a", sums)], repeat=2), suite("tiny", [case("b", tiny)])])
    xml = render_junit(RenderContext(value))
    root = etree.fromstring(xml.encode("utf-8"))

    assert root.find("testsuite[@name='sums']").get("time") == "0.300"  # type: ignore[union-attr]
    assert root.find("testsuite[@name='tiny']").get("time") == "0.000"  # type: ignore[union-attr]
    assert root.get("time") == "0.300"
    check_times(xml)


def test_check_times_refuses_what_junit_10_refuses() -> None:
    with pytest.raises(ValueError, match="3 decimals"):
        check_times('<testcase name="a" time="0.123456" />')
    with pytest.raises(ValueError, match="3 decimals"):
        check_times('<testsuite name="a" time="1e-05">')
    check_times('<testcase name="a" time="12.345" />')


def test_illegal_xml_characters_are_removed(corpus: dict[str, Report], junit_schema: Any) -> None:
    xml = render_junit(RenderContext(corpus["hostile"]))

    validate(xml, junit_schema)
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", xml)
    assert "\u202e" not in xml


def _consumer_fails(suite_xml: Any) -> bool:
    """EnricoMi's and dorny's default conclusion for a suite: failed when it holds a failure
    or an error."""
    return bool(suite_xml.failures or suite_xml.errors)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_a_consumer_s_default_conclusion_is_goldgate_s_verdict(
    corpus: dict[str, Report], name: str
) -> None:
    value = corpus[name]
    parsed = junitparser.JUnitXml.fromstring(render_junit(RenderContext(value)).encode("utf-8"))

    for suite_xml, record in zip(parsed, value.suites, strict=True):
        if record.verdict in ("passed", "skipped"):
            assert not _consumer_fails(suite_xml), record.name
        elif record.verdict in ("failed", "error"):
            assert _consumer_fails(suite_xml), record.name


def _threshold(key: str, actual: float, held: bool) -> ThresholdRecord:
    return ThresholdRecord(key=key, minimum=0.5, actual=actual, held=held)


def test_failing_attempts_of_a_suite_its_thresholds_passed_are_skipped_and_visible(
    junit_schema: Any,
) -> None:
    failing = attempt(1, outcomes=("failed",), reasons=["the string has 3 code points"])
    held = suite(
        "held",
        [case("ok", [attempt(1)]), case("off", [failing], line=7)],
        thresholds=[_threshold("pass_rate", 0.5, True)],
    )
    xml = render_junit(RenderContext(report([held])))
    validate(xml, junit_schema)
    parsed = next(iter(junitparser.JUnitXml.fromstring(xml.encode("utf-8"))))
    cases = {case.name: case for case in parsed}

    assert (parsed.tests, parsed.failures, parsed.errors, parsed.skipped) == (3, 0, 0, 1)
    skipped = cases["off"].result[0]
    assert isinstance(skipped, junitparser.Skipped)
    assert skipped.message == f"{ABSORBED}: check_1: the string has 3 code points"
    assert "evaluation/cases/gold.json:7: case off" in (skipped.text or "")
    assert cases[THRESHOLDS_CASE].result == []


def test_a_suite_failed_by_a_threshold_alone_shows_a_failure(junit_schema: Any) -> None:
    missed = suite(
        "missed",
        [case("ok", [attempt(1)])],
        thresholds=[_threshold("queue.coverage", 0.25, False), _threshold("pass_rate", 1, True)],
    )
    xml = render_junit(RenderContext(report([missed])))
    validate(xml, junit_schema)
    parsed = next(iter(junitparser.JUnitXml.fromstring(xml.encode("utf-8"))))
    thresholds = next(case for case in parsed if case.name == THRESHOLDS_CASE)

    assert (parsed.tests, parsed.failures) == (2, 1)
    failure = thresholds.result[0]
    assert isinstance(failure, junitparser.Failure)
    assert failure.type == "threshold"
    assert failure.message == "1 of 2 thresholds missed: queue.coverage: minimum 0.5, actual 0.25"


def test_every_testcase_has_a_time_even_unmeasured() -> None:
    unmeasured = suite(
        "none", [case("a", [attempt(1, latency_ms=None)]), case("b", [attempt(1, "skipped")])]
    )
    root = etree.fromstring(render_junit(RenderContext(report([unmeasured]))).encode("utf-8"))

    assert [c.get("time") for c in root.iter("testcase")] == ["0.000", "0.000"]
