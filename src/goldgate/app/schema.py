"""JSON Schemas for editors and tools, generated from the very models goldgate validates with."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

_TITLES = {
    "dataset": "goldgate gold manifest",
    "cases": "goldgate case file",
    "settings": "goldgate settings",
    "workflow": "goldgate workflow file",
    "report": "goldgate report",
    "comparison": "goldgate comparison",
}
SCHEMA_NAMES = tuple(_TITLES)


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one file format."""
    from goldgate.gold.models import Case, Manifest
    from goldgate.gold.settings.models import Settings, WorkflowSettings

    generated: dict[str, Any]
    if name == "dataset":
        generated = Manifest.model_json_schema(by_alias=True)
    elif name == "cases":
        generated = TypeAdapter(list[Case]).json_schema(by_alias=True)
        generated["minItems"] = 1
    elif name == "settings":
        generated = Settings.model_json_schema(by_alias=True)
    elif name == "workflow":
        generated = WorkflowSettings.model_json_schema(by_alias=True)
    elif name == "report":
        from goldgate.report.models import Report, json_schema

        generated = json_schema(Report)
    elif name == "comparison":
        from goldgate.comparison.models import Comparison

        generated = Comparison.model_json_schema(by_alias=True)
    else:
        raise ValueError(f"unknown schema {name!r}; choose one of {', '.join(SCHEMA_NAMES)}")
    return {
        **generated,
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": _TITLES[name],
    }


def schema_text(name: str) -> str:
    """The schema as the stable text committed under schemas/ (sorted keys, trailing newline)."""
    return json.dumps(schema(name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
