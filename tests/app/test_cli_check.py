"""The command line around the gold check: every violation listed and sorted, the JSON format,
help and version, usage errors, the bundled example, and the real console script."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

VIOLATION = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): "
    r"(?P<message>.*?)(?: \(at (?P<pointer>/[^)]*)\))?$"
)
D = "evaluation/dataset.json"
C = "evaluation/cases/filed.json"


def _five_mistakes(project: Any) -> None:
    """Five independent mistakes: two in the manifest, three in the case file."""
    project.manifest["revision"] = 3
    project.manifest["suites"][0]["colour"] = "blue"
    project.cases[0]["expectations"][0]["path"] = "/output/status"
    project.cases[0]["expectations"][1]["expected"] = "a"
    project.cases[1]["id"] = " y"
    project.write()


EXPECTED_FIVE = {
    (C, "/0/expectations/0/path"),
    (C, "/0/expectations/1/expected"),
    (C, "/1/id"),
    (D, "/revision"),
    (D, "/suites/0/colour"),
}


def test_every_violation_is_listed_sorted_by_file_then_place(
    gold_project: Any, run_cli: Any
) -> None:
    _five_mistakes(gold_project)

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    assert "Traceback" not in result.output
    *lines, count_line = result.stdout.splitlines()
    assert count_line == "5 problems in 2 files."
    found = [VIOLATION.match(line) for line in lines]
    assert all(found), lines
    places = [(m["file"], int(m["line"]), int(m["column"])) for m in found if m]
    assert places == sorted(places)
    assert {(m["file"], m["pointer"]) for m in found if m} == EXPECTED_FIVE
    messages = {m["pointer"]: m["message"] for m in found if m}
    assert messages["/revision"] == "expected a string, found number"
    assert messages["/1/id"] == 'case id " y" must not start or end with whitespace'
    assert messages["/0/expectations/1/expected"] == (
        "a set comparison expects an array, found string"
    )


def test_every_violation_in_the_json_format(gold_project: Any, run_cli: Any) -> None:
    _five_mistakes(gold_project)

    text = run_cli("evaluate", "--check", cwd=gold_project.root)
    result = run_cli("evaluate", "--check", "--format", "json", cwd=gold_project.root)

    assert result.code == 2
    payload = json.loads(result.stdout)
    assert payload["ok"] is False
    assert "fingerprint" not in payload
    violations = payload["violations"]
    assert {(v["file"], v["pointer"]) for v in violations} == EXPECTED_FIVE
    assert all(set(v) == {"file", "line", "column", "pointer", "message"} for v in violations)
    rendered = [
        f"{v['file']}:{v['line']}:{v['column']}: {v['message']} (at {v['pointer']})"
        for v in violations
    ]
    assert rendered == text.stdout.splitlines()[:-1]


def test_settings_problems_in_the_json_format(gold_project: Any, run_cli: Any) -> None:
    gold_project.settings = gold_project.settings.replace("revision: r1", "revision: [r1")
    gold_project.write()

    for command in (("validate",), ("evaluate", "--check")):
        result = run_cli(*command, "--format", "json", cwd=gold_project.root)
        assert result.code == 2
        payload = json.loads(result.stdout)
        assert payload == {
            "ok": False,
            "violations": [
                {
                    "file": "config/settings.yaml",
                    "line": 4,
                    "column": 11,
                    "pointer": "",
                    "message": "expected ',' or ']', but got ':'",
                }
            ],
        }


def test_a_valid_project_passes_with_its_summary(gold_project: Any, run_cli: Any) -> None:
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 0, result.output
    assert result.stdout.splitlines()[0] == "gold OK: gold @ r1: 2 suites, 4 cases"
    assert result.stderr == ""


def test_the_dataset_option_and_the_settings_path(gold_project: Any, run_cli: Any) -> None:
    gold_project.write()
    moved = gold_project.root / "elsewhere" / "gold.json"
    moved.parent.mkdir()
    (gold_project.root / D).rename(moved)
    (gold_project.root / "evaluation" / "cases").rename(moved.parent / "cases")

    missing = run_cli("evaluate", "--check", cwd=gold_project.root)
    found = run_cli("evaluate", "--check", "--dataset", "elsewhere/gold.json")

    assert missing.code == 2
    assert missing.stderr == (
        "goldgate: evaluation/dataset.json: gold manifest not found; set evaluation.dataset in "
        "the settings or pass --dataset (the default is evaluation/dataset.json beside "
        "config/).\n"
    )
    assert found.code == 0, found.output


def test_evaluation_dataset_in_the_settings_is_used(gold_project: Any, run_cli: Any) -> None:
    gold_project.settings += "evaluation:\n  dataset: ../gold/main.json\n"
    gold_project.write()
    (gold_project.root / "evaluation").rename(gold_project.root / "gold")
    (gold_project.root / "gold" / "dataset.json").rename(gold_project.root / "gold" / "main.json")

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 0, result.output


def test_missing_settings_file(tmp_path: Path, run_cli: Any) -> None:
    result = run_cli("evaluate", "--check", "--config", "nowhere.yaml", cwd=tmp_path)

    assert result.code == 2
    assert result.stderr == (
        "goldgate: nowhere.yaml: settings file not found; goldgate reads config/settings.yaml "
        "from the working folder unless --config names another.\n"
    )


def test_the_example_passes_the_check(repo_root: Path, run_cli: Any) -> None:
    result = run_cli("evaluate", "--check", cwd=repo_root / "examples" / "support_triage")

    assert result.code == 0, result.output
    assert result.stdout.startswith("gold OK: support_checks @ ")
    assert re.search(r"^dataset fingerprint: sha256:[0-9a-f]{64}$", result.stdout, re.M)


def test_help_names_the_exit_codes(run_cli: Any) -> None:
    result = run_cli("--help")

    assert result.code == 0
    assert "Exit codes: 0 passed, 1 gold disagreement, 2 invalid input or configuration," in (
        result.stdout
    )
    assert "4 runtime failure, 130 interrupted." in result.stdout


def test_version(run_cli: Any) -> None:
    from goldgate._version import __version__

    result = run_cli("--version")

    assert result.code == 0
    assert result.stdout == f"goldgate {__version__}\n"


def test_the_command_line_is_made_once_a_process(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """typer makes the click command anew each time the app is called (about 12 ms): ``main``
    makes it once a process (``cli._command``), and each call still parses its own
    arguments, an earlier call's usage error and options leaving nothing behind."""
    import typer.main

    from goldgate import cli

    made: list[object] = []
    original = typer.main.get_command

    def counted(app: Any) -> Any:
        made.append(app)
        return original(app)

    monkeypatch.setattr(typer.main, "get_command", counted)
    cli._command.cache_clear()
    try:
        bad = run_cli("evaluate", "--bogus")
        version = run_cli("--version")
        helped = run_cli("report", "--help")
    finally:
        cli._command.cache_clear()  # the next test's main makes it with typer's own

    assert made == [cli.app]
    assert (bad.code, version.code, helped.code) == (2, 0, 0)
    assert "No such option: --bogus" in bad.stderr
    assert version.stdout.startswith("goldgate ")
    assert "merge" in helped.stdout
    assert "--bogus" not in helped.output


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        pytest.param(("evaluate", "--bogus"), "No such option: --bogus", id="unknown-option"),
        pytest.param(
            ("evaluate", "--check", "--format", "yaml"), "Invalid value for '--format'", id="format"
        ),
        pytest.param(("schema", "nope"), "Invalid value for 'name'", id="unknown-schema"),
        pytest.param(
            ("evaluate", "--max-concurrency", "0"),
            "Invalid value for '--max-concurrency'",
            id="concurrency-below-one",
        ),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    run_cli: Any, args: tuple[str, ...], complaint: str
) -> None:
    result = run_cli(*args)

    assert result.code == 2
    assert complaint in result.stderr
    assert "Traceback" not in result.output


