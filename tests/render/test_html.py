"""The HTML page, in-process: safe by default (data escaped, the table's JSON unable to end
its script, secrets redacted, values only when asked and never for held-out cases), one
self-contained file (its policy allows its own style and script, by hash, and nothing
else), and the figures' geometry (a heatmap cell per gold and predicted label, a histogram
that counts every latency). What a browser makes of it: test_html_browser.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from goldgate.render import htmlfigures
from goldgate.render.html import render_html
from goldgate.render.htmlcases import DIFF_CELLS, OUTCOMES, diff
from goldgate.render.registry import Links, RenderContext
from goldgate.report.models import AwaitingRecord, Report
from goldgate.scoring.metrics import (
    Averages,
    ClassificationMetricResult,
    Confusion,
    LabelScores,
    UnavailableCounts,
)

from .builders import attempt, case, expectation, many_attempts, report, suite
from .corpus import HOSTILE, hostile, interrupted

TOKEN = "ghs_0123456789abcdefTOKEN"
TEMPLATE_TAGS = frozenset(
    {
        *("html", "head", "meta", "link", "title", "style", "script", "body", "header"),
        *("nav", "main", "section", "footer", "h1", "h2", "h3", "h4", "p", "span", "strong"),
        *("b", "small", "a", "ul", "li", "div", "figure", "figcaption", "noscript"),
        *("table", "thead", "tbody", "tr", "th", "td", "form", "label", "select", "option"),
        *("input", "button", "svg", "text", "g", "rect", "line", "path"),
    }
)
"""Every element the page's templates write: anything else came from data."""


