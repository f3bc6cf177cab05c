"""JSON Schemas for editors: printed by `goldgate schema NAME`, committed under schemas/ (the
golden files), and in agreement with the bundled example."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

NAMES = ("dataset", "cases", "settings", "workflow", "report", "comparison")
REGENERATE = (
    "for n in dataset cases settings workflow report comparison; "
    "do goldgate schema $n > schemas/$n.schema.json; done"
)
DRAFT = "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture(scope="module")
def printed() -> dict[str, str]:
    from goldgate.app.schema import schema_text

    return {name: schema_text(name) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_schema_command_prints_a_json_schema(
    run_cli: Any, printed: dict[str, str], name: str
) -> None:
    result = run_cli("schema", name)

    assert result.code == 0
    assert result.stdout == printed[name]
    schema = json.loads(result.stdout)
    assert schema["$schema"] == DRAFT
    assert schema["title"].startswith("goldgate ")
    assert schema["type"] == ("array" if name == "cases" else "object")


@pytest.mark.parametrize("name", NAMES)
def test_committed_schema_equals_the_generated_one(
    repo_root: Path, printed: dict[str, str], name: str
) -> None:
    committed = repo_root / "schemas" / f"{name}.schema.json"

    assert committed.is_file(), f"schemas/{name}.schema.json is missing; regenerate: {REGENERATE}"
    assert committed.read_text(encoding="utf-8") == printed[name], (
        f"schemas/{name}.schema.json is out of date with the models; regenerate: {REGENERATE}"
    )


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every object schema (one with properties) anywhere inside ``node``."""
    found = []
    if isinstance(node, dict):
        if "properties" in node:
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_objects(value))
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_object_refuses_unknown_keys(printed: dict[str, str], name: str) -> None:
    objects = _objects(json.loads(printed[name]))

    assert objects
    loose = [sorted(o["properties"]) for o in objects if o.get("additionalProperties") is not False]
    assert loose == []


def test_gold_schema_requires_what_the_check_requires(printed: dict[str, str]) -> None:
    defs = json.loads(printed["cases"])["$defs"]

    assert set(defs["Case"]["required"]) == {"id", "input", "expectations"}
    assert defs["Case"]["properties"]["expectations"]["minItems"] == 1
    assert set(defs["Envelope"]["required"]) == {"payload", "metadata"}
    assert set(defs["Expectation"]["required"]) == {"name", "path", "expected"}
    assert "type" not in defs["Expectation"]["properties"]["expected"]  # null is a fine value
    assert json.loads(printed["cases"])["minItems"] == 1
    manifest = json.loads(printed["dataset"])
    assert set(manifest["required"]) == {"name", "revision", "suites"}
    assert "$schema" in manifest["properties"]


def test_example_references_the_committed_schemas(repo_root: Path) -> None:
    example = repo_root / "examples" / "support_triage"
    references = {
        example / "evaluation": json.loads(
            (example / "evaluation" / "dataset.json").read_text(encoding="utf-8")
        )["$schema"],
    }
    for yaml_file in (example / "config" / "settings.yaml", *example.glob("config/*/*.yaml")):
        match = re.search(r"\$schema=(\S+)", yaml_file.read_text(encoding="utf-8"))
        assert match, f"{yaml_file} names no schema for its editor"
        references[yaml_file.parent] = match.group(1)

    for folder, reference in references.items():
        target = (folder / reference).resolve()
        assert target.parent == repo_root / "schemas", reference
        assert target.is_file(), reference


# --- the example validates against the schemas (with jsonschema, where installed) ---------------


def _validator(printed: dict[str, str], name: str) -> Any:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema is not installed; goldgate does not depend on it"
    )
    schema = json.loads(printed[name])
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_example_gold_validates_against_the_dataset_schema(
    repo_root: Path, printed: dict[str, str]
) -> None:
    validator = _validator(printed, "dataset")
    gold = repo_root / "examples" / "support_triage" / "evaluation" / "dataset.json"

    errors = [e.message for e in validator.iter_errors(json.loads(gold.read_text("utf-8")))]

    assert errors == []


def test_example_case_files_validate_against_the_cases_schema(
    repo_root: Path, printed: dict[str, str]
) -> None:
    validator = _validator(printed, "cases")
    files = sorted((repo_root / "examples" / "support_triage" / "evaluation" / "cases").glob("*"))

    assert files
    for path in files:
        errors = [e.message for e in validator.iter_errors(json.loads(path.read_text("utf-8")))]
        assert errors == [], path.name


def test_the_schema_refuses_an_unknown_key(printed: dict[str, str]) -> None:
    validator = _validator(printed, "cases")

    case: dict[str, Any] = {
        "id": "a",
        "input": {"payload": {}, "metadata": {}},
        "expectations": [{"name": "n", "path": "/payload", "expected": None, "colour": 1}],
    }

    assert not validator.is_valid([case])
    del case["expectations"][0]["colour"]
    assert validator.is_valid([case])
