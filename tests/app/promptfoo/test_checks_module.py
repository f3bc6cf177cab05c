"""The generated promptfoo_checks.py and the Nunjucks rendering, as promptfoo decides: what a
python assertion's return means, weighted groups, and values printed as JavaScript prints them."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from goldgate.app.errors import Unrenderable
from goldgate.app.promptfoo.checks_module import check, echo, outcome
from goldgate.app.promptfoo.templates import as_placeholders, render


@pytest.mark.parametrize(
    ("code", "threshold", "passed"),
    [
        ("True", None, True),
        ("'false'", None, False),
        ("0.3", None, True),
        ("0", None, False),
        ("0.3", 0.5, False),
        ("0.5", 0.5, True),
        ("{'pass': True, 'score': 0.2, 'reason': 'r'}", None, True),
        ("{'pass': True, 'score': 0.2, 'reason': 'r'}", 0.5, False),
        ('\'{"pass": false, "score": 1}\'', None, False),
    ],
)
def test_a_python_assertion_returns_what_promptfoo_reads(
    code: str, threshold: float | None, passed: bool
) -> None:
    spec: dict[str, Any] = {"type": "python", "value": code, "vars": {}, "prompt": "p"}
    if threshold is not None:
        spec["threshold"] = threshold
    assert outcome("answer", spec)[0] is passed
    assert outcome("answer", {**spec, "type": "not-python"})[0] is not passed


def test_a_python_assertion_that_raises_fails_negated_too() -> None:
    spec = {"type": "python", "value": "1 / 0", "vars": {}, "prompt": "p"}
    assert outcome("answer", spec) == (False, 0.0)
    assert outcome("answer", {**spec, "type": "not-python"}) == (False, 0.0)


def test_a_multiline_python_assertion_sees_output_and_context() -> None:
    code = (
        "words = output.split()\n"
        "return context['vars']['n'] == len(words) and context['prompt'] == 'p'"
    )
    spec = {"type": "python", "value": code, "vars": {"n": 2}, "prompt": "p", "config": {}}
    assert outcome("two words", spec) == (True, 1.0)
    assert outcome("three words here", spec) == (False, 0.0)


def test_a_weighted_group_passes_at_its_threshold() -> None:
    members = [
        {"type": "contains", "value": "a", "weight": 1},
        {"type": "contains", "value": "zzz", "weight": 3},
        {"type": "levenshtein", "value": "abc", "threshold": 1, "weight": 1},
    ]
    assert outcome("abd", {"type": "group", "threshold": 0.4, "assertions": members}) == (True, 0.4)
    assert outcome("abd", {"type": "group", "threshold": 0.5, "assertions": members})[0] is False
    assert anyio.run(check, "abd", {"type": "group", "threshold": 0.4, "assertions": members})


@pytest.mark.parametrize(
    ("kind", "value", "output", "passed"),
    [
        ("equals", {"a": [1, 2]}, '{"a": [1, 2]}', True),
        ("equals", {"a": 1}, "not json", False),
        ("is-json", None, "NaN", False),
        ("is-json", None, "[1]", True),
        ("contains-json", None, 'Here: {"a": 1} done', True),
        ("contains-json", None, "Here: {a: 1}", True),  # read as YAML, as promptfoo 0.123 does
        ("contains-json", None, 'Cut: {"a": 1', True),  # closed at the end
        ("contains-json", None, 'Note: {"a": 1, // a comment\n}', True),
        ("contains-json", None, "No object: [1, 2]", False),
        ("contains-json", {"type": "object", "required": ["b"]}, 'A {"a": 1} B {"b": 2}', True),
        ("is-json", "type: array", "[1]", True),
        ("levenshtein", "abc", "abd", True),
        ("levenshtein", "kitten", "sitting", True),
        ("icontains-all", "Yes, no", "YES or NO", True),
    ],
)
def test_what_no_built_in_expectation_states(
    kind: str, value: Any, output: str, passed: bool
) -> None:
    assert outcome(output, {"type": kind, "value": value})[0] is passed


def test_echo_answers_the_rendered_prompt() -> None:
    request = {"envelope": {"payload": {}, "metadata": {"prompt": "Hello"}}}
    assert echo(request)["payload"] == {"answer": "Hello"}


def test_nunjucks_values_print_as_javascript_prints_them() -> None:
    variables = {"n": 2.0, "b": True, "l": ["a", None, 3], "o": {"k": 1}, "s": " x "}
    text = "{{n}} {{b}} {{l}} {{o}} {{missing}}|{{o | dump}}|{{ s | trim | upper }}"
    assert render(text, variables) == '2 true a,,3 [object Object] |{"k":1}|X'
    assert render("{% for x in l %}{{ loop.index }}{% endfor %}\n", variables) == "123\n"
    with pytest.raises(Unrenderable):
        render("{% macro m() %}{% endmacro %}", {})
    assert as_placeholders("{{ a }} {literal}") == ("{/payload/a} {{literal}}", frozenset({"a"}))
    assert as_placeholders("{{ a | upper }}") is None


def test_prompts_render_as_promptfoo_renders_them() -> None:
    from goldgate.app.promptfoo.templates import render_prompt

    chat = '[{"role": "user", "content": "Say {{q}}"}]'
    rendered = render_prompt(chat, {"q": 'a "quoted"\nline'})
    assert rendered == (
        '[\n  {\n    "role": "user",\n    "content": "Say a \\"quoted\\"\\nline"\n  }\n]'
    )
    assert render_prompt("Hi {{ name }}", {"name": "{{ other }}", "other": "Ann"}) == "Hi Ann"
    assert render_prompt("Hi {{ name }}", {"name": "{{ missing }}"}) == "Hi {{ missing }}"
    assert render_prompt("Keep {{ this", {}) == "Keep {{ this"


@pytest.mark.parametrize(
    ("pattern", "python"),
    [
        ("\\d{4}$", "\\d{4}(?!.|\\n)"),  # $ is the end of the text, as in JavaScript
        ("[$]x\\$", "[$]x\\$"),
        ("(?<=a)b", "(?<=a)b"),
        ("(?i)x", None),  # JavaScript has no inline flags
        ("(?<name>a)", None),
        ("a[^]b", None),
        ("\\p{L}", None),
    ],
)
def test_javascript_patterns_translate_only_where_python_reads_them_alike(
    pattern: str, python: str | None
) -> None:
    from goldgate.app.promptfoo.assertions import _js_pattern, _Person

    if python is None:
        with pytest.raises(_Person):
            _js_pattern(pattern)
    else:
        assert _js_pattern(pattern) == python