class _Elements(HTMLParser):
    """Every element of a page, as a browser's tokenizer sees it, with the text of its
    scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            attributes, text = self.scripts[-1]
            self.scripts[-1] = (attributes, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None


def _parsed(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


def _data(page: str) -> dict[str, Any]:
    [(_, text)] = [s for s in _parsed(page).scripts if s[0].get("type") == "application/json"]
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _failing(
    case_id: str, expected: Any, actual: Any, *, split: str | None = None, name: str = "category"
) -> Any:
    return case(
        case_id,
        [attempt(1, outcomes=("failed",), reasons=["differs"], result={"payload": {"v": actual}})],
        [expectation(name, "/payload/v", expected)],
        line=3,
        split=split,
    )


def _values_report() -> Report:
    return report(
        [
            suite(
                "triage",
                [
                    _failing("visible", "the billing queue", "the refund queue"),
                    _failing("held", "the secret gold answer", "another answer", split="Holdout"),
                    _failing("numbers", {"n": 1}, [1, 2]),
                    case("fine", [attempt(1)], line=9),
                ],
            )
        ]
    )


def test_hostile_data_stays_text(tmp_path: Path) -> None:
    page = render_html(RenderContext(hostile(tmp_path), details="values"))
    parsed = _parsed(page)

    tags = {tag for tag, _ in parsed.tags}
    assert len(parsed.scripts) == 2  # the table's data and the page's own script
    assert tags <= TEMPLATE_TAGS, tags - TEMPLATE_TAGS  # none from data
    assert "<script>alert" not in page
    assert "javascript:" not in page.lower()
    for _, attributes in parsed.tags:
        assert not any(name.startswith("on") for name in attributes), attributes
        assert "href" not in attributes or str(attributes["href"]).startswith(("#", "data:"))
    [(_, data_text)] = [s for s in parsed.scripts if s[0].get("type") == "application/json"]
    assert "<" not in data_text  # so no "</script>" either: it cannot end its element
    data = json.loads(data_text)
    labels = [row[1] for row in data["rows"]]
    assert any("<script>alert(1)</script>" in label for label in labels)  # still the text
    assert all("\n" not in label and "\x1b" not in label for label in labels)


def test_the_page_allows_its_own_style_and_script_only() -> None:
    page = render_html(RenderContext(_values_report()))
    parsed = _parsed(page)
    [policy] = [
        a["content"] for tag, a in parsed.tags if a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert policy is not None
    assert policy.startswith("default-src 'none';")
    [(_, script)] = [s for s in parsed.scripts if "type" not in s[0]]
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert style is not None
    for body in (script, style.group(1)):
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert " style=" not in page  # an inline style attribute would be refused
    assert not [a for tag, a in parsed.tags if tag in ("link",) and a.get("rel") != "icon"]
    assert re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page) is None


def test_values_are_shown_only_when_asked_and_never_held_out() -> None:
    built = _values_report()

    safe = render_html(RenderContext(built))
    values = render_html(RenderContext(built, details="values"))

    for text in ("the refund queue", "the billing queue", "secret gold", "another answer"):
        assert text not in safe
    assert "secret gold" not in values
    assert "another answer" not in values
    rows = {row[1]: row for row in _data(values)["rows"]}
    details = _data(values)["details"]
    [visible] = details[rows["visible"][9]]
    assert visible[:3] == ["category", "failed", "differs"]
    assert visible[3:5] == ["the billing queue", "the refund queue"]
    assert [op for op, _ in visible[5]] == [0, -1, 1, 0]
    [held] = details[rows["held"][9]]
    assert len(held) == 3  # name, outcome, reason: no value of a held-out case
    [numbers] = details[rows["numbers"][9]]
    assert numbers[3:] == ['{"n":1}', "[1,2]", None]  # not strings: side by side, not diffed
    assert rows["fine"][9] == -1
    assert _data(safe)["values"] is False


def test_the_queue_shows_its_notes_only_with_values_never_held_out() -> None:
    waiting = [
        AwaitingRecord(
            case="open",
            attempt=1,
            check="reply",
            note="Polite, names the account.",
            digest="sha256:0",
        ),
        AwaitingRecord(
            case="held", attempt=1, check="reply", note="The held-out rubric.", digest="sha256:1"
        ),
    ]
    cases = [
        case("open", [attempt(1, outcomes=("not_run",))], line=2),
        case("held", [attempt(1, outcomes=("not_run",))], line=8, split="holdout"),
    ]
    built = report([suite("replies", cases, adjudication_queue=waiting)])

    safe, values = (
        render_html(RenderContext(built)),
        render_html(RenderContext(built, details="values")),
    )

    for page in (safe, values):
        assert "2 checks wait for a human verdict" in page
        assert "The held-out rubric." not in page
    assert "Polite, names the account." not in safe
    assert "Polite, names the account." in values
    assert "(held out)" in values


def test_secrets_are_redacted_as_in_the_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    leaked = report(
        [suite(f"suite {TOKEN}", [_failing(f"case {TOKEN}", "gold", f"answer {TOKEN}")])]
    )

    page = render_html(
        RenderContext(leaked, details="values", links=Links(full_report=f"report-{TOKEN}.json"))
    )

    assert "0123456789abcdef" not in page
    assert "***" in page


def test_outcomes_order_the_table_most_severe_first(tmp_path: Path) -> None:
    data = _data(render_html(RenderContext(interrupted(tmp_path))))

    assert data["outcomes"] == list(OUTCOMES)
    shown = {data["outcomes"][row[2]] for row in data["rows"]}
    assert shown == {"passed", "failed", "cancelled"}


@pytest.mark.parametrize(
    ("expected", "actual", "ops"),
    [
        ("billing", "billing", [[0, "billing"]]),
        ("billing", "refund", [[-1, "billing"], [1, "refund"]]),
        ("the cat sat", "the hat sat", [[0, "the "], [-1, "cat"], [1, "hat"], [0, " sat"]]),
        ("abc", "abXc", [[-1, "abc"], [1, "abXc"]]),
        ("", "new", [[1, "new"]]),
        (
            "a billing dispute, opened",
            "a refund request, opened",
            [[0, "a "], [-1, "billing dispute"], [1, "refund request"], [0, ", opened"]],
        ),
        ("one two three", "one three", [[0, "one "], [-1, "two "], [0, "three"]]),
    ],
)
def test_strings_are_diffed_word_by_word(expected: str, actual: str, ops: list[list[Any]]) -> None:
    assert diff(expected, actual) == ops


def test_a_long_difference_is_shown_whole() -> None:
    old = "x " + " ".join(["a"] * 120) + " y"
    new = "x " + " ".join(["b"] * 120) + " y"
    assert DIFF_CELLS < 239**2  # 120 words and 119 spaces a side

    assert diff(old, new) == [[0, "x "], [-1, old[2:-2]], [1, new[2:-2]], [0, " y"]]


def _classification(labels: tuple[str | None, ...], matrix: list[list[int]]) -> Any:
    columns = (*labels, "missing", "skipped", "error", "invalid", "abstained")
    zero = Averages(precision=0, recall=0, f1=0)
    return ClassificationMetricResult(
        name="queue",
        path="/payload/queue",
        labels=labels,
        support=sum(map(sum, matrix)),
        observed=0,
        correct=0,
        accuracy=0,
        coverage=0,
        unavailable=UnavailableCounts(),
        confusion=Confusion(rows=labels, columns=columns, matrix=tuple(map(tuple, matrix))),
        per_label=tuple(
            LabelScores(label=label, precision=0, recall=0, f1=0, support=0) for label in labels
        ),
        micro=zero,
        macro=zero,
    )


def test_a_heatmap_has_a_cell_per_gold_and_predicted_label() -> None:
    metric = _classification(("a", None), [[3, 1, 0, 0, 1, 0, 0], [0, 2, 0, 0, 0, 0, 5]])

    chart = htmlfigures.heatmap(metric)

    assert chart.rows == ("a", "null")
    assert len(chart.cells) == 2 * 7
    cells = {(cell.gold, cell.predicted): cell for cell in chart.cells}
    assert set(cells) == {(g, p) for g in chart.rows for p in chart.columns}
    assert (cells["a", "a"].kind, cells["a", "a"].count) == ("correct", 3)
    assert cells["a", "null"].kind == "confused"
    assert cells["null", "abstained"].kind == "unavailable"
    assert cells["null", "abstained"].share == pytest.approx(5 / 7)
    assert cells["a", "missing"].fill == "#ffffff"  # nothing there: no shade


def test_a_histogram_counts_every_latency_once() -> None:
    latencies = [0.4, 1.0, 1.2, 3.5, 9.9, 250.0, float("nan"), -1.0]

    chart = htmlfigures.histogram(latencies, before=[2.0, 300.0])

    assert chart is not None
    assert sum(drawn.count for drawn in chart.bins) == 6  # NaN and negative are unmeasured
    assert sum(drawn.before or 0 for drawn in chart.bins) == 2
    assert chart.low <= 0.4
    assert chart.high > 300.0
    assert [(m.name, m.before) for m in chart.markers] == [
        ("p50", False),
        ("p95", False),
        ("p50", True),
        ("p95", True),
    ]
    assert chart.outline.startswith("M")
    assert htmlfigures.histogram([]) is None
    single = htmlfigures.histogram([5.0, 5.0])
    assert single is not None
    assert sum(drawn.count for drawn in single.bins) == 2


def test_the_hostile_string_is_one_safe_line_everywhere(tmp_path: Path) -> None:
    page = render_html(RenderContext(hostile(tmp_path)))

    for character in ("\x1b", "\x00", "\u202e", "\n::error::"):
        assert character not in page
    assert HOSTILE.split(" ")[0] in page


@pytest.mark.parametrize("details", ["safe", "values"])
def test_ten_thousand_attempts_weigh_well_under_a_few_megabytes(details: Any) -> None:
    reason = "expected 'billing', found another string of 7 characters " * 3
    page = render_html(RenderContext(many_attempts(10_000, reason), details=details))

    assert len(page.encode("utf-8")) < 2_000_000
    assert len(_data(page)["rows"]) == 10_000
