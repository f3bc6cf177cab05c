"""Markdown: within its budget, tables closed and never cut, nothing from data unescaped,
values only when asked for and never for held-out cases, links to the gold line, and the
comparison sections in their place."""

from __future__ import annotations

import re

import pytest

from goldgate.render.escape import ZWJ
from goldgate.render.markdown import LIMITS, render_markdown, size
from goldgate.render.registry import Links, RenderContext
from goldgate.render.view import ChangeItem, ComparisonView, Location, McNemarItem
from goldgate.report.models import Report

from .checks import markdown_is_safe
from .corpus import REPORTS

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")

LINK = "https://github.com/o/r/blob/abc"


def balanced(document: str) -> None:
    assert document.count("<details>") == document.count("</details>")
    assert document.count("<summary>") == document.count("</summary>")


@pytest.mark.parametrize("details", ["safe", "values"])
@pytest.mark.parametrize("budget", ["comment", "summary"])
@pytest.mark.parametrize("name", sorted(REPORTS))
def test_within_budget_closed_and_escaped(
    corpus: dict[str, Report], name: str, budget: str, details: str
) -> None:
    document = render_markdown(
        RenderContext(
            corpus[name],
            budget=budget,
            details=details,
            links=Links(link_base=LINK, full_report="r.json"),
        )
    )  # type: ignore[arg-type]

    assert size(document, budget) <= LIMITS[budget]  # type: ignore[arg-type]
    markdown_is_safe(document, LINK)
    balanced(document)
    assert document.startswith("## ")


@pytest.mark.parametrize("limit", [3_000, 5_000, 8_000, 20_000])
@pytest.mark.parametrize("name", sorted(REPORTS))
def test_small_budgets_drop_whole_items(corpus: dict[str, Report], name: str, limit: int) -> None:
    document = render_markdown(
        RenderContext(corpus[name], limit=limit, links=Links(full_report="r.json"))
    )

    assert len(document) <= limit
    markdown_is_safe(document)
    balanced(document)
    assert document.startswith("## ")


def test_verdict_and_exit_code_meaning_come_first(corpus: dict[str, Report]) -> None:
    lines = render_markdown(RenderContext(corpus["repeats"])).splitlines()

    assert lines[0] == (
        "## ❌ goldgate: failed — 6 passed, 6 failing, 3 runtime failures, 3 check errors; "
        "no baseline"
    )
    assert lines[2].startswith("**Why:** Exit code 4 \\(runtime failure\\). A target raised")
    headings = [line for line in lines if line.startswith("### ")]
    assert headings == [
        "### Runtime failures and check errors",
        "### Suites",
        "### Thresholds",
        "### Failing cases",
        "### Metrics",
    ]


def test_nothing_evaluated_and_interrupted_say_so(corpus: dict[str, Report]) -> None:
    skipped = render_markdown(RenderContext(corpus["skipped"]))
    interrupted = render_markdown(RenderContext(corpus["interrupted"]))

    assert skipped.startswith("## ⚪ goldgate: nothing evaluated — 0 passed, 3 skipped")
    assert "**Why:** Exit code 0 \\(passed\\). No check ran" in skipped
    assert (
        "### Skipped suites\n\n- live\\_one: live workflow 'live' runs only with --live\n"
        in skipped
    )
    assert "## ⏹️ goldgate: interrupted" in interrupted
    assert (
        "The run was interrupted (SIGINT) and this report is incomplete: 4 attempts" in interrupted
    )


def test_5000_failing_cases_fill_the_comment_and_say_what_was_left_out(
    corpus: dict[str, Report],
) -> None:
    document = render_markdown(
        RenderContext(corpus["many"], links=Links(full_report="out/report.json"))
    )
    rows = re.findall(r"^\| bulk \| (case-\d+) \|", document, flags=re.MULTILINE)
    left_out = 5_000 - len(rows)

    assert LIMITS["comment"] - 1_000 < len(document) <= LIMITS["comment"]
    assert rows == [f"case-{i:05d}" for i in range(len(rows))]  # the first ones, in order
    # The cut is said at the top, with where the rest is; the suite and threshold tables,
    # kept before the failing cases, are all there.
    head = document.split("\n### ")[0]
    assert (
        "**Shortened to fit GitHub's limit of 65,536 characters for a comment:** "
        f"{left_out:,} items are not shown (Failing cases: {left_out:,}); the full report has "
        "them all: out/report.json."
    ) in head
    assert "Full report: out/report.json" in head
    assert "\n### Suites\n" in document
    assert "| bulk | failed | 5,000 | 5,000 of 10,000 | 50.0% | threshold: missed |" in document
    assert "| bulk | pass\\_rate | 0.9 | 0.5 | no | yes |" in document
    assert (
        render_markdown(RenderContext(corpus["many"], budget="summary")).count("| bulk | case-")
        == 5_000
    )