# --- the real console script, in a process of its own -----------------------------------------


def _console_script() -> str:
    script = Path(sys.executable).parent / "goldgate"
    found = str(script) if script.is_file() else shutil.which("goldgate")
    if found is None:
        pytest.skip("the goldgate console script is not installed beside this interpreter")
    return found


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.slow
def test_console_script_reports_violations(gold_project: Any) -> None:
    gold_project.cases[0]["expectations"][0]["path"] = "/steps/classify/result"
    gold_project.write()

    result = _run([_console_script(), "evaluate", "--check"], gold_project.root)

    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        f"{C}:16:9: '/steps/...' is a flow-local authoring path; use "
        "'/flows/{flow}/steps/{step}/...' (at /0/expectations/0/path)",
        "1 problem in 1 file.",
    ]
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_console_script_settings_error_and_usage_error(gold_project: Any) -> None:
    gold_project.settings = gold_project.settings.replace("app.main:handle", "app/main.py")
    gold_project.write()
    script = _console_script()

    settings = _run([script, "validate"], gold_project.root)
    usage = _run([script, "evaluate", "--max-concurrency", "0"], gold_project.root)

    assert settings.returncode == 2
    assert settings.stdout.startswith('config/settings.yaml:5:7: "app/main.py" is not')
    assert settings.stdout.endswith("\n1 problem in 1 file.\n")
    assert usage.returncode == 2
    assert "Traceback" not in settings.stderr + usage.stderr


