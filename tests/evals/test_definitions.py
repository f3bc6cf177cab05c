"""What an eval is given: scores, the decorator's options and its cases, each checked with a
sentence naming the eval and the score, case or line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.evals import (
    EvalContext,
    EvalDefinitionError,
    EvalFunction,
    EvalResult,
    TraceData,
    eval,
)
from goldgate.evals._decorator import UnknownArgumentError
from goldgate.evals._scores import normalize_scores
from goldgate.evals.cases import expand
from goldgate.evals.layering import check_defaults
from goldgate.evals.values import DEEP, FLAT, PLAIN

# --- scores (as EZVals 0.2.0 takes them) -----------------------------------------------------


@pytest.mark.parametrize(
    ("given", "entry"),
    [
        (0.85, {"key": "pass", "value": 0.85}),
        (1, {"key": "pass", "value": 1}),
        (2, {"key": "pass", "value": 2}),  # any number: a latency, a count
        (True, {"key": "pass", "passed": True}),
        ({"passed": False, "notes": "n"}, {"key": "pass", "passed": False, "notes": "n"}),
        ({"key": "q", "value": 0, "passed": True}, {"key": "q", "value": 0, "passed": True}),
        ({"key": "q", "value": -3.5}, {"key": "q", "value": -3.5}),
        ({"key": "q", "passed": True, "extra": 1}, {"key": "q", "passed": True}),  # dropped
        ({"passed": True, "key": "q"}, {"key": "q", "passed": True}),
    ],
)
def test_valid_scores(given: Any, entry: dict[str, Any]) -> None:
    assert normalize_scores(given, "pass") == [entry]
    assert list(normalize_scores(given, "pass")[0]) == list(entry)  # key, value, passed, notes


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"key": "q"}, "Invalid score {'key': 'q'}: use True/False, a number, or"),
        ({"key": "q", "notes": "n"}, "Invalid score {'key': 'q', 'notes': 'n'}: use True/False"),
        ({"value": None, "passed": None}, "Invalid score"),
        ("good", "Invalid score 'good': use True/False, a number, or"),
        (None, "Invalid score None"),  # inside a list: None is not a score
        ({"key": "q", "value": math.nan}, "Invalid score {'key': 'q', 'value': nan}: its value is"
         " not a finite number"),
        ({"key": "q", "value": "0.5"}, "its value is a str, not a number"),
        ({"key": "q", "value": True}, "its value is a bool, not a number"),
        ({"key": "q", "passed": "yes"}, "its passed is a str, not True or False"),
        ({"key": "q", "passed": True, "notes": 3}, "its notes are an int, not a string"),
        ({"key": "", "passed": True}, "its key is not a nonempty string"),
        ({"key": 3, "passed": True}, "its key is not a nonempty string"),
        ({"key": "a\nb", "passed": True}, "its key holds control characters"),
        ({"key": "expect", "passed": True}, "the key 'expect' names the check of a case's expect"),
    ],
)  # fmt: skip
def test_a_score_that_breaks_the_rules_raises_value_error(given: Any, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)) as raised:
        normalize_scores([given] if given is None else given, "pass")
    assert str(raised.value).startswith("Invalid score ")


def test_two_scores_without_a_key_would_share_it() -> None:
    with pytest.raises(ValueError, match=r"^Scores \[True, 0.5\] would share the key 'pass'"):
        normalize_scores([True, 0.5], "pass")
    with pytest.raises(ValueError, match=r"^Must specify score key or set default_score_key"):
        normalize_scores(True, None)
    assert normalize_scores([True, {"key": "b", "value": 1}], "k") == [
        {"key": "k", "passed": True},
        {"key": "b", "value": 1},
    ]


def test_store_replaces_a_key_merges_metadata_and_trace_data_and_returns_the_context() -> None:
    ctx = EvalContext(input="q", default_score_key="right", function_name="f", metadata={"a": 1})
    returned = ctx.store(output="a", scores={"key": "x", "passed": True})
    ctx.store(scores=[{"key": "x", "passed": False, "notes": "later"}, True])
    ctx.store(metadata={"b": 2}, trace_data={"t": 1}, messages=[{"role": "user"}], latency=1.5)
    ctx.store(trace_data={"u": 2}, trace_url="https://trace", reference="r", input="i2")
    ctx.store(output=None, scores=None)  # None sets nothing

    assert returned is ctx
    assert (ctx.output, ctx.input, ctx.reference, ctx.latency) == ("a", "i2", "r", 1.5)
    assert ctx.scores == [
        {"key": "x", "passed": False, "notes": "later"},
        {"key": "right", "passed": True},
    ]
    assert ctx.metadata == {"a": 1, "b": 2}
    assert ctx.trace_data == {
        "t": 1, "messages": [{"role": "user"}], "u": 2, "trace_url": "https://trace",
    }  # fmt: skip
    assert ctx.trace_data.trace_url == "https://trace"
    assert ctx.trace_data.messages == [{"role": "user"}]
    with pytest.raises(ValueError, match="Invalid score"):
        ctx.store(scores={"key": "bad"})


def test_build_adds_the_passing_score_only_when_nothing_was_stored() -> None:
    ctx = EvalContext(default_score_key="ok")
    assert ctx.build().scores == [{"key": "ok", "passed": True}]
    ctx.store(scores={"key": "v", "value": 0.5})
    assert ctx.build().scores == [{"key": "v", "value": 0.5}]
    errored = EvalContext().build_with_error("boom")
    assert (errored.error, errored.scores) == ("boom", [])


def test_the_context_as_a_context_manager_and_its_run_fields() -> None:
    with EvalContext(input="x", metadata={"m": 1}) as ctx:
        ctx.output = "y"
    result = ctx.build()

    assert isinstance(result, EvalResult)
    assert (result.input, result.output, result.metadata) == ("x", "y", {"m": 1})
    assert (ctx.run_id, ctx.session_name, ctx.run_name, ctx.eval_path) == (None,) * 4
    assert ctx.config == {}
    assert EvalContext(None, "out", "ref").output == "out"  # EZVals' order: input, output


def test_eval_result_normalizes_its_scores_and_trace_data() -> None:
    result = EvalResult(input=1, output=2, scores={"passed": False}, trace_data={"a": 1})

    assert result.scores == [{"key": "pass", "passed": False}]
    assert isinstance(result.trace_data, TraceData)
    assert result.trace_data.a == 1
    assert result.metadata == {}
    with pytest.raises(AttributeError):
        _ = result.trace_data.missing
    assert result.trace_data.add_messages([1, 2]).messages == [1, 2]


# --- the decorator ----------------------------------------------------------------------------


def test_the_decorator_with_and_without_arguments() -> None:
    @eval
    def bare() -> None:
        return None

    @eval(input="i", dataset="d")
    async def with_context(ctx: EvalContext) -> None:
        ctx.output = str(ctx.input)

    @eval()
    def named(other: int = 1, *, context: "EvalContext") -> None:  # noqa: UP037 (a string)
        context.output = other

    assert isinstance(bare, EvalFunction)
    assert bare.dataset == Path(__file__).stem  # the file's name by default
    assert with_context.dataset == "d"
    assert with_context.__name__ == "with_context"
    assert (with_context.ctx_param, with_context.ctx_keyword) == ("ctx", False)
    assert (named.ctx_param, named.ctx_keyword) == ("context", True)
    assert not bare.takes_context


def test_calling_an_eval_runs_it_and_returns_its_results() -> None:
    @eval(input="i", reference="I")
    def upper(ctx: EvalContext) -> None:
        ctx.output = ctx.input.upper()
        assert ctx.output == ctx.reference, "not upper"

    @eval(cases=[{"input": 1}, {"input": 2}], trials=3)
    async def each(ctx: EvalContext) -> None:
        assert ctx.input == 1, f"got {ctx.input}"

    result = upper()
    assert isinstance(result, EvalResult)
    assert (result.output, result.scores) == ("I", [{"key": "pass", "passed": True}])
    first, second = each()  # every case once (trials are the runner's, as in EZVals)
    assert first.scores == [{"key": "pass", "passed": True}]
    [failed] = second.scores  # (pytest rewrites this file's asserts: their notes say more)
    assert (failed["key"], failed["passed"], failed["notes"][:5]) == ("pass", False, "got 2")

    async def from_a_loop() -> Any:
        return upper(), await upper.call_async()

    called, awaited = anyio.run(from_a_loop)
    assert called.output == awaited.output == "I"


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
        ({"thresholds": {"pass_rate": 1.5}}, "threshold 'pass_rate' must be a number from 0"),
        ({"thresholds": {"pass_rate": True}}, "threshold 'pass_rate' must be a number from 0"),
        ({"thresholds": {"quality.mean": math.nan}}, "threshold 'quality.mean' must be a finite"),
        ({"evaluators": [1]}, "evaluators must be functions"),
        ({"target": "app"}, "target must be a function"),
        ({"input_loader": 3}, "input_loader must be a function"),
        ({"labels": "prod"}, "labels must be a list of strings"),
        ({"default_score_key": "expect"}, "default_score_key must be a nonempty score key"),
        ({"trials": 0}, "trials must be a positive whole number"),
        ({"trials": 1.5}, "trials must be a positive whole number"),
        ({"live": "yes"}, "live must be True or False"),
        ({"metadata": [1]}, "metadata must be a dict"),
        ({"input_loader": list, "input": 1}, "input_loader cannot be used with input="),
    ],
)
def test_a_definition_that_cannot_work_is_refused_naming_the_eval(
    options: dict[str, Any], message: str
) -> None:
    def subject(ctx: EvalContext) -> None:
        return None

    with pytest.raises(EvalDefinitionError, match=f"^eval 'subject': {message}"):
        eval(**options)(subject)


def test_an_unknown_argument_is_refused_naming_it() -> None:
    with pytest.raises(UnknownArgumentError, match=r"^@eval does not take the argument 'bogus'"):
        eval(bogus=1, dataset="d")
    assert issubclass(UnknownArgumentError, EvalDefinitionError)
    quality = eval(thresholds={"quality.mean": 3.5})(lambda ctx: None)  # any number: values are
    assert quality.thresholds == {"quality.mean": 3.5}


def test_what_needs_the_context_parameter() -> None:
    def two(a: Any, b: Any) -> None:
        return None

    def none() -> None:
        return None

    with pytest.raises(EvalDefinitionError, match="its EvalContext parameter and nothing else"):
        eval(two)
    for needs in ({"cases": [{"input": 1}]}, {"target": none}, {"input_loader": list}):
        name = next(iter(needs))
        with pytest.raises(EvalDefinitionError, match=f"{name} requires the evaluation function"):
            eval(**needs)(none)


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
        ([{"inptu": 1}], r"eval 'subject': case 0: Unknown case keys: inptu \(a case has id, in"),
        ([{"id": "a"}, {"id": "a"}], r"case id 'subject\[a\]' repeats"),
        ([{"id": " a"}], r"case id ' a' must be nonempty"),
        ([{"id": "::error::x"}], r"must not start with '::'"),
        ([{"id": 1.5}], r"a case 'id' is a string or an integer"),
        ([{"input": {1: "a"}}], r"input holds an object key of type int, which a report cannot"),
        ([{"input": math.nan}], r"input holds a number that is NaN or infinite"),
        ([{"input": object()}], r"input holds a value of type object"),
        ([{"metadata": [1]}], r"eval 'subject': case 0: metadata must be a dict"),
        ([{}, {"trials": 0}], r"eval 'subject': case 1: trials must be a positive whole number"),
        ([{"dataset": "::x"}], r"case 0: dataset must be a nonempty name"),
        ([{"expect": {"maxchars": 3}}], r"expect: unknown text assertion .maxchars."),
        ([{"expect": {"matches": "("}}], r"expect: pattern 1 is not a valid regular expression"),
        ([3], r"case 0: a case is a dict of id, input"),
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
        ('[1]\n', r"cases.jsonl:1: eval 'subject': a case is a dict of"),
        ('{"input": 1, "expected": 2}\n', r"cases.jsonl:1: eval 'subject': Unknown case keys: "
         "expected"),
    ],
)  # fmt: skip
def test_a_broken_cases_file_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "cases.jsonl").write_text(text, encoding="utf-8")

    with pytest.raises(InvalidInputError, match=message):
        expand(_eval_in(tmp_path, "cases.jsonl"))


def test_a_missing_cases_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"the cases file .*nope.jsonl does not exist"):
        expand(_eval_in(tmp_path, "nope.jsonl"))


# --- layering, as EZVals layers: builtins < file defaults < decorator < case -----------------


def test_an_empty_list_of_cases_is_no_case(tmp_path: Path) -> None:
    assert expand(_eval_in(tmp_path, [])) == []


def test_metadata_merges_and_none_clears_it(tmp_path: Path) -> None:
    function = _eval_in(
        tmp_path,
        [{"metadata": None}, {"metadata": {"b": 3}}, {}],
        metadata={"a": 1, "b": 2},
    )
    cleared, merged, kept = expand(function, {"metadata": {"f": 0}})

    assert cleared.metadata == {}
    assert merged.metadata == {"f": 0, "a": 1, "b": 3}
    assert kept.envelope["metadata"] == {"f": 0, "a": 1, "b": 2}
    assert expand(_eval_in(tmp_path, None, metadata=None), {"metadata": {"f": 0}})[0].metadata == {}


def test_labels_of_a_case_merge_and_the_decorators_replace_the_files(tmp_path: Path) -> None:
    function = _eval_in(
        tmp_path, [{"id": "x", "labels": ["c", "dec"]}, {"id": "y", "labels": None}, {"id": "z"}],
        labels=["dec"],
    )  # fmt: skip
    x, y, z = expand(function, {"labels": ["file"]})

    assert (x.labels, y.labels, z.labels) == (("dec", "c"), (), ("dec",))
    assert x.envelope["payload"]["labels"] == ["dec", "c"]
    assert "labels" not in y.envelope["payload"]
    [alone] = expand(_eval_in(tmp_path, None), {"labels": ["file"]})
    assert alone.labels == ("file",)


def test_a_case_sets_any_option_of_the_eval(tmp_path: Path) -> None:
    def judge(result: Any) -> None:
        return None

    function = _eval_in(
        tmp_path,
        [{"id": "a", "dataset": "other", "default_score_key": "right", "timeout": 2,
          "evaluators": [judge], "input": "replaced"}, {"id": "b"}],
        dataset="mine", input="given", timeout=5,
    )  # fmt: skip
    a, b = expand(function, {"default_score_key": "file", "dataset": "file"})

    assert (a.dataset, a.default_key, a.timeout, a.evaluators, a.input) == (
        "other", "right", 2, (judge,), "replaced",
    )  # fmt: skip
    assert (b.dataset, b.default_key, b.timeout, b.evaluators, b.input) == (
        "mine", "file", 5, (), "given",
    )  # fmt: skip


def test_trials_are_cases_named_as_ezvals_names_them(tmp_path: Path) -> None:
    function = _eval_in(tmp_path, [{"id": "x"}, {"id": "y", "trials": 1}], trials=2)

    assert [case.case_id for case in expand(function)] == [
        "subject[x]~1",
        "subject[x]~2",
        "subject[y]",
    ]
    assert [case.case_id for case in expand(function, trials=False)] == ["subject[x]", "subject[y]"]


@pytest.mark.parametrize(
    ("defaults", "message"),
    [
        ({"cases": []}, r"f.py:3: Unknown keys in ezvals_defaults: cases \(file defaults set"),
        ({"input_loader": list}, r"Unknown keys in ezvals_defaults: input_loader"),
        ({"labels": "x"}, r"f.py:3: ezvals_defaults: labels must be a list of strings"),
        ([1], r"f.py:3: ezvals_defaults must be a dict of eval options"),
    ],
)
def test_file_defaults_are_checked(defaults: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        check_defaults(defaults, "f.py:3")
    assert check_defaults({"thresholds": {"pass_rate": 1}, "live": False}, "f.py:3")


def test_an_input_loader_gives_the_cases_when_they_are_collected(tmp_path: Path) -> None:
    class Example:
        id = "obj"
        input = "o"
        reference = "O"

    async def load() -> list[Any]:
        return [Example(), {"input": "d", "metadata": {"m": 1}}]

    def subject(ctx: EvalContext) -> None:
        return None

    function = eval(input_loader=load, metadata={"k": 0})(subject)
    first, second = expand(function)

    assert (first.case_id, first.input, first.reference) == ("subject[obj]", "o", "O")
    assert (second.case_id, second.metadata) == ("subject[1]", {"k": 0, "m": 1})


def test_an_input_loader_that_raises_gives_one_failing_case(tmp_path: Path) -> None:
    def load() -> list[Any]:
        raise KeyError("gone")

    def subject(ctx: EvalContext) -> None:
        return None

    [case] = expand(eval(input_loader=load)(subject))

    assert case.case_id == "subject"
    assert case.error is not None
    reason, text = case.error
    assert reason.startswith("eval 'subject': its input_loader raised KeyError at ")
    assert text.startswith("Input loader failed: 'gone'\nTraceback (most recent call last):")
    with pytest.raises(InvalidInputError, match="its input_loader returned a int, not a list"):
        expand(eval(input_loader=lambda: 3)(subject))
