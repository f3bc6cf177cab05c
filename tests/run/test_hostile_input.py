"""Hostile gold and input through the real CLI: every refusal is exit 2, one sentence naming
the file and the place, never a traceback, and quick."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from .support import run_cli as run_subprocess

D = "evaluation/dataset.json"
C = "evaluation/cases/filed.json"
S = "config/settings.yaml"


def assert_refused(result: Any, *fragments: str) -> None:
    """Exit 2, every fragment in the output, no traceback."""
    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output, result.output


# --- 6. only regular files are read ---------------------------------------------------------


def test_a_fifo_as_settings_is_refused_without_blocking(gold_project: Any) -> None:
    gold_project.write()
    fifo = gold_project.root / "config" / "pipe.yaml"
    os.mkfifo(fifo)
    started = time.monotonic()

    # A real process: a blocking open would hang it, and the subprocess timeout would tell.
    result = run_subprocess("evaluate", "--check", "--config", str(fifo), cwd=gold_project.root)

    assert time.monotonic() - started < 20
    assert_refused(result, "config/pipe.yaml: is a named pipe (FIFO); only regular files are read.")


def test_a_fifo_as_the_manifest_is_refused(gold_project: Any, run_cli: Any) -> None:
    gold_project.write()
    (gold_project.root / D).unlink()
    os.mkfifo(gold_project.root / D)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(result, f"{D}: is a named pipe (FIFO); only regular files are read.")


def test_a_device_as_the_manifest_is_refused(gold_project: Any, run_cli: Any) -> None:
    gold_project.write()

    result = run_cli("evaluate", "--check", "--dataset", "/dev/zero", cwd=gold_project.root)

    assert_refused(result, "/dev/zero: is a device; only regular files are read.")


def test_a_fifo_as_a_case_file_is_a_violation_at_its_reference(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.write()
    (gold_project.root / C).unlink()
    os.mkfifo(gold_project.root / C)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f"{D}:",
        f"{C}: is a named pipe (FIFO); only regular files are read (at /suites/1/cases)",
    )


def test_a_device_as_a_workflow_file_is_a_violation_at_its_reference(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.settings = gold_project.settings.replace(
        "workflows:\n", "workflows:\n  other: /dev/null\n  linked: flows/null.yaml\n"
    )
    gold_project.write()
    (gold_project.root / "config" / "flows").mkdir()
    (gold_project.root / "config" / "flows" / "null.yaml").symlink_to("/dev/null")

    result = run_cli("validate", cwd=gold_project.root)

    assert_refused(
        result,
        f"{S}:2:3: a workflow file must be relative (at /workflows/other)",
        f"{S}:3:3: config/flows/null.yaml: is a device; only regular files are read "
        "(at /workflows/linked)",
    )


def test_a_folder_as_settings_is_refused(gold_project: Any, run_cli: Any) -> None:
    gold_project.write()
    (gold_project.root / "config" / "folder.yaml").mkdir()

    result = run_cli("validate", "--config", "config/folder.yaml", cwd=gold_project.root)

    assert_refused(result)
    assert "folder.yaml" in result.stderr


def test_a_file_over_the_size_cap_is_refused_unread(
    gold_project: Any, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_project.write()
    size = (gold_project.root / D).stat().st_size
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", str(size - 1))

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f"{D}: is {size:,} bytes, over the limit of {size - 1:,} bytes "
        "(set GOLDGATE_MAX_FILE_BYTES to change it).",
    )


def test_the_size_cap_applies_to_settings_and_case_files(
    gold_project: Any, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_project.cases = gold_project.cases * 40  # the only file over the cap below
    gold_project.write()
    cap = (gold_project.root / C).stat().st_size - 1
    assert (gold_project.root / D).stat().st_size <= cap
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", str(cap))

    checked = run_cli("evaluate", "--check", cwd=gold_project.root)
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", "10")
    validated = run_cli("validate", cwd=gold_project.root)

    assert_refused(
        checked,
        f"{C}: is {cap + 1:,} bytes, over the limit of {cap:,} bytes "
        "(set GOLDGATE_MAX_FILE_BYTES to change it) (at /suites/1/cases)",
    )
    assert_refused(validated, f"{S}: is ", "over the limit of 10 bytes")


@pytest.mark.parametrize("value", ["0", "-5", "lots", "1e9"])
def test_an_invalid_size_cap_is_refused(
    gold_project: Any, run_cli: Any, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    gold_project.write()
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", value)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f'GOLDGATE_MAX_FILE_BYTES must be a positive whole number of bytes, found "{value}".',
    )


def test_a_raised_size_cap_lets_a_large_file_through(
    gold_project: Any, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_project.write()
    largest = max(path.stat().st_size for path in gold_project.root.rglob("*") if path.is_file())
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", str(largest))

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 0, result.output


def test_the_size_cap_is_one_place_for_every_reader(tmp_path: Path) -> None:
    from goldgate.base.errors import InvalidInputError
    from goldgate.base.strictjson import load_json_file
    from goldgate.gold.settings.yamlfile import load_yaml_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for load in (load_json_file, load_yaml_file):
        with pytest.raises(InvalidInputError, match="named pipe"):
            load(fifo)


# --- 8. data from gold cannot forge output lines ----------------------------------------------

FORGED = "x\n::error::forged\nverdict: passed"
"""A case id that, printed raw, would be a workflow command and a fake verdict line."""


def _no_forged_lines(result: Any) -> None:
    lines = result.output.splitlines()
    assert not any(line.startswith(("::error::", "verdict:")) for line in lines), result.output
    assert "\x1b" not in result.output
    assert "\x85" not in result.output


def test_a_case_id_with_newlines_is_refused_at_its_place(gold_project: Any, run_cli: Any) -> None:
    gold_project.cases[1]["id"] = FORGED
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f"{C}:",
        "names, ids and revisions must not hold control characters, found "
        '"x\\n::error::forged\\nverdict: passed" (at /1/id)',
    )
    _no_forged_lines(result)


@pytest.mark.parametrize(
    ("place", "pointer"),
    [
        pytest.param(("name",), "/name", id="dataset-name"),
        pytest.param(("revision",), "/revision", id="revision"),
        pytest.param(("suites", 0, "name"), "/suites/0/name", id="suite-name"),
        pytest.param(("suites", 0, "cases", 0, "id"), "/suites/0/cases/0/id", id="case-id"),
        pytest.param(
            ("suites", 0, "cases", 0, "expectations", 1, "name"),
            "/suites/0/cases/0/expectations/1/name",
            id="expectation-name",
        ),
        pytest.param(("suites", 0, "metrics", 0, "name"), "/suites/0/metrics/0/name", id="metric"),
        pytest.param(("suites", 0, "cases", 1, "family"), "/suites/0/cases/1/family", id="family"),
        pytest.param(("suites", 0, "cases", 1, "split"), "/suites/0/cases/1/split", id="split"),
        pytest.param(("suites", 0, "cases", 1, "source"), "/suites/0/cases/1/source", id="source"),
    ],
)
@pytest.mark.parametrize(
    ("control", "shown"),
    [("\x1b[31m", "\\u001b[31m"), ("\r", "\\r"), ("\x85", "\\u0085"), ("\x00", "\\u0000")],
    ids=["esc", "cr", "nel", "nul"],
)
def test_every_name_id_and_revision_refuses_control_characters(
    gold_project: Any,
    run_cli: Any,
    place: tuple[Any, ...],
    pointer: str,
    control: str,
    shown: str,
) -> None:
    *parents, last = place
    holder = gold_project.manifest
    for key in parents:
        holder = holder[key]
    holder[last] = f"a{control}b"
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f'must not hold control characters, found "a{shown}b" (at {pointer})',
        "1 problem in 1 file.",
    )
    _no_forged_lines(result)


@pytest.mark.slow
def test_a_run_refuses_the_same_gold_before_anything_runs(project: Any) -> None:
    from .support import case

    project.suite("main", "py", [case(FORGED)]).write()

    result = project.run()

    assert_refused(result, '"x\\n::error::forged\\nverdict: passed" (at /suites/0/cases/0/id)')
    _no_forged_lines(result)
    assert not (project.root / "calls.log").exists()


def test_settings_revisions_and_flow_names_refuse_control_characters(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.settings = gold_project.settings.replace(
        "revision: r1", 'revision: "r1\\e[2K"'
    ).replace("      main:", '      "ma\\nin":')
    gold_project.write()

    result = run_cli("validate", cwd=gold_project.root)

    assert_refused(
        result,
        f"{S}:3:5: names, ids and revisions must not hold control characters, found "
        '"r1\\u001b[2K" (at /workflows/triage/revision)',
        'found "ma\\nin" (at /workflows/triage/flows/ma\\nin)',
    )
    _no_forged_lines(result)


def test_settings_errors_quote_data_escaped(gold_project: Any, run_cli: Any) -> None:
    gold_project.settings += '"col\\eour\\nverdict: passed": 1\n'
    gold_project.write()

    text = run_cli("validate", cwd=gold_project.root)
    as_json = run_cli("validate", "--format", "json", cwd=gold_project.root)

    message = 'unknown key "col\\u001bour\\nverdict: passed"; check its spelling against the schema'
    assert_refused(text, f"{S}:16:1: {message} (at /col\\x1bour\\nverdict: passed)")
    _no_forged_lines(text)
    assert_refused(as_json)
    assert json.loads(as_json.stdout)["violations"][0]["message"] == message


def test_a_file_name_with_a_newline_is_shown_escaped(gold_project: Any, run_cli: Any) -> None:
    gold_project.manifest["suites"][1]["cases"] = "cases/a\nverdict: passed.json"
    gold_project.write()

    reference = run_cli("evaluate", "--check", cwd=gold_project.root)
    missing = run_cli(
        "evaluate", "--check", "--dataset", "gold\nverdict: passed.json", cwd=gold_project.root
    )

    assert_refused(reference, "a case file reference must not contain control characters")
    _no_forged_lines(reference)
    assert_refused(missing, "gold\\nverdict: passed.json: gold manifest not found;")
    _no_forged_lines(missing)


# --- 9. limits, regular expressions, JSON values and URLs in messages ------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        pytest.param(
            ("--repeat", "10001"),
            "Invalid value for '--repeat': 10001 is not in the range 1<=x<=10000.",
            id="repeat",
        ),
        pytest.param(
            ("--timeout", "86401"),
            "Invalid value for --timeout: must be a positive number of seconds, at most 86400 "
            "(one day)",
            id="timeout",
        ),
        pytest.param(("--timeout", "inf"), "at most 86400 (one day)", id="timeout-infinite"),
        pytest.param(("--timeout", "nan"), "at most 86400 (one day)", id="timeout-nan"),
        pytest.param(("--timeout", "0"), "must be a positive number of seconds", id="timeout-0"),
    ],
)
def test_run_limits_are_refused_before_anything_runs(
    project: Any, args: tuple[str, ...], complaint: str
) -> None:
    from .support import case

    project.suite("main", "py", [case("a")]).write()

    result = project.run(*args)

    assert_refused(result, complaint)
    assert not (project.root / "calls.log").exists()
    assert not (project.root / ".goldgate").exists()


@pytest.mark.slow
def test_the_largest_allowed_limits_are_accepted(project: Any) -> None:
    from .support import case

    project.suite("main", "py", [case("a")]).write()

    result, report = project.evaluate("--timeout", "86400", "--repeat", "3")

    assert result.code == 0, result.output
    assert report is not None
    assert report["options"]["timeout"] == 86400


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        pytest.param(
            "a{99999999999}", "it is too large or nested too deeply (OverflowError)", id="repeat"
        ),
        pytest.param(
            "(" * 10_000 + "a" + ")" * 10_000,
            "it is too large or nested too deeply (RecursionError)",
            id="nested-10000",
        ),
        pytest.param("\\q", "bad escape at position 0", id="bad-escape"),
        pytest.param("a{5,2}", "min repeat greater than max repeat at position 2", id="min-max"),
        pytest.param("(?P<n>a)(?P<n>b)", "redefinition of group name at position 12", id="group"),
    ],
)
@pytest.mark.parametrize("key", ["matches", "notMatches"])
def test_every_regex_compile_failure_is_a_violation_at_its_place(
    gold_project: Any, run_cli: Any, pattern: str, problem: str, key: str
) -> None:
    gold_project.cases[0]["expectations"][4]["expected"] = {key: ["ok", pattern]}
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f"{C}:",
        f"pattern 2 is not a valid regular expression: {problem} "
        f"(at /0/expectations/4/expected/{key})",
        "1 problem in 1 file.",
    )


@pytest.mark.parametrize(
    ("change", "message", "pointer"),
    [
        pytest.param(
            {"comparison": True},
            'must be one of "exact", "set", "source_span", "custom", "text" or '
            '"maximum", found true',
            "/0/expectations/1/comparison",
            id="literal-true",
        ),
        pytest.param(
            {"comparison": None},
            'must be one of "exact", "set", "source_span", "custom", "text" or '
            '"maximum", found null',
            "/0/expectations/1/comparison",
            id="literal-null",
        ),
    ],
)
def test_messages_write_json_values_as_json(
    gold_project: Any, run_cli: Any, change: dict[str, Any], message: str, pointer: str
) -> None:
    gold_project.cases[0]["expectations"][1].update(change)
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(result, f"{message} (at {pointer})")
    assert "None" not in result.output
    assert "True" not in result.output


def test_a_null_label_is_written_as_json(gold_project: Any, run_cli: Any) -> None:
    gold_project.manifest["suites"][0]["metrics"][0]["labels"] = ["billing", None, "other", None]
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(result, "duplicate label null in the catalog (at /suites/0/metrics/0/labels/3)")
    assert "None" not in result.output


def test_url_secrets_never_appear_in_settings_errors(gold_project: Any, run_cli: Any) -> None:
    gold_project.settings = gold_project.settings.replace(
        "      python: app.main:handle\n",
        "      http: {url: 'ftp://alice:pw-SECRET@files.example/p?key=KEY-SECRET&v=2#t-SECRET'}\n",
    )
    gold_project.write()

    result = run_cli("validate", cwd=gold_project.root)

    assert_refused(
        result,
        '"ftp://files.example/p?key=…&v=…#…" is not an http:// or https:// URL '
        "(at /workflows/triage/target/http/url)",
    )
    assert "SECRET" not in result.output
    assert "alice" not in result.output


def test_url_secrets_never_reach_the_report_identity(project: Any, http_app: Any) -> None:
    from .support import case

    url = http_app.url.replace("http://", "http://alice:pw-SECRET@") + "?key=KEY-SECRET&flag"
    project.workflows["web"] = {"revision": "web-1", "target": {"http": {"url": url}}}
    project.suite("main", "web", [case("a")]).write()

    result, report = project.evaluate()

    assert result.code == 0, result.output
    assert report is not None
    assert report["suites"][0]["target"]["identity"]["url"] == (http_app.url + "?key=…&flag")
    assert "SECRET" not in json.dumps(report)
    assert "alice" not in json.dumps(report)
    assert "SECRET" not in result.output


# --- 11. gold that can never mean anything is refused offline --------------------------------

REPLY = "/0/expectations/4/expected"


@pytest.mark.parametrize(
    ("expected", "message", "pointer"),
    [
        pytest.param(
            {"minChars": 10, "maxChars": 3},
            "'minChars' 10 is above 'maxChars' 3: no answer can hold both",
            f"{REPLY}/minChars",
            id="min-above-max",
        ),
        pytest.param(
            {},
            "an empty assertion object declares nothing; write at least one assertion, "
            "or prose for a person to judge",
            REPLY,
            id="empty-object",
        ),
        *(
            pytest.param(
                {key: []},
                f"an empty '{key}' array declares nothing; remove it or add an entry",
                f"{REPLY}/{key}",
                id=f"empty-{key}",
            )
            for key in ("contains", "notContains", "matches", "notMatches", "requiredKeys")
        ),
        *(
            pytest.param(
                {"requiredKeys": ["ok", path]},
                f'path 2 "{path}" has an empty segment; write dot paths such as "answer.items.0"',
                f"{REPLY}/requiredKeys",
                id=f"dot-path-{path or 'empty'}",
            )
            for path in ("a..b", ".a", "a.", "")
        ),
        pytest.param(
            {"notContains": ""},
            "string 1 is empty, so it never holds",
            f"{REPLY}/notContains",
            id="empty-not-contains",
        ),
    ],
)
def test_text_assertions_that_mean_nothing_are_refused(
    gold_project: Any, run_cli: Any, expected: dict[str, Any], message: str, pointer: str
) -> None:
    gold_project.cases[0]["expectations"][4]["expected"] = expected
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(result, f"{C}:", f"{message} (at {pointer})", "1 problem in 1 file.")


def test_prose_and_a_note_alone_still_go_to_a_person(gold_project: Any, run_cli: Any) -> None:
    gold_project.cases[0]["expectations"][4]["expected"] = {"note": "judge the tone"}
    gold_project.cases[0]["expectations"].append(
        {
            "name": "prose",
            "path": "/payload/reply",
            "expected": "A polite refusal.",
            "comparison": "text",
        }
    )
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 0, result.output


def test_suite_text_options_refuse_malformed_dot_paths(gold_project: Any, run_cli: Any) -> None:
    gold_project.manifest["suites"][1]["text"] = {"requiredKeys": ["verdict", "evidence..0"]}
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        'path "evidence..0" has an empty segment; write dot paths such as "answer.items.0" '
        "(at /suites/1/text/requiredKeys/1)",
    )


# --- 11. --check refuses the options of a run ------------------------------------------------


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--repeat", "3"), "--repeat only applies"),
        (("--suite", "inline"), "--suite only applies"),
        (("--output", "out.json"), "--output only applies"),
        (("--live",), "--live only applies"),
        (("--max-concurrency", "4"), "--max-concurrency only applies"),
        (("--timeout", "5"), "--timeout only applies"),
        (("--timeout", "5", "--live"), "--live, --timeout only apply to a run"),
    ],
)
def test_check_refuses_run_only_options(
    gold_project: Any, run_cli: Any, args: tuple[str, ...], named: str
) -> None:
    gold_project.write()

    result = run_cli("evaluate", "--check", *args, cwd=gold_project.root)

    assert_refused(result, named, "--check runs nothing")
    assert result.stdout == ""
    assert not (gold_project.root / "out.json").exists()


# --- 13. errors point at the fix; a refused run leaves nothing behind -------------------------


def test_a_missing_settings_file_mentions_config(tmp_path: Path, run_cli: Any) -> None:
    for command in (("validate",), ("evaluate", "--check"), ("evaluate",)):
        result = run_cli(*command, cwd=tmp_path)

        assert_refused(
            result,
            "config/settings.yaml: settings file not found; goldgate reads config/settings.yaml "
            "from the working folder unless --config names another.",
        )


def test_a_missing_dataset_mentions_evaluation_dataset_and_the_option(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.settings += "evaluation:\n  dataset: ../gold/main.json\n"
    gold_project.write()

    for command in (("evaluate", "--check"), ("evaluate",)):
        result = run_cli(*command, cwd=gold_project.root)

        assert_refused(
            result,
            "gold/main.json: gold manifest not found; set evaluation.dataset in the settings or "
            "pass --dataset (the default is evaluation/dataset.json beside config/).",
        )
    assert not list(gold_project.root.rglob(".goldgate"))


MAXIMA = (
    "cost.total (a maximum), cost.per_attempt (a maximum), latency.p50_ms (a maximum), "
    "latency.p95_ms (a maximum)"
)


@pytest.mark.parametrize(
    ("metric_kind", "text", "valid"),
    [
        pytest.param(
            "classification",
            False,
            "pass_rate, q.accuracy, q.coverage, q.micro_precision, q.micro_recall, q.micro_f1, "
            "q.macro_precision, q.macro_recall, q.macro_f1",
            id="classification",
        ),
        pytest.param(
            "multilabel",
            True,
            "pass_rate, expect.satisfied, json.parse, q.coverage, q.micro_precision, "
            "q.micro_recall, q.micro_f1, q.macro_precision, q.macro_recall, q.macro_f1, "
            "q.exact_set_accuracy",
            id="multilabel-with-text",
        ),
    ],
)
def test_an_unknown_threshold_lists_what_this_suite_can_gate_on(
    gold_project: Any, run_cli: Any, metric_kind: str, text: bool, valid: str
) -> None:
    suite = gold_project.manifest["suites"][1]  # the case file: one text comparison
    if not text:
        for item in gold_project.cases:
            item["expectations"] = [e for e in item["expectations"] if e["name"] != "reply"]
    else:
        suite["text"] = {"json": True}
    suite["metrics"] = [
        {"name": "q", "path": "/payload/tags", "kind": metric_kind, "labels": ["a", "b", "c"]}
    ]
    if metric_kind == "classification":
        suite["metrics"][0]["path"] = "/execution/status"
        suite["metrics"][0]["labels"] = [None, "done"]
        gold_project.cases[1]["expectations"].append(
            {"name": "status", "path": "/execution/status", "expected": "done"}
        )
    else:
        gold_project.cases[1]["expectations"][0]["path"] = "/payload/tags"
    suite["thresholds"] = {"q.acuracy": 0.9}
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert_refused(
        result,
        f'unknown threshold "q.acuracy"; this suite can gate on {valid}, {MAXIMA} '
        "(at /suites/1/thresholds/q.acuracy)",
        "1 problem in 1 file.",
    )


@pytest.mark.slow
@pytest.mark.parametrize("refusal", ["target-import", "credential", "scorer-import", "suite"])
def test_a_run_refused_in_preparation_leaves_no_folder(project: Any, refusal: str) -> None:
    from .support import STATUS_OK, case, expect

    args: tuple[str, ...] = ()
    if refusal == "target-import":
        project.workflows["py"]["target"] = {"python": "no_such_module_4f2:handle"}
        project.suite("main", "py", [case("a")])
        message = "could not be"
    elif refusal == "credential":
        project.suite("main", "live", [case("a")])
        args = ("--live",)
        message = "needs the environment variable GG_LIVE_TOKEN"
    elif refusal == "scorer-import":
        project.scorers["casefold"]["import"] = "no_such_module_4f2:casefold"
        custom = expect("c", "/payload/category", "Billing", "custom", "casefold")
        project.suite("main", "py", [case("a", "ok", STATUS_OK, custom)])
        message = "could not be"
    else:
        project.suite("main", "py", [case("a")])
        args = ("--suite", "nope")
        message = "is not a suite of"
    project.write()

    result = project.run(*args)

    assert_refused(result, message)
    assert project.calls() == []
    assert not list(project.root.rglob(".goldgate")), "a refused run left a folder behind"
