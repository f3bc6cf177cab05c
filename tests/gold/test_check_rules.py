"""The offline cross-checks through the Python API: what passes, what the rules say, and the
loaded dataset. (Each malformed input through the CLI is in test_check_malformed.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from goldgate.gold import Case, Expectation, check_gold, load_gold
from goldgate.gold.errors import GoldCheckError
from goldgate.gold.paths import result_path_problem
from goldgate.gold.settings import WorkflowSettings, load_settings

LABEL = "/flows/main/steps/classify/result/label"


def check(project: Any, **kwargs: Any) -> Any:
    project.write()
    return check_gold(load_settings(project.root / project.SETTINGS), **kwargs)


def messages(result: Any) -> list[tuple[str, str]]:
    return [(v.pointer, v.message) for v in result.violations]


def test_the_baseline_passes(gold_project: Any) -> None:
    result = check(gold_project)

    assert result.violations == ()
    assert result.case_count == 4
    assert result.dataset is not None
    assert [suite.name for suite in result.dataset.suites] == ["inline", "filed"]


# --- what is fine -------------------------------------------------------------------------------


def test_expected_null_is_an_explicit_value(gold_project: Any) -> None:
    gold_project.cases[0]["expectations"][0]["expected"] = None

    result = check(gold_project)

    assert result.violations == ()
    assert result.dataset is not None
    expectation = result.dataset.suite("filed").cases[0].expectations[0]
    assert expectation.expected is None
    assert "expected" in expectation.model_fields_set


def test_null_label_when_the_catalog_holds_null(gold_project: Any) -> None:
    gold_project.manifest["suites"][0]["metrics"][0]["labels"].append(None)
    gold_project.manifest["suites"][0]["cases"][1]["expectations"][0]["expected"] = None

    assert check(gold_project).violations == ()


def test_null_label_without_null_in_the_catalog(gold_project: Any) -> None:
    gold_project.manifest["suites"][0]["cases"][1]["expectations"][0]["expected"] = None

    assert messages(check(gold_project)) == [
        (
            "/suites/0/cases/1/expectations/0/expected",
            'the gold label is not in the catalog of metric "queue_quality"',
        )
    ]


def test_metric_cases_limit_which_cases_need_gold(gold_project: Any) -> None:
    suite = gold_project.manifest["suites"][0]
    suite["metrics"][0]["cases"] = ["a"]
    suite["cases"][1]["expectations"].pop(0)  # case b has no gold at the metric path now

    assert check(gold_project).violations == ()


def test_multilabel_metric_with_string_labels(gold_project: Any) -> None:
    gold_project.manifest["suites"][1]["metrics"] = [
        {"name": "tags", "path": "/payload/tags", "kind": "multilabel", "labels": ["a", "b", "c"]}
    ]
    gold_project.manifest["suites"][1]["thresholds"] = {"tags.exact_set_accuracy": 0.5}

    assert check(gold_project).violations == ()


def test_multilabel_gold_must_be_an_array_of_strings(gold_project: Any) -> None:
    gold_project.manifest["suites"][1]["metrics"] = [
        {"name": "tags", "path": "/payload/tags", "kind": "multilabel", "labels": ["a", "b", "c"]}
    ]
    gold_project.cases[1]["expectations"][0]["expected"] = "c"

    assert messages(check(gold_project)) == [
        ("/1/expectations/0/expected", 'metric "tags" expects an array of string labels')
    ]


def test_text_thresholds_that_have_what_they_need(gold_project: Any) -> None:
    suite = gold_project.manifest["suites"][0]
    suite["text"] = {"json": True, "requiredKeys": ["answer.id"]}
    suite["thresholds"].update(
        {"json.parse": 0.95, "schema.requiredCoverage": 1, "expect.satisfied": 0}
    )
    reply = {"name": "reply", "path": "/payload/reply", "expected": "prose", "comparison": "text"}
    suite["cases"][0]["expectations"].append(reply)

    assert check(gold_project).violations == ()


def test_text_thresholds_need_text_comparisons(gold_project: Any) -> None:
    # Nothing would measure them, so they could never hold.
    suite = gold_project.manifest["suites"][0]
    suite["text"] = {"json": True}
    suite["thresholds"].update({"json.parse": 0.95, "expect.satisfied": 0.5})

    assert messages(check(gold_project)) == [
        (
            "/suites/0/thresholds/json.parse",
            '"json.parse" is measured on text comparisons, and this suite has none',
        ),
        (
            "/suites/0/thresholds/expect.satisfied",
            '"expect.satisfied" is measured on text comparisons, and this suite has none',
        ),
    ]


def test_required_coverage_needs_required_keys(gold_project: Any) -> None:
    gold_project.manifest["suites"][0]["thresholds"]["schema.requiredCoverage"] = 0.5

    assert messages(check(gold_project)) == [
        (
            "/suites/0/thresholds/schema.requiredCoverage",
            "'schema.requiredCoverage' needs the suite's text.requiredKeys",
        )
    ]


def test_threshold_on_an_unknown_metric_figure(gold_project: Any) -> None:
    thresholds = gold_project.manifest["suites"][0]["thresholds"]
    thresholds["queue_quality.speed"] = 0.5
    thresholds["nope.accuracy"] = 0.5

    assert sorted(pointer for pointer, _ in messages(check(gold_project))) == [
        "/suites/0/thresholds/nope.accuracy",
        "/suites/0/thresholds/queue_quality.speed",
    ]


def test_text_prose_and_every_assertion_kind(gold_project: Any) -> None:
    expectations = gold_project.cases[0]["expectations"]
    expectations[4]["expected"] = {
        "contains": ["ok", "fine"],
        "notContains": "```",
        "matches": "^T",
        "notMatches": ["(?i)refund", "x{2,}"],
        "minChars": 0,
        "maxChars": 10,
        "maxLines": 1,
        "requiredKeys": ["answer.id"],
        "note": "for the reviewer",
    }
    expectations.append(
        {
            "name": "tone",
            "path": "/flows/main/steps/classify/result/text",
            "expected": "Friendly, names the account.",
            "comparison": "text",
        }
    )

    assert check(gold_project).violations == ()


@pytest.mark.parametrize("count", [True, 1.5, "3"])
def test_text_counts_are_integers(gold_project: Any, count: object) -> None:
    gold_project.cases[0]["expectations"][4]["expected"]["maxLines"] = count

    assert messages(check(gold_project)) == [
        ("/0/expectations/4/expected/maxLines", "'maxLines' is a nonnegative integer")
    ]


def test_set_and_exact_accept_any_json(gold_project: Any) -> None:
    expectations = gold_project.cases[1]["expectations"]
    expectations.append({"name": "set", "path": "/payload/s", "expected": [[1, 2], {"a": None}, 1]})
    expectations[-1]["comparison"] = "set"
    expectations.append({"name": "exact", "path": "/payload/e", "expected": {"k": [True, 1.5]}})

    assert check(gold_project).violations == ()


def test_custom_scorer_registered_through_the_python_api(gold_project: Any) -> None:
    gold_project.cases[0]["expectations"][3]["scorer"] = "in_code"

    assert check(gold_project).violations
    assert check(gold_project, extra_scorers=["in_code"]).violations == ()


def test_source_span_with_astral_characters_up_to_the_end(gold_project: Any) -> None:
    span = gold_project.cases[0]["expectations"][2]["expected"]
    span["allowed"] = [0, 5]  # "😀😀 ok": 5 code points, though 7 UTF-16 units
    span["required"] = [0, 2]

    assert check(gold_project).violations == ()


def test_source_span_problems_are_reported_together(gold_project: Any) -> None:
    gold_project.cases[0]["expectations"][2]["expected"] = {
        "input_path": "/payload/message",
        "required": [3, 3],
        "allowed": [4, 9],
    }

    assert messages(check(gold_project)) == [
        ("/0/expectations/2/expected/required", "'required' must be a nonempty range"),
        ("/0/expectations/2/expected/required", "'required' must lie inside 'allowed'"),
        (
            "/0/expectations/2/expected/allowed",
            "'allowed' ends at 9, past the source's 5 code points",
        ),
    ]


def test_source_span_in_metadata_and_bool_offsets(gold_project: Any) -> None:
    span = gold_project.cases[0]["expectations"][2]["expected"]
    span["input_path"] = "/metadata/language"
    span["required"] = [0, True]
    span["allowed"] = [0, 2]

    assert messages(check(gold_project)) == [
        (
            "/0/expectations/2/expected/required",
            "'required' is a [start, end] pair of nonnegative integers",
        )
    ]


def test_an_undeclared_workflow_does_not_cascade(gold_project: Any) -> None:
    gold_project.manifest["suites"][0]["workflow"] = "elsewhere"

    assert messages(check(gold_project)) == [
        ("/suites/0/workflow", 'workflow "elsewhere" is not declared in the settings')
    ]


def test_problems_in_one_suite_do_not_hide_the_others(gold_project: Any) -> None:
    gold_project.manifest["suites"][0]["colour"] = 1
    gold_project.cases = "not a case file"

    result = check(gold_project)

    assert result.dataset is None
    assert sorted(v.source.rsplit("/", 1)[-1] for v in result.violations) == [
        "dataset.json",
        "filed.json",
    ]


# --- the loaded dataset ---------------------------------------------------------------------------


def test_load_gold_returns_frozen_suites(gold_project: Any) -> None:
    gold_project.write()
    dataset = load_gold(load_settings(gold_project.root / gold_project.SETTINGS))

    assert (dataset.name, dataset.revision) == ("gold", "r1")
    inline, filed = dataset.suites
    assert (inline.workflow, inline.flow, inline.step) == ("triage", "main", "classify")
    assert [case.id for case in inline.cases] == ["a", "b"]
    assert inline.cases_source.endswith("dataset.json")
    assert filed.cases_source.endswith("filed.json")
    assert filed.cases[0].expectations[1].comparison == "set"
    assert filed.cases[1].expectations[0].comparison == "exact"  # the default
    assert inline.thresholds == {"pass_rate": 0.9, "queue_quality.accuracy": 0.5}
    with pytest.raises(ValidationError):
        filed.cases[0].id = "changed"  # type: ignore[misc]


def test_load_gold_raises_with_every_violation(gold_project: Any) -> None:
    gold_project.manifest["revision"] = ""
    gold_project.cases[0]["expectations"][0]["comparison"] = "fuzzy"
    gold_project.write()

    with pytest.raises(GoldCheckError) as raised:
        load_gold(load_settings(gold_project.root / gold_project.SETTINGS))

    assert raised.value.exit_code == 2
    assert len(raised.value.violations) == 2
    *listing, summary = str(raised.value).splitlines()
    assert listing == [v.render() for v in raised.value.violations]
    assert summary.startswith("2 problems in the gold at ")


def test_expectation_positional_form() -> None:
    expectation = Expectation(
        "normalized_category", "/payload/category", "billing", "custom", "casefolded"
    )

    assert (expectation.name, expectation.path, expectation.expected) == (
        "normalized_category",
        "/payload/category",
        "billing",
    )
    assert (expectation.comparison, expectation.scorer) == ("custom", "casefolded")
    assert Expectation(name="n", path="/payload", expected=None).comparison == "exact"


def test_models_are_strict() -> None:
    envelope = {"payload": {}, "metadata": {}}
    expectation = {"name": "n", "path": "/payload", "expected": 1}

    Case.model_validate({"id": "a", "input": envelope, "expectations": [expectation]})
    with pytest.raises(ValidationError):
        Case.model_validate({"id": 1, "input": envelope, "expectations": [expectation]})
    with pytest.raises(ValidationError):
        Case.model_validate({"id": "a", "input": envelope, "expectations": []})
    with pytest.raises(ValidationError):
        Case.model_validate({"id": "a", "input": {"payload": {}}, "expectations": [expectation]})


# --- result paths ---------------------------------------------------------------------------------

WORKFLOW = WorkflowSettings.model_validate(
    {
        "revision": "r",
        "target": {"python": "a:b"},
        "flows": {"main": {"steps": {"classify": {}, "units": {"collection": ["route", "check"]}}}},
    }
)


@pytest.mark.parametrize(
    "path",
    [
        "/execution/status",
        "/execution",
        "/payload",
        "/payload/a/0/b",
        "/flows/main/result",
        "/flows/main/partial_result/x",
        "/flows/main/steps/classify/result/answer/optionId",
        "/flows/main/steps/classify/partial_result",
        "/flows/main/steps/classify/selection/category/id",
        "/flows/main/steps/classify/usage/tool_calls",
        "/flows/main/steps/classify/result/items/x",  # not a collection: business data
        "/flows/main/steps/units/result/items",
        "/flows/main/steps/units/result/items/0",
        "/flows/main/steps/units/partial_result/items/12/steps/check/result/ok",
        "/flows/main/steps/units/result/items/3/steps/route/usage",
    ],
)
def test_public_result_paths(path: str) -> None:
    assert result_path_problem(path, WORKFLOW) is None


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/flows/main/steps/units/result/items/-1", "nonnegative integer"),
        ("/flows/main/steps/units/result/items/x/steps/route/result", "nonnegative integer"),
        ("/flows/main/steps/units/result/items/0/steps/classify/result", "not a child step"),
        ("/flows/main/steps/units/result/items/0/steps/route", "a step path continues"),
        ("/flows/main/steps/units/result/items/0/steps/route/output", "is not a step path"),
        ("/flows/other/result", 'flow "other" is not declared'),
        ("/flows/main", "a flow path continues"),
        ("/flows", "a flow path continues"),
        ("/result", "unknown result root '/result'"),
        ("/steps/classify/result", "flow-local authoring path"),
        ("flows/main/result", "must be empty or start with '/'"),
    ],
)
def test_paths_that_are_not_public(path: str, problem: str) -> None:
    found = result_path_problem(path, WORKFLOW)

    assert found is not None
    assert problem in found


def test_paths_of_an_undeclared_workflow_are_checked_for_shape_only() -> None:
    assert result_path_problem("/flows/anything/steps/any/result", None) is None
    assert result_path_problem("/flows/anything/output", None) is not None
    assert result_path_problem("/steps/x/result", None) is not None


@pytest.mark.parametrize(
    ("figure", "message"),
    [
        ("accuracy", "a multilabel metric has exact_set_accuracy, not accuracy"),
        ("exact_set_accuracy", None),
        ("macro_f1", None),
    ],
)
def test_multilabel_thresholds_name_figures_it_has(
    gold_project: Any, figure: str, message: str | None
) -> None:
    # A threshold on a figure the metric never reports could never hold: refuse it offline.
    suite = gold_project.manifest["suites"][0]
    suite["metrics"][0]["kind"] = "multilabel"
    for case in suite["cases"]:
        case["expectations"][0]["expected"] = [case["expectations"][0]["expected"]]
    suite["thresholds"] = {f"queue_quality.{figure}": 0.5}

    result = check(gold_project)

    expected = (
        [] if message is None else [(f"/suites/0/thresholds/queue_quality.{figure}", message)]
    )
    assert messages(result) == expected
