"""Renderings with a comparison: the example's baseline and candidate (tests/compare/conftest:
account cases improved, a German and an upgrade case regressed, one mixed) compared and
shown by every renderer, golden files beside the others; the adapter's flaky and partial
parts on edited comparisons; ``--comparison`` through the real CLI, refused for another
report.

    GOLDGATE_REGENERATE=1 .venv/bin/python -m pytest tests/render/test_comparison.py
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import junitparser
import pytest

from compare.conftest import ExampleReports
from goldgate.app.action.rules import decide_exit
from goldgate.comparison import compare, write_comparison
from goldgate.comparison.models import CaseView, Classes, Comparison, Finding, Unmatched
from goldgate.render.annotations import render_annotations
from goldgate.render.compared import comparison_view, located_cases
from goldgate.render.html import render_html
from goldgate.render.junit import render_junit
from goldgate.render.markdown import render_markdown
from goldgate.render.registry import Details, Links, RenderContext
from goldgate.render.terminal import render_terminal
from goldgate.render.view import ChangeItem, ComparisonView, build_view
from goldgate.render.words import headline
from goldgate.report.io import read_report, report_bytes
from goldgate.report.models import Report

from .builders import normalized
from .htmloutline import outline
from .renderings import Rendering, page, without_golden_files
from .test_junit import validate

# Every test here starts processes (tests/helpers/slow.py); one worker makes the session's
# example reports (tests/conftest.py) once for the three modules that read them, not each
# worker that draws one of their tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("example_reports")]

LINK_BASE = "https://github.com/owner/repo/blob/0123abc"


@dataclass(frozen=True)
class Compared:
    folder: Path
    candidate_path: Path
    baseline_path: Path
    comparison_path: Path
    candidate: Report
    comparison: Comparison


@pytest.fixture(scope="session")
def compared(example_reports: ExampleReports, tmp_path_factory: pytest.TempPathFactory) -> Compared:
    """The session's baseline and candidate of the example (tests/conftest.py), normalized."""
    folder = tmp_path_factory.mktemp("render-compared")
    paths = {}
    raws = (("baseline", example_reports.baseline), ("candidate", example_reports.candidate))
    for name, raw in raws:
        path = folder / f"{name}.json"
        path.write_bytes(report_bytes(normalized(read_report(raw))))
        paths[name] = path
    comparison = compare(paths["candidate"], paths["baseline"])
    written, _ = write_comparison(comparison, folder / "comparison.json")
    return Compared(
        folder,
        paths["candidate"],
        paths["baseline"],
        written,
        read_report(paths["candidate"]),
        comparison,
    )


@pytest.fixture(scope="session")
def view(compared: Compared) -> ComparisonView:
    return comparison_view(compared.comparison, compared.candidate)


FULL = Links(full_report="out/report.json")
RENDERINGS: dict[str, tuple[Rendering, Callable[[Report, ComparisonView], RenderContext]]] = {
    "junit.xml": (Rendering("junit"), RenderContext),
    "comment.md": (Rendering("markdown"), lambda r, c: RenderContext(r, c, links=FULL)),
    "values.md": (
        Rendering("markdown"),
        lambda r, c: RenderContext(
            r, c, details="values", links=Links(link_base=LINK_BASE, full_report="out/report.json")
        ),
    ),
    "annotations.txt": (Rendering("annotations"), RenderContext),
    "terminal.txt": (Rendering("show"), RenderContext),
    "page.outline": (Rendering("html", page), lambda r, c: RenderContext(r, c, links=FULL)),
    # The comment as the action posts it: the baseline named by branch and commit, the rule
    # that decided in plain words, the run's notes and a link to the workflow run.
    "action.md": (
        Rendering("markdown"),
        lambda r, c: RenderContext(
            r,
            replace(c, baseline="main@0123abc"),
            exit_code=decide_exit("disagreement", 1, None)[0],
            rule=decide_exit("disagreement", 1, None)[1],
            notes=("The baseline artifact of main@0123abc is from the merge-base commit.",),
            links=Links(
                full_report=".goldgate/action/report-1.json",
                link_base=LINK_BASE,
                run_url="https://github.com/owner/repo/actions/runs/42",
            ),
        ),
    ),
}


