"""Fingerprints: over the ordered, canonical content of the gold, not over its formatting or
over where the cases are kept."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from goldgate.gold import check_gold
from goldgate.gold.settings import load_settings


def _reorder_keys(value: Any) -> Any:
    """The same JSON value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: _reorder_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reorder_keys(item) for item in value]
    return value


def fingerprints(project: Any) -> tuple[str, dict[str, str]]:
    """The dataset's fingerprint and each suite's, from the files as they are now."""
    settings = load_settings(project.root / project.SETTINGS)
    result = check_gold(settings)
    assert result.dataset is not None, [v.render() for v in result.violations]
    return result.dataset.fingerprint, {s.name: s.fingerprint for s in result.dataset.suites}


def test_fingerprints_look_like_sha256(gold_project: Any) -> None:
    dataset, suites = fingerprints(gold_project.write())

    assert re.fullmatch(r"sha256:[0-9a-f]{64}", dataset)
    assert set(suites) == {"inline", "filed"}
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", value) for value in suites.values())
    assert len({dataset, *suites.values()}) == 3


def test_reordering_cases_changes_suite_and_dataset(gold_project: Any) -> None:
    dataset, suites = fingerprints(gold_project.write())

    gold_project.cases.reverse()
    reordered_dataset, reordered = fingerprints(gold_project.write())

    assert reordered["filed"] != suites["filed"]
    assert reordered["inline"] == suites["inline"]
    assert reordered_dataset != dataset


def test_reordering_suites_changes_the_dataset_only(gold_project: Any) -> None:
    dataset, suites = fingerprints(gold_project.write())

    gold_project.manifest["suites"].reverse()
    reordered_dataset, reordered = fingerprints(gold_project.write())

    assert reordered == suites
    assert reordered_dataset != dataset


def test_changing_a_reviewed_value_changes_the_fingerprint(gold_project: Any) -> None:
    dataset, suites = fingerprints(gold_project.write())

    gold_project.cases[1]["expectations"][0]["expected"] = ["d"]
    changed_dataset, changed = fingerprints(gold_project.write())

    assert changed["filed"] != suites["filed"]
    assert changed_dataset != dataset


def test_reformatting_json_changes_nothing(gold_project: Any) -> None:
    before = fingerprints(gold_project.write())

    root = gold_project.root
    (root / gold_project.DATASET).write_text(
        json.dumps(_reorder_keys(gold_project.manifest), separators=(",", ":")), encoding="utf-8"
    )
    (root / gold_project.CASE_FILE).write_text(
        json.dumps(_reorder_keys(gold_project.cases), indent="\t", ensure_ascii=True) + "\n\n",
        encoding="utf-8",
    )

    assert fingerprints(gold_project) == before


def test_equal_numbers_written_differently_change_nothing(gold_project: Any) -> None:
    before = fingerprints(gold_project.write())

    text = (gold_project.root / gold_project.DATASET).read_text(encoding="utf-8")
    assert '"pass_rate": 0.9' in text
    (gold_project.root / gold_project.DATASET).write_text(
        text.replace('"pass_rate": 0.9', '"pass_rate": 9e-1'), encoding="utf-8"
    )

    assert fingerprints(gold_project) == before


def test_moving_inline_cases_to_a_case_file_changes_nothing(gold_project: Any) -> None:
    before = fingerprints(gold_project.write())

    inline = gold_project.manifest["suites"][0]
    gold_project.put("evaluation/cases/inline.json", inline["cases"])
    inline["cases"] = "cases/inline.json"
    filed = gold_project.manifest["suites"][1]
    filed["cases"] = gold_project.cases  # and the other way round
    gold_project.write()
    (gold_project.root / gold_project.CASE_FILE).unlink()

    assert fingerprints(gold_project) == before


def test_descriptions_are_not_content(gold_project: Any) -> None:
    before = fingerprints(gold_project.write())

    gold_project.manifest["description"] = "reviewed by the triage team"
    gold_project.manifest["suites"][0]["description"] = "the classify step"

    assert fingerprints(gold_project.write()) == before


def test_check_prints_the_fingerprints(gold_project: Any, run_cli: Any) -> None:
    dataset, suites = fingerprints(gold_project.write())

    text = run_cli("evaluate", "--check", cwd=gold_project.root)
    machine = run_cli("evaluate", "--check", "--format", "json", cwd=gold_project.root)

    assert text.code == 0
    assert text.stdout.splitlines() == [
        "gold OK: gold @ r1: 2 suites, 4 cases",
        f"  inline: 2 cases, {suites['inline']}",
        f"  filed: 2 cases, {suites['filed']}",
        f"dataset fingerprint: {dataset}",
    ]
    assert machine.code == 0
    payload = json.loads(machine.stdout)
    assert payload["ok"] is True
    assert payload["fingerprint"] == dataset
    assert payload["violations"] == []
    assert payload["case_count"] == 4
    assert {"name": "gold", "revision": "r1"}.items() <= payload.items()
    assert payload["suites"] == [
        {"name": "inline", "cases": 2, "fingerprint": suites["inline"]},
        {"name": "filed", "cases": 2, "fingerprint": suites["filed"]},
    ]
    assert Path(payload["dataset"]).name == "dataset.json"
