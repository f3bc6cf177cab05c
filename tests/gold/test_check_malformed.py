"""Malformed settings, manifests and case files, each through the real CLI (`evaluate --check`).

Every row starts from the valid project of ``conftest.GoldProject``, applies one mutation and
expects exit code 2 with exactly the listed violations: file, line, column, message and JSON
pointer. Where a row names a place by a piece of text (``at``, ``after``, ``last_before``),
the line and column are computed here from the written file, independently of goldgate's
scanner; a few rows give the line and column literally.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

D = "evaluation/dataset.json"
C = "evaluation/cases/filed.json"
S = "config/settings.yaml"
W = "config/flows/ext.yaml"

Where = Callable[[str], int] | tuple[int, int]
Mutation = Callable[[Any], None]


# --- places, computed from the written text ----------------------------------------------------


def _find(text: str, needle: str, nth: int) -> int:
    offset = -1
    for _ in range(nth + 1):
        offset = text.find(needle, offset + 1)
        assert offset >= 0, f"{needle!r} (occurrence {nth}) is not in the written file"
    return offset


def at(needle: str, nth: int = 0) -> Where:
    """Where ``needle`` starts."""
    return lambda text: _find(text, needle, nth)


def after(needle: str, nth: int = 0) -> Where:
    """Just past ``needle``: where the value that follows it starts."""
    return lambda text: _find(text, needle, nth) + len(needle)


def last_before(token: str, needle: str) -> Where:
    """The last ``token`` before ``needle``: the key or bracket that holds it."""
    return lambda text: text.rindex(token, 0, _find(text, needle, 0))


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column, in code points."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


@dataclass(frozen=True)
class Want:
    file: str
    where: Where
    message: str
    pointer: str = ""

    def render(self, read: Callable[[str], str]) -> str:
        if isinstance(self.where, tuple):
            line, column = self.where
        else:
            text = read(self.file)
            line, column = line_column(text, self.where(text))
        suffix = f" (at {self.pointer})" if self.pointer else ""
        return f"{self.file}:{line}:{column}: {self.message}{suffix}"


# --- mutations ---------------------------------------------------------------------------------


def manifest(p: Any) -> dict[str, Any]:
    return p.manifest  # type: ignore[no-any-return]


def suite0(p: Any) -> dict[str, Any]:
    return p.manifest["suites"][0]  # type: ignore[no-any-return]


def suite1(p: Any) -> dict[str, Any]:
    return p.manifest["suites"][1]  # type: ignore[no-any-return]


def metric(p: Any) -> dict[str, Any]:
    return p.manifest["suites"][0]["metrics"][0]  # type: ignore[no-any-return]


def inline_case(index: int) -> Callable[[Any], dict[str, Any]]:
    return lambda p: p.manifest["suites"][0]["cases"][index]


def case(index: int) -> Callable[[Any], dict[str, Any]]:
    return lambda p: p.cases[index]


def envelope(p: Any) -> dict[str, Any]:
    return p.cases[0]["input"]  # type: ignore[no-any-return]


def expectation(index: int) -> Callable[[Any], dict[str, Any]]:
    return lambda p: p.cases[0]["expectations"][index]


def span(p: Any) -> dict[str, Any]:
    return p.cases[0]["expectations"][2]["expected"]  # type: ignore[no-any-return]


def text_assertions(p: Any) -> dict[str, Any]:
    return p.cases[0]["expectations"][4]["expected"]  # type: ignore[no-any-return]


def put(getter: Callable[[Any], dict[str, Any]], **changes: Any) -> Mutation:
    return lambda p: getter(p).update(changes)


def drop(getter: Callable[[Any], dict[str, Any]], key: str) -> Mutation:
    return lambda p: getter(p).pop(key) and None


def thresholds(**changes: Any) -> Mutation:
    return lambda p: p.manifest["suites"][0]["thresholds"].update(changes)


def case_file(content: Any) -> Mutation:
    return lambda p: setattr(p, "cases", content)


def manifest_file(content: Any) -> Mutation:
    return lambda p: setattr(p, "manifest", content)


def settings(old: str, new: str) -> Mutation:
    def mutate(p: Any) -> None:
        assert p.settings.count(old) == 1, old
        p.settings = p.settings.replace(old, new)

    return mutate


def with_workflow_file(content: str | None, reference: str = "flows/ext.yaml") -> Mutation:
    def mutate(p: Any) -> None:
        p.settings = p.settings.replace("\nscorers:", f"\n  ext: {reference}\nscorers:")
        if content is not None:
            p.put(W, content)

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(p: Any) -> None:
        for mutation in mutations:
            mutation(p)

    return mutate


UNKNOWN = 'unknown key "colour"; check its spelling against the schema'
NEST = "[" * 600 + "]" * 600
LABEL = "/flows/main/steps/classify/result/label"
DIGITS = sys.get_int_max_str_digits() or 4300  # Python refuses longer integer literals

MALFORMED = [
    # --- JSON syntax, in the case file and the manifest ---------------------------------------
    pytest.param(
        case_file('[{"id": "a", "id": "b"}]'),
        [Want(C, (1, 14), 'duplicate key "id"')],
        id="json-duplicate-key",
    ),
    pytest.param(
        manifest_file('{"name": "a",\n "name": "b"}'),
        [Want(D, (2, 2), 'duplicate key "name"')],
        id="json-duplicate-key-in-manifest",
    ),
    pytest.param(case_file("[NaN]"), [Want(C, (1, 2), "NaN is not a JSON value")], id="json-nan"),
    pytest.param(
        case_file("[\n  Infinity]"),
        [Want(C, (2, 3), "Infinity is not a JSON value")],
        id="json-infinity",
    ),
    pytest.param(
        case_file("[1, -Infinity]"),
        [Want(C, (1, 5), "-Infinity is not a JSON value")],
        id="json-minus-infinity",
    ),
    pytest.param(
        case_file("[1e999]"),
        [Want(C, (1, 2), "number is out of range for a 64-bit float")],
        id="json-1e999",
    ),
    pytest.param(
        case_file("[]\n[]"),
        [Want(C, (2, 1), "unexpected data after the JSON value")],
        id="json-trailing-data",
    ),
    pytest.param(
        case_file("[1,]"),
        [Want(C, (1, 4), "expected a JSON value, found ']'")],
        id="json-trailing-comma",
    ),
    pytest.param(
        case_file("['a']"),
        [Want(C, (1, 2), 'expected a JSON value, found "\'"')],
        id="json-single-quotes",
    ),
    pytest.param(
        case_file('["abc'), [Want(C, (1, 2), "unterminated string")], id="json-unterminated-string"
    ),
    pytest.param(
        case_file('["a\tb"]'),
        [Want(C, (1, 4), "control character U+0009 must be escaped in a string")],
        id="json-control-character-in-string",
    ),
    pytest.param(
        case_file(b"\xef\xbb\xbf[]"),
        [Want(C, (1, 1), "starts with a UTF-8 byte order mark; save it without")],
        id="json-bom",
    ),
    pytest.param(
        # "é" is two bytes but one column: columns count code points.
        case_file(b'[\n "\xc3\xa9\xff"]'),
        [Want(C, (2, 4), "invalid UTF-8 (byte 0xff)")],
        id="json-invalid-utf8",
    ),
    pytest.param(
        case_file(""),
        [Want(C, (1, 1), "expected a JSON value, found the end of the file")],
        id="json-empty-file",
    ),
    pytest.param(
        case_file(NEST),
        [Want(C, (1, 513), "nested deeper than 512 levels")],
        id="json-nested-too-deep",
    ),
    pytest.param(
        case_file("[" * 5000 + "]" * 5000),
        [Want(C, (1, 513), "nested deeper than 512 levels")],
        id="json-nested-too-deep-for-the-stdlib",
    ),
    pytest.param(
        case_file('[\n  {"id": "\\ud800"}]'),
        [Want(C, (2, 10), "string holds a lone UTF-16 surrogate, which is not a character")],
        id="json-lone-surrogate-escape",
    ),
    pytest.param(
        case_file("[\n  " + "7" * (DIGITS + 1) + "]"),
        [Want(C, (2, 3), f"integer has more than {DIGITS} digits")],
        id="json-integer-with-too-many-digits",
    ),
    pytest.param(
        manifest_file([]),
        [Want(D, (1, 1), "the manifest must be a JSON object, found array")],
        id="manifest-root-array",
    ),
    pytest.param(
        manifest_file('"gold"'),
        [Want(D, (1, 1), "the manifest must be a JSON object, found string")],
        id="manifest-root-string",
    ),
    pytest.param(
        case_file({}),
        [Want(C, (1, 1), "a case file holds a JSON array of cases, found object")],
        id="case-file-root-object",
    ),
    pytest.param(
        case_file([]),
        [Want(C, (1, 1), "a case file must not be empty")],
        id="case-file-empty-array",
    ),
    # --- unknown keys at every level ----------------------------------------------------------
    pytest.param(
        put(manifest, colour=1),
        [Want(D, at('"colour"'), UNKNOWN, "/colour")],
        id="unknown-manifest",
    ),
    pytest.param(
        put(suite0, colour=1),
        [Want(D, at('"colour"'), UNKNOWN, "/suites/0/colour")],
        id="unknown-suite",
    ),
    pytest.param(
        put(inline_case(0), colour=1),
        [Want(D, at('"colour"'), UNKNOWN, "/suites/0/cases/0/colour")],
        id="unknown-inline-case",
    ),
    pytest.param(
        put(case(0), colour=1), [Want(C, at('"colour"'), UNKNOWN, "/0/colour")], id="unknown-case"
    ),
    pytest.param(
        put(envelope, colour=1),
        [Want(C, at('"colour"'), UNKNOWN, "/0/input/colour")],
        id="unknown-envelope",
    ),
    pytest.param(
        put(expectation(0), colour=1),
        [Want(C, at('"colour"'), UNKNOWN, "/0/expectations/0/colour")],
        id="unknown-expectation",
    ),
    pytest.param(
        put(metric, colour=1),
        [Want(D, at('"colour"'), UNKNOWN, "/suites/0/metrics/0/colour")],
        id="unknown-metric",
    ),
    pytest.param(
        put(suite0, text={"json": True, "colour": 1}),
        [Want(D, at('"colour"'), UNKNOWN, "/suites/0/text/colour")],
        id="unknown-text-option",
    ),
    # --- missing required keys ----------------------------------------------------------------
    pytest.param(
        drop(manifest, "name"),
        [Want(D, (1, 1), "missing required key 'name'", "/name")],
        id="missing-name",
    ),
    pytest.param(
        drop(manifest, "revision"),
        [Want(D, (1, 1), "missing required key 'revision'", "/revision")],
        id="missing-revision",
    ),
    pytest.param(
        drop(manifest, "suites"),
        [Want(D, (1, 1), "missing required key 'suites'", "/suites")],
        id="missing-suites",
    ),
    pytest.param(
        put(manifest, suites=[]),
        [Want(D, at('"suites"'), "must not be empty", "/suites")],
        id="empty-suites",
    ),
    pytest.param(
        drop(case(0), "id"),
        [Want(C, (2, 3), "missing required key 'id'", "/0/id")],
        id="missing-case-id",
    ),
    pytest.param(
        drop(case(0), "input"),
        [Want(C, (2, 3), "missing required key 'input'", "/0/input")],
        id="missing-input",
    ),
    pytest.param(
        drop(case(0), "expectations"),
        [Want(C, (2, 3), "missing required key 'expectations'", "/0/expectations")],
        id="missing-expectations",
    ),
    pytest.param(
        drop(expectation(1), "expected"),
        [
            Want(
                C,
                last_before("{", '"name": "tags"'),
                "missing required key 'expected'",
                "/0/expectations/1/expected",
            )
        ],
        id="missing-expected",
    ),
    pytest.param(
        put(case(0), expectations=[]),
        [Want(C, at('"expectations"'), "must not be empty", "/0/expectations")],
        id="empty-expectations",
    ),
    pytest.param(
        drop(envelope, "payload"),
        [Want(C, after('"input": '), "missing required key 'payload'", "/0/input/payload")],
        id="envelope-without-payload",
    ),
    pytest.param(
        drop(envelope, "metadata"),
        [Want(C, after('"input": '), "missing required key 'metadata'", "/0/input/metadata")],
        id="envelope-without-metadata",
    ),
    # --- wrong types (strict: no coercion) ----------------------------------------------------
    pytest.param(
        put(manifest, revision=3),
        [Want(D, at('"revision"'), "expected a string, found number", "/revision")],
        id="number-for-string",
    ),
    pytest.param(
        put(suite0, text={"json": "1"}),
        [Want(D, at('"json"'), "expected true or false, found string", "/suites/0/text/json")],
        id="string-1-for-bool",
    ),
    pytest.param(
        thresholds(pass_rate="0.9"),
        [
            Want(
                D,
                at('"pass_rate"'),
                "expected a number, found string",
                "/suites/0/thresholds/pass_rate",
            )
        ],
        id="string-for-number",
    ),
    pytest.param(
        put(expectation(0), name=True),
        [Want(C, at('"name": true'), "expected a string, found boolean", "/0/expectations/0/name")],
        id="bool-for-string",
    ),
    pytest.param(
        put(case(0), expectations={}),
        [Want(C, at('"expectations"'), "expected an array, found object", "/0/expectations")],
        id="object-for-array",
    ),
    pytest.param(
        lambda p: p.manifest["suites"][0]["cases"].__setitem__(0, 5),
        [
            Want(
                D,
                after('"cases": [\n        '),
                "expected an object, found number",
                "/suites/0/cases/0",
            )
        ],
        id="number-for-inline-case",
    ),
    pytest.param(
        put(suite1, cases=3),
        [
            Want(
                D,
                at('"cases": 3'),
                "expected an array or a string, found number",
                "/suites/1/cases",
            )
        ],
        id="number-for-cases",
    ),
    pytest.param(
        put(suite1, cases=""),
        [Want(D, at('"cases": ""'), "must not be empty", "/suites/1/cases")],
        id="empty-case-file-reference",
    ),
    pytest.param(
        put(case(0), id=" x"),
        [Want(C, at('"id"'), 'case id " x" must not start or end with whitespace', "/0/id")],
        id="case-id-with-outer-space",
    ),
    # --- duplicates -----------------------------------------------------------------------------
    pytest.param(
        put(suite1, name="inline"),
        [
            Want(D, at('"name": "inline"'), 'duplicate suite name "inline"', "/suites/0/name"),
            Want(D, at('"name": "inline"', 1), 'duplicate suite name "inline"', "/suites/1/name"),
        ],
        id="duplicate-suite-name",
    ),
    pytest.param(
        put(case(1), id="x"),
        [
            Want(C, at('"id": "x"'), 'duplicate case id "x" in this suite', "/0/id"),
            Want(C, at('"id": "x"', 1), 'duplicate case id "x" in this suite', "/1/id"),
        ],
        id="duplicate-case-id",
    ),
    pytest.param(
        put(expectation(1), name="status"),
        [
            Want(
                C,
                at('"name": "status"'),
                'duplicate expectation name "status" in this case',
                "/0/expectations/0/name",
            ),
            Want(
                C,
                at('"name": "status"', 1),
                'duplicate expectation name "status" in this case',
                "/0/expectations/1/name",
            ),
        ],
        id="duplicate-expectation-name",
    ),
    # --- what the settings declare --------------------------------------------------------------
    pytest.param(
        put(suite1, workflow="nope"),
        [
            Want(
                D,
                at('"workflow": "nope"'),
                'workflow "nope" is not declared in the settings',
                "/suites/1/workflow",
            )
        ],
        id="undeclared-workflow",
    ),
    pytest.param(
        put(suite0, flow="nope"),
        [
            Want(
                D,
                at('"flow"'),
                'flow "nope" is not declared in workflow "triage"',
                "/suites/0/flow",
            )
        ],
        id="undeclared-flow",
    ),
    pytest.param(
        put(suite0, step="nope"),
        [Want(D, at('"step"'), 'step "nope" is not declared in flow "main"', "/suites/0/step")],
        id="undeclared-step",
    ),
    pytest.param(
        drop(suite0, "flow"),
        [Want(D, at('"step"'), "a suite with a step needs its flow", "/suites/0/step")],
        id="step-without-flow",
    ),
    # --- result paths ---------------------------------------------------------------------------
    pytest.param(
        put(expectation(0), path="foo"),
        [
            Want(
                C,
                at('"path": "foo"'),
                "JSON pointer \"foo\" must be empty or start with '/'",
                "/0/expectations/0/path",
            )
        ],
        id="pointer-without-slash",
    ),
    pytest.param(
        put(expectation(0), path="/a~2"),
        [
            Want(
                C,
                at('"path": "/a~2"'),
                "JSON pointer \"/a~2\" has a '~' that is not '~0' or '~1'",
                "/0/expectations/0/path",
            )
        ],
        id="pointer-bad-escape",
    ),
    pytest.param(
        put(expectation(0), path="/output/x"),
        [
            Want(
                C,
                at('"path": "/output/x"'),
                "unknown result root '/output'; gold paths start with /execution, /payload, "
                "/attempt or /flows/{flow}",
                "/0/expectations/0/path",
            )
        ],
        id="unknown-result-root",
    ),
    pytest.param(
        put(expectation(0), path=""),
        [
            Want(
                C,
                at('"path": ""'),
                "the whole result document is not a gold path; point at a known root",
                "/0/expectations/0/path",
            )
        ],
        id="whole-result-document",
    ),
    pytest.param(
        put(expectation(0), path="/steps/classify/result"),
        [
            Want(
                C,
                at('"path": "/steps/'),
                "'/steps/...' is a flow-local authoring path; use '/flows/{flow}/steps/{step}/...'",
                "/0/expectations/0/path",
            )
        ],
        id="flow-local-path",
    ),
    pytest.param(
        put(expectation(0), path="/flows/nope/result"),
        [
            Want(
                C,
                at('"path": "/flows/nope'),
                'flow "nope" is not declared in workflow settings',
                "/0/expectations/0/path",
            )
        ],
        id="path-undeclared-flow",
    ),
    pytest.param(
        put(expectation(0), path="/flows/main/steps/nope/result"),
        [
            Want(
                C,
                at('"path": "/flows/main/steps/nope'),
                'step "nope" is not declared in this flow',
                "/0/expectations/0/path",
            )
        ],
        id="path-undeclared-step",
    ),
    pytest.param(
        put(expectation(0), path="/flows/main/output"),
        [
            Want(
                C,
                at('"path": "/flows/main/output'),
                "'/flows/main/output' is not a flow path; use one of result, partial_result, steps",
                "/0/expectations/0/path",
            )
        ],
        id="path-unknown-flow-part",
    ),
    pytest.param(
        put(expectation(0), path="/flows/main/steps/classify/output"),
        [
            Want(
                C,
                at('"path": "/flows/main/steps/classify/output'),
                "'/flows/main/steps/classify/output' is not a step path; use one of result, "
                "partial_result, selection, usage",
                "/0/expectations/0/path",
            )
        ],
        id="path-unknown-step-part",
    ),
    pytest.param(
        put(expectation(0), path="/flows/main/steps/units/result/items/01/steps/route/result"),
        [
            Want(
                C,
                at('"path": "/flows/main/steps/units/result/items/01'),
                "a collection item index is a nonnegative integer without leading zeros",
                "/0/expectations/0/path",
            )
        ],
        id="path-bad-collection-index",
    ),
    pytest.param(
        put(expectation(0), path="/flows/main/steps/units/result/items/0/steps/nope/result"),
        [
            Want(
                C,
                at('"path": "/flows/main/steps/units/result/items/0/steps/nope'),
                'step "nope" is not a child step of this collection',
                "/0/expectations/0/path",
            )
        ],
        id="path-undeclared-child-step",
    ),
    pytest.param(
        put(metric, path="/steps/classify/result/label"),
        [
            Want(
                D,
                at('"path": "/steps/'),
                "'/steps/...' is a flow-local authoring path; use '/flows/{flow}/steps/{step}/...'",
                "/suites/0/metrics/0/path",
            ),
            Want(
                D,
                at('"expectations"'),
                'metric "queue_quality" needs exactly one expectation at '
                '"/steps/classify/result/label", found none',
                "/suites/0/cases/0/expectations",
            ),
            Want(
                D,
                at('"expectations"', 1),
                'metric "queue_quality" needs exactly one expectation at '
                '"/steps/classify/result/label", found none',
                "/suites/0/cases/1/expectations",
            ),
        ],
        id="metric-flow-local-path",
    ),
    # --- comparisons ----------------------------------------------------------------------------
    pytest.param(
        put(expectation(0), comparison="fuzzy"),
        [
            Want(
                C,
                at('"comparison": "fuzzy"'),
                'must be one of "exact", "set", "source_span", "custom", "text" or '
                '"maximum", found "fuzzy"',
                "/0/expectations/0/comparison",
            )
        ],
        id="unknown-comparison",
    ),
    pytest.param(
        put(expectation(1), expected="a"),
        [
            Want(
                C,
                at('"expected": "a"'),
                "a set comparison expects an array, found string",
                "/0/expectations/1/expected",
            )
        ],
        id="set-with-a-string",
    ),
    pytest.param(
        put(expectation(2), expected=[0, 1]),
        [
            Want(
                C,
                last_before('"expected"', '"comparison": "source_span"'),
                "a source_span expects {input_path, required, allowed}, found array",
                "/0/expectations/2/expected",
            )
        ],
        id="source-span-wrong-shape",
    ),
    pytest.param(
        put(span, colour=1),
        [
            Want(
                C,
                at('"colour"'),
                'unknown key "colour" in a source_span expectation',
                "/0/expectations/2/expected/colour",
            )
        ],
        id="source-span-unknown-key",
    ),
    pytest.param(
        drop(span, "allowed"),
        [
            Want(
                C,
                last_before('"expected"', '"input_path"'),
                "a source_span expectation needs 'allowed'",
                "/0/expectations/2/expected",
            )
        ],
        id="source-span-missing-allowed",
    ),
    pytest.param(
        put(span, required=[3]),
        [
            Want(
                C,
                at('"required"'),
                "'required' is a [start, end] pair of nonnegative integers",
                "/0/expectations/2/expected/required",
            )
        ],
        id="source-span-not-a-pair",
    ),
    pytest.param(
        put(span, required=[5, 3]),
        [
            Want(
                C,
                at('"required"'),
                "'required' starts after it ends",
                "/0/expectations/2/expected/required",
            )
        ],
        id="source-span-reversed",
    ),
    pytest.param(
        put(span, input_path="/payload/nope"),
        [
            Want(
                C,
                at('"input_path"'),
                'nothing in this case\'s input at "/payload/nope"',
                "/0/expectations/2/expected/input_path",
            )
        ],
        id="source-span-input-path-missing",
    ),
    pytest.param(
        put(span, input_path="/payload/count"),
        [
            Want(
                C,
                at('"input_path"'),
                'the case\'s input at "/payload/count" is number, not a string',
                "/0/expectations/2/expected/input_path",
            )
        ],
        id="source-span-input-path-not-a-string",
    ),
    pytest.param(
        put(span, input_path="payload/message"),
        [
            Want(
                C,
                at('"input_path"'),
                "JSON pointer \"payload/message\" must be empty or start with '/'",
                "/0/expectations/2/expected/input_path",
            )
        ],
        id="source-span-input-path-bad-pointer",
    ),
    pytest.param(
        put(span, required=[3, 3]),
        [
            Want(
                C,
                at('"required"'),
                "'required' must be a nonempty range",
                "/0/expectations/2/expected/required",
            )
        ],
        id="source-span-empty-required",
    ),
    pytest.param(
        put(span, required=[1, 5]),
        [
            Want(
                C,
                at('"required"'),
                "'required' must lie inside 'allowed'",
                "/0/expectations/2/expected/required",
            )
        ],
        id="source-span-required-outside-allowed",
    ),
    pytest.param(
        # "😀😀 ok" is 5 code points (7 UTF-16 units): 6 is past the end.
        put(span, allowed=[2, 6]),
        [
            Want(
                C,
                at('"allowed"'),
                "'allowed' ends at 6, past the source's 5 code points",
                "/0/expectations/2/expected/allowed",
            )
        ],
        id="source-span-allowed-past-the-end-astral",
    ),
    pytest.param(
        drop(expectation(3), "scorer"),
        [
            Want(
                C,
                at('"comparison": "custom"'),
                "a custom comparison names its registered 'scorer'",
                "/0/expectations/3/comparison",
            )
        ],
        id="custom-without-scorer",
    ),
    pytest.param(
        put(expectation(3), scorer="nope"),
        [
            Want(
                C,
                at('"scorer": "nope"'),
                'scorer "nope" is not registered in the settings',
                "/0/expectations/3/scorer",
            )
        ],
        id="custom-unregistered-scorer",
    ),
    pytest.param(
        put(expectation(0), scorer="casefold"),
        [
            Want(
                C,
                at('"scorer"'),
                "'scorer' is only used by the custom comparison, not exact",
                "/0/expectations/0/scorer",
            )
        ],
        id="scorer-on-exact",
    ),
    pytest.param(
        put(text_assertions, colour=1),
        [
            Want(
                C,
                at('"colour"'),
                'unknown text assertion "colour"',
                "/0/expectations/4/expected/colour",
            )
        ],
        id="text-unknown-assertion",
    ),
    pytest.param(
        put(text_assertions, matches=["ok", "(unclosed"]),
        [
            Want(
                C,
                at('"matches"'),
                "pattern 2 is not a valid regular expression: missing ), unterminated "
                "subpattern at position 0",
                "/0/expectations/4/expected/matches",
            )
        ],
        id="text-bad-regex",
    ),
    pytest.param(
        put(text_assertions, maxChars=-1),
        [
            Want(
                C,
                at('"maxChars"'),
                "'maxChars' is a nonnegative integer",
                "/0/expectations/4/expected/maxChars",
            )
        ],
        id="text-negative-maxChars",
    ),
    pytest.param(
        put(text_assertions, contains=[1]),
        [
            Want(
                C,
                at('"contains"'),
                "'contains' is a string or an array of strings",
                "/0/expectations/4/expected/contains",
            )
        ],
        id="text-contains-a-number",
    ),
    pytest.param(
        put(expectation(4), expected=5),
        [
            Want(
                C,
                at('"expected": 5'),
                "a text comparison expects assertions or prose, found number",
                "/0/expectations/4/expected",
            )
        ],
        id="text-expected-a-number",
    ),
    # --- metrics --------------------------------------------------------------------------------
    pytest.param(
        put(metric, kind="regression"),
        [
            Want(
                D,
                at('"kind"'),
                'must be one of "classification" or "multilabel", found "regression"',
                "/suites/0/metrics/0/kind",
            )
        ],
        id="metric-unknown-kind",
    ),
    pytest.param(
        lambda p: suite0(p)["metrics"].append(dict(metric(p))),
        [
            Want(
                D,
                at('"name": "queue_quality"'),
                'duplicate metric name "queue_quality"',
                "/suites/0/metrics/0/name",
            ),
            Want(
                D,
                at('"name": "queue_quality"', 1),
                'duplicate metric name "queue_quality"',
                "/suites/0/metrics/1/name",
            ),
        ],
        id="metric-duplicate-name",
    ),
    pytest.param(
        put(metric, labels=["billing", "other", "billing"]),
        [
            Want(
                D,
                at('"billing"', 2),
                'duplicate label "billing" in the catalog',
                "/suites/0/metrics/0/labels/2",
            )
        ],
        id="metric-duplicate-label",
    ),
    pytest.param(
        put(
            suite1,
            metrics=[
                {
                    "name": "t",
                    "path": "/payload/tags",
                    "kind": "multilabel",
                    "labels": ["a", "b", "c", None],
                }
            ],
        ),
        [
            Want(
                D,
                at("null"),
                "a multilabel catalog holds strings only",
                "/suites/1/metrics/0/labels/3",
            )
        ],
        id="metric-multilabel-null",
    ),
    pytest.param(
        put(metric, cases=["a", "zz"]),
        [Want(D, at('"zz"'), 'case "zz" is not in this suite', "/suites/0/metrics/0/cases/1")],
        id="metric-unknown-case",
    ),
    pytest.param(
        lambda p: inline_case(1)(p)["expectations"].pop(0) and None,
        [
            Want(
                D,
                at('"expectations"', 1),
                f'metric "queue_quality" needs exactly one expectation at "{LABEL}", found none',
                "/suites/0/cases/1/expectations",
            )
        ],
        id="metric-case-without-expectation",
    ),
    pytest.param(
        lambda p: inline_case(1)(p)["expectations"].append(
            {"name": "again", "path": LABEL, "expected": "other"}
        ),
        [
            Want(
                D,
                at('"expectations"', 1),
                f'metric "queue_quality" needs exactly one expectation at "{LABEL}", found 2',
                "/suites/0/cases/1/expectations",
            )
        ],
        id="metric-case-with-two-expectations",
    ),
    pytest.param(
        lambda p: inline_case(1)(p)["expectations"][0].update(expected="nope"),
        [
            Want(
                D,
                at('"expected": "nope"'),
                'the gold label is not in the catalog of metric "queue_quality"',
                "/suites/0/cases/1/expectations/0/expected",
            )
        ],
        id="metric-gold-outside-catalog",
    ),
    pytest.param(
        both(
            put(
                suite1,
                metrics=[
                    {
                        "name": "t",
                        "path": "/payload/tags",
                        "kind": "multilabel",
                        "labels": ["a", "b", "c"],
                    }
                ],
            ),
            lambda p: p.cases[1]["expectations"][0].update(expected=["c", "zzz"]),
        ),
        [
            Want(
                C,
                last_before('"expected"', '"zzz"'),
                '1 gold label(s) not in the catalog of metric "t"',
                "/1/expectations/0/expected",
            )
        ],
        id="metric-multilabel-gold-outside-catalog",
    ),
    # --- thresholds -----------------------------------------------------------------------------
    pytest.param(
        thresholds(speed=0.5),
        [
            Want(
                D,
                at('"speed"'),
                'unknown threshold "speed"; this suite can gate on pass_rate, '
                "queue_quality.accuracy, queue_quality.coverage, queue_quality.micro_precision, "
                "queue_quality.micro_recall, queue_quality.micro_f1, "
                "queue_quality.macro_precision, queue_quality.macro_recall, "
                "queue_quality.macro_f1, cost.total (a maximum), cost.per_attempt (a maximum), "
                "latency.p50_ms (a maximum), latency.p95_ms (a maximum)",
                "/suites/0/thresholds/speed",
            )
        ],
        id="threshold-unknown-key",
    ),
    pytest.param(
        thresholds(pass_rate=1.5),
        [
            Want(
                D,
                at('"pass_rate"'),
                "must be at most 1.0, found 1.5",
                "/suites/0/thresholds/pass_rate",
            )
        ],
        id="threshold-above-one",
    ),
    pytest.param(
        thresholds(pass_rate=-0.1),
        [
            Want(
                D,
                at('"pass_rate"'),
                "must be at least 0.0, found -0.1",
                "/suites/0/thresholds/pass_rate",
            )
        ],
        id="threshold-below-zero",
    ),
    pytest.param(
        thresholds(**{"text.chars": 0.5}),
        [
            Want(
                D,
                at('"text.chars"'),
                '"text.chars" is a counter: reported, never thresholded',
                "/suites/0/thresholds/text.chars",
            )
        ],
        id="threshold-on-a-counter",
    ),
    pytest.param(
        thresholds(**{"json.parse": 0.5}),
        [
            Want(
                D,
                at('"json.parse"'),
                "'json.parse' needs the suite's text.json: true",
                "/suites/0/thresholds/json.parse",
            )
        ],
        id="threshold-json-parse-without-text-json",
    ),
    pytest.param(
        thresholds(**{"queue_quality.exact_set_accuracy": 0.5}),
        [
            Want(
                D,
                at('"queue_quality.exact_set_accuracy"'),
                "exact_set_accuracy is a multilabel figure",
                "/suites/0/thresholds/queue_quality.exact_set_accuracy",
            )
        ],
        id="threshold-multilabel-figure-on-classification",
    ),
    # --- case file references -------------------------------------------------------------------
    pytest.param(
        put(suite1, cases="/etc/cases.json"),
        [
            Want(
                D,
                at('"cases": "/etc'),
                "a case file reference must be relative to the manifest",
                "/suites/1/cases",
            )
        ],
        id="case-file-absolute",
    ),
    pytest.param(
        put(suite1, cases="C:\\gold\\cases.json"),
        [
            Want(
                D,
                at('"cases": "C:'),
                "a case file reference must be relative to the manifest",
                "/suites/1/cases",
            )
        ],
        id="case-file-absolute-windows",
    ),
    pytest.param(
        put(suite1, cases="cases/nope.json"),
        [
            Want(
                D,
                at('"cases": "cases/nope.json"'),
                "evaluation/cases/nope.json: file not found",
                "/suites/1/cases",
            )
        ],
        id="case-file-missing",
    ),
    pytest.param(
        put(suite1, cases="cases"),
        [
            Want(
                D,
                at('"cases": "cases"'),
                "evaluation/cases: is a folder, not a JSON file",
                "/suites/1/cases",
            )
        ],
        id="case-file-is-a-folder",
    ),
    pytest.param(
        put(suite1, cases="cases/\u0000.json"),
        [
            Want(
                D,
                at('"cases": "cases/\\u0000.json"'),
                "a case file reference must not contain control characters",
                "/suites/1/cases",
            )
        ],
        id="case-file-name-with-a-nul-byte",
    ),
    pytest.param(
        lambda p: p.cases.append("more.json"),
        [
            Want(
                C,
                at('"more.json"'),
                "a case file holds cases only; file references are one level deep",
                "/2",
            )
        ],
        id="case-file-nested-reference",
    ),
    pytest.param(
        put(suite0, cases=[]),
        [Want(D, at('"cases": []'), "must not be empty", "/suites/0/cases")],
        id="inline-cases-empty",
    ),
    # --- settings (the check reads them first) --------------------------------------------------
    pytest.param(
        settings("revision: r1", "revision: [r1"),
        [Want(S, (4, 11), "expected ',' or ']', but got ':'")],
        id="settings-yaml-syntax",
    ),
    pytest.param(
        settings("    revision: r1\n", "    revision: r1\n    revision: r2\n"),
        [Want(S, at("revision: r2"), 'duplicate key "revision"')],
        id="settings-yaml-duplicate-key",
    ),
    pytest.param(
        settings("\nscorers:", "\ncolour: 1\nscorers:"),
        [Want(S, at("colour"), UNKNOWN, "/colour")],
        id="settings-unknown-key",
    ),
    pytest.param(
        settings("    revision: r1\n", "    revision: r1\n    colour: 1\n"),
        [Want(S, at("colour"), UNKNOWN, "/workflows/triage/colour")],
        id="settings-unknown-key-in-workflow",
    ),
    pytest.param(
        settings("      python: app.main:handle\n", "      max_result_bytes: 10\n"),
        [
            Want(
                S,
                at("target"),
                "a target needs exactly one of 'python', 'command', 'http' or 'model'",
                "/workflows/triage/target",
            )
        ],
        id="settings-target-with-no-kind",
    ),
    pytest.param(
        settings(
            "      python: app.main:handle\n", "      python: app.main:handle\n      command: [a]\n"
        ),
        [
            Want(
                S,
                at("target"),
                "a target needs exactly one of 'python', 'command', 'http' or 'model', found "
                "python and command",
                "/workflows/triage/target",
            )
        ],
        id="settings-target-with-two-kinds",
    ),
    pytest.param(
        settings("app.main:handle", "app/main.py"),
        [
            Want(
                S,
                at("python"),
                "\"app/main.py\" is not an import path of the form 'package.module:attribute'",
                "/workflows/triage/target/python",
            )
        ],
        id="settings-bad-import-path",
    ),
    pytest.param(
        settings("import: app.scorers:casefold", "import: casefold"),
        [
            Want(
                S,
                at("import"),
                "\"casefold\" is not an import path of the form 'package.module:attribute'",
                "/scorers/casefold/import",
            )
        ],
        id="settings-bad-scorer-import-path",
    ),
    pytest.param(
        settings(
            "    revision: r1\n", "    revision: r1\n    live: true\n    credentials: [API-KEY]\n"
        ),
        [
            Want(
                S,
                at("credentials"),
                '"API-KEY" is not an environment variable name',
                "/workflows/triage/credentials",
            )
        ],
        id="settings-bad-credential-name",
    ),
    pytest.param(
        settings("    revision: r1\n", "    revision: r1\n    credentials: [API_KEY]\n"),
        [
            Want(
                S,
                at("credentials"),
                "credentials are only resolved for live workflows; add 'live: true'",
                "/workflows/triage/credentials",
            )
        ],
        id="settings-credentials-without-live",
    ),
    pytest.param(
        settings("    revision: r1\n", "    revision: r1\n    live: 'yes'\n"),
        [
            Want(
                S,
                at("live"),
                "expected true or false, found string",
                "/workflows/triage/live",
            )
        ],
        id="settings-string-for-bool",
    ),
    pytest.param(
        settings("workflows:\n", "workflows:\n  other: 3\n"),
        [
            Want(
                S,
                at("other: "),
                "expected an object or a string, found number",
                "/workflows/other",
            )
        ],
        id="settings-workflow-a-number",
    ),
    pytest.param(
        settings("      python: app.main:handle\n", "      http: {url: 'ftp://x'}\n"),
        [
            Want(
                S,
                at("url"),
                '"ftp://x" is not an http:// or https:// URL',
                "/workflows/triage/target/http/url",
            )
        ],
        id="settings-http-not-http",
    ),
    pytest.param(
        settings(
            "      python: app.main:handle\n",
            "      http:\n        url: https://x\n        headers:\n          Auth: {env: 1BAD}\n",
        ),
        [
            Want(
                S,
                at("env"),
                '"1BAD" is not an environment variable name',
                "/workflows/triage/target/http/headers/Auth/env",
            )
        ],
        id="settings-bad-header-env-name",
    ),
    pytest.param(
        with_workflow_file(None),
        [
            Want(
                S,
                at("ext:"),
                "config/flows/ext.yaml: file not found",
                "/workflows/ext",
            )
        ],
        id="settings-workflow-file-missing",
    ),
    pytest.param(
        with_workflow_file(None, "/etc/ext.yaml"),
        [Want(S, at("ext:"), "a workflow file must be relative", "/workflows/ext")],
        id="settings-workflow-file-absolute",
    ),
    pytest.param(
        with_workflow_file("revision: [r1\n"),
        [Want(W, (2, 1), "expected ',' or ']', but got '<stream end>'")],
        id="settings-workflow-file-bad-yaml",
    ),
    pytest.param(
        with_workflow_file("revision: r1\ntarget: {python: 'a:b'}\ncolour: 1\n"),
        [Want(W, (3, 1), UNKNOWN, "/colour")],
        id="settings-workflow-file-unknown-key",
    ),
    pytest.param(
        with_workflow_file("- a\n"),
        [Want(W, (1, 1), "expected an object, found array")],
        id="settings-workflow-file-not-a-mapping",
    ),
    pytest.param(
        settings("revision: r1", "revision: !!python/object/apply:os.getcwd []"),
        [
            Want(
                S,
                at("!!python"),
                "could not determine a constructor for the tag "
                "'tag:yaml.org,2002:python/object/apply:os.getcwd'",
            )
        ],
        id="settings-unsafe-yaml-apply",
    ),
    pytest.param(
        settings("revision: r1", "revision: !!python/object:goldgate.Settings {colour: 1}"),
        [
            Want(
                S,
                at("!!python"),
                "could not determine a constructor for the tag "
                "'tag:yaml.org,2002:python/object:goldgate.Settings'",
            )
        ],
        id="settings-unsafe-yaml-object-with-unknown-key",
    ),
    pytest.param(
        settings("revision: r1", 'revision: "\\udc00"'),
        [
            Want(
                S,
                after("revision: "),
                "string holds a lone UTF-16 surrogate, which is not a character",
            )
        ],
        id="settings-lone-surrogate",
    ),
    pytest.param(
        settings("revision: r1", "revision: 2026-13-01"),
        [Want(S, after("revision: "), "cannot load this value (month must be in 1..12)")],
        id="settings-yaml-impossible-date",
    ),
    pytest.param(
        # Twice the depth at which PyYAML's composer meets Python's recursion limit (~500
        # levels; deeper costs seconds of unwinding and proves nothing more).
        settings("\nscorers:", "\ndeep: " + "[" * 1000 + "]" * 1000 + "\nscorers:"),
        [Want(S, (1, 1), "nested too deeply to load")],
        id="settings-yaml-nested-too-deep",
    ),
    pytest.param(
        lambda p: setattr(p, "settings", "- triage\n"),
        [Want(S, (1, 1), "settings must be a YAML mapping")],
        id="settings-not-a-mapping",
    ),
]


def _count_line(wants: list[Want]) -> str:
    count = len(wants)
    noun = f"{count} problem{'s' * (count != 1)}"
    files = {want.file for want in wants}
    return f"{noun} in {len(files)} file{'s' * (len(files) != 1)}."


@pytest.mark.parametrize(("mutate", "wants"), MALFORMED)
def test_malformed_input_is_reported_exactly(
    gold_project: Any, run_cli: Any, mutate: Mutation, wants: list[Want]
) -> None:
    mutate(gold_project)
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line.removeprefix("goldgate: ") for line in result.output.splitlines()]
    expected = [want.render(gold_project.text) for want in wants]
    assert sorted(expected) == sorted(lines[: len(expected)]), result.output
    assert lines[len(expected)] == _count_line(wants), result.output
    assert len(lines) == len(expected) + 1, result.output


def test_the_table_holds_at_least_forty_distinct_malformed_inputs() -> None:
    ids = [param.id for param in MALFORMED]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 40
