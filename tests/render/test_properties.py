"""Random reports, hostile text everywhere: no renderer raises, Markdown stays within any
budget with its tables closed, JUnit stays well-formed with valid times, annotations are one
command a line, and no line of any output starts a workflow command from data."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from goldgate.gold.models import Metric
from goldgate.render.annotations import render_annotations
from goldgate.render.junit import check_times, render_junit
from goldgate.render.markdown import LIMITS, render_markdown, size
from goldgate.render.registry import Links, RenderContext
from goldgate.render.terminal import render_terminal
from goldgate.report.models import Report, ThresholdRecord
from goldgate.scoring.metrics import Observation, compute_metric

from .builders import attempt, case, expectation, report, suite
from .checks import markdown_is_safe, no_workflow_commands
from .test_annotations import parse

_HOSTILE = st.sampled_from(
    [
        "::error::x",
        "\n::warning::y",
        "\r\n",
        "|",
        "`",
        "@team",
        "#1",
        "<script>",
        "&amp;",
        "[a](http://b)",
        "*",
        "_",
        "~~",
        "\x1b[31m",
        "\x00",
        "\u202e",
        "\ud800",
        "\\",
        "%0A",
        "www.x.y",
        "＠me",
        "<details>",
        "\u2028",
        " ",
    ]
)
TEXT = st.lists(st.text(max_size=8) | _HOSTILE, max_size=4).map("".join)
NAME = TEXT.filter(bool)
GOLD_NAME = NAME.filter(lambda name: "\ud800" not in name)
"""Gold refuses lone surrogates; a report built in Python may hold them anywhere else."""
OUTCOMES = st.sampled_from(["passed", "failed", "error", "not_run"])
STATUSES = st.sampled_from(["completed", "completed", "failed", "timed_out", "cancelled"])


@st.composite
def cases(draw: Any, repeat: int, skipped: bool) -> Any:
    width = draw(st.integers(1, 3))
    attempts = []
    for n in range(1, repeat + 1):
        status = "skipped" if skipped else draw(STATUSES)
        outcomes = draw(st.lists(OUTCOMES, min_size=width, max_size=width))
        reasons = [None if o == "passed" else draw(TEXT) for o in outcomes]
        attempts.append(
            attempt(
                n,
                status,
                outcomes,
                reasons=reasons,
                reason=draw(TEXT) or None,
                latency_ms=draw(st.none() | st.floats(0, 1e7, allow_nan=False)),
                result=draw(
                    st.none()
                    | st.fixed_dictionaries({"payload": st.dictionaries(TEXT, TEXT, max_size=2)})
                ),
            )
        )
    expectations = [expectation(draw(NAME), expected=draw(TEXT)) for _ in range(width)]
    return case(
        draw(NAME),
        attempts,
        expectations,
        line=draw(st.none() | st.integers(1, 10**6)),
        split=draw(st.sampled_from([None, "dev", "holdout"])),
    )


@st.composite
def metrics(draw: Any) -> Any:
    labels = draw(st.lists(GOLD_NAME, min_size=1, max_size=4, unique=True))
    kind = draw(st.sampled_from(["classification", "multilabel"]))
    # model_construct: a report file may hold any name (gold refuses control characters, but
    # a renderer must be safe on a report written by hand or by an older goldgate).
    metric = Metric.model_construct(
        name=draw(GOLD_NAME), path="/payload/x", kind=kind, labels=labels, cases=None
    )
    observations = []
    for index in range(draw(st.integers(0, 6))):
        if kind == "classification":
            gold, predicted = draw(st.sampled_from(labels)), draw(st.sampled_from([*labels, None]))
        else:
            gold = draw(st.lists(st.sampled_from(labels), max_size=2))
            predicted = draw(st.lists(st.sampled_from(labels), max_size=2))
        observations.append(Observation(f"c{index}", 1, gold, "observed", predicted))
    return compute_metric(metric, observations)


@st.composite
def suites(draw: Any) -> Any:
    repeat = draw(st.integers(1, 3))
    status = draw(st.sampled_from(["ran", "ran", "skipped", "not_started"]))
    skipped = status == "skipped"
    thresholds = [
        ThresholdRecord(
            key=draw(NAME),
            minimum=draw(st.floats(0, 1)),
            actual=draw(st.none() | st.floats(0, 1)),
            held=draw(st.booleans()),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    return suite(
        draw(NAME),
        draw(st.lists(cases(repeat, skipped), max_size=4)),
        repeat=repeat,
        status=status,
        skip_reason=draw(TEXT) if skipped else None,
        thresholds=thresholds,
        metrics=[] if skipped else draw(st.lists(metrics(), max_size=2)),
        cases_source=draw(st.none() | TEXT),
        adjudication=draw(st.integers(0, 3)),
    )


@st.composite
def reports(draw: Any) -> Report:
    complete = draw(st.booleans())
    return report(
        draw(st.lists(suites(), max_size=3)),
        name=draw(NAME),
        revision=draw(NAME),
        complete=complete,
        interruption=None if complete else draw(st.sampled_from(["SIGINT", "SIGTERM"])),
    )


_SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# One test draws each report for both properties (drawing a report costs about as much as
# rendering it every way): 80 reports, each rendered as Markdown within a drawn budget and as
# JUnit, annotations and terminal text.
@_SETTINGS
@given(
    value=reports(),
    limit=st.integers(2_500, LIMITS["comment"]),
    budget=st.sampled_from(["comment", "summary"]),
    details=st.sampled_from(["safe", "values"]),
)
def test_no_renderer_raises_exceeds_or_injects(
    value: Report, limit: int, budget: Any, details: Any
) -> None:
    _markdown_never_raises_exceeds_or_leaks(value, limit, budget, details)
    _junit_annotations_and_terminal_never_raise_or_inject(value)


def _markdown_never_raises_exceeds_or_leaks(
    value: Report, limit: int, budget: Any, details: Any
) -> None:
    link = "https://github.com/o/r/blob/abc"
    document = render_markdown(
        RenderContext(
            value,
            budget=budget,
            details=details,
            limit=limit,
            links=Links(link_base=link, full_report="out/r.json"),
        )
    )

    assert size(document, budget) <= limit
    markdown_is_safe(document, link)
    assert document.count("<details>") == document.count("</details>")


def _junit_annotations_and_terminal_never_raise_or_inject(value: Report) -> None:
    xml = render_junit(RenderContext(value))
    etree.fromstring(xml.encode("utf-8"))
    check_times(xml)
    no_workflow_commands(xml)

    for line in render_annotations(
        RenderContext(value, links=Links(full_report="out/r.json"))
    ).splitlines():
        kind, _, message = parse(line)
        assert kind in ("error", "notice")
        assert "\n" not in message

    no_workflow_commands(render_terminal(RenderContext(value)))
    no_workflow_commands(render_terminal(RenderContext(value, rich=True, color=False, width=60)))