@pytest.mark.slow
def test_python_dash_m_goldgate(repo_root: Path) -> None:
    version = _run([sys.executable, "-m", "goldgate", "--version"], repo_root)
    check = _run(
        [sys.executable, "-m", "goldgate", "evaluate", "--check"],
        repo_root / "examples" / "support_triage",
    )

    assert version.returncode == 0
    assert version.stdout.startswith("goldgate ")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "gold OK: support_checks" in check.stdout


# --- names that would start a workflow command, and one pass with no knock-on errors -----------

COMMAND_NAMES = ["::error::forged", "  ::add-mask::x", "\u200b::stop-commands::t"]
PLACES = [
    (("suites", 0, "name"), D, "/suites/0/name"),
    (("suites", 0, "flow"), D, "/suites/0/flow"),
    (("suites", 0, "step"), D, "/suites/0/step"),
    (("suites", 0, "workflow"), D, "/suites/0/workflow"),
    (("suites", 0, "metrics", 0, "name"), D, "/suites/0/metrics/0/name"),
    (("suites", 0, "cases", 0, "id"), D, "/suites/0/cases/0/id"),
    (("suites", 0, "cases", 0, "expectations", 1, "name"), D,
     "/suites/0/cases/0/expectations/1/name"),
    (("suites", 0, "cases", 1, "split"), D, "/suites/0/cases/1/split"),
    (("name",), D, "/name"),
    (("revision",), D, "/revision"),
]  # fmt: skip


def _runner_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def _no_workflow_command(text: str) -> None:
    from goldgate.base.textsafe import starts_command

    forged = [line for line in _runner_lines(text) if starts_command(line) or "##[" in line]
    assert not forged, text


@pytest.mark.parametrize("name", COMMAND_NAMES)
@pytest.mark.parametrize(("place", "file", "pointer"), PLACES)
def test_a_name_that_starts_a_workflow_command_is_refused_at_its_place(
    gold_project: Any, run_cli: Any, name: str, place: tuple[Any, ...], file: str, pointer: str
) -> None:
    *parents, last = place
    holder = gold_project.manifest
    for key in parents:
        holder = holder[key]
    holder[last] = name
    gold_project.write()

    text = run_cli("evaluate", "--check", cwd=gold_project.root)
    github = run_cli("evaluate", "--check", "--format", "github", cwd=gold_project.root)

    assert text.code == github.code == 2
    lines = text.stdout.splitlines()
    assert lines[-1] == "1 problem in 1 file.", text.output
    found = VIOLATION.match(lines[0])
    assert found is not None
    assert (found["file"], found["pointer"]) == (file, pointer)
    assert "must not start with '::'" in found["message"]
    _no_workflow_command(text.output)
    command, count = github.stdout.splitlines()
    assert command.startswith(f"::error file={file},line=")
    assert count == "1 problem in 1 file."


def test_a_case_file_s_case_id_is_refused_too(gold_project: Any, run_cli: Any) -> None:
    gold_project.cases[1]["id"] = "::error::forged"
    gold_project.cases[0]["expectations"][3]["scorer"] = " ::notice::x"
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    pointers = [m["pointer"] for m in map(VIOLATION.match, result.stdout.splitlines()) if m]
    assert pointers == ["/0/expectations/3/scorer", "/1/id"]
    _no_workflow_command(result.output)


@pytest.mark.parametrize(
    "option", [["--variant", "::error::x"], ["--variant", " ::add-mask::x"],
               ["--variant-revision", "::stop-commands::t"], ["--variant", "a\nb"]],
)  # fmt: skip
def test_a_variant_that_would_forge_a_line_is_refused(
    gold_project: Any, run_cli: Any, option: list[str]
) -> None:
    gold_project.write()

    result = run_cli("evaluate", *option, cwd=gold_project.root)

    assert result.code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"goldgate: {option[0]}: names, ids and revisions must not ")
    _no_workflow_command(result.output)