def test_values_only_when_asked_and_never_for_holdout(corpus: dict[str, Report]) -> None:
    safe = render_markdown(RenderContext(corpus["repeats"]))
    values = render_markdown(RenderContext(corpus["repeats"], details="values"))
    hostile = render_markdown(RenderContext(corpus["hostile"], details="values", budget="summary"))

    assert '"refund"' not in safe
    assert '| "refund" | "billing" |' in values
    assert (
        "| secret#‍1 | labels | the set lacks 1 expected element | \\(held out\\) | \\(held out\\) |"
        in values
    )
    assert "held-out answer" not in hostile
    assert '"x"' not in hostile


def test_cases_link_to_their_gold_line(corpus: dict[str, Report]) -> None:
    document = render_markdown(RenderContext(corpus["repeats"], links=Links(link_base=LINK + "/")))
    plain = render_markdown(RenderContext(corpus["repeats"]))

    assert f"[wrong#{ZWJ}1]({LINK}/evaluation/dataset.json#L31)" in document
    assert "](" not in plain
    hostile = render_markdown(RenderContext(corpus["hostile"], links=Links(link_base=LINK)))
    assert f"]({LINK}/" not in hostile  # a source with ':' or outside the folder gets no link


def test_example_cases_link_to_their_lines(corpus: dict[str, Report]) -> None:
    document = render_markdown(
        RenderContext(corpus["example"], budget="summary", links=Links(link_base=LINK))
    )
    example = corpus["example"]
    pipeline = example.suites[0]

    assert pipeline.cases_source == "examples/support_triage/evaluation/cases/pipeline.json"
    assert [c.line for c in pipeline.cases][:3] == [2, 72, 120]
    assert "### Metrics" in document


@pytest.mark.parametrize(
    "bad", ["javascript:alert(1)", "https://x.test/a b", "https://x.test/(x)", "https://x.test/]"]
)
def test_link_base_must_be_a_plain_url(corpus: dict[str, Report], bad: str) -> None:
    with pytest.raises(ValueError, match="http"):
        render_markdown(RenderContext(corpus["repeats"], links=Links(link_base=bad)))


def test_marker_starts_the_body(corpus: dict[str, Report]) -> None:
    document = render_markdown(RenderContext(corpus["repeats"], marker="pr-comment.1"))

    assert document.startswith("<!-- goldgate:pr-comment.1 -->\n## ")
    with pytest.raises(ValueError, match="marker"):
        render_markdown(RenderContext(corpus["repeats"], marker="x --> <script>"))


def test_data_never_appears_unescaped(corpus: dict[str, Report]) -> None:
    for name in ("hostile", "hostile_run"):
        document = render_markdown(RenderContext(corpus[name], details="values", budget="summary"))
        assert "<script>" not in document
        assert "@team" not in document
        assert f"@{ZWJ}team" in document
        assert "#12" not in document
        assert f"#{ZWJ}12" in document
        assert "`" not in document.replace("\\`", "")
        assert "[l](" not in document
        for unsafe in ("\x1b", "\x00", "\u202e"):
            assert unsafe not in document


# --- comparison sections -------------------------------------------------------------------------


def comparison() -> ComparisonView:
    where = Location("evaluation/dataset.json", 31)
    return ComparisonView(
        baseline="main @ 0123abc",
        regressions=(ChangeItem("python", "wrong", 1, "regressed", "category now fails", where),),
        improvements=(ChangeItem("python", "ok", 2, "improved", "status now passes"),),
        flaky=(ChangeItem("labels", "tagged @team", 1, "flaky", "passed 2 of 3"),),
        gold_changes=(ChangeItem("python", "judged", 1, "gold changed", "gold changed: tone"),),
        mcnemar=(McNemarItem("python", 5, 2, 0.453), McNemarItem("labels", 3, 1, 0.625)),
        partial=True,
        added=("new_case",),
        changed=("edited <b>case</b>",),
    )