@pytest.mark.parametrize("rendering", sorted(RENDERINGS))
def test_golden(
    compared: Compared,
    view: ComparisonView,
    golden: Callable[[str, str], None],
    rendering: str,
) -> None:
    chosen, context = RENDERINGS[rendering]
    golden(f"compared/{rendering}", chosen.text(context(compared.candidate, view)))


def test_every_registered_renderer_renders_a_comparison() -> None:
    assert without_golden_files(chosen for chosen, _ in RENDERINGS.values()) == []


def test_the_adapter_finds_the_example_changes(view: ComparisonView) -> None:
    regressions = {(c.suite, c.case_id): c for c in view.regressions}
    assert set(regressions) == {
        ("pipeline", "positive_cancellation_de"),
        ("pipeline", "thread_withdrawn_en"),
        ("classify_step", "service_change_en"),
    }
    assert regressions["pipeline", "positive_cancellation_de"].change == "mixed"
    assert regressions["pipeline", "thread_withdrawn_en"].detail == (
        "pass to fail: completed, queue, tags"
    )
    mixed = regressions["pipeline", "positive_cancellation_de"].detail
    assert mixed == "pass to fail: completed, queue, requested_action; fail to pass: account"
    assert regressions["pipeline", "thread_withdrawn_en"].location.line is not None
    assert {(c.suite, c.case_id) for c in view.improvements} == {
        ("pipeline", "positive_cancellation_en"),
        ("pipeline", "positive_billing_en"),
        ("pipeline", "thread_reference_en"),
        ("reply_text", "reply_cancellation_en"),
    }
    assert view.flaky == ()
    mcnemar = {item.suite: item for item in view.mcnemar}
    assert "live_answer" not in mcnemar  # skipped: nothing paired
    assert (mcnemar["pipeline"].baseline_only, mcnemar["pipeline"].candidate_only) == (1, 3)
    assert mcnemar["pipeline"].p_value == pytest.approx(0.625)
    assert not view.partial
    assert view.baseline == "settings@base"


def _with_findings(
    comparison: Comparison, suite_index: int, findings: tuple[Finding, ...], **suite: Any
) -> Comparison:
    """``comparison`` with one suite's findings replaced and every count that follows from
    them recomputed, validated like a comparison file (so the edit cannot disagree)."""
    edited = comparison.suites[suite_index]
    counts = dict.fromkeys(Classes.model_fields, 0)

    def units(items: tuple[Finding, ...]) -> int:  # a case whose input changed is no unit
        return sum(1 for item in items if item.change != "input changed")

    counts["unchanged"] = edited.classes.unchanged + units(edited.findings) - units(findings)
    counts["not_compared"] = edited.classes.not_compared
    for finding in findings:
        counts[finding.change.replace(" ", "_")] += 1
    classes = Classes(**counts)
    suites = list(comparison.suites)
    suites[suite_index] = edited.model_copy(
        update={"findings": findings, "classes": classes, **suite}
    )
    total = Classes()
    for item in suites:
        total = total.plus(item.classes)
    value = comparison.model_copy(
        update={"suites": tuple(suites), "classes": total, "regressions": total.regressions > 0}
    )
    return Comparison.model_validate(value.model_dump(mode="json"))


def _flaky(compared: Compared) -> ComparisonView:
    """The example's comparison with one case flaky over three repeats."""
    comparison = compared.comparison
    pipeline = comparison.suites[0]
    flaky = CaseView(
        case_id="thread_withdrawn_en",
        candidate_passes=1,
        candidate_attempts=3,
        baseline_passes=3,
        baseline_attempts=3,
        candidate_flaky=True,
        baseline_flaky=False,
        change="flaky",
    )
    noise = Finding(
        case_id="thread_withdrawn_en",
        attempt=0,
        change="flaky",
        detail="varies within a run: queue (passed 3/3 before, 1/3 now; Fisher's exact test, "
        "one-sided p=0.2, not < 0.05)",
    )
    findings = tuple(
        noise if finding.case_id == "thread_withdrawn_en" else finding
        for finding in pipeline.findings
    )
    edited = _with_findings(comparison, 0, findings, cases=(flaky,))
    return comparison_view(edited, compared.candidate)


