"""A promptfoo test's assertions as goldgate expectations with the same meaning.

Without a test ``threshold`` every assertion must hold (promptfoo fails a test on any failed
assertion, whatever its weight), so each assertion is an expectation of its own: ``exact`` or
``text`` where goldgate states it, the generated module's scorer (``promptfoo``) where it does
not, a judged ``text`` expectation for a model-graded one. With a threshold (a test's, or an
``assert-set``'s) the weighted share of the group decides: the group is one expectation of the
generated module, which checks every member as promptfoo does. Anything else, and a group
holding anything the module cannot check, is a ``text`` expectation in prose: the check waits
for a person, never passes on its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldgate.app.promptfoo.kinds import ASSERTION_TYPES, JUDGED, MODULE_CHECKED, TEXT_CHECKED
from goldgate.app.promptfoo.source import Assertion
from goldgate.app.promptfoo.templates import Unrenderable, js_string, render
from goldgate.base.textsafe import quote

__all__ = ["ANSWER", "SCORER", "Context", "Translated", "translate"]

ANSWER = "/payload/answer"
SCORER = "promptfoo"


@dataclass(frozen=True)
class Context:
    """What translating one test's assertions needs to know."""

    vars: Mapping[str, Any]
    prompt: str
    judge: str | None
    """The judge of the configured grading provider; None: none is configured."""
    config_folder: Path
    project: Path
    test_threshold: float | None
    priced: bool = False
    """The suite's workflow has pricing: its attempts record a cost."""


@dataclass
class Translated:
    expectations: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """What became what, for IMPORTED.md."""
    waiting: list[str] = field(default_factory=list)
    """What could not be translated and waits for a person, for IMPORTED.md."""
    judged: bool = False
    uses_scorer: bool = False


class _Person(Exception):
    """Control flow, raised and caught in this module: the assertion waits for a person."""


def _label(assertion: Assertion) -> str:
    value = assertion.value
    shown = "" if value is None else f" {quote(value, 60)}"
    bound = "" if assertion.threshold is None else f" (threshold {assertion.threshold:g})"
    return f"{assertion.type}{shown}{bound}"


def _rendered(value: Any, variables: Mapping[str, Any]) -> Any:
    """An assertion's value rendered with the test's vars, as promptfoo renders it."""
    try:
        if isinstance(value, str):
            templated = "{{" in value or "{%" in value or "{#" in value
            return render(value, variables) if templated else value
        if isinstance(value, list):
            return [_rendered(item, variables) for item in value]
    except Unrenderable as why:
        raise _Person(f"its value cannot be rendered exactly: {why}") from None
    return value


def _split(value: Any) -> list[str]:
    """A list value, or a comma-separated string as promptfoo splits it (quotes kept
    together, items trimmed)."""
    if isinstance(value, list):
        return [js_string(item) for item in value]
    if not isinstance(value, str) or not value:
        raise _Person("it needs a list of strings")
    items, current, quoted = [], "", False
    for char in value:
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            items.append(current.strip())
            current = ""
            continue
        current += char
    return [*items, current.strip()]


def _one(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float) or value == "":
        raise _Person("it needs a string or number value")
    return js_string(value)


def _js_pattern(pattern: str) -> str:
    """A JavaScript pattern (no flags) as Python's ``re`` reads it the same way: ``$`` outside
    a class is the end of the text (Python's also matches before a final newline)."""
    out, escaped, in_class = [], False, False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        elif char == "[":
            in_class = True
            out.append(char)
        elif char == "]":
            in_class = False
            out.append(char)
        elif char == "$" and not in_class:
            out.append(r"(?!.|\n)")
        else:
            out.append(char)
    translated = "".join(out)
    if re.search(r"\(\?(<[A-Za-z]|[aiLmsux-])|\\[kpP]|\\u\{|\[\^?\]", translated):
        # named groups, inline flags (JavaScript has none), \k, \p, \u{...}, [] and [^]
        raise _Person("its pattern uses syntax JavaScript and Python read differently")
    try:
        re.compile(translated)
    except re.error:
        raise _Person("its pattern does not compile as Python's re") from None
    return translated


def _all_of(values: Sequence[str], flags: str = "") -> str:
    look = "".join(f"(?=[\\s\\S]*{re.escape(item)})" for item in values)
    return f"{flags}\\A(?!{look})"


