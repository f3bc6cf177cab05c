"""`goldgate import promptfoo` through the real CLI, in process: what it reads as promptfoo
does (YAML 1.2, CSV columns, vars combinations, defaultTest), what it refuses (exit 2, one
sentence naming the file and place, nothing written), and the secrets it never writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CONFIG = """\
prompts: ["Answer: {{q}}"]
providers:
  - id: openai:chat:m-1
    config: {apiBaseUrl: "http://127.0.0.1:9/v1", apiKeyEnvar: MY_KEY, temperature: 0}
tests:
  - vars: {q: Yes}
    assert:
      - {type: contains, value: Yes}
"""


def _write(root: Path, text: str, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "promptfooconfig.yaml").write_text(text)
    for name, content in files.items():
        (root / name.replace("__", ".")).write_text(content)
    return root / "promptfooconfig.yaml"


def _cases(root: Path, suite: str) -> list[dict[str, Any]]:
    return json.loads((root / "evaluation" / "cases" / f"{suite}.json").read_text())


def test_yaml_1_2_keeps_yes_a_string_and_the_key_is_named(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    config = _write(tmp_path, CONFIG)
    result = run_cli("import", "promptfoo", str(config))
    assert result.code == 0, result.output
    case = _cases(tmp_path, "openai-chat-m-1.p1")[0]
    assert case["input"]["payload"] == {"q": "Yes"}
    assert case["expectations"][0]["expected"] == {"contains": ["Yes"]}
    settings = (tmp_path / "config" / "settings.yaml").read_text()
    assert "MY_KEY" in settings
    assert "prompt: 'Answer: {/payload/q}'" in settings
    assert (
        run_cli("evaluate", "--config", str(tmp_path / "config/settings.yaml"), "--check").code == 0
    )


def test_nothing_is_overwritten(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    config = _write(tmp_path, CONFIG)
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "evaluation" / "IMPORTED.md").write_text("mine")
    result = run_cli("import", "promptfoo", str(config))
    assert result.code == 2
    assert "IMPORTED.md already exists" in result.stderr
    assert "nothing was written" in result.stderr
    assert not (tmp_path / "config").exists()


@pytest.mark.parametrize(
    ("text", "files", "words"),
    [
        (CONFIG + "  - vars: {q: [a\n", {}, ["promptfooconfig.yaml:10:1:", "expected ',' or ']'"]),
        (
            CONFIG.replace("type: contains", "type: containz"),
            {},
            ["unknown assertion type", "containz", "promptfooconfig.yaml:6"],
        ),
        (CONFIG + "  - file://../outside.csv\n", {}, ["outside the configuration's folder"]),
        (
            CONFIG.replace("apiKeyEnvar: MY_KEY", "apiKey: sk-live-123"),
            {},
            ["literal apiKey", "name an environment variable"],
        ),
        (
            CONFIG + "env:\n  OPENAI_API_KEY: sk-live-123\n",
            {},
            ["env", "name an environment variable"],
        ),
        (
            CONFIG.replace("http://127.0.0.1:9/v1", "http://me:sk-live-123@127.0.0.1:9/v1"),
            {},
            ["user or password in its apiBaseUrl", "name an environment variable"],
        ),
        (CONFIG.replace("openai:chat:m-1", "anthropic:messages:claude"), {}, ["no provider"]),
        (CONFIG + "  - 5\n", {}, ["promptfooconfig.yaml:9:", "test 2: a test must be a mapping"]),
        (CONFIG + "  - vars: [1]\n", {}, ["test 2: 'vars' must be a mapping"]),
        (
            CONFIG.replace('"Answer: {{q}}"', "file://prompt.py"),
            {"prompt__py": "def f(): pass\n"},
            ["prompt function", "promptfooconfig.yaml:1"],
        ),
    ],
    ids=[
        "yaml-error",
        "unknown-type",
        "outside-folder",
        "api-key",
        "env-block",
        "url-password",
        "no-provider",
        "test-not-a-mapping",
        "vars-not-a-mapping",
        "prompt-function",
    ],
)
def test_bad_input_is_one_sentence_and_nothing_is_written(
    run_cli: Callable[..., Any], tmp_path: Path, text: str, files: dict[str, str], words: list[str]
) -> None:
    (tmp_path.parent / "outside.csv").write_text("q\nx\n")
    config = _write(tmp_path / "project", text, **files)
    result = run_cli("import", "promptfoo", str(config))
    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.stderr
    assert "sk-live-123" not in result.output
    assert sorted(p.name for p in config.parent.iterdir()) == sorted(
        ["promptfooconfig.yaml", *(name.replace("__", ".") for name in files)]
    )


def test_csv_columns_vars_combinations_and_default_test(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "tests:\n",
        "defaultTest:\n  vars: {tone: calm}\n"
        "  assert:\n    - {type: not-contains, value: sorry}\ntests:\n",
    )
    text += "  - vars: {q: [one, two], n: [1, 2]}\n  - file://t.csv\n"
    csv = (
        "q,__expected1,__expected2,__description,__threshold,__metadata:team,__metadata:tags[]\n"
        'hi,contains:hi,"icontains-any:a,b",named row,0.5,core,"x,y"\n'
        "bye,equals:bye,,,,,\n"
    )
    config = _write(tmp_path, text, t__csv=csv)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    cases = _cases(tmp_path, "openai-chat-m-1.p1")
    ids = [case["id"] for case in cases]
    assert ids == ["1: test 1", "2: test 2", "3: test 3", "4: named row", "5: Row #2"]
    # an array of strings is one case per value; any other array is one value (promptfoo's rule)
    assert [case["input"]["payload"]["q"] for case in cases[1:3]] == ["one", "two"]
    assert cases[1]["input"]["payload"]["n"] == [1, 2]
    assert cases[1]["input"]["payload"]["tone"] == "calm"
    assert all(
        case["expectations"][0]["expected"] == {"notContains": ["sorry"]}
        for case in cases
        if case is not cases[3]
    )
    named = cases[3]
    assert named["input"]["metadata"]["promptfoo"]["metadata"] == {
        "team": "core",
        "tags": ["x", "y"],
    }
    assert [e["expected"]["type"] for e in named["expectations"]] == ["group"]
    assert named["expectations"][0]["expected"]["threshold"] == 0.5
    assert cases[4]["expectations"][1] == {
        "name": "2 equals",
        "path": "/payload/answer",
        "expected": "bye",
    }


def test_javascript_waits_for_a_person_and_latency_and_cost_are_maxima(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "      - {type: contains, value: Yes}",
        "      - {type: javascript, value: output.length > 2}\n"
        "      - {type: latency, threshold: 500}\n"
        "      - {type: cost, threshold: 0.01}\n"
        "      - {type: latency}",
    )
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    javascript, latency, cost, unbounded = _cases(tmp_path, "openai-chat-m-1.p1")[0]["expectations"]
    assert "a person decides" in javascript["expected"]
    assert latency == {
        "name": "2 latency",
        "path": "/attempt/latency_ms",
        "comparison": "maximum",
        "expected": 500,
    }
    assert cost["path"] == "/attempt/cost"
    assert "a person decides" in unbounded["expected"]
    imported = (tmp_path / "evaluation" / "IMPORTED.md").read_text()
    assert imported.count("- NOT TRANSLATED") == 2
    assert "the workflow needs `pricing`" in imported
    assert (
        run_cli("evaluate", "--config", str(tmp_path / "config/settings.yaml"), "--check").code == 0
    )


def test_model_graded_assertions_name_the_grading_judge(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "tests:\n", "defaultTest:\n  options:\n    provider: openai:chat:grader-1\ntests:\n"
    )
    text = text.replace(
        "      - {type: contains, value: Yes}",
        "      - {type: llm-rubric, value: 'Says yes to {{q}}'}",
    )
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    expectation = _cases(tmp_path, "openai-chat-m-1.p1")[0]["expectations"][0]
    assert expectation == {
        "name": "1 llm-rubric",
        "path": "/payload/answer",
        "comparison": "text",
        "expected": {"note": "Says yes to Yes"},
        "judge": "grader",
    }
    settings = (tmp_path / "config" / "settings.yaml").read_text()
    for words in ("judges:", "min_kappa: 0.6", "workflow: grader"):
        assert words in settings


def test_a_judged_import_passes_check(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    text = CONFIG.replace(
        "tests:\n", "defaultTest:\n  options:\n    provider: openai:chat:grader-1\ntests:\n"
    )
    text = text.replace(
        "      - {type: contains, value: Yes}", "      - {type: llm-rubric, value: 'Says yes'}"
    )
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    assert (
        run_cli("evaluate", "--config", str(tmp_path / "config/settings.yaml"), "--check").code == 0
    )


def test_filters_split_prompt_files_and_a_default_test_file(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = """\
prompts:
  - file://prompts.txt
  - {id: third, raw: "Third {{q}}", label: Third}
