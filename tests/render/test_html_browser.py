"""The HTML page in a real browser: headless Chromium (tests/helpers/browser.py) opens each
page from a file with the network off, and the tests read the DOM: no request is made, no
console error is logged, a screenshot is not blank, each heatmap has one cell per gold and
predicted label with the report's counts, the filters hide rows, the headers sort them, a
failing row opens on its checks (values diffed only when asked, never for a held-out case),
hostile data stays text. Skipped, saying why, where there is no Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.render.html import render_html
from goldgate.render.htmlfigures import label_text
from goldgate.render.registry import RenderContext
from goldgate.report.models import Report
from helpers.browser import MISSING, Browser, Page, chromium, open_page, png_colours

from .builders import many_attempts

pytestmark = [
    pytest.mark.slow,  # a browser process (tests/helpers/slow.py)
    pytest.mark.skipif(chromium() is None, reason=MISSING),
    # One worker makes the session's corpus (tests/render/conftest.py) and browser for the
    # modules that use them, not each worker that draws one of their tests.
    pytest.mark.xdist_group("render_corpus"),
]

ROWS = "[...document.querySelectorAll('#case-rows tr[data-row]')]"


def open_html(chrome: Browser, folder: Path, name: str, page: str) -> Page:
    """``page`` written to ``folder`` and opened in a new tab of ``chrome``."""
    path = folder / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    return open_page(chrome, path)


def quiet(page: Page) -> None:
    """No request made, no console error logged."""
    assert page.requests == []
    assert page.errors == []


def _choose(page: Page, select: str, label: str | None) -> list[dict[str, Any]]:
    """Choose the option ``label`` (None: all) of a filter; the rows then shown."""
    script = f"""(() => {{
        const select = document.getElementById({json.dumps(select)});
        const option = [...select.options].find(o => {json.dumps(label)} === null
            ? o.value === "" : o.textContent === {json.dumps(label)});
        select.value = option.value;
        select.dispatchEvent(new Event("change"));
        return {ROWS}.map(tr => ({{
            outcome: tr.dataset.outcome,
            label: tr.querySelector(".label").textContent,
            cells: [...tr.children].map(td => td.textContent),
        }}));
    }})()"""
    rows: list[dict[str, Any]] = page.evaluate(script)
    return rows


def _search(page: Page, words: str) -> list[str]:
    script = f"""(() => {{
        const input = document.getElementById("filter-text");
        input.value = {json.dumps(words)};
        input.dispatchEvent(new Event("input"));
        return {ROWS}.map(tr => tr.querySelector(".label").textContent);
    }})()"""
    labels: list[str] = page.evaluate(script)
    return labels


def test_the_harness_sees_requests_errors_and_blank_pages(chrome: Browser, tmp_path: Path) -> None:
    """What the other tests assert the absence of is seen when it happens."""
    leaky = open_html(
        chrome,
        tmp_path,
        "leaky",
        '<!DOCTYPE html><p>x</p><img src="http://goldgate.invalid/pixel.png">'
        '<script>console.error("broken")</script>',
    )
    blank = open_html(chrome, tmp_path, "blank", "<!DOCTYPE html><title>blank</title>")
    refused = open_html(
        chrome,
        tmp_path,
        "refused",
        '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src \'none\'">'
        "<script>document.title = 'ran'</script>",
    )

    assert leaky.requests == ["http://goldgate.invalid/pixel.png"]
    assert any("broken" in error for error in leaky.errors)
    assert png_colours(blank.screenshot()) == 1
    assert blank.requests == []
    assert refused.evaluate("document.title") == ""  # the policy stopped the script
    assert any("Content Security Policy" in error for error in refused.errors)


def test_the_example_page_opens_offline_without_an_error(
    corpus: dict[str, Report], chrome: Browser, tmp_path: Path
) -> None:
    page = open_html(
        chrome, tmp_path, "example", render_html(RenderContext(corpus["example"], details="values"))
    )

    quiet(page)
    assert png_colours(page.screenshot()) >= 8  # not blank: text, colours, figures
    assert page.evaluate("document.querySelector('h1').textContent") == "goldgate: passed"
    attempts = sum(s.attempt_count for s in corpus["example"].suites)
    assert page.evaluate(f"{ROWS}.length") == attempts


def test_each_heatmap_has_one_cell_per_gold_and_predicted_pair(
    corpus: dict[str, Report], chrome: Browser, tmp_path: Path
) -> None:
    built = corpus["example"]
    page = open_html(chrome, tmp_path, "heatmaps", render_html(RenderContext(built)))
    drawn = page.evaluate(
        """[...document.querySelectorAll("svg.heatmap")].map(svg => ({
            metric: svg.dataset.metric,
            cells: [...svg.querySelectorAll("g.cell")].map(g =>
                [g.dataset.gold, g.dataset.predicted, Number(g.dataset.count)]),
        }))"""
    )

    expected = {
        metric.name: metric
        for record in built.suites
        for metric in record.metrics
        if metric.kind == "classification"
    }
    assert sorted(chart["metric"] for chart in drawn) == sorted(expected)
    assert len(expected) >= 2  # the example has two classification metrics
    for chart in drawn:
        confusion = expected[chart["metric"]].confusion
        wanted = [
            [label_text(gold), label_text(predicted), confusion.matrix[r][c]]
            for r, gold in enumerate(confusion.rows)
            for c, predicted in enumerate(confusion.columns)
        ]
        assert chart["cells"] == wanted
        assert len(chart["cells"]) == len(confusion.rows) * len(confusion.columns)
    quiet(page)


def test_the_filters_hide_rows_and_the_headers_sort_them(
    corpus: dict[str, Report], chrome: Browser, tmp_path: Path
) -> None:
    built = corpus["repeats"]
    page = open_html(chrome, tmp_path, "repeats", render_html(RenderContext(built)))
    total = sum(s.attempt_count for s in built.suites)
    assert page.evaluate(f"{ROWS}.length") == total

    failed = _choose(page, "filter-outcome", "failed")
    assert 0 < len(failed) < total
    assert {row["outcome"] for row in failed} == {"failed"}
    assert page.evaluate("document.getElementById('case-count').textContent").startswith(
        f"{len(failed)} of {total} attempts match"
    )
    _choose(page, "filter-outcome", None)

    labels = _choose(page, "filter-suite", "labels")
    assert {row["cells"][0] for row in labels} == {"labels"}
    assert len(labels) == next(s.attempt_count for s in built.suites if s.name == "labels")
    held_out = _choose(page, "filter-split", "holdout")
    assert [row["label"] for row in held_out] == ["secret#1", "secret#2", "secret#3"]
    _choose(page, "filter-split", None)
    _choose(page, "filter-suite", None)

    assert _search(page, "WRONG") == ["wrong#1", "wrong#2", "wrong#3"]  # any letter case
    assert _search(page, "no such case") == []
    assert len(_search(page, "")) == total

    latencies = page.evaluate(
        f"""(() => {{
        const button = document.querySelector("th button[data-sort='4']");
        const read = () => {ROWS}.map(tr => parseFloat(tr.children[4].textContent));
        button.click();
        const up = read();
        button.click();
        return [up, read(), button.getAttribute("aria-sort")];
    }})()"""
    )
    up, down, state = latencies
    assert up == sorted(up)
    assert down == sorted(down, reverse=True)
    assert state == "descending"
    quiet(page)


def test_a_failing_row_opens_on_its_checks_values_diffed_never_held_out(
    corpus: dict[str, Report], chrome: Browser, tmp_path: Path
) -> None:
    page = open_html(
        chrome, tmp_path, "values", render_html(RenderContext(corpus["repeats"], details="values"))
    )

    def opened(label: str) -> dict[str, Any]:
        found: dict[str, Any] = page.evaluate(
            f"""(() => {{
            const row = {ROWS}.find(
                tr => tr.querySelector(".label").textContent === {json.dumps(label)});
            row.querySelector("button.toggle").click();
            const detail = row.nextElementSibling;
            return {{
                detail: detail.className,
                text: detail.textContent,
                removed: [...detail.querySelectorAll("del")].map(e => e.textContent),
                added: [...detail.querySelectorAll("ins")].map(e => e.textContent),
                values: detail.querySelectorAll(".values").length,
            }};
        }})()"""
        )
        return found

    wrong = opened("wrong#1")
    assert wrong["detail"] == "detail"
    assert "category (failed)" in wrong["text"]
    assert (wrong["removed"], wrong["added"]) == (["refund"], ["billing"])
    secret = opened("secret#1")
    assert secret["values"] == 0
    assert "Values are not shown for a held-out case." in secret["text"]
    quiet(page)


def test_hostile_data_stays_text_in_the_browser(
    corpus: dict[str, Report], chrome: Browser, tmp_path: Path
) -> None:
    page = open_html(
        chrome, tmp_path, "hostile", render_html(RenderContext(corpus["hostile"], details="values"))
    )

    found = page.evaluate(
        f"""({{
        scripts: document.scripts.length,
        markup: document.querySelectorAll("main b, main i, main img, #case-rows script").length,
        labels: {ROWS}.map(tr => tr.querySelector(".label").textContent),
    }})"""
    )

    assert found["scripts"] == 2
    assert found["markup"] == 0
    assert any("<script>alert(1)</script>" in label for label in found["labels"])
    quiet(page)  # a blocked inline script would be a console error


def test_ten_thousand_attempts_show_a_page_at_a_time(chrome: Browser, tmp_path: Path) -> None:
    page = open_html(chrome, tmp_path, "big", render_html(RenderContext(many_attempts(10_000))))

    shown = page.evaluate(f"{ROWS}.length")
    more = page.evaluate(
        f"""(() => {{
        const button = document.getElementById("case-more");
        const visible = !button.hidden;
        button.click();
        return [visible, {ROWS}.length];
    }})()"""
    )

    assert shown == 500
    assert more == [True, 1_000]
    assert len(_choose(page, "filter-outcome", "failed")) == 500  # 1,000 failed, a page shown
    assert page.evaluate("document.getElementById('case-count').textContent") == (
        "1000 of 10000 attempts match, the first 500 shown."
    )
    quiet(page)