def _partial(compared: Compared) -> ComparisonView:
    """The example's comparison as a partial one: a case added, one removed, one whose input
    changed, and one whose gold changed and whose application did not."""
    comparison = compared.comparison
    pipeline = comparison.suites[0]
    unmatched = Unmatched(
        added=("new_case",),
        removed=("old_case",),
        input_changed=("edited_case",),
        rescored=("thread_reference_en",),
    )
    rescored = Finding(
        case_id="thread_reference_en",
        attempt=1,
        change="gold changed",
        detail="gold changed: baseline re-scored under the candidate's gold",
    )
    input_changed = Finding(
        case_id="edited_case",
        attempt=0,
        change="input changed",
        detail="input changed: not compared (its input differs from the baseline's)",
    )
    findings = (
        *(rescored if f.case_id == rescored.case_id else f for f in pipeline.findings),
        input_changed,
    )
    edited = _with_findings(comparison, 0, findings, unmatched=unmatched)
    edited = edited.model_copy(update={"mode": "partial"})
    return comparison_view(edited, compared.candidate)


def _many_regressions(view: ComparisonView) -> ComparisonView:
    """5,000 regressed attempts: the comment must drop whole items to fit its budget."""
    items = tuple(
        ChangeItem("pipeline", f"case-{index:05d}", 1, "regressed", "pass to fail: queue")
        for index in range(5_000)
    )
    counts = "5,000 regressed, 0 mixed, 0 improved, 0 flaky, 0 gold changed, 0 input changed"
    return replace(view, regressions=items, improvements=(), counts=f"{counts} (attempts)")


VARIANTS: dict[str, Callable[[Compared, ComparisonView], ComparisonView]] = {
    "flaky": lambda compared, view: _flaky(compared),
    "partial": lambda compared, view: _partial(compared),
}