def _text(assertion: Assertion, value: Any) -> tuple[dict[str, Any], str]:
    """The ``text`` (or ``exact``) expectation of one text assertion, and what it became."""
    negated = assertion.type.startswith("not-")
    kind = assertion.type.removeprefix("not-")
    if kind == "equals":
        if isinstance(value, dict | list):
            raise _Module()
        text = "" if value == "" else js_string(value) if isinstance(value, bool) else _one(value)
        if negated:
            return {"notMatches": [f"\\A{re.escape(text)}(?![\\s\\S])"]}, "text notMatches"
        return {"__exact__": text}, "exact"
    if kind in ("contains", "icontains", "starts-with"):
        item = _one(value)
        if kind == "contains":
            return (
                ({"notContains": [item]}, "text notContains")
                if negated
                else ({"contains": [item]}, "text contains")
            )
        pattern = ("(?i)" + re.escape(item)) if kind == "icontains" else ("\\A" + re.escape(item))
        key = "notMatches" if negated else "matches"
        return {key: [pattern]}, f"text {key}"
    if kind == "regex":
        pattern = _js_pattern(_one(value))
        key = "notMatches" if negated else "matches"
        return {key: [pattern]}, f"text {key}"
    items = _split(value)
    if not items or any(item == "" for item in items):
        raise _Module()
    flags = "(?i)" if kind.startswith("i") else ""
    any_of = flags + "(?:" + "|".join(re.escape(item) for item in items) + ")"
    if kind == "contains-any":
        return (
            ({"notContains": items}, "text notContains")
            if negated
            else ({"matches": [any_of]}, "text matches")
        )
    if kind == "icontains-any":
        key = "notMatches" if negated else "matches"
        return {key: [any_of]}, f"text {key}"
    if negated:  # not-contains-all, not-icontains-all: some item is missing
        return {"matches": [_all_of(items, flags)]}, "text matches"
    if kind == "contains-all":
        return {"contains": items}, "text contains"
    return {"matches": [flags + re.escape(item) for item in items]}, "text matches"


class _Module(Exception):
    """Control flow, raised and caught in this module: the generated module checks it."""


def _module_spec(assertion: Assertion, value: Any, context: Context) -> dict[str, Any]:
    """What the generated module needs to check one assertion as promptfoo does."""
    kind = assertion.type.removeprefix("not-")
    if kind not in MODULE_CHECKED:
        raise _Person(f"goldgate has no exact translation of {quote(assertion.type)}")
    spec: dict[str, Any] = {"type": assertion.type, "value": value}
    if assertion.threshold is not None:
        spec["threshold"] = assertion.threshold
    if kind == "python":
        if not isinstance(value, str):
            raise _Person("a python assertion needs code or a file:// reference")
        if value.startswith("file://"):
            reference = value[len("file://") :]
            name, _, function = reference.partition(":")
            path = (context.config_folder / name).resolve()
            if not path.is_relative_to(context.config_folder.resolve()):
                raise assertion.place.problem(
                    f"{quote(value)} is outside the configuration's folder; goldgate import "
                    "reads only files inside it"
                )
            if not path.is_file():
                raise assertion.place.problem(f"{quote(value)} names no file")
            spec["value"] = None
            spec["file"] = os.path.relpath(path, context.project.resolve())
            spec["function"] = function or "get_assert"
        spec["vars"] = dict(context.vars)
        spec["prompt"] = context.prompt
        if assertion.config:
            spec["config"] = dict(assertion.config)
    return spec


def _value(assertion: Assertion, context: Context) -> Any:
    """The assertion's value as promptfoo checks it: a ``file://`` value loaded, a string
    rendered with the test's vars; a ``_Person`` for what only promptfoo can compute."""
    if assertion.transform:
        raise _Person("it transforms the output first")
    if assertion.unknown:
        raise _Person(f"its {', '.join(assertion.unknown)} is not translated")
    kind = assertion.type.removeprefix("not-")
    value = assertion.value
    if assertion.value_file is not None:
        return assertion.value_file
    if kind != "python" and isinstance(value, str) and value.startswith("file://"):
        raise _Person("its value comes from a script")
    return _rendered(value, context.vars)


def _member(assertion: Assertion, context: Context) -> dict[str, Any]:
    """One assertion of a weighted group, for the generated module."""
    if assertion.type == "assert-set":
        return {
            "type": "group",
            "threshold": assertion.threshold,
            "weight": assertion.weight,
            "assertions": [_member(child, context) for child in assertion.children],
        }
    kind = assertion.type.removeprefix("not-")
    if kind in JUDGED:
        raise _Person("a model-graded assertion in a weighted group waits for a person")
    value = _value(assertion, context)
    return {**_module_spec(assertion, value, context), "weight": assertion.weight}


def _check_known(assertion: Assertion) -> None:
    if assertion.type.removeprefix("not-") not in ASSERTION_TYPES:
        raise assertion.place.problem(f"unknown assertion type {quote(assertion.type)}")
    for child in assertion.children:
        _check_known(child)


def _person(name: str, why: str, what: str) -> dict[str, Any]:
    return {
        "name": name,
        "path": ANSWER,
        "comparison": "text",
        "expected": f"promptfoo {what}: {why}; a person decides",
    }


_JUDGED_NOTES = {
    "model-graded-closedqa": "The answer meets this criterion: {}",
    "factuality": "The answer is factually consistent with this reference answer: {}",
    "model-graded-factuality": "The answer is factually consistent with this reference answer: {}",
    "g-eval": "The answer meets these criteria: {}",
}
"""What the rubric means for a person or a judge, per model-graded type (an llm-rubric's
value is the rubric itself)."""