def test_a_usage_error_never_echoes_a_workflow_command(gold_project: Any, run_cli: Any) -> None:
    result = run_cli("evaluate", "--format", "::error::x", cwd=gold_project.root)

    assert result.code == 2
    assert "Invalid value" in result.stderr
    _no_workflow_command(result.output)


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        pytest.param(
            lambda p: p.cases[0].update(expectatons=p.cases[0].pop("expectations")),
            {(C, "/0/expectations"), (C, "/0/expectatons")},
            id="typo-in-a-case-with-the-suite-s-only-text-comparison",
        ),
        pytest.param(
            lambda p: p.manifest["suites"][0]["cases"][0].update(idd=1),
            {(D, "/suites/0/cases/0/idd")},
            id="typo-in-a-case-a-metric-names",
        ),
        pytest.param(
            lambda p: p.cases[1].update(iid=p.cases[1].pop("id")),
            {(C, "/1/id"), (C, "/1/iid")},
            id="typo-in-a-case-id",
        ),
    ],
)
def test_one_typo_adds_no_knock_on_error(
    gold_project: Any, run_cli: Any, mistake: Any, expected: set[tuple[str, str]]
) -> None:
    gold_project.manifest["suites"][0]["metrics"][0]["cases"] = ["a", "b"]
    gold_project.manifest["suites"][1]["thresholds"] = {"expect.satisfied": 0.5}
    gold_project.write()
    assert run_cli("evaluate", "--check", cwd=gold_project.root).code == 0
    mistake(gold_project)
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    found = [VIOLATION.match(line) for line in result.stdout.splitlines()[:-1]]
    assert {(m["file"], m["pointer"]) for m in found if m} == expected, result.stdout


def test_real_mistakes_beside_a_typo_are_still_found(gold_project: Any, run_cli: Any) -> None:
    gold_project.manifest["suites"][0]["cases"][0]["idd"] = 1
    gold_project.manifest["suites"][0]["metrics"][0]["cases"] = ["a", "zz"]
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    found = [VIOLATION.match(line) for line in result.stdout.splitlines()[:-1]]
    assert {m["pointer"] for m in found if m} == {
        "/suites/0/cases/0/idd",
        "/suites/0/metrics/0/cases/1",
    }


def test_a_suite_that_does_not_parse_still_has_its_cases_checked(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.manifest["suites"][0]["colour"] = "blue"
    gold_project.manifest["suites"][0]["cases"][1]["id"] = ""
    gold_project.manifest["suites"][1]["colour"] = "red"
    gold_project.cases[1]["id"] = " y"
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    found = [VIOLATION.match(line) for line in result.stdout.splitlines()[:-1]]
    assert {(m["file"], m["pointer"]) for m in found if m} == {
        (D, "/suites/0/colour"),
        (D, "/suites/0/cases/1/id"),
        (D, "/suites/1/colour"),
        (C, "/1/id"),
    }


@pytest.mark.parametrize(
    ("old", "new", "pointer"),
    [
        ("      main:", '      "::error::flow":', "/workflows/triage/flows/::error::flow"),
        ("          classify: {}", '          " ::add-mask::step": {}',
         "/workflows/triage/flows/main/steps/ ::add-mask::step"),
        ("    revision: r1", '    revision: "::stop-commands::t"', "/workflows/triage/revision"),
    ],
)  # fmt: skip
def test_settings_names_that_would_start_a_command_are_refused(
    gold_project: Any, run_cli: Any, old: str, new: str, pointer: str
) -> None:
    assert old in gold_project.settings
    gold_project.settings = gold_project.settings.replace(old, new, 1)
    gold_project.write()

    result = run_cli("validate", cwd=gold_project.root)

    assert result.code == 2
    assert "must not start with '::'" in result.output
    assert f"(at {pointer})" in result.output
    _no_workflow_command(result.output)


def test_broken_settings_and_broken_gold_are_listed_in_one_pass(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.settings = gold_project.settings.replace("revision: r1", "revison: r1")
    gold_project.cases[0]["idd"] = 1
    gold_project.manifest["suites"][0]["workflow"] = "nowhere"  # unknowable without settings
    gold_project.write()

    result = run_cli("evaluate", "--check", cwd=gold_project.root)

    assert result.code == 2
    found = [VIOLATION.match(line) for line in result.stdout.splitlines()[:-1]]
    assert {(m["file"], m["pointer"]) for m in found if m} == {
        ("config/settings.yaml", "/workflows/triage/revision"),
        ("config/settings.yaml", "/workflows/triage/revison"),
        (C, "/0/idd"),
    }
    assert result.stdout.splitlines()[-1] == "3 problems in 2 files."


def test_json_output_keeps_an_old_form_command_in_a_value_but_not_in_a_line(
    gold_project: Any, run_cli: Any
) -> None:
    gold_project.manifest["suites"][0]["metrics"][0]["name"] = "##[error]metric"
    gold_project.manifest["suites"][0]["thresholds"] = {"##[error]metric.acuracy": 0.5}
    gold_project.write()

    result = run_cli("evaluate", "--check", "--format", "json", cwd=gold_project.root)

    assert result.code == 2
    _no_workflow_command(result.stdout)
    (violation,) = json.loads(result.stdout)["violations"]
    assert violation["pointer"] == "/suites/0/thresholds/##[error]metric.acuracy"
