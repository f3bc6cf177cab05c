"""The goldgate project a promptfoo configuration becomes: settings, dataset, case files, the
generated ``promptfoo_checks.py`` and ``evaluation/IMPORTED.md``, as (path, text) pairs.

Each prompt × translated provider is a workflow and a suite; each test (each combination of
its vars) a case whose payload is its vars. A prompt that is text and ``{{ var }}`` only
becomes the model target's ``{/payload/var}`` template; any other is rendered per case at
import time into the case's ``metadata.prompt`` (``{/metadata/prompt}``).
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from goldgate.app.promptfoo import checks_module
from goldgate.app.promptfoo.assertions import Context, Translated, translate
from goldgate.app.promptfoo.providers import Workflow, workflow_of
from goldgate.app.promptfoo.source import Config, Prompt, Provider, Test
from goldgate.app.promptfoo.templates import Unrenderable, as_placeholders, js_string, render_prompt
from goldgate.base.errors import InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.textsafe import escape_control

__all__ = ["Imported", "build_project"]

REVISION = "promptfoo-import-1"
JUDGE_SYSTEM = (
    "You grade one answer against a rubric. Reply with PASS or FAIL as your first word, "
    "then one sentence saying why."
)
JUDGE_PROMPT = (
    "Rubric: {/payload/rubric}\nWhat this answer must do: {/payload/note}\n\n"
    "Answer:\n{/payload/answer}"
)


@dataclass
class Imported:
    """The project's files and what the command prints about them."""

    files: list[tuple[str, str]] = field(default_factory=list)
    suites: int = 0
    cases: int = 0
    waiting: int = 0
    untranslated: list[str] = field(default_factory=list)


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    return (slug or "provider")[:48]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _case_id(number: int, test: Test) -> str:
    text = test.description or f"test {number}"
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()[:100]
    return f"{number}: {text}" if text else f"test {number}"


def _matches(references: Sequence[str] | None, names: Sequence[str]) -> bool:
    """promptfoo's ``doesPromptRefMatch`` / ``doesProviderRefMatch``: a reference names a
    prompt or provider by its label or id, as a prefix ending in ``*``, or as the part
    before a ``:`` (no filter: everything; an empty one: nothing)."""
    if references is None:
        return True
    return any(
        name == reference
        or (reference.endswith("*") and name.startswith(reference[:-1]))
        or name.startswith(f"{reference}:")
        for reference in references
        for name in names
        if name
    )


@dataclass(frozen=True)
class _Rendered:
    text: str | None
    """The prompt as promptfoo renders it (what ``echo`` answers, a python assertion's
    ``context.prompt``)."""
    prompt: str | None
    """The user message the model target sends."""
    system: str | None
    why: str | None


def _affixed(prompt: Prompt, test: Test) -> str:
    """The template promptfoo renders for ``test``: its ``options.prefix``, the prompt, its
    ``options.suffix``."""
    prefix, suffix = test.options.get("prefix"), test.options.get("suffix")
    return f"{prefix if isinstance(prefix, str) else ''}{prompt.raw}" + (
        suffix if isinstance(suffix, str) else ""
    )


def _render_prompt(prompt: Prompt, test: Test, variables: Mapping[str, Any]) -> _Rendered:
    """The prompt of one test, and the messages promptfoo's OpenAI providers make of it (a
    JSON array of messages is a chat; any other text is the user's message)."""
    try:
        text = render_prompt(_affixed(prompt, test), variables)
    except Unrenderable as why:
        return _Rendered(None, None, None, f"the prompt cannot be rendered exactly: {why}")
    try:
        messages = json.loads(text)
    except ValueError:
        messages = None
    if not (isinstance(messages, list) and all(isinstance(m, dict) for m in messages)):
        return _Rendered(text, text, None, None)
    roles = [str(message.get("role")) for message in messages]
    contents = [message.get("content") for message in messages]
    if roles == ["user"] and isinstance(contents[0], str):
        return _Rendered(text, contents[0], None, None)
    if roles == ["system", "user"] and all(isinstance(item, str) for item in contents):
        return _Rendered(text, contents[1], contents[0], None)
    return _Rendered(text, None, None, "the model target sends a system and a user message only")


_TEMPLATED = ("{{", "{%", "{#")


def _placeholders(prompt: Prompt, tests: Sequence[tuple[int, Test]]) -> str | None:
    """The model target's template for every test of a suite, when ``{/payload/var}``
    placeholders give each test the very prompt promptfoo renders: a prompt that is text and
    ``{{ var }}`` only (not JSON, no prefix or suffix), every var it reads a string without
    template syntax of its own. None: the prompt is rendered per case."""
    try:
        json.loads(prompt.raw)
    except ValueError:
        pass
    else:
        return None
    found = as_placeholders(prompt.raw)
    if found is None:
        return None
    template, used = found
    for _, test in tests:
        if _affixed(prompt, test) != prompt.raw:
            return None
        for name in used:
            value = test.vars.get(name)
            if not isinstance(value, str) or any(mark in value for mark in _TEMPLATED):
                return None
    return template


