"""`goldgate check` and judges (issue 41, items 1 and 2): the settings' `judges:` section and
the `judge` key of a text expectation, refused where they name what is not declared, through
the real CLI in process (the filed suite streams, the inline one is held whole)."""

from __future__ import annotations

from typing import Any

import pytest

from goldgate.gold import check_gold
from goldgate.gold.settings import load_settings

JUDGES_YAML = """\
judges:
  helpful:
    revision: helpful-1
    workflow: triage
    rubric: The reply answers the customer's question politely.
"""
PROSE = {
    "name": "prose",
    "path": "/flows/main/steps/classify/result/text",
    "expected": "A polite reply that names the refund policy.",
    "comparison": "text",
    "judge": "helpful",
}


def _judged(gold_project: Any, *, where: str = "filed", **changes: Any) -> Any:
    gold_project.settings += JUDGES_YAML
    expectation = {**PROSE, **changes}
    if where == "filed":
        gold_project.cases[0]["expectations"].append(expectation)
    else:
        gold_project.manifest["suites"][0]["cases"][0]["expectations"].append(expectation)
    return gold_project.write()


@pytest.mark.parametrize("where", ["filed", "inline"])
def test_a_text_expectation_may_name_a_declared_judge(
    gold_project: Any, run_cli: Any, where: str
) -> None:
    _judged(gold_project, where=where)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 0, result.output
    dataset = check_gold(load_settings(gold_project.root / gold_project.SETTINGS)).dataset
    assert dataset is not None
    suite = dataset.suite("filed" if where == "filed" else "inline")
    assert [item.judge for item in suite.compiled[0]][-1] == "helpful"


@pytest.mark.parametrize("where", ["filed", "inline"])
def test_an_expectation_naming_an_unknown_judge_is_refused(
    gold_project: Any, run_cli: Any, where: str
) -> None:
    _judged(gold_project, where=where, judge="helpfull")

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    assert 'judge "helpfull" is not declared' in result.output
    assert "/judge" in result.output


@pytest.mark.parametrize(
    "changes",
    [
        {"comparison": "exact"},
        {"expected": {"contains": "refund"}},
    ],
    ids=["exact", "assertions-without-note"],
)
def test_a_judge_decides_only_what_a_person_would(
    gold_project: Any, run_cli: Any, changes: dict[str, Any]
) -> None:
    _judged(gold_project, **changes)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    assert "only a text expectation whose expected is prose or has a 'note'" in result.output


def test_assertions_with_a_note_may_name_a_judge(gold_project: Any, run_cli: Any) -> None:
    _judged(gold_project, expected={"contains": "refund", "note": "polite"})

    assert run_cli("evaluate", "--check", cwd=gold_project.root).code == 0


def test_a_judge_whose_workflow_is_not_declared_is_refused(gold_project: Any, run_cli: Any) -> None:
    _judged(gold_project)
    gold_project.settings = gold_project.settings.replace("workflow: triage", "workflow: grader")
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    assert 'judge "helpful" names the workflow "grader"' in result.output


def test_calibration_defaults_and_bounds(gold_project: Any, run_cli: Any) -> None:
    _judged(gold_project)
    settings = load_settings(gold_project.root / gold_project.SETTINGS)
    bar = settings.settings.judges["helpful"].calibration
    assert (bar.min_verdicts, bar.min_kappa) == (30, 0.6)

    gold_project.settings += "    calibration: {min_verdicts: 0, min_kappa: .inf}\n"
    gold_project.write()
    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    assert "min_verdicts" in result.output
    assert "min_kappa" in result.output


def test_judges_leave_the_configuration_digest_alone(gold_project: Any) -> None:
    gold_project.write()
    before = load_settings(gold_project.root / gold_project.SETTINGS).configuration_digest
    _judged(gold_project)

    after = load_settings(gold_project.root / gold_project.SETTINGS).configuration_digest

    assert after == before


def test_the_examples_committed_record_calibrates_its_judge(repo_root: Any) -> None:
    from goldgate.gold.judges import read_record, record_path
    from goldgate.scoring.judges import calibration, standing

    settings = load_settings(repo_root / "examples/support_triage/config/settings.yaml")
    record = read_record(record_path(settings.project_root, "tone"))
    assert record is not None
    table = record.table
    pairs = (
        [(True, True)] * table.pass_pass
        + [(True, False)] * table.pass_fail
        + [(False, True)] * table.fail_pass
        + [(False, False)] * table.fail_fail
    )
    figures = calibration(pairs)

    assert (figures.kappa, figures.kappa_ci95, figures.agreement) == (
        record.kappa,
        record.kappa_ci95,
        record.agreement,
    )
    assert record.verdicts == table.total
    assert standing("tone", settings.settings.judges["tone"], record).decides
