"""The test files a promptfoo configuration's ``tests:`` names, read as promptfoo 0.123's
``loadTestsFromGlob`` and ``readStandaloneTestsFile`` read them: CSV rows (``csvrows``), JSON,
JSONL and YAML tests, with its automatic names."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from goldgate.app.promptfoo.csvrows import csv_row
from goldgate.app.promptfoo.files import Place, Reader, parse_json
from goldgate.base.problems import display_path

__all__ = ["raw_tests"]


def _csv_tests(reader: Reader, path: Path) -> list[dict[str, Any]]:
    shown = display_path(path)
    text = reader.text(path)
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    tests = []
    for number, row in enumerate(rows, start=1):
        test = csv_row({key.strip(): value or "" for key, value in row.items() if key})
        test["description"] = test.get("description") or f"Row #{number}"
        test["__place"] = Place(shown, number + 1, f"row {number}")
        tests.append(test)
    return tests


def _test_file(reader: Reader, path: Path, *, named: bool) -> list[dict[str, Any]]:
    """The tests of one file. A CSV row without a description is ``Row #N``; so is a JSON or
    JSONL test when ``named`` (promptfoo names them when ``tests:`` is the file's name alone,
    not an entry of a list, and is not YAML)."""
    shown = display_path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_tests(reader, path)
    rows: list[tuple[int, Any]] = []
    if suffix == ".jsonl":
        lines = enumerate(reader.text(path).split("\n"), start=1)
        rows = [(n, parse_json(f"{shown}:{n}", line)) for n, line in lines if line.strip()]
    elif suffix in (".yaml", ".yml", ".json"):
        value = reader.structured(path)
        rows = [(1, row) for row in (value if isinstance(value, list) else [value])]
    else:
        raise Place(shown, 1, "tests").problem(
            "goldgate import reads tests from YAML, JSON, JSONL and CSV files only"
        )
    tests = []
    for number, (line, row) in enumerate(rows, start=1):
        place = Place(shown, line, f"test {number}")
        if not isinstance(row, dict):
            raise place.problem("a test must be a mapping")
        description = row.get("description") or (f"Row #{number}" if named else None)
        tests.append({**row, "description": description, "__place": place})
    return tests


def raw_tests(reader: Reader, raw: Any) -> list[dict[str, Any]]:
    items = raw if isinstance(raw, list) else ([] if raw is None else [raw])
    tests: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        where: list[str | int] = ["tests", index] if isinstance(raw, list) else ["tests"]
        if isinstance(item, str):
            place = reader.place(where, "tests")
            named = not isinstance(raw, list) and not item.endswith(("yaml", "yml"))
            for path in reader.files(item, place):
                tests.extend(_test_file(reader, path, named=named))
        elif isinstance(item, dict):
            tests.append({**item, "__place": reader.place(where, f"test {index + 1}")})
        else:
            raise reader.place(where, f"test {index + 1}").problem(
                "a test must be a mapping or a file:// reference"
            )
    return tests
