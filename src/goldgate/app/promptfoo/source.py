"""Reading a promptfoo configuration as promptfoo 0.123 does: YAML 1.2, ``file://`` references
(inside the configuration's folder only, globs included), prompts, providers, tests from YAML,
JSON, JSONL and CSV files, ``defaultTest`` and ``vars`` combinations.

What it returns is plain frozen data (``Config``); nothing here decides what goldgate makes of
it. Bad input is an ``InvalidInputError`` naming the file and the place.
"""

from __future__ import annotations

import glob
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldgate.app.promptfoo.files import Place, Reader, value_file
from goldgate.app.promptfoo.prompts import Prompt, read_prompts
from goldgate.app.promptfoo.testfiles import raw_tests
from goldgate.base.textsafe import quote
from goldgate.gold.settings.yamlfile import YamlDocument

__all__ = ["Assertion", "Config", "Place", "Prompt", "Provider", "Test", "read_config"]

_FILE = "file://"


@dataclass(frozen=True)
class Provider:
    id: str
    label: str | None
    config: Mapping[str, Any]
    prompts: tuple[str, ...] | None
    place: Place


@dataclass(frozen=True)
class Assertion:
    type: str
    value: Any
    threshold: float | None
    weight: float
    metric: str | None
    config: Mapping[str, Any]
    place: Place
    children: tuple[Assertion, ...] = ()
    """An ``assert-set``'s assertions."""
    provider: Any = None
    value_file: Any = None
    """A ``file://`` value that is not a script, as promptfoo loads it (a ``.txt`` file's
    trimmed text, a JSON or YAML file's value); None when the value is not one."""
    transform: bool = False
    """The assertion transforms the output before checking it."""
    unknown: tuple[str, ...] = ()
    """Keys of the assertion goldgate does not translate (``normalizeUnicode``...)."""


@dataclass(frozen=True)
class Test:
    description: str | None
    vars: Mapping[str, Any]
    asserts: tuple[Assertion, ...]
    threshold: float | None
    options: Mapping[str, Any]
    prompts: tuple[str, ...] | None
    providers: tuple[str, ...] | None
    metadata: Mapping[str, Any]
    place: Place
    unsupported: tuple[str, ...] = ()
    """Keys of the test goldgate cannot honour (``provider``, ``providerOutput``...)."""


@dataclass(frozen=True)
class Config:
    path: Path
    description: str | None
    prompts: tuple[Prompt, ...]
    providers: tuple[Provider, ...]
    tests: tuple[Test, ...]
    grading_provider: Any
    transform: str | None
    unsupported: tuple[str, ...] = field(default=())


# --- providers ------------------------------------------------------------------------------


def _providers(reader: Reader, raw: Any) -> tuple[Provider, ...]:
    items = raw if isinstance(raw, list) else [raw]
    if raw is None or not items:
        raise reader.place(["providers"], "providers").problem("the configuration has no providers")
    providers: list[Provider] = []
    for index, item in enumerate(items):
        where: list[str | int] = ["providers", index] if isinstance(raw, list) else ["providers"]
        place = reader.place(where, "provider")
        if isinstance(item, str) and item.startswith(_FILE) and item.endswith(_CONFIG_FILES):
            for path in reader.files(item, place):
                loaded = reader.structured(path)
                for entry in loaded if isinstance(loaded, list) else [loaded]:
                    providers.append(_provider(entry, place))
        else:
            providers.append(_provider(item, place))
    return tuple(providers)


_CONFIG_FILES = (".yaml", ".yml", ".json")
"""A ``file://`` provider of these is a file of provider settings; any other is a script."""


