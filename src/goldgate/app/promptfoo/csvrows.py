"""A row of a promptfoo CSV test file as promptfoo's ``testCaseFromCsvRow`` reads it:
``__expected``, ``__expected1..N`` (each an assertion in promptfoo's short form), ``__description``,
``__threshold``, ``__metric``, ``__metadata:KEY`` (``KEY[]``: a comma-separated list) and
``__config:__expectedN:threshold``; every other column is a var."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from goldgate.app.promptfoo.kinds import ASSERTION_TYPES

__all__ = ["assertion_from_string", "csv_row"]

_FILE = "file://"

_CSV_RESERVED = ("__prefix", "__suffix", "__providerOutput", "__metric")


def csv_row(row: Mapping[str, str]) -> dict[str, Any]:
    variables: dict[str, Any] = {}
    asserts: list[dict[str, Any]] = []
    configs: dict[int, dict[str, Any]] = {}
    metadata: dict[str, Any] = {}
    test: dict[str, Any] = {}
    metric = None
    for key, value in row.items():
        if key.startswith("__expected"):
            if value.strip():
                asserts.append(assertion_from_string(value.strip()))
        elif key == "__description":
            test["description"] = value
        elif key == "__threshold":
            try:
                threshold = float(value)
            except ValueError:
                threshold = float("nan")
            if threshold and not math.isnan(threshold):
                test["threshold"] = threshold
        elif key == "__metric":
            metric = value
        elif key in ("__prefix", "__suffix"):
            test.setdefault("options", {})[key[2:]] = value
        elif key in _CSV_RESERVED:
            test.setdefault("__unsupported", []).append(key)
        elif key.startswith("__metadata:"):
            name = key[len("__metadata:") :]
            if name.endswith("[]") and value.strip():
                items = [item.strip().replace("\\,", ",") for item in _split_unescaped(value)]
                metadata[name[:-2]] = items
            elif value.strip():
                metadata[name] = value
        elif key.startswith("__config:"):
            parts = key[len("__config:") :].split(":")
            if len(parts) == 2 and parts[1] == "threshold":
                index = 0 if parts[0] == "__expected" else int(parts[0][len("__expected") :]) - 1
                configs.setdefault(index, {})["threshold"] = float(value)
        elif key != "__metadata":
            variables[key] = value
    for index, assertion in enumerate(asserts):
        assertion["metric"] = metric
        assertion.update(configs.get(index, {}))
        metadata.update(configs.get(index, {}))
    test.update(vars=variables, assert_=asserts)
    test["assert"] = test.pop("assert_")
    if metadata:
        test["metadata"] = metadata
    return test


def _split_unescaped(value: str) -> list[str]:
    parts, current, escaped = [], "", False
    for char in value:
        if char == "," and not escaped:
            parts.append(current)
            current = ""
        else:
            current += char
        escaped = char == "\\"
    return [*parts, current]


_ARRAY_TYPES = ("contains-all", "contains-any", "icontains-all", "icontains-any")
_THRESHOLD_TYPES = (
    "answer-relevance",
    "classifier",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "latency",
    "levenshtein",
    "perplexity-score",
    "perplexity",
    "rouge-n",
    "similar",
    "starts-with",
)
_JS_FILES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts")


def assertion_from_string(expected: str) -> dict[str, Any]:
    """A CSV ``__expected`` cell as promptfoo's ``assertionFromString`` reads it."""
    for prefix in ("javascript:", "fn:", "eval:"):
        if expected.startswith(prefix):
            return {"type": "javascript", "value": expected[len(prefix) :].strip()}
    if expected.startswith(_FILE) and expected[len(_FILE) :].split(":", maxsplit=1)[0].endswith(
        _JS_FILES
    ):
        return {"type": "javascript", "value": expected[len(_FILE) :].strip()}
    for prefix in ("grade:", "llm-rubric:"):
        if expected.startswith(prefix):
            return {"type": "llm-rubric", "value": expected[len(prefix) :]}
    if expected.startswith("python:") or (
        expected.startswith(_FILE) and (expected.endswith(".py") or ".py:" in expected)
    ):
        start = len("python:") if expected.startswith("python:") else len(_FILE)
        return {"type": "python", "value": expected[start:].strip()}
    names = "|".join(re.escape(name) for name in ASSERTION_TYPES)
    match = re.fullmatch(rf"(not-)?({names})(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?", expected)
    if match is None:
        return {"type": "equals", "value": expected}
    negated, kind, threshold, value = match.groups()
    full = f"not-{kind}" if negated else kind
    if kind in _ARRAY_TYPES:
        return {
            "type": full,
            "value": [item.strip() for item in value.split(",")] if value else value,
        }
    if kind in ("contains-json", "is-json"):
        return {"type": full, "value": value}
    if kind in _THRESHOLD_TYPES:
        default = 0.8 if kind == "similar" else 0.75
        return {
            "type": full,
            "value": None if value is None else value.strip(),
            "threshold": float(threshold) if threshold else default,
        }
    return {"type": full, "value": None if value is None else value.strip()}
