"""promptfoo_checks.py: written by `goldgate import promptfoo` beside the imported project.

It checks, as promptfoo 0.123 does, what goldgate's built-in expectations do not state: the
``promptfoo`` custom scorer (``check``) for ``equals`` with a JSON value, ``is-json``,
``contains-json``, ``levenshtein`` and ``python`` assertions, and for groups whose weighted
share must reach a threshold (a test's ``threshold``, an ``assert-set``'s); and the ``echo``
provider's python target (``echo``), which answers the rendered prompt.

A ``python`` assertion gets what promptfoo gives it: ``output`` and ``context`` (the test's
``vars``, the rendered ``prompt``, the assertion's ``config``); what it returns is read by
promptfoo's rules (a bool; a number passes above 0, or at its threshold; a grading result's
``pass``, failing under its threshold). It needs only what goldgate needs (PyYAML), and
``jsonschema`` for an ``is-json`` or ``contains-json`` schema. Edit it if you must: it is
your project's code now, and its scorer revision in config/settings.yaml should change with
it.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent


def _plain(value: Any) -> Any:
    """A frozen JSON value (mappings, tuples) as plain dicts and lists."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _js_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constant)


def _schema_ok(value: Any, schema: Any) -> bool:
    if schema is None or schema == "":
        return True
    if isinstance(schema, str):
        schema = yaml.safe_load(schema)
    jsonschema = importlib.import_module("jsonschema")
    return not list(jsonschema.Draft7Validator(schema).iter_errors(value))


def _escaped(line: str, index: int) -> bool:
    count = 0
    while index - 1 - count >= 0 and line[index - 1 - count] == "\\":
        count += 1
    return count % 2 == 1


