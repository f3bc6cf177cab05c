"""What an eval is given: scores, the decorator's options and its cases, each checked with a
sentence naming the eval and the score, case or line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.evals import EvalContext, EvalDefinitionError, EvalFunction, eval
from goldgate.evals._context import normalize_scores
from goldgate.evals.cases import DEEP, FLAT, PLAIN, expand

# --- scores -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "entry"),
    [
        (0.85, {"key": "pass", "value": 0.85}),
        (1, {"key": "pass", "value": 1}),
        (True, {"key": "pass", "passed": True}),
        ({"passed": False, "notes": "n"}, {"key": "pass", "passed": False, "notes": "n"}),
        ({"key": "q", "value": 0, "passed": True}, {"key": "q", "value": 0, "passed": True}),
        ({"key": "q", "value": 0.5, "notes": 3}, {"key": "q", "value": 0.5, "notes": "3"}),
    ],
)
def test_valid_scores(given: Any, entry: dict[str, Any]) -> None:
    assert normalize_scores(given, "eval 'e'") == [entry]


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"key": "q"}, "eval 'e' stored score 'q' with neither value nor passed"),
        ({"key": "q", "notes": "n"}, "eval 'e' stored score 'q' with neither value nor passed"),
        ({"key": "q", "value": 1.5}, "eval 'e' stored score 'q' with a value outside 0 to 1"),
        ({"key": "q", "value": -0.1}, "eval 'e' stored score 'q' with a value outside 0 to 1"),
        (2, "eval 'e' stored score 'pass' with a value outside 0 to 1"),
        (math.nan, "eval 'e' stored score 'pass' with a value outside 0 to 1"),
        ({"key": "q", "value": "0.5"}, "eval 'e' stored score 'q' with a value of type str, not"),
        ({"key": "q", "value": True}, "eval 'e' stored score 'q' with a value of type bool, not"),
        ({"key": "q", "passed": "yes"}, "eval 'e' stored score 'q' with passed of type str, not"),
        ({"key": "q", "pased": True}, "eval 'e' stored score 'q' with the unknown field 'pased'"),
        ({"key": "", "passed": True}, "eval 'e' stored score 'pass' with a key that is not a"),
        ({"key": "a\nb", "passed": True}, "eval 'e' stored score 'pass' with a key holding"),
        ({"key": "expect", "passed": True}, "eval 'e' stored score 'pass' with the key 'expect'"),
        ("good", "eval 'e' stored a score of type str; a score is a number, a bool, a dict"),
    ],
)  # fmt: skip
def test_a_score_that_breaks_the_rules_is_kept_as_an_error(given: Any, error: str) -> None:
    [entry] = normalize_scores(given, "eval 'e'")

    assert set(entry) <= {"key", "error", "notes"}
    assert entry["error"].startswith(error)


def test_store_keeps_every_score_in_order_and_sets_the_output() -> None:
    ctx = EvalContext(input="q", function_name="f")
    ctx.store(output="a", scores={"key": "x", "passed": True})
    ctx.store(scores={"key": "x", "passed": False})
    ctx.store(scores={"key": "bad"})

    assert ctx.output == "a"
    assert ctx.scores[:2] == [{"key": "x", "passed": True}, {"key": "x", "passed": False}]
    assert ctx.scores[2]["error"] == "eval 'f' stored score 'bad' with neither value nor passed"


# --- the decorator ----------------------------------------------------------------------------


def test_the_decorator_with_and_without_arguments_and_calling_through() -> None:
    @eval
    def bare() -> None:
        return None

    @eval(input="i", dataset="d")
    async def with_context(ctx: EvalContext) -> str:
        return str(ctx.input)

    assert isinstance(bare, EvalFunction)
    assert bare.dataset == Path(__file__).stem  # the file's name by default
    assert with_context.dataset == "d"
    assert with_context.__name__ == "with_context"
    assert with_context.takes_context
    assert not bare.takes_context


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": 0}, "timeout must be a positive number of seconds"),
        ({"timeout": math.inf}, "timeout must be a positive number of seconds"),
        ({"dataset": ""}, "dataset must be a nonempty name"),
        ({"dataset": "a\tb"}, "dataset must be a nonempty name"),
        ({"dataset": "::error::x"}, "dataset must be a nonempty name .*not starting with '::'"),
        ({"dataset": " ::add-mask::x"}, "dataset must be a nonempty name .*'::'"),
        ({"cases": "cases.json"}, "a cases file is a .jsonl file"),
        ({"cases": 3}, "cases must be a list of dicts"),
        ({"thresholds": {"accuracy": 0.9}}, "threshold 'accuracy' is none of pass_rate"),
        ({"thresholds": {"quality.max": 0.9}}, "threshold 'quality.max' is none of"),
        ({"thresholds": {"quality.mean": 1.5}}, "threshold 'quality.mean' must be a number from 0"),
        ({"thresholds": {"pass_rate": True}}, "threshold 'pass_rate' must be a number from 0"),
        ({"evaluators": [1]}, "evaluator 1 is not callable"),
        ({"live": "yes"}, "live must be True or False"),
        ({"metadata": [1]}, "metadata must be a dict"),
    ],
)
def test_a_definition_that_cannot_work_is_refused_naming_the_eval(
    options: dict[str, Any], message: str
) -> None:
    def subject(ctx: EvalContext) -> None:
        return None

    with pytest.raises(EvalDefinitionError, match=f"^eval 'subject': {message}"):
        eval(**options)(subject)


def test_the_function_takes_its_context_or_nothing() -> None:
    def two(a: Any, b: Any) -> None:
        return None

    def none() -> None:
        return None

    with pytest.raises(EvalDefinitionError, match="takes one parameter"):
        eval(two)
    with pytest.raises(EvalDefinitionError, match="an eval with cases takes an EvalContext"):
        eval(cases=[{"input": 1}])(none)


def test_a_definition_error_is_exit_2() -> None:
    assert issubclass(EvalDefinitionError, InvalidInputError)


# --- cases ------------------------------------------------------------------------------------


def _eval_in(folder: Path, cases: Any, **options: Any) -> EvalFunction:
    def subject(ctx: EvalContext) -> None:
        return None

    subject.__code__ = subject.__code__.replace(co_filename=str(folder / "eval_x.py"))
    return eval(cases=cases, **options)(subject)


def test_list_cases_layer_over_the_decorator(tmp_path: Path) -> None:
    function = _eval_in(
        tmp_path,
        [{"input": "a"}, {"id": "named", "reference": "r", "metadata": {"m": 2}}],
        input="default",
        reference="default-ref",
        metadata={"m": 1, "k": 0},
    )
    first, second = expand(function)

    assert first.case_id == "subject[0]"
    assert first.envelope == {
        "payload": {"case": "subject[0]", "input": "a", "reference": "default-ref"},
        "metadata": {"m": 1, "k": 0},
    }
    assert second.case_id == "subject[named]"
    assert second.envelope["payload"] == {
        "case": "subject[named]",
        "input": "default",
        "reference": "r",
    }
    assert second.envelope["metadata"] == {"m": 2, "k": 0}
    assert not first.has_expect


def test_without_cases_there_is_one_case_named_after_the_function(tmp_path: Path) -> None:
    [case] = expand(_eval_in(tmp_path, None))

    assert case.case_id == "subject"
    assert case.envelope == {"payload": {"case": "subject", "input": None}, "metadata": {}}


def test_each_attempt_gets_fresh_copies(tmp_path: Path) -> None:
    [case] = expand(_eval_in(tmp_path, [{"input": {"list": [1]}}]))
    first, _, _ = case.context_values()
    first["list"].append(2)

    assert case.context_values()[0] == {"list": [1]}
    assert case.envelope["payload"]["input"] == {"list": [1]}


@pytest.mark.parametrize(
    ("fields", "copying"),
    [
        ({"input": {"label": "a", "n": 1, "x": 0.5, "ok": True, "none": None}}, FLAT),
        ({"input": ["a", 1], "reference": {"label": "a"}, "metadata": {"m": 1}}, FLAT),
        ({"input": "text", "reference": ["a", "b"]}, FLAT),
        ({"input": {"nested": {"a": [1]}}}, PLAIN),
        ({"input": {"a": 1}, "reference": [{"b": 2}]}, PLAIN),
        ({"input": {"a": 1}, "metadata": {"tags": ["x"]}}, PLAIN),
        ({"input": ("a", "b")}, DEEP),  # a tuple: the report holds an array
        ({"input": {"a": 2**70}}, FLAT),
    ],
)
def test_each_copy_mode_shares_nothing_mutable(
    tmp_path: Path, fields: dict[str, Any], copying: int
) -> None:
    [case] = expand(_eval_in(tmp_path, [fields]))
    assert case.copying == copying
    originals = (case.input, case.reference, case.metadata)
    snapshot = json.dumps(originals, default=repr)

    first = case.context_values()
    second = case.context_values()

    expected = (fields.get("input"), fields.get("reference"), fields.get("metadata", {}))
    assert first == second == expected
    for mine, theirs, original in zip(first, second, originals, strict=True):
        _scramble(mine)
        assert theirs == _unscrambled(theirs)
        if isinstance(original, dict | list):
            assert mine is not original
    assert json.dumps(originals, default=repr) == snapshot


def _scramble(value: Any) -> None:
    """Change every mutable container in ``value``, however deep."""
    if isinstance(value, dict):
        for item in list(value.values()):
            _scramble(item)
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in list(value):
            _scramble(item)
        value.append("scrambled")


def _unscrambled(value: Any) -> Any:
    if isinstance(value, dict):
        assert "scrambled" not in value
        return {key: _unscrambled(item) for key, item in value.items()}
    if isinstance(value, list):
        assert "scrambled" not in value
        return [_unscrambled(item) for item in value]
    return value


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ([{"inptu": 1}], r"eval 'subject': unknown case key 'inptu'; a case has id, input"),
        ([{"id": "a"}, {"id": "a"}], r"case id 'subject\[a\]' repeats"),
        ([{"id": " a"}], r"case id ' a' must be nonempty"),
        ([{"id": "::error::x"}], r"must not start with '::'"),
        ([{"id": 1.5}], r"a case 'id' is a string or an integer"),
        ([{"input": {1: "a"}}], r"input holds an object key of type int, which a report cannot"),
        ([{"input": math.nan}], r"input holds a number that is NaN or infinite"),
        ([{"input": object()}], r"input holds a value of type object"),
        ([{"metadata": [1]}], r"a case's 'metadata' is an object"),
        ([{"expect": {"maxchars": 3}}], r"expect: unknown text assertion .maxchars."),
        ([{"expect": {"matches": "("}}], r"expect: pattern 1 is not a valid regular expression"),
        ([], r"eval 'subject' has no cases"),
        ([3], r"a case is an object"),
    ],
)
def test_cases_that_cannot_run_are_refused_with_their_place(
    tmp_path: Path, cases: Any, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        expand(_eval_in(tmp_path, cases))


def test_a_cases_file_is_strict_json_lines_relative_to_the_eval(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "one", "input": "a", "expect": "be kind"}\n\n{"input": "b"}\n', encoding="utf-8"
    )
    one, two = expand(_eval_in(tmp_path, "cases.jsonl"))

    assert (one.case_id, one.expect) == ("subject[one]", "be kind")
    assert one.origin.endswith("cases.jsonl:1")
    assert two.case_id == "subject[1]"
    assert two.origin.endswith("cases.jsonl:3")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"input": 1}\n{"input": 1,}\n', r"cases.jsonl:2:\d+: "),
        ('{"input": 1, "input": 2}\n', r"cases.jsonl:1:\d+: duplicate key"),
        ('{"input": NaN}\n', r"cases.jsonl:1:\d+: "),
        ('[1]\n', r"cases.jsonl:1: eval 'subject': a case is an object"),
        ('{"input": 1, "expected": 2}\n', r"cases.jsonl:1: eval 'subject': unknown case key"),
    ],
)  # fmt: skip
def test_a_broken_cases_file_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "cases.jsonl").write_text(text, encoding="utf-8")

    with pytest.raises(InvalidInputError, match=message):
        expand(_eval_in(tmp_path, "cases.jsonl"))


def test_a_missing_cases_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"the cases file .*nope.jsonl does not exist"):
        expand(_eval_in(tmp_path, "nope.jsonl"))