providers:
  - id: openai:chat:m-1
    label: one
    config: {apiBaseUrl: "http://127.0.0.1:9/v1"}
  - id: openai:responses:m-2
    label: two
    prompts: [Third]
defaultTest: file://default.yaml
tests:
  - vars: {q: a}
    providers: ["tw*"]
  - vars: {q: b}
    prompts: [third]
  - vars: {q: c}
"""
    files = {
        "prompts__txt": "First {{q}}\r\n --- \n\nSecond {{q}}\n---\n\n",
        "default__yaml": "vars: {z: 1}\n",
    }
    config = _write(tmp_path, text, **files)
    result = run_cli("import", "promptfoo", str(config))
    assert result.code == 0, result.output
    ids = {
        p.stem: [c["id"] for c in _cases(tmp_path, p.stem)]
        for p in (tmp_path / "evaluation" / "cases").iterdir()
    }
    assert ids == {
        "one.p1": ["3: test 3"],
        "one.p2": ["3: test 3"],
        "one.p3": ["2: test 2", "3: test 3"],
        "two.p3": ["1: test 1", "2: test 2", "3: test 3"],
    }
    assert _cases(tmp_path, "one.p1")[0]["input"]["payload"] == {"z": 1, "q": "c"}
    settings = (tmp_path / "config" / "settings.yaml").read_text()
    assert "api: responses" in settings
    for prompt in ("First {/payload/q}", "Second {/payload/q}", "Third {/payload/q}"):
        assert f"prompt: {prompt}\n" in settings  # split on --- lines and trimmed


def test_a_prefix_and_suffix_wrap_the_prompt_as_promptfoo_renders_it(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace("tests:\n", "tests:\n  - file://t.csv\n")
    config = _write(tmp_path, text, t__csv="q,__prefix,__suffix\nhi,<< , >>\n")
    assert run_cli("import", "promptfoo", str(config)).code == 0
    first, second = _cases(tmp_path, "openai-chat-m-1.p1")
    assert first["input"]["metadata"]["prompt"] == "<< Answer: hi >>"
    assert second["input"]["metadata"]["prompt"] == "Answer: Yes"
    assert "prompt: '{/metadata/prompt}'" in (tmp_path / "config" / "settings.yaml").read_text()


def test_test_options_that_change_a_verdict_are_kept_or_make_it_wait(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG + (
        "  - vars: {q: [a, b]}\n    options: {disableVarExpansion: true}\n"
        "  - vars: {q: c}\n    options: {transformVars: 'return vars'}\n"
    )
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    _, unexpanded, transformed = _cases(tmp_path, "openai-chat-m-1.p1")
    assert unexpanded["input"]["payload"] == {"q": ["a", "b"]}
    assert "options.transformVars is not translated" in transformed["expectations"][-1]["expected"]


@pytest.mark.parametrize(
    ("tests", "ids"),
    [
        ("file://t.jsonl", ["1: Row #1", "2: named"]),
        ("[file://t.jsonl]", ["1: test 1", "2: named"]),
        ("file://t.yaml", ["1: test 1", "2: named"]),
    ],
    ids=["jsonl-alone", "jsonl-in-a-list", "yaml-alone"],
)
def test_automatic_test_names_are_promptfoo_s(
    run_cli: Callable[..., Any], tmp_path: Path, tests: str, ids: list[str]
) -> None:
    text = CONFIG.split("tests:", maxsplit=1)[0] + f"tests: {tests}\n"
    jsonl = '{"vars": {"q": "a"}}\n{"vars": {"q": "b"}, "description": "named"}\n'
    yaml_tests = "- vars: {q: a}\n- vars: {q: b}\n  description: named\n"
    config = _write(tmp_path, text, t__jsonl=jsonl, t__yaml=yaml_tests)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    assert [case["id"] for case in _cases(tmp_path, "openai-chat-m-1.p1")] == ids


def test_default_test_merges_as_promptfoo_merges_it(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "tests:\n",
        "defaultTest:\n  threshold: 0.5\n  assert:\n    - {type: contains, value: d}\n"
        "  provider: openai:chat:other\ntests:\n",
    )
    text += "  - vars: {q: b}\n    options: {disableDefaultAsserts: true}\n    threshold: null\n"
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    first, second = _cases(tmp_path, "openai-chat-m-1.p1")
    assert first["expectations"][0]["expected"]["type"] == "group"  # the default threshold
    assert [m["value"] for m in first["expectations"][0]["expected"]["assertions"]] == ["d", "Yes"]
    assert "the test's provider is not translated" in first["expectations"][-1]["expected"]
    assert [e["name"] for e in second["expectations"]] == ["promptfoo test"]  # no default asserts


@pytest.mark.parametrize(
    ("provider", "api"),
    [
        ("openai:gpt-4o-mini", "chat"),
        ("openai:o3-pro", "responses"),
        ("openai:gpt-5.2-pro-2025-12-11", "responses"),
        ("openai:gpt-5.6", "responses"),
        ("openai:gpt-5.5", "chat"),
        ("openai:responses:gpt-4o", "responses"),
    ],
)
def test_openai_models_reach_the_api_promptfoo_calls(
    run_cli: Callable[..., Any], tmp_path: Path, provider: str, api: str
) -> None:
    config = _write(tmp_path, CONFIG.replace("openai:chat:m-1", provider))
    assert run_cli("import", "promptfoo", str(config)).code == 0
    settings = (tmp_path / "config" / "settings.yaml").read_text()
    assert ("api: responses" in settings) is (api == "responses")


def test_api_host_wins_over_api_base_url(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    text = CONFIG.replace("apiKeyEnvar: MY_KEY", "apiKeyEnvar: MY_KEY, apiHost: llm.example")
    assert run_cli("import", "promptfoo", str(_write(tmp_path, text))).code == 0
    assert "base_url: https://llm.example/v1" in (tmp_path / "config/settings.yaml").read_text()


def test_weight_zero_file_values_scripts_and_transforms(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "      - {type: contains, value: Yes}",
        "      - {type: contains, value: nope, weight: 0}\n"
        "      - {type: contains, value: file://want.txt}\n"
        "      - {type: contains, value: file://want.py}\n"
        "      - {type: contains, value: x, transform: output.toUpperCase()}\n"
        "      - {type: equals, value: x, normalizeUnicode: true}",
    )
    config = _write(tmp_path, text, want__txt="  wanted \n", want__py="def get_assert(): pass\n")
    assert run_cli("import", "promptfoo", str(config)).code == 0
    loaded, script, transformed, normalized = _cases(tmp_path, "openai-chat-m-1.p1")[0][
        "expectations"
    ]
    assert "its normalizeUnicode is not translated" in normalized["expected"]
    assert loaded == {
        "name": "2 contains",
        "path": "/payload/answer",
        "comparison": "text",
        "expected": {"contains": ["wanted"]},
    }
    assert "comes from a script" in script["expected"]
    assert "transforms the output" in transformed["expected"]
    assert (
        "weight 0, which promptfoo counts as passed"
        in (tmp_path / "evaluation" / "IMPORTED.md").read_text()
    )


def test_file_vars_load_as_promptfoo_loads_them(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG + "  - vars: {q: file://q.txt, r: file://r.yaml, s: file://s.json}\n"
    files = {"q__txt": "  hello\n\n", "r__yaml": "a: [1, yes]\n", "s__json": ' {"b": 1}\n'}
    assert run_cli("import", "promptfoo", str(_write(tmp_path, text, **files))).code == 0
    payload = _cases(tmp_path, "openai-chat-m-1.p1")[1]["input"]["payload"]
    assert payload == {"q": "hello", "r": '{"a":[1,"yes"]}', "s": '{"b": 1}'}


def test_scenarios_and_a_configuration_without_tests(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.split("tests:", maxsplit=1)[0] + (
        "defaultTest:\n  assert: [{type: contains, value: d}]\n"
        "scenarios:\n"
        "  - config:\n"
        "      - vars: {q: one}\n        assert: [{type: contains, value: c}]\n"
        "      - vars: {q: two}\n"
        "    tests:\n"
        "      - vars: {z: x}\n        assert: [{type: contains, value: t}]\n"
    )
    assert run_cli("import", "promptfoo", str(_write(tmp_path / "a", text))).code == 0
    cases = _cases(tmp_path / "a", "openai-chat-m-1.p1")
    assert [c["input"]["payload"] for c in cases] == [
        {"q": "one", "z": "x"},
        {"q": "two", "z": "x"},
    ]
    assert [[e["expected"]["contains"][0] for e in c["expectations"]] for c in cases] == [
        ["d", "c", "t"],
        ["d", "t"],
    ]
    alone = CONFIG.split("tests:", maxsplit=1)[0] + "defaultTest:\n  vars: {q: hi}\n"
    assert run_cli("import", "promptfoo", str(_write(tmp_path / "b", alone))).code == 0
    assert [c["input"]["payload"] for c in _cases(tmp_path / "b", "openai-chat-m-1.p1")] == [
        {"q": "hi"}
    ]


def test_a_var_glob_is_one_case_per_file(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    text = CONFIG + "  - vars: {q: file://docs/*.txt}\n"
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "a.txt").write_text("first\n")
    (tmp_path / "docs" / "b.txt").write_text("second\n")
    assert run_cli("import", "promptfoo", str(_write(tmp_path, text))).code == 0
    payloads = [c["input"]["payload"] for c in _cases(tmp_path, "openai-chat-m-1.p1")[1:]]
    assert payloads == [{"q": "first"}, {"q": "second"}]


def test_a_grading_provider_map_is_listed_and_the_rubric_waits(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "tests:\n",
        "defaultTest:\n  options:\n    provider:\n      text: openai:gpt-4o\n"
        "      embedding: openai:text-embedding-3-small\ntests:\n",
    ).replace("      - {type: contains, value: Yes}", "      - {type: llm-rubric, value: polite}")
    result = run_cli("import", "promptfoo", str(_write(tmp_path, text)))
    assert result.code == 0, result.output
    assert "the grading provider (defaultTest.options.provider) is not one" in result.stdout
    expectation = _cases(tmp_path, "openai-chat-m-1.p1")[0]["expectations"][0]
    assert expectation["expected"] == "polite"
    assert "judge" not in expectation


def test_into_another_folder_keeps_python_files_reachable(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    import importlib.util

    text = CONFIG.replace(
        "      - {type: contains, value: Yes}", "      - {type: python, value: file://ok.py}"
    )
    files = {
        "ok__py": "def get_assert(output, context):\n    return output == context['vars']['q']\n"
    }
    config = _write(tmp_path / "suite", text, **files)
    into = tmp_path / "elsewhere"
    result = run_cli("import", "promptfoo", str(config), "--into", str(into))
    assert result.code == 0, result.output
    assert not (tmp_path / "suite" / "config").exists()
    expectation = _cases(into, "openai-chat-m-1.p1")[0]["expectations"][0]
    assert expectation["expected"]["file"] == "../suite/ok.py"
    spec = importlib.util.spec_from_file_location("generated_checks", into / "promptfoo_checks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.outcome("Yes", expectation["expected"]) == (True, 1.0)
    assert module.outcome("No", expectation["expected"]) == (False, 0.0)


@pytest.mark.parametrize(
    ("kind", "note"),
    [
        ("llm-rubric", "is kind"),
        ("model-graded-closedqa", "The answer meets this criterion: is kind"),
        ("factuality", "The answer is factually consistent with this reference answer: is kind"),
        ("g-eval", "The answer meets these criteria: is kind"),
    ],
)
def test_each_model_graded_type_gives_its_note(
    run_cli: Callable[..., Any], tmp_path: Path, kind: str, note: str
) -> None:
    text = CONFIG.replace("{type: contains, value: Yes}", f"{{type: {kind}, value: is kind}}")
    assert run_cli("import", "promptfoo", str(_write(tmp_path, text))).code == 0
    expectation = _cases(tmp_path, "openai-chat-m-1.p1")[0]["expectations"][0]
    assert expectation["expected"] == note  # no grading provider: a person decides


def test_two_providers_of_one_id_get_two_suites(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "providers:\n", "providers:\n  - {id: openai:chat:m-1, config: {temperature: 1}}\n"
    )
    config = _write(tmp_path, text)
    assert run_cli("import", "promptfoo", str(config)).code == 0
    suites = sorted(p.stem for p in (tmp_path / "evaluation" / "cases").iterdir())
    assert suites == ["openai-chat-m-1-1.p1", "openai-chat-m-1.p1"]
    assert (
        run_cli("evaluate", "--config", str(tmp_path / "config/settings.yaml"), "--check").code == 0
    )


def test_other_providers_are_listed_with_the_target_to_write(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = CONFIG.replace(
        "providers:\n",
        "providers:\n  - exec:python run.py\n  - file://provider.py\n  - https://api.example/x\n",
    )
    result = run_cli("import", "promptfoo", str(_write(tmp_path, text)))
    assert result.code == 0, result.output
    for provider, target in (
        ("exec:python run.py", "a command target"),
        ("file://provider.py", "a python target"),
        ("https://api.example/x", "an http target"),
    ):
        assert f"not translated: provider {provider} is not translated" in result.stdout
        assert target in result.stdout