def test_comparison_sections_take_their_places(corpus: dict[str, Report]) -> None:
    document = render_markdown(
        RenderContext(corpus["repeats"], comparison(), links=Links(link_base=LINK))
    )
    headings = [line for line in document.splitlines() if line.startswith("### ")]

    assert headings == [
        "### Regressions",
        "### Runtime failures and check errors",
        "### Suites",
        "### Thresholds",
        "### Failing cases",
        "### Improvements",
        "### Metrics",
        "### Flaky cases",
        "### Gold changes",
        "### McNemar's test",
        "### Partial comparison",
    ]
    assert f"| python | [wrong]({LINK}/evaluation/dataset.json#L31) | regressed |" in document
    # The baseline's revision is data: a commit id GitHub would link is broken up.
    assert document.splitlines()[0].endswith(f"against main @{ZWJ} 0123ab{ZWJ}c")
    # McNemar's test only where it can say anything: 7 discordant pairs, not 4.
    assert "- python: 2 passed only in the candidate, 5 only in the baseline: p = 0.453" in document
    assert "- labels:" not in document
    assert "- input changed: edited &lt;b&gt;case&lt;/b&gt;" in document
    markdown_is_safe(document, LINK)


def test_without_a_comparison_its_sections_are_absent(corpus: dict[str, Report]) -> None:
    document = render_markdown(RenderContext(corpus["repeats"]))

    for heading in ("Regressions", "Improvements", "Flaky", "McNemar", "Partial"):
        assert f"### {heading}" not in document


def test_a_comment_is_measured_in_utf16_code_units() -> None:
    """GitHub counts a comment's length in UTF-16 code units: an emoji counts two, so a
    budget in characters would let an emoji-heavy body through that GitHub refuses."""
    body = "😀" * 40_000  # 40,000 characters, 80,000 code units

    assert size(body, "comment") == 80_000 > LIMITS["comment"]
    assert size("é" * 10, "comment") == 10  # inside the Basic Multilingual Plane: one each
    assert size(body, "summary") == 160_000  # a job summary is measured in UTF-8 bytes


# GitHub's autolinks, as it finds them in rendered text: a reference must not survive.
_REFERENCES = [
    re.compile(r"(?i)(?<![0-9a-z_])gh-\d"),
    re.compile(r"#\d"),
    re.compile(r"[\w.-]+/[\w.-]+#\d"),
    re.compile(r"[@＠]\w"),
    re.compile(r"(?<![0-9A-Za-z_])[0-9A-Fa-f]{7,40}(?![0-9A-Za-z_])"),
]
_HIDDEN = re.compile(
    "[\u00ad\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)
REFERENCE_CORPUS = [
    "GH-12", "gh-3 and Gh-44", "see GH-1.", "(GH-9)", "#12", "fixes #1234", "octo/repo#12",
    "octo-org/my.repo#7", "@team", "@octo-org/team", "＠team", "mail a@b.co",
    "0123456789abcdef0123456789abcdef01234567", "commit 0123abc", "DEADBEEF12 upper",
    "deadbeefcafe0123456789abcdef0123456789abcdef",  # 44 digits: GitHub links none
    "a\u200bb", "@\u200bteam", "#\u200c12", "G\u200dH-12", "x\u202eevil\u202c",
    "\u2066isolate\u2069", "\ufeffbom", "a\u200e\u200fb", "\u2060word\u2061join",
    "@\u00adteam", "G\U000e0048H-1", "#\ufff912",
]  # fmt: skip


@pytest.mark.parametrize("value", REFERENCE_CORPUS)
def test_no_reference_mention_commit_or_hidden_mark_survives_escaping(value: str) -> None:
    from goldgate.render.escape import markdown

    from .checks import markdown_parser

    escaped = markdown(value)
    texts = [
        child.content
        for token in markdown_parser().parse(escaped)
        if token.type == "inline"
        for child in token.children or []
        if child.type == "text"
    ]
    for text in texts:
        for reference in _REFERENCES:
            assert not reference.search(text), (value, text)
        assert not _HIDDEN.search(text), (value, text)
    assert escaped.replace(ZWJ, "").replace("\\", "").strip() != ""