def _hash_comments(text: str) -> str:
    """promptfoo's ``convertSlashCommentsToHash``: ``//`` comments outside quotes (and not in
    a URL) become YAML ``#`` comments, half as many hashes as slashes."""
    lines = []
    for line in text.split("\n"):
        state, result, index, done = "normal", "", 0, False
        while index < len(line):
            char = line[index]
            after = line[index + 1] if index + 1 < len(line) else ""
            before = line[index - 1] if index > 0 else ""
            if state == "normal":
                if char == "'" and not (before.isascii() and before.isalpha()):
                    state = "singleQuote"
                elif char == '"':
                    state = "doubleQuote"
                elif char == "/" and after == "/":
                    start = 0
                    for back in range(index - 1, -1, -1):
                        if line[back].isspace():
                            start = back + 1
                            break
                    if "://" not in line[start : index + 2]:
                        slashes = 2
                        while index + slashes < len(line) and line[index + slashes] == "/":
                            slashes += 1
                        lines.append(result + "#" * (slashes // 2) + line[index + slashes :])
                        done = True
                        break
                result += char
            elif state == "singleQuote":
                result += char
                if (
                    char == "'"
                    and not _escaped(line, index)
                    and not (after.isascii() and after.isalpha())
                ):
                    state = "normal"
            else:
                result += char
                if char == '"' and not _escaped(line, index):
                    state = "normal"
            index += 1
        if not done:
            lines.append(result)
    return "\n".join(lines)


def _json_objects(text: str) -> list[Any]:
    """The JSON objects the text holds, as promptfoo 0.123's ``extractJsonObjects`` finds
    them: from each ``{``, the text up to where its braces balance (closed at the end if
    they never do), read as YAML in JSON mode, ``//`` comments allowed."""
    found: list[Any] = []
    limit = 100_000
    index = 0
    while index < len(text):
        if text[index] != "{":
            index += 1
            continue
        opened, closed, end = 1, 0, index + 1
        while end < min(index + limit, len(text)) and opened > closed:
            opened += text[end] == "{"
            closed += text[end] == "}"
            end += 1
            if opened == closed or end == len(text) or end == index + limit:
                candidate = text[index:end] + "}" * max(0, opened - closed)
                try:
                    value = yaml.safe_load(_hash_comments(candidate))
                except yaml.YAMLError:
                    if opened == closed:
                        break
                    continue
                if isinstance(value, dict | list):
                    found.append(value)
                    index = end - 1
                    break
        index += 1
    return found


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def _items(value: Any) -> list[str]:
    if isinstance(value, list):
        return [_js_string(item) for item in value]
    return [item.strip() for item in str(value).split(",")]


def _python(output: str, spec: Mapping[str, Any]) -> Any:
    context = {
        "prompt": spec.get("prompt"),
        "vars": spec.get("vars", {}),
        "test": {"vars": spec.get("vars", {})},
        "config": spec.get("config", {}),
    }
    if spec.get("file"):
        path = (HERE / spec["file"]).resolve()
        loader = importlib.util.spec_from_file_location(f"promptfoo_assert_{path.stem}", path)
        if loader is None or loader.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
        return getattr(module, spec.get("function") or "get_assert")(output, context)
    code = str(spec["value"])
    if "\n" in code:
        match = re.search(r"^(?!\s*$)\s+", code, re.MULTILINE)
        indent = match.group(0) if match else "    "
        body = "\n".join(indent + line for line in code.split("\n"))
    else:
        body = f"    return {code}"
    namespace: dict[str, Any] = {}
    exec(f"import json\n\ndef main(output, context):\n{body}\n", namespace)
    return namespace["main"](output, context)


def _graded(result: Any, threshold: float | None) -> tuple[bool, float]:
    """promptfoo's reading of what a python assertion returned: (pass, score)."""
    if isinstance(result, str) and result.lower() in ("true", "false"):
        result = result.lower() == "true"
    if isinstance(result, str) and result.startswith("{"):
        result = json.loads(result)
    if isinstance(result, bool):
        return result, 1.0 if result else 0.0
    if isinstance(result, int | float):
        passed = result > 0 if threshold is None else result >= threshold
        return passed, float(result)
    if isinstance(result, Mapping) and isinstance(result.get("pass", result.get("pass_")), bool):
        passed = bool(result.get("pass", result.get("pass_")))
        score = float(result.get("score", 1.0 if passed else 0.0))
        if threshold is not None and score < threshold:
            passed = False
        return passed, score
    score = float(str(result))
    return (score > 0 if threshold is None else score >= threshold), score


def outcome(output: str, spec: Mapping[str, Any]) -> tuple[bool, float]:
    """(pass, score) of one assertion (or group) on ``output``, as promptfoo decides it."""
    kind = str(spec["type"])
    if kind == "group":
        results = [
            (outcome(output, member), float(member.get("weight", 1)))
            for member in spec["assertions"]
        ]
        # promptfoo counts an assertion of weight 0 as passed, whatever it found.
        results = [((True, r[1]) if w == 0 else r, w) for r, w in results]
        weight = sum(w for _, w in results)
        score = sum(r[1] * w for r, w in results) / weight if weight > 0 else 0.0
        threshold = spec.get("threshold")
        passed = all(r[0] for r, _ in results) if threshold is None else score >= threshold
        return passed, score
    inverse = kind.startswith("not-")
    kind = kind.removeprefix("not-")
    value = spec.get("value")
    threshold = spec.get("threshold")
    if kind == "python":
        try:
            passed, score = _graded(_python(output, spec), threshold)
        except Exception:
            return False, 0.0
        passed = passed != inverse
        return passed, score if not inverse else (1.0 if passed else 0.0)
    passed = _holds(kind, output, value, threshold)
    passed = passed != inverse
    return passed, 1.0 if passed else 0.0


def _holds(kind: str, output: str, value: Any, threshold: float | None) -> bool:
    lower = output.lower()
    if kind == "equals":
        if isinstance(value, dict | list):
            try:
                return bool(_json(output) == value)
            except ValueError:
                return False
        return _js_string(value) == output
    if kind == "contains":
        return _js_string(value) in output
    if kind == "icontains":
        return _js_string(value).lower() in lower
    if kind == "starts-with":
        return output.startswith(_js_string(value))
    if kind == "regex":
        return re.search(str(value), output) is not None
    if kind in ("contains-any", "icontains-any", "contains-all", "icontains-all"):
        fold = kind.startswith("i")
        items = [item.lower() if fold else item for item in _items(value)]
        text = lower if fold else output
        found = [item in text for item in items]
        return any(found) if kind.endswith("any") else all(found)
    if kind == "is-json":
        try:
            parsed = _json(output)
        except ValueError:
            return False
        return _schema_ok(parsed, value)
    if kind == "contains-json":
        return any(_schema_ok(found, value) for found in _json_objects(output))
    if kind == "levenshtein":
        return _levenshtein(output, _js_string(value)) <= (5 if threshold is None else threshold)
    raise ValueError(f"promptfoo_checks cannot check {kind!r}")


async def check(actual: Any, expected: Any) -> bool:
    """The ``promptfoo`` custom scorer: ``actual`` is the answer, ``expected`` the assertion
    (or group) as `goldgate import promptfoo` wrote it."""
    spec = _plain(expected)
    output = actual if isinstance(actual, str) else json.dumps(_plain(actual))
    return outcome(output, spec)[0]


def echo(request: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's ``echo`` provider: the answer is the rendered prompt."""
    prompt = request["envelope"]["metadata"].get("prompt", "")
    return {"execution": {"status": "completed"}, "payload": {"answer": prompt}}


__all__ = ["check", "echo", "outcome"]