@pytest.mark.parametrize("rendering", sorted(RENDERINGS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_golden_variants(
    compared: Compared,
    view: ComparisonView,
    golden: Callable[[str, str], None],
    variant: str,
    rendering: str,
) -> None:
    edited = VARIANTS[variant](compared, view)
    chosen, context = RENDERINGS[rendering]
    golden(f"compared_{variant}/{rendering}", chosen.text(context(compared.candidate, edited)))


def test_golden_5000_regressions_fit_the_comment(
    compared: Compared, view: ComparisonView, golden: Callable[[str, str], None]
) -> None:
    many = _many_regressions(view)
    comment = render_markdown(
        RenderContext(compared.candidate, many, links=Links(full_report="out/report.json"))
    )
    assert len(comment) <= 65_536
    assert "case-00000" in comment
    assert "case-04999" not in comment  # whole items dropped, and the footer says so
    assert "not shown" in comment
    golden("compared_many/comment.md", comment)
    summary = render_markdown(
        RenderContext(
            compared.candidate, many, budget="summary", links=Links(full_report="out/report.json")
        )
    )
    assert len(summary.encode("utf-8")) <= 1024 * 1024
    assert "case-04999" in summary


def test_flaky_cases_are_not_regressions(compared: Compared) -> None:
    view = _flaky(compared)

    assert ("pipeline", "thread_withdrawn_en") not in {
        (c.suite, c.case_id) for c in view.regressions
    }
    assert [(c.case_id, c.change, c.attempt) for c in view.flaky] == [
        ("thread_withdrawn_en", "flaky", 0)
    ]
    assert "Fisher's exact test, one-sided p=0.2, not < 0.05" in view.flaky[0].detail
    markdown = render_markdown(RenderContext(compared.candidate, view))
    assert "### Flaky cases" in markdown
    assert "1 regressed, 1 mixed, 4 improved, 1 flaky," in markdown
    # its failing attempt is no regression anywhere: JUnit and annotations say flaky
    assert render_junit(RenderContext(compared.candidate, view)).count('type="regression"') == 2
    [line] = [
        line
        for line in render_annotations(RenderContext(compared.candidate, view)).splitlines()
        if "thread_withdrawn_en" in line
    ]
    assert "goldgate gold disagreement" in line
    assert "::flaky, not a regression: varies within a run: queue" in line


def test_a_partial_comparison_lists_what_it_left_out(compared: Compared) -> None:
    view = _partial(compared)

    assert view.partial
    assert (view.added, view.removed, view.changed) == (
        ("pipeline: new_case",),
        ("pipeline: old_case",),
        ("pipeline: edited_case",),
    )
    markdown = render_markdown(RenderContext(compared.candidate, view))
    assert "### Partial comparison" in markdown
    assert "- added: pipeline: new\\_case\n" in markdown
    assert "- removed: pipeline: old\\_case\n" in markdown
    assert "- input changed: pipeline: edited\\_case\n" in markdown
    assert "| pipeline | thread\\_reference\\_en | gold changed | gold changed: baseline" in (
        markdown
    )
    assert [(item.case_id, item.change) for item in view.gold_changes] == [
        ("thread_reference_en", "gold changed")
    ]
    assert [(item.case_id, item.change) for item in view.input_changes] == [
        ("edited_case", "input changed")
    ]
    terminal = render_terminal(RenderContext(compared.candidate, view))
    assert "- not compared, input changed: pipeline: edited_case" in terminal
    assert "change gold changed" in terminal
    junit = render_junit(RenderContext(compared.candidate, view))
    assert '<property name="comparison.gold changed.cases" value="thread_reference_en" />' in junit
    assert '<property name="comparison.input changed.cases" value="edited_case" />' in junit


def test_a_partial_comparison_lists_whole_suites_on_one_side_only(compared: Compared) -> None:
    """Suites only one report has are not compared; they are listed, never dropped (a
    comparison with another run's report may share no suite at all)."""
    comparison = compared.comparison
    comparable = comparison.comparable.model_copy(
        update={"added_suites": ("evals_only",), "removed_suites": ("gone", "also_gone")}
    )
    edited = comparison.model_copy(update={"mode": "partial", "comparable": comparable})

    view = comparison_view(edited, compared.candidate)

    assert view.added == ("evals_only (the whole suite)",)
    assert view.removed == ("gone (the whole suite)", "also_gone (the whole suite)")
    markdown = render_markdown(RenderContext(compared.candidate, view))
    assert "- added: evals\\_only \\(the whole suite\\)\n" in markdown
    assert "- removed: gone \\(the whole suite\\), also\\_gone \\(the whole suite\\)\n" in markdown


def test_junit_regressions_are_failures_naming_checks(
    compared: Compared, view: ComparisonView, junit_schema: Any
) -> None:
    xml = render_junit(RenderContext(compared.candidate, view))
    root = validate(xml, junit_schema)
    failures = {
        (element.getparent().get("classname"), element.getparent().get("name")): element
        for element in root.iter("failure")
    }
    regression = failures["pipeline", "thread_withdrawn_en"]
    assert regression.get("type") == "regression"
    assert regression.get("message") == (
        "regressed against the baseline: pass to fail: completed, queue, tags"
    )
    assert failures["classify_step", "service_change_en"].get("type") == "regression"
    # the counts are those of the report alone: a regression is one more failure, not two
    parsed = junitparser.JUnitXml.fromstring(xml.encode("utf-8"))
    plain = junitparser.JUnitXml.fromstring(
        render_junit(RenderContext(compared.candidate)).encode("utf-8")
    )
    assert [(s.tests, s.failures, s.errors) for s in parsed] == [
        (s.tests, s.failures, s.errors) for s in plain
    ]


def test_annotations_say_regressed(compared: Compared, view: ComparisonView) -> None:
    lines = render_annotations(RenderContext(compared.candidate, view)).splitlines()
    regression = [line for line in lines if "thread_withdrawn_en" in line]
    assert regression
    assert "goldgate regression" in regression[0]
    assert "pass to fail" in regression[0]


def test_cli_renders_with_a_comparison(run_cli: Any, compared: Compared) -> None:
    args = ("--comparison", str(compared.comparison_path))
    junit = compared.folder / "junit.xml"
    junit.unlink(missing_ok=True)
    result = run_cli("report", "junit", str(compared.candidate_path), "-o", str(junit), *args)
    assert result.code == 0, result.output
    assert 'type="regression"' in junit.read_text("utf-8")

    markdown = run_cli("report", "markdown", str(compared.candidate_path), *args)
    assert markdown.code == 0, markdown.output
    assert "### Regressions" in markdown.stdout
    assert "against settings@" in markdown.stdout.splitlines()[0]

    annotations = run_cli("report", "annotations", str(compared.candidate_path), *args)
    assert annotations.code == 0
    assert "goldgate regression" in annotations.stdout

    shown = run_cli("report", "show", str(compared.candidate_path), *args)
    assert shown.code == 0, shown.output


def test_cli_refuses_a_comparison_of_another_report(run_cli: Any, compared: Compared) -> None:
    result = run_cli(
        "report",
        "markdown",
        str(compared.baseline_path),
        "--comparison",
        str(compared.comparison_path),
    )

    assert result.code == 2
    assert compared.comparison.candidate.digest in result.output
    assert "sha256:" in result.output.replace(compared.comparison.candidate.digest, "")
    assert "Traceback" not in result.output


def test_cli_refuses_a_file_that_is_no_comparison(run_cli: Any, compared: Compared) -> None:
    result = run_cli(
        "report",
        "markdown",
        str(compared.candidate_path),
        "--comparison",
        str(compared.candidate_path),
    )

    assert result.code == 2
    assert (
        f"{compared.candidate_path}: not a goldgate comparison file "
        "(its format is 'goldgate.report/2')." in " ".join(result.output.split())
    )
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda text: text[:300], r":1:\d+: not a JSON comparison \(.+\)\."),
        (
            lambda text: re.sub(r'"regressed":\s*\d+', '"regressed":"many"', text, count=1),
            r": not a valid comparison at /\S+: .+\.",
        ),
    ],
    ids=["cut", "invalid"],
)
def test_a_damaged_comparison_file_is_refused_where_it_is_damaged(
    run_cli: Any, compared: Compared, tmp_path: Path, damage: Any, said: str
) -> None:
    from goldgate.base.errors import InvalidInputError
    from goldgate.comparison import read_comparison

    damaged = tmp_path / "damaged.json"
    damaged.write_text(damage(compared.comparison_path.read_text("utf-8")), "utf-8")
    with pytest.raises(InvalidInputError) as refused:
        read_comparison(damaged)
    assert re.fullmatch(re.escape(str(damaged)) + said, str(refused.value)), str(refused.value)

    result = run_cli(
        "report", "markdown", str(compared.candidate_path), "--comparison", str(damaged)
    )
    assert result.code == 2
    assert "Traceback" not in result.output
    assert "not a JSON comparison" in result.output or "not a valid comparison" in result.output