def _judge(config: Config, imported: Imported) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    """The judge of the grading provider (its name, workflows, judges settings)."""
    grader = config.grading_provider
    if grader is None:
        return None, {}, {}
    from goldgate.app.promptfoo.source import Place, _provider

    try:
        provider = _provider(grader, Place(str(config.path), 1, "defaultTest.options.provider"))
    except InvalidInputError:
        imported.untranslated.append(
            "the grading provider (defaultTest.options.provider) is not one provider id: "
            "model-graded checks wait for a person"
        )
        return None, {}, {}
    workflow = workflow_of(provider, REVISION)
    if workflow.settings is None or workflow.api == "echo":
        imported.untranslated.extend(workflow.missing or ("the grading provider is echo",))
        return None, {}, {}
    settings = json.loads(json.dumps(workflow.settings))
    settings["target"]["model"].update(system=JUDGE_SYSTEM, prompt=JUDGE_PROMPT)
    settings["description"] = f"promptfoo grading provider {provider.id}, as a judge"
    judge = {
        "revision": "1",
        "workflow": "grader",
        "rubric": "The answer does what the note asks, as promptfoo's model-graded assertion "
        "would grade it.",
        "calibration": {"min_verdicts": 30, "min_kappa": 0.6},
    }
    return "grader", {"grader": settings}, {"grader": judge}


def _provider_names(provider: Provider) -> list[str]:
    return [name for name in (provider.label, provider.id) if name]


def build_project(config: Config, project: Path) -> Imported:
    """Every file of the imported project (see the module docstring)."""
    imported = Imported()
    judge, workflows, judges = _judge(config, imported)
    suites: list[dict[str, Any]] = []
    report: list[str] = []
    uses_scorer = False
    stems: set[str] = set()
    for provider in config.providers:
        workflow = workflow_of(provider, REVISION)
        base = stem = _slug(provider.label or provider.id)
        number = 0
        while stem in stems:  # two providers of one id or label: two sets of suites
            number += 1
            stem = f"{base}-{number}"
        stems.add(stem)
        imported.untranslated.extend(workflow.missing)
        if workflow.settings is None:
            continue
        for prompt_number, prompt in enumerate(config.prompts, start=1):
            if provider.prompts is not None and not _matches(
                provider.prompts, [prompt.label, prompt.id]
            ):
                continue
            name = f"{stem}.p{prompt_number}"
            suite, lines, scorer = _suite(
                config, project, provider, prompt, (name, workflow), judge
            )
            if suite is None:
                continue
            uses_scorer |= scorer
            workflows[name] = suite.pop("__workflow")
            files = suite.pop("__cases")
            imported.files.append((f"evaluation/cases/{name}.json", _json_text(files)))
            imported.cases += len(files)
            imported.waiting += suite.pop("__waiting")
            suites.append(suite)
            report.extend(
                [
                    f"## Suite {name}",
                    "",
                    f"Prompt {prompt_number} ({prompt.label[:80]!r}) × provider {provider.id}.",
                    "",
                    *workflow.lines,
                    "",
                    *lines,
                    "",
                ]
            )
    imported.suites = len(suites)
    if not suites:
        raise config_problem(
            config,
            "no provider could be translated (see docs/promptfoo.md), so nothing was written",
        )
    settings: dict[str, Any] = {"workflows": workflows, "python_path": [".."]}
    settings["scorers"] = {"promptfoo": {"import": "promptfoo_checks:check", "revision": "1"}}
    if judges:
        settings["judges"] = judges
    settings["evaluation"] = {"dataset": "../evaluation/dataset.json"}
    dataset = {
        "name": _slug(config.description or "promptfoo") or "promptfoo",
        "revision": REVISION,
        "description": f"Imported from {config.path.name} by goldgate import promptfoo.",
        "suites": suites,
    }
    header = "# Imported from a promptfoo configuration by `goldgate import promptfoo`.\n"
    imported.files[:0] = [
        (
            "config/settings.yaml",
            header + yaml.safe_dump(settings, sort_keys=False, allow_unicode=True, width=100),
        ),
        ("evaluation/dataset.json", _json_text(dataset)),
        ("promptfoo_checks.py", Path(checks_module.__file__).read_text(encoding="utf-8")),
    ]
    imported.files.append(("evaluation/IMPORTED.md", _imported_md(config, imported, report)))
    del uses_scorer
    return imported


