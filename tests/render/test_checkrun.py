"""A check run's output (``render.checkrun``, issue 44): every annotation by severity and its
level, the bound and its notice, batches of 50, the title; and the noise rule that folds
latency and usage changes (``render.deltas``), at its boundaries. Pure: no I/O."""

from __future__ import annotations

import pytest

from goldgate.render.checkrun import (
    BATCH,
    NO_FILE,
    CheckAnnotation,
    batches,
    check_annotations,
    check_summary,
    check_title,
)
from goldgate.render.deltas import Figure
from goldgate.render.registry import Links, RenderContext
from goldgate.render.view import ChangeItem, ComparisonView, Location

from .builders import attempt, case, report, suite

GOLD = "evaluation/cases/gold.json"


def _context(maximum_cases: int = 0) -> RenderContext:
    """One suite: a regression, a runtime failure, a flaky failure, a plain failure and an
    improved case, in that order of severity but not of the suite."""
    cases = [
        case("plain", [attempt(1, outcomes=("failed",))], line=10),
        case("flaky", [attempt(1, outcomes=("failed",))], line=20),
        case("improved", [attempt(1)], line=30),
        case("broken", [attempt(1, status="failed")], line=40),
        case("regressed", [attempt(1, outcomes=("failed",))], line=50),
        *(
            case(f"more-{i}", [attempt(1, outcomes=("failed",))], line=60)
            for i in range(maximum_cases)
        ),
    ]
    built = report([suite("s", cases, cases_source=GOLD)])
    view = ComparisonView(
        baseline="main@abc1234",
        regressions=(ChangeItem("s", "regressed", 1, "regressed", "pass to fail: check_1"),),
        flaky=(ChangeItem("s", "flaky", 0, "flaky", "passes 1 of 2"),),
        improvements=(
            ChangeItem("s", "improved", 1, "improved", "fail to pass: check_1", Location(GOLD, 30)),
        ),
    )
    return RenderContext(built, view, links=Links(full_report="out/report.json"))


def test_every_annotation_by_severity_at_its_line() -> None:
    found = check_annotations(_context(), 1_000)

    assert [(a.title.rsplit(" / ", 1)[1], a.level, a.line) for a in found] == [
        ("regressed", "failure", 50),
        ("broken", "failure", 40),
        ("plain", "failure", 10),
        ("flaky", "warning", 20),
        ("improved", "notice", 30),
    ]
    assert {a.path for a in found} == {GOLD}
    assert found[0].title == "goldgate regression: s / regressed"
    assert found[3].message.startswith("flaky, not a regression")


def test_the_bound_keeps_the_most_severe_and_a_notice_counts_the_rest() -> None:
    found = check_annotations(_context(), 2)

    assert [a.level for a in found] == ["failure", "failure", "notice"]
    assert found[-1].message == (
        "3 more annotations not sent (GOLDGATE_MAX_ANNOTATIONS is 2); every one is in "
        "out/report.json."
    )
    one = check_annotations(_context(), 4)[-1].message
    assert one.startswith("1 more annotation not sent")


@pytest.mark.parametrize(
    ("count", "sizes"), [(0, [0]), (50, [50]), (51, [50, 1]), (120, [50, 50, 20])]
)
def test_batches_of_at_most_50(count: int, sizes: list[int]) -> None:
    annotation = CheckAnnotation(NO_FILE, 1, "failure", "t", "m")

    assert [len(batch) for batch in batches((annotation,) * count)] == sizes
    assert BATCH == 50


def test_the_title_is_the_heading_and_the_summary_bounded() -> None:
    assert check_title("<!-- x -->\n## ❌ goldgate: failed — 1 regressed\n\nmore") == (
        "❌ goldgate: failed — 1 regressed"
    )
    assert check_title("no heading") == "goldgate"
    assert len(check_summary("x" * 70_000)) == 65_535


def _latency(before: float, after: float) -> Figure:
    return Figure("latency p50", before, after, "ms", None, "latency")


def _usage(before: float, after: float) -> Figure:
    return Figure("tokens per attempt", before, after, "number", None, "usage")


@pytest.mark.parametrize(
    ("figure", "finding"),
    [
        (_latency(1, 0), False),  # a model-free suite's 1 ms to 0 ms
        (_latency(100, 150), False),  # 50 ms, the floor
        (_latency(100, 150.5), True),
        (_latency(1_000, 1_200), False),  # 20% of the baseline
        (_latency(1_000, 799), True),
        (_usage(10, 11), False),  # 10% of the baseline
        (_usage(10, 11.5), True),
        (_usage(0, 0), False),
        (_usage(0, 0.1), True),  # from nothing, any change
        (Figure("latency p95", 1, 900, "ms", "a replay's latency", "latency"), False),
        (Figure("attempts passed", 1.0, 1.0, "rate"), True),  # no noise rule: always shown
    ],
)
def test_the_noise_rule_at_its_boundaries(figure: Figure, finding: bool) -> None:
    assert figure.beyond_noise is finding


def test_counts_read_as_english_everywhere() -> None:
    """One pluralisation (``base.english.count``) for every "N things": the stdout summary
    of a run, the suite table's "decided by", the renderers' own counts."""
    from goldgate.base.english import count
    from goldgate.base.errors import ExitCode
    from goldgate.render import text
    from goldgate.render.view import build_view
    from goldgate.report.summary import render_summary

    assert text.count is count
    assert (count(1, "runtime failure"), count(2, "runtime failure")) == (
        "1 runtime failure",
        "2 runtime failures",
    )
    one = report([suite("s", [case("c", [attempt(1, status="failed")])])])
    said = render_summary(one, None, ExitCode.RUNTIME_FAILURE)
    assert "1 case; 1 attempt;" in said
    assert "1 runtime failure" in said
    assert "1 runtime failures" not in said
    (shown,) = build_view(one).suites
    assert shown.decided_by == "1 runtime failure"


@pytest.mark.parametrize(
    ("revision", "shown"),
    [
        ("sha256:" + "7bb2904ee915" + "0" * 52, "7bb2904ee915"),  # a configuration digest
        ("6dcb09b5b57875f334f61aebed695e2e4193db5e", "6dcb09b5b578"),  # a commit
        ("base", "base"),
        ("reviewed-2026-11-30", "reviewed-2026-11-30"),
    ],
)
def test_the_headline_names_a_baseline_by_a_digest_of_at_most_12(revision: str, shown: str) -> None:
    from goldgate.render.compared import short_revision

    assert short_revision(revision) == shown