def test_the_page_puts_the_changes_first_and_draws_both_sides(
    compared: Compared,
    view: ComparisonView,
    chrome: Any,
    golden: Callable[[str, str], None],
    tmp_path: Path,
) -> None:
    from goldgate.render.text import ratio

    from .test_html_browser import ROWS, open_html, quiet

    baseline = read_report(compared.baseline_path)
    page = render_html(RenderContext(compared.candidate, view, details="values", baseline=baseline))
    golden("compared/page-baseline.outline", outline(page))
    opened = open_html(chrome, tmp_path, "compared", page)

    found = opened.evaluate(
        """({
        first: document.querySelector("main > section").id,
        regressed: [...document.querySelectorAll("table.changes[data-change='regressed'] tr")]
            .slice(1).map(tr => [tr.children[0].textContent, tr.children[1].textContent]),
        sides: [...document.querySelectorAll("svg.heatmap")].map(svg =>
            [svg.dataset.metric, svg.dataset.side,
             svg.querySelectorAll("g.cell").length,
             Number(svg.dataset.rows) * Number(svg.dataset.columns)]),
        outlines: document.querySelectorAll("svg.histogram path.outline").length,
        before: [...document.querySelectorAll("tr[data-figure='attempt pass rate'] td.before")]
            .map(td => td.textContent),
    })"""
    )

    assert found["first"] == "changes"
    assert found["regressed"] == [
        [item.suite, item.case_id] for item in view.regressions if item.change == "regressed"
    ]
    metrics = {m.name for s in baseline.suites for m in s.metrics if m.kind == "classification"}
    assert {(metric, side) for metric, side, *_ in found["sides"]} == {
        (metric, side) for metric in metrics for side in ("after", "before")
    }
    assert all(cells == pairs for *_, cells, pairs in found["sides"])
    assert found["outlines"] >= 1  # the baseline's latencies, drawn over this run's
    overall = view.overall
    assert overall is not None
    assert found["before"][0] == ratio(overall.attempt_pass_rate.baseline)  # the run's, first
    regressed = opened.evaluate(
        f"""(() => {{
        const select = document.getElementById("filter-change");
        select.value = [...select.options].find(o => o.textContent === "regressed").value;
        select.dispatchEvent(new Event("change"));
        return {ROWS}.map(tr => tr.querySelector(".label").textContent);
    }})()"""
    )
    assert sorted(regressed) == sorted(
        item.case_id for item in view.regressions if item.change == "regressed"
    )
    quiet(opened)