def config_problem(config: Config, sentence: str) -> Exception:
    """The configuration's whole-file problem, as one sentence naming it."""
    return InvalidInputError(escape_control(f"{display_path(config.path)}: {sentence}."))


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def _suite(
    config: Config,
    project: Path,
    provider: Provider,
    prompt: Prompt,
    named: tuple[str, Workflow],
    judge: str | None,
) -> tuple[dict[str, Any] | None, list[str], bool]:
    name, workflow = named
    assert workflow.settings is not None
    tests = [
        (number, test)
        for number, test in enumerate(config.tests, start=1)
        if _matches(test.prompts, [prompt.label, prompt.id])
        and _matches(test.providers, _provider_names(provider))
    ]
    if not tests:
        return None, [], False
    placeholders = _placeholders(prompt, tests)
    echo = workflow.api == "echo"
    cases: list[dict[str, Any]] = []
    lines: list[str] = []
    waiting, scorer = 0, False
    for number, test in tests:
        variables = _plain(dict(test.vars))
        rendered = _render_prompt(prompt, test, variables)
        case_id = _case_id(number, test)
        context = Context(
            variables,
            rendered.text or prompt.raw,
            judge,
            config.path.resolve().parent,
            project,
            test.threshold,
            priced="pricing" in workflow.settings,
        )
        translated = translate(test.asserts, context)
        kept = rendered if not echo or rendered.text is None else replace(rendered, why=None)
        _waits(test, kept, config, translated)
        shown = rendered.text if echo else rendered.prompt
        metadata: dict[str, Any] = {"prompt": shown if shown is not None else prompt.raw}
        if rendered.system is not None and not echo:
            metadata["system"] = rendered.system
        metadata["promptfoo"] = _plain(
            {"test": number, "description": test.description, "metadata": dict(test.metadata)}
        )
        expectations = translated.expectations or [
            {
                "name": "answered",
                "path": "/payload/answer",
                "comparison": "text",
                "expected": {"minChars": 0},
            }
        ]
        cases.append(
            {
                "id": case_id,
                "input": {"payload": variables, "metadata": metadata},
                "expectations": expectations,
            }
        )
        waiting += bool(translated.waiting)
        scorer |= translated.uses_scorer
        lines.append(f"### {case_id}")
        lines.append("")
        lines.extend(
            f"- {line}"
            for line in translated.lines
            or ["no assertions → the answer must exist (text minChars 0)"]
        )
        lines.extend(f"- NOT TRANSLATED, waits for a person: {line}" for line in translated.waiting)
        lines.append("")
    settings = json.loads(json.dumps(workflow.settings))
    if workflow.api != "echo":
        model = settings["target"]["model"]
        if placeholders is not None:
            model["prompt"] = placeholders
        else:
            model["prompt"] = "{/metadata/prompt}"
            if any("system" in case["input"]["metadata"] for case in cases):
                model["system"] = "{/metadata/system}"
    settings["description"] = f"promptfoo provider {provider.id} with prompt {prompt.label[:60]!r}"
    suite = {
        "name": name,
        "workflow": name,
        "cases": f"cases/{name}.json",
        "description": f"{prompt.label[:80]} × {provider.label or provider.id}",
        "__workflow": settings,
        "__cases": cases,
        "__waiting": waiting,
    }
    how = (
        "rendered per case (metadata.prompt), which echo answers"
        if workflow.api == "echo"
        else "{/payload/var} placeholders"
        if placeholders is not None
        else "rendered per case (metadata.prompt)"
    )
    return suite, [f"Prompt template: {how}.", "", *lines], scorer


_HARMLESS_OPTIONS = frozenset(
    {
        "prefix",
        "suffix",
        "provider",
        "transform",
        "disableVarExpansion",
        "runSerially",
        "rubricPrompt",
        "disableConversationVar",
        "disableDefaultAsserts",
    }
)
"""Test options translated, or that change no verdict of a translated check (the grading
provider and its prompt decide only judged checks, which a person decides until calibrated);
any other option makes the test wait for a person."""


def _waits(test: Test, rendered: _Rendered, config: Config, translated: Translated) -> None:
    """What makes the whole test wait for a person, beside its assertions."""
    reasons = []
    if rendered.why is not None:
        reasons.append(rendered.why)
    if test.options.get("transform") or config.transform:
        reasons.append("options.transform changes the output before the assertions")
    for key in sorted(set(test.options) - _HARMLESS_OPTIONS):
        reasons.append(f"the test's options.{key} is not translated")
    for key in test.unsupported:
        reasons.append(f"the test's {key} is not translated")
    if not reasons:
        return
    for reason in reasons:
        translated.waiting.append(reason)
    translated.expectations.append(
        {
            "name": "promptfoo test",
            "path": "/payload/answer",
            "comparison": "text",
            "expected": "promptfoo test: " + "; ".join(reasons) + "; a person decides",
        }
    )


def _imported_md(config: Config, imported: Imported, report: list[str]) -> str:
    lines = [
        "# Imported from promptfoo",
        "",
        f"`goldgate import promptfoo {config.path.name}` wrote this project: "
        f"{imported.suites} suites (each prompt × provider), {imported.cases} cases (each test "
        "and each combination of its vars), the settings and the generated "
        "`promptfoo_checks.py` (the `promptfoo` scorer and the `echo` target).",
        "",
        "A check that waits for a person is listed under its case with NOT TRANSLATED: it is "
        "never dropped and never passes on its own; decide it with `goldgate adjudication`.",
        "",
    ]
    if imported.untranslated or config.unsupported:
        lines += ["## Not translated", ""]
        lines += [f"- {line}" for line in imported.untranslated]
        lines += [f"- the configuration's {key} is not translated" for key in config.unsupported]
        lines.append("")
    lines += report
    return "\n".join(lines).rstrip("\n") + "\n"


_ = js_string