def _provider(item: Any, place: Place) -> Provider:
    if isinstance(item, str):
        return Provider(item, None, {}, None, place)
    if isinstance(item, dict) and "id" not in item and len(item) == 1:
        ((key, value),) = item.items()  # {openai:chat:gpt-4o: {config: ...}}
        item = {"id": key, **(value if isinstance(value, dict) else {})}
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise place.problem("a provider needs a string 'id'")
    config = item.get("config") or {}
    if not isinstance(config, dict):
        raise place.problem("'config' must be a mapping")
    prompts = item.get("prompts")
    if isinstance(prompts, str):
        prompts = [prompts]
    label = item.get("label")
    return Provider(
        item["id"],
        None if label is None else str(label),
        config,
        None if prompts is None else tuple(str(p) for p in prompts),
        place,
    )


# --- tests ----------------------------------------------------------------------------------

_TEST_KEYS = frozenset(
    {"description", "vars", "assert", "threshold", "options", "prompts", "providers", "metadata"}
)


def _assertions(
    raw: Any, place: Place, refs: Mapping[str, Any], reader: Reader
) -> tuple[Assertion, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise place.problem("'assert' must be a list")
    return tuple(_assertion(item, place, refs, index, reader) for index, item in enumerate(raw))


def _assertion(
    item: Any, test: Place, refs: Mapping[str, Any], index: int, reader: Reader
) -> Assertion:
    place = Place(test.file, test.line, f"{test.what}, assertion {index + 1}")
    if isinstance(item, dict) and set(item) == {"$ref"}:
        reference = item["$ref"]
        name = reference.rsplit("/", 1)[-1] if isinstance(reference, str) else ""
        if not (
            isinstance(reference, str)
            and reference.startswith("#/assertionTemplates/")
            and name in refs
        ):
            raise place.problem(f"$ref {quote(reference)} names no assertionTemplates entry")
        item = refs[name]
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise place.problem("an assertion needs a string 'type'")
    children: tuple[Assertion, ...] = ()
    if item["type"] == "assert-set":
        children = _assertions(item.get("assert"), place, refs, reader)
    weight = item.get("weight", 1)
    threshold = item.get("threshold")
    if not isinstance(weight, int | float) or isinstance(weight, bool):
        raise place.problem("'weight' must be a number")
    if threshold is not None and (
        not isinstance(threshold, int | float) or isinstance(threshold, bool)
    ):
        raise place.problem("'threshold' must be a number")
    config = item.get("config") or {}
    return Assertion(
        type=item["type"],
        value=item.get("value"),
        threshold=None if threshold is None else float(threshold),
        weight=float(weight),
        metric=None if item.get("metric") is None else str(item["metric"]),
        config=config if isinstance(config, dict) else {},
        place=place,
        children=children,
        provider=item.get("provider"),
        value_file=value_file(reader, item.get("value"), place),
        transform=item.get("transform") is not None,
        unknown=tuple(sorted(key for key in item if key not in _ASSERTION_KEYS)),
    )


_ASSERTION_KEYS = frozenset(
    {"type", "value", "threshold", "weight", "metric", "config", "provider", "transform",
     "assert", "rubricPrompt"}
)  # fmt: skip
"""An assertion's keys goldgate translates, or that decide only a judged check (its grading
provider and prompt, which a person decides until the judge is calibrated)."""


def _string_list(value: Any) -> tuple[str, ...] | None:
    """A test's ``prompts`` or ``providers`` filter: only a list filters (promptfoo lets
    anything else through)."""
    if not isinstance(value, list):
        return None
    return tuple(str(item) for item in value)


def _test(raw: Any, place: Place, refs: Mapping[str, Any], reader: Reader) -> Test:
    if not isinstance(raw, dict):
        raise place.problem("a test must be a mapping")
    variables = raw.get("vars") or {}
    if isinstance(variables, str) and variables.startswith(_FILE):
        variables = reader.structured(reader.files(variables, place)[0])
    if not isinstance(variables, dict):
        raise place.problem("'vars' must be a mapping")
    variables = {key: _var_value(reader, value, place) for key, value in variables.items()}
    threshold = raw.get("threshold")
    if threshold is not None and (
        not isinstance(threshold, int | float) or isinstance(threshold, bool)
    ):
        raise place.problem("'threshold' must be a number")
    options = raw.get("options") or {}
    metadata = raw.get("metadata") or {}
    description = raw.get("description")
    return Test(
        description=None if description is None else str(description),
        vars=variables,
        asserts=_assertions(raw.get("assert"), place, refs, reader),
        threshold=None if threshold is None else float(threshold),
        options=options if isinstance(options, dict) else {},
        prompts=_string_list(raw.get("prompts")),
        providers=_string_list(raw.get("providers")),
        metadata=metadata if isinstance(metadata, dict) else {},
        place=place,
        unsupported=tuple(sorted(key for key in raw if key not in _TEST_KEYS)),
    )


_BINARY_VARS = (".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tiff", ".ico",
                ".avif", ".heic", ".svg", ".mp3", ".wav", ".m4a", ".ogg", ".flac", ".mp4",
                ".mov", ".webm", ".py", ".js", ".cjs", ".mjs", ".ts")  # fmt: skip


def _var_value(reader: Reader, value: Any, place: Place) -> Any:
    """A var's value; a ``file://`` one loaded as promptfoo's ``renderPrompt`` loads it (a
    YAML file as compact JSON, any other text file trimmed). Scripts, documents and media are
    refused: their value is not text goldgate can hold for the case."""
    if isinstance(value, str) and value.startswith(_FILE) and glob.has_magic(value):
        # One combination per file, as promptfoo's generateVarCombinations expands a glob.
        return [_var_value(reader, f"{_FILE}{path}", place) for path in reader.files(value, place)]
    if isinstance(value, str) and value.startswith(_FILE):
        path = reader.files(value, place)[0]
        suffix = path.suffix.lower()
        if suffix in _BINARY_VARS:
            raise place.problem(
                f"{quote(value)}: goldgate import reads vars from text, JSON and YAML files only"
            )
        if suffix in (".yaml", ".yml"):
            return json.dumps(reader.yaml(path), ensure_ascii=False, separators=(",", ":"))
        return reader.text(path).strip()
    return value


_SHAPES = (("vars", dict | str), ("assert", list), ("options", dict), ("metadata", dict))


def _check_shape(test: Any, place: Place) -> None:
    """A test (or defaultTest) is a mapping whose vars, assert, options and metadata have
    the shape promptfoo reads."""
    if not isinstance(test, dict):
        raise place.problem("a test must be a mapping")
    for key, kind in _SHAPES:
        if test.get(key) is not None and not isinstance(test[key], kind):
            what = "a list" if kind is list else "a mapping"
            raise place.problem(f"'{key}' must be {what}")


def _scenario_tests(reader: Reader, raw: Any) -> list[dict[str, Any]]:
    """The tests of ``scenarios``, as promptfoo 0.123's ``mergeScenarioTest`` makes them
    (after the other tests): each config entry × each of the scenario's tests, vars, options
    and metadata merged, the entry's assertions before the test's."""
    found: list[dict[str, Any]] = []
    for index, scenario in enumerate(raw if isinstance(raw, list) else []):
        place = reader.place(["scenarios", index], f"scenario {index + 1}")
        configs, tests = scenario.get("config"), scenario.get("tests") or [{}]
        if not isinstance(configs, list) or not isinstance(tests, list):
            raise place.problem("goldgate import reads a scenario's config and tests as lists")
        for data in configs:
            for test in tests:
                if not isinstance(data, dict) or not isinstance(test, dict):
                    raise place.problem("a scenario's config entries and tests must be mappings")
                merged = {**data, **test}
                for key in ("vars", "options", "metadata"):
                    merged[key] = {**(data.get(key) or {}), **(test.get(key) or {})}
                merged["assert"] = [*(data.get("assert") or []), *(test.get("assert") or [])]
                found.append({**merged, "__place": place})
    return found


def _merge_default(default: Mapping[str, Any], test: dict[str, Any]) -> dict[str, Any]:
    """A test with ``defaultTest`` applied as promptfoo 0.123 does (``prepareTestCaseForEval``):
    vars, options and metadata merged (the test's win), defaultTest's assertions first unless
    ``options.disableDefaultAsserts``, its threshold, prompts and providers where the test has
    none; any other key of defaultTest the test lacks is the test's too (so an untranslated
    one, such as ``provider``, makes it wait for a person)."""
    merged = {**{k: v for k, v in default.items() if k not in ("description",)}, **test}
    merged["vars"] = {**(default.get("vars") or {}), **(test.get("vars") or {})}
    merged["options"] = {**(default.get("options") or {}), **(test.get("options") or {})}
    defaults = (
        [] if merged["options"].get("disableDefaultAsserts") is True else default.get("assert")
    )
    merged["assert"] = [*(defaults or []), *(test.get("assert") or [])]
    merged["metadata"] = {**(default.get("metadata") or {}), **(test.get("metadata") or {})}
    for key in ("threshold", "prompts", "providers"):
        if test.get(key) is None and default.get(key) is not None:
            merged[key] = default[key]
    return merged


def combinations(variables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """promptfoo's ``generateVarCombinations``: an array of strings is one value per
    combination (the first key outermost); any other array is one value."""
    axes = []
    for key, value in variables.items():
        values = (
            value if isinstance(value, list) and value and isinstance(value[0], str) else [value]
        )
        axes.append([(key, item) for item in values])
    return [dict(combination) for combination in itertools.product(*axes)]


def read_config(path: Path) -> Config:
    """The configuration at ``path`` and everything it names."""
    reader = Reader(path)
    document: YamlDocument = reader.document
    raw = document.value
    top = reader.place([], "configuration")
    if not isinstance(raw, dict):
        raise top.problem("must be a mapping")
    if raw.get("env"):
        raise reader.place(["env"], "env").problem(
            "holds values; goldgate writes no secret into a project: delete the env block and "
            "name an environment variable instead (apiKeyEnvar, or export it before the run)"
        )
    refs = raw.get("assertionTemplates") or {}
    default = raw.get("defaultTest") or {}
    if isinstance(default, str):
        default = reader.structured(
            reader.files(default, reader.place(["defaultTest"], "defaultTest"))[0]
        )
    if not isinstance(default, dict):
        raise reader.place(["defaultTest"], "defaultTest").problem("must be a mapping")
    tests: list[Test] = []
    items = raw_tests(reader, raw.get("tests")) + _scenario_tests(reader, raw.get("scenarios"))
    if not raw.get("tests") and not raw.get("scenarios"):
        items = [{}]  # promptfoo runs one test of defaultTest alone
    _check_shape(default, reader.place(["defaultTest"], "defaultTest"))
    for item in items:
        place = item.pop("__place", top) if isinstance(item, dict) else top
        _check_shape(item, place)
        unsupported = item.pop("__unsupported", [])
        merged = _merge_default(default, item)
        base = _test(merged, place, refs, reader)
        extra = tuple(sorted({*base.unsupported, *unsupported}))
        expand = not base.options.get("disableVarExpansion")
        for variables in combinations(base.vars) if expand else [dict(base.vars)]:
            tests.append(Test(**{**base.__dict__, "vars": variables, "unsupported": extra}))
    options = default.get("options") or {}
    known = {
        "description",
        "prompts",
        "providers",
        "tests",
        "defaultTest",
        "scenarios",
        "assertionTemplates",
        "env",
        "$schema",
        "outputPath",
        "sharing",
        "evaluateOptions",
        "writeLatestResults",
        "tags",
    }
    description = raw.get("description")
    return Config(
        path=path,
        description=None if description is None else str(description),
        prompts=read_prompts(reader, raw.get("prompts")),
        providers=_providers(reader, raw.get("providers")),
        tests=tuple(tests),
        grading_provider=options.get("provider"),
        transform=options.get("transform"),
        unsupported=tuple(sorted(key for key in raw if key not in known)),
    )