def _judged(assertion: Assertion, name: str, context: Context, out: Translated) -> None:
    if assertion.provider is not None:
        out.lines.append(
            f"{name}: the assertion's own grading provider is not translated; the configured "
            "grading provider's judge decides (or a person)"
        )
    rubric = _value(assertion, context)
    note = rubric if isinstance(rubric, str) else js_string(rubric)
    if not note.strip():
        note = f"the answer passes promptfoo's {assertion.type}"
    else:
        note = _JUDGED_NOTES.get(assertion.type, "{}").format(note)
    expectation: dict[str, Any] = {
        "name": name,
        "path": ANSWER,
        "comparison": "text",
        "expected": {"note": note},
    }
    if context.judge is None:
        out.waiting.append(
            f"{name}: {assertion.type} has no grading provider (options.provider): a person "
            "decides until a judge is configured"
        )
        expectation["expected"] = note
    else:
        expectation["judge"] = context.judge
        out.judged = True
        out.lines.append(
            f"{name}: {assertion.type} → text expectation judged by {context.judge} "
            "(uncalibrated: a person decides until `goldgate judge calibrate` clears the bar)"
        )
    out.expectations.append(expectation)


def _maximum(assertion: Assertion, name: str, context: Context, out: Translated) -> None:
    """``latency`` and ``cost``: the attempt's own figure at most the threshold."""
    if assertion.threshold is None:
        raise _Person(f"a {assertion.type} assertion needs a threshold")
    figure = "latency_ms" if assertion.type == "latency" else "cost"
    out.expectations.append(
        {
            "name": name,
            "path": f"/attempt/{figure}",
            "comparison": "maximum",
            "expected": assertion.threshold,
        }
    )
    out.lines.append(f"{name}: {_label(assertion)} → maximum of /attempt/{figure}")
    if figure == "cost" and not context.priced:
        out.lines.append(
            f"{name}: the workflow needs `pricing` (config.cost in promptfoo) for its attempts "
            "to record a cost; until then the check fails"
        )


def _single(assertion: Assertion, name: str, context: Context, out: Translated) -> None:
    kind = assertion.type.removeprefix("not-")
    label = _label(assertion)
    if assertion.weight == 0:
        out.lines.append(
            f"{name}: {label} has weight 0, which promptfoo counts as passed whatever the "
            "answer: no check"
        )
        return
    try:
        if kind in JUDGED and not assertion.type.startswith("not-"):
            _judged(assertion, name, context, out)
            return
        if kind in ("latency", "cost") and not assertion.type.startswith("not-"):
            _maximum(assertion, name, context, out)
            return
        value = _value(assertion, context)
        if kind in TEXT_CHECKED and assertion.threshold is None:
            try:
                expected, became = _text(assertion, value)
            except _Module:
                pass
            else:
                exact = expected.pop("__exact__", None)
                if exact is not None:
                    out.expectations.append({"name": name, "path": ANSWER, "expected": exact})
                else:
                    out.expectations.append(
                        {"name": name, "path": ANSWER, "comparison": "text", "expected": expected}
                    )
                out.lines.append(f"{name}: {label} → {became}")
                return
        spec = _module_spec(assertion, value, context)
    except _Person as why:
        out.expectations.append(_person(name, str(why), label))
        out.waiting.append(f"{name}: {label}: {why}")
        return
    out.expectations.append(
        {"name": name, "path": ANSWER, "comparison": "custom", "scorer": SCORER, "expected": spec}
    )
    out.uses_scorer = True
    out.lines.append(f"{name}: {label} → custom scorer {SCORER} (promptfoo_checks.py)")


def _group(
    assertions: Sequence[Assertion], threshold: float, name: str, context: Context, out: Translated
) -> None:
    try:
        members = [_member(assertion, context) for assertion in assertions]
    except _Person as why:
        out.expectations.append(_person(name, str(why), f"assertions with threshold {threshold}"))
        out.waiting.append(
            f"{name}: threshold {threshold} over {len(assertions)} assertions: {why}"
        )
        return
    spec = {"type": "group", "threshold": threshold, "assertions": members}
    out.expectations.append(
        {"name": name, "path": ANSWER, "comparison": "custom", "scorer": SCORER, "expected": spec}
    )
    out.uses_scorer = True
    out.lines.append(
        f"{name}: {len(assertions)} assertions whose weighted share must reach {threshold} → "
        f"one custom scorer {SCORER} check (promptfoo_checks.py)"
    )


def _flat(assertions: Sequence[Assertion], prefix: str, context: Context, out: Translated) -> None:
    for number, assertion in enumerate(assertions, start=1):
        metric = f" [{assertion.metric}]" if assertion.metric else ""
        name = f"{prefix}{number} {assertion.type}{metric}"
        if assertion.type == "assert-set":
            if assertion.threshold is None:
                _flat(assertion.children, f"{prefix}{number}.", context, out)
            else:
                _group(assertion.children, assertion.threshold, name, context, out)
        else:
            _single(assertion, name, context, out)


def translate(assertions: Sequence[Assertion], context: Context) -> Translated:
    """The expectations of one test (one case of one suite)."""
    for assertion in assertions:
        _check_known(assertion)
    out = Translated()
    if context.test_threshold is not None and assertions:
        _group(assertions, context.test_threshold, "threshold", context, out)
    else:
        _flat(assertions, "", context, out)
    return out