def test_deltas_per_suite_in_markdown_and_report_show(
    compared: Compared, view: ComparisonView
) -> None:
    markdown = render_markdown(RenderContext(compared.candidate, view, budget="summary"))
    shown = " ".join(render_terminal(RenderContext(compared.candidate, view, width=80)).split())

    # The pass rate's change, each threshold and metric before and after, latency and usage.
    assert "| pipeline | failed | 10 | 29 of 35 | 82.9% \\(-2.9 pts from 85.7%\\) |" in markdown
    assert "| classify\\_step | pass\\_rate | 0.95 | 1 | 0.8919 | no |" in markdown
    assert "accuracy 0.8 (baseline 1), macro F1 0.7917 (baseline 1)" in markdown
    for row in ("latency p50 | 5 ms | 5 ms | ±0", "tool\\_calls per attempt | 0 | 0.4 | +0.4"):
        assert f"| pipeline | {row} |" in markdown
    # Latency within the noise rule is folded: under its summary, after what changed.
    folded = markdown.index("figures within noise")
    assert markdown.index("| pipeline | latency p50 | 5 ms | 5 ms | ±0 |") > folded
    assert markdown.index("| pipeline | tool\\_calls per attempt | 0 | 0.4 | +0.4 |") < folded
    assert "pass rate 82.9% (-2.9 pts from 85.7%)" in shown
    assert "threshold pass_rate, minimum 0.95, baseline 1, candidate 0.8919, held no" in shown
    assert "| pipeline | latency p95 |" not in shown
    assert "| pipeline | tool_calls per attempt | 0 | 0.4 | +0.4 |" in shown
    assert "9 figures within noise not shown (latency changes of at most max(50 ms," in shown
    # McNemar only where it can say anything: no suite has 6 discordant pairs here.
    assert "McNemar" not in markdown
    assert "McNemar" not in shown


@pytest.mark.parametrize("details", ["safe", "values"])
def test_one_pass_over_a_streamed_report_renders_what_the_whole_report_does(
    compared: Compared, details: Details
) -> None:
    """The publishing step's one pass (issue 43: ``app.renderpass``) over the candidate read
    as a stream, with the comparison: JUnit, the HTML page (the baseline's side included),
    Markdown, annotations, the terminal view and the check run's annotations are, byte for
    byte, what each renderer makes of the report read whole."""
    from goldgate.app.render import render
    from goldgate.app.renderpass import PassRequest, read_with_latencies, render_pass
    from goldgate.render.checkrun import check_annotations
    from goldgate.report.streamread import streamed_report

    baseline = read_with_latencies(compared.baseline_path)
    request = PassRequest(junit=True, html=True, check_run=3, baseline_latencies=baseline.latencies)
    links = Links(full_report="out/report.json", link_base=LINK_BASE)
    whole = RenderContext(
        compared.candidate,
        comparison_view(compared.comparison, compared.candidate),
        details=details,
        links=links,
        baseline=read_report(compared.baseline_path),
    )
    with streamed_report(compared.candidate_path) as streamed:
        assert all(suite.cases == () for suite in streamed.report.suites)  # streamed
        first = RenderContext(
            streamed.report, details=details, links=links, baseline=baseline.report
        )
        with render_pass(streamed, first, compared.comparison, request) as rendered:
            junit: list[str] = []
            page: list[str] = []
            rendered.write_junit(junit.append)
            rendered.write_html(page.append)
            context = rendered.context
            assert "".join(junit) == render("junit", whole)
            assert "".join(page) == render("html", whole)
            for kind in ("markdown", "annotations", "show"):
                assert render(kind, context) == render(kind, whole), kind
            summary = render("markdown", replace(context, budget="summary"))
            assert summary == render("markdown", replace(whole, budget="summary"))
            assert rendered.check_annotations(3) == check_annotations(whole, 3)


def test_a_spooled_comparison_renders_what_the_held_one_does(
    compared: Compared, view: ComparisonView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: with the comparison's lists spooled to files (``spool.HELD`` 0) every
    renderer reads them as sequences (``render.changelists``) and makes, byte for byte, what
    it makes of the comparison held in memory (whose outputs are the golden files); the
    view's lists, units and listed cases are the held view's."""
    from goldgate.comparison import spool as spool_module

    monkeypatch.setattr(spool_module, "HELD", 0)
    spooled = compare(compared.candidate_path, compared.baseline_path)
    assert spooled.suites[0].findings.spooled
    spooled_view = comparison_view(spooled, compared.candidate)
    for name in ("regressions", "improvements", "flaky", "gold_changes", "input_changes"):
        assert tuple(getattr(spooled_view, name)) == tuple(getattr(view, name)), name
        assert getattr(spooled_view, name)[:2] == tuple(getattr(view, name))[:2], name
    for item in view.regressions:
        assert spooled_view.change_of(item.suite, item.case_id, item.attempt) == item
    assert spooled_view.change_of("pipeline", "no such case", 1) is None
    located = located_cases(spooled)
    assert all((item.suite, item.case_id) in located for item in view.regressions)
    assert ("pipeline", "no such case") not in located
    for rendering, (chosen, context) in RENDERINGS.items():
        held_text = chosen.text(context(compared.candidate, view))
        assert chosen.text(context(compared.candidate, spooled_view)) == held_text, rendering


def test_an_attempts_class_is_its_own_units_else_its_cases(view: ComparisonView) -> None:
    """``ComparisonView.change_of`` (one look-up where the case has no finding,
    ``changelists.Units.attempt_or_case``): an attempt's own unit's finding, or its case's
    where the case is the unit (attempt 0: tests/compare/test_repeats.py), and None for an
    attempt of no listed unit."""
    items = [
        item
        for name in ("regressions", "improvements", "flaky", "gold_changes", "input_changes")
        for item in getattr(view, name)
    ]
    assert items
    for item in items:
        asked = item.attempt or 1  # a case unit stands for each of its attempts
        assert view.change_of(item.suite, item.case_id, asked) == item
        if item.attempt:
            assert view.change_of(item.suite, item.case_id, item.attempt + 10_000) is None
    assert view.change_of(items[0].suite, "no such case", 1) is None


def test_the_first_line_names_failing_suites_the_comparison_left_out(
    compared: Compared, view: ComparisonView
) -> None:
    """A live suite the model-free baseline skipped (or one the pull request added) that fails
    is not compared: without it named, the first line would read "failed — nothing changed"."""
    failing = [s.name for s in compared.candidate.suites if s.verdict in ("failed", "error")]
    assert failing, "the example candidate has a failing suite"
    outside = replace(view, uncompared=tuple(failing), headline="nothing changed")
    words = {"failed": "failed", "error": "errored"}
    named = ", ".join(
        f"{s.name} {words[s.verdict]}" for s in compared.candidate.suites if s.name in failing
    )

    markdown = render_markdown(RenderContext(compared.candidate, outside))
    terminal = render_terminal(RenderContext(compared.candidate, outside, width=400))

    first = f"nothing changed against {view.baseline}; outside the comparison: {named}"
    assert first in terminal.splitlines()[0]
    assert "outside the comparison:" in markdown.splitlines()[0]
    compared_only = render_markdown(RenderContext(compared.candidate, view)).splitlines()[0]
    # The example's live suite was skipped (model-free) on both sides: not compared, not failing.
    assert "outside the comparison" not in compared_only
    assert view.uncompared == ("live_answer",)


def test_suites_added_or_skipped_on_a_side_are_the_uncompared_ones(compared: Compared) -> None:
    comparison = compared.comparison
    comparable = comparison.comparable.model_copy(update={"added_suites": ("evals_only",)})
    first, *rest = comparison.suites
    suites = (first.model_copy(update={"status": "skipped"}), *rest)
    edited = comparison.model_copy(
        update={"mode": "partial", "comparable": comparable, "suites": suites}
    )

    uncompared = comparison_view(edited, compared.candidate).uncompared
    assert uncompared == ("evals_only", first.name, "live_answer")


def test_many_failing_suites_outside_the_comparison_are_counted_past_three(
    compared: Compared, view: ComparisonView
) -> None:
    failing = next(s for s in compared.candidate.suites if s.verdict == "failed")
    suites = tuple(replace(failing, name=f"live_{i}") for i in range(5))
    report = replace(compared.candidate, suites=suites)

    names = tuple(suite.name for suite in suites)
    outside = replace(view, uncompared=names, headline="nothing changed")

    line = headline(build_view(report, outside))

    assert line.endswith(
        "; outside the comparison: live_0 failed, live_1 failed, 3 more suites failed or errored"
    )
