"""``goldgate report junit|markdown|annotations|show|html`` through the real CLI: files written,
stdout, options, and refusals (exit 2); and ``--format github`` for the offline checks."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldgate.render import escape
from goldgate.report.io import report_bytes
from goldgate.report.models import Report

from .checks import markdown_is_safe, no_workflow_commands
from .corpus import HOSTILE
from .test_annotations import parse

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")


@pytest.fixture
def report_file(corpus: dict[str, Report], tmp_path: Path) -> Callable[[str], Path]:
    def write(name: str) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_bytes(report_bytes(corpus[name]))
        return path

    return write


def test_junit_writes_the_file(
    run_cli: Any, report_file: Callable[[str], Path], tmp_path: Path
) -> None:
    output = tmp_path / "junit.xml"
    result = run_cli("report", "junit", str(report_file("repeats")), "-o", str(output))

    assert result.code == 0, result.output
    assert result.stdout == ""
    assert output.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="UTF-8"?>\n')


def test_junit_needs_an_output(run_cli: Any, report_file: Callable[[str], Path]) -> None:
    result = run_cli("report", "junit", str(report_file("repeats")))

    assert result.code == 2
    assert "--output" in result.output


def test_markdown_to_stdout_and_to_a_file(
    run_cli: Any, report_file: Callable[[str], Path], tmp_path: Path
) -> None:
    path = report_file("repeats")
    printed = run_cli(
        "report",
        "markdown",
        str(path),
        "--details",
        "values",
        "--link-base",
        "https://github.com/o/r/blob/abc",
    )
    output = tmp_path / "summary.md"
    written = run_cli("report", "markdown", str(path), "--budget", "summary", "-o", str(output))

    assert printed.code == 0
    assert written.code == 0
    assert '| "refund" | "billing" |' in printed.stdout
    assert "](https://github.com/o/r/blob/abc/evaluation/dataset.json#L31)" in printed.stdout
    assert f"Full report: {escape.markdown(str(path))}" in printed.stdout.split("\n###")[0]
    markdown_is_safe(printed.stdout, "https://github.com/o/r/blob/abc")
    assert output.read_text(encoding="utf-8").startswith("## ❌ goldgate: failed")
    assert output.stat().st_mode & 0o777 == 0o644  # safe details: ids, counts, reasons
    assert written.stdout == ""


def test_markdown_refuses_a_bad_link_base(run_cli: Any, report_file: Callable[[str], Path]) -> None:
    result = run_cli(
        "report", "markdown", str(report_file("repeats")), "--link-base", "javascript:x"
    )

    assert result.code == 2
    assert "--link-base" in result.output


def test_annotations_and_max(run_cli: Any, report_file: Callable[[str], Path]) -> None:
    path = report_file("repeats")
    default = run_cli("report", "annotations", str(path))
    three = run_cli("report", "annotations", str(path), "--max", "3")

    assert default.code == 0
    assert three.code == 0
    assert len(default.stdout.splitlines()) == 11
    assert [line[:9] for line in three.stdout.splitlines()] == ["::error f"] * 3 + ["::notice "]
    assert "9 more failing attempts" in three.stdout


def test_show_prints_plain_text_when_not_a_terminal(
    run_cli: Any, report_file: Callable[[str], Path]
) -> None:
    result = run_cli("report", "show", str(report_file("hostile")))

    assert result.code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("goldgate: failed — 0 passed, 2 failing, 1 runtime failure")
    assert lines[-1] == "goldgate: failed (exit code 4: runtime failure)"  # on screen at the end
    for line in lines:  # 80 columns, but for a word longer, or one kept from a line's start
        kept = any(word in line for word in (" ::", " ##", "# #"))  # stdout defuses ##[ too
        assert len(line) <= 80 or " " not in line.strip() or kept
    assert "\x1b" not in result.stdout
    no_workflow_commands(result.stdout)


def test_html_writes_one_page_and_never_over_the_report(
    run_cli: Any, report_file: Callable[[str], Path], tmp_path: Path
) -> None:
    report = report_file("repeats")
    output = tmp_path / "page.html"

    result = run_cli("report", "html", str(report), "--details", "values", "-o", str(output))
    over = run_cli("report", "html", str(report), "-o", str(report))
    bare = run_cli("report", "html", str(report))

    assert result.code == 0, result.output
    assert result.stdout == ""
    page = output.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert f"The full report: {report}." in page
    assert output.stat().st_mode & 0o777 == 0o600  # values are private, as the report is
    assert over.code == 2
    assert "it is the file being rendered" in over.stderr
    assert bare.code == 2  # -o is required: a page is a file, not a stream
    assert "--output" in bare.stderr


@pytest.mark.parametrize("command", ["junit", "markdown", "annotations", "show", "html"])
def test_a_missing_or_broken_report_is_refused(run_cli: Any, tmp_path: Path, command: str) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "goldgate.report/2"}', encoding="utf-8")
    extra = ["-o", str(tmp_path / "out")] if command in ("junit", "html") else []

    missing = run_cli("report", command, str(tmp_path / "nope.json"), *extra)
    invalid = run_cli("report", command, str(broken), *extra)

    assert missing.code == 2
    assert "nope.json: file not found." in missing.stderr
    assert invalid.code == 2
    assert "not a valid report" in invalid.stderr


def test_a_report_from_a_newer_goldgate_is_refused(run_cli: Any, tmp_path: Path) -> None:
    newer = tmp_path / "newer.json"
    newer.write_text('{"format": "goldgate.report/99"}', encoding="utf-8")
    result = run_cli("report", "show", str(newer))

    assert result.code == 2
    assert "upgrade goldgate" in result.stderr


# --- goldgate evaluate --check --format github ----------------------------------------------------


def test_check_format_github_annotates_each_violation(run_cli: Any, gold_project: Any) -> None:
    project = gold_project
    for case in project.cases:
        case["expectations"][0]["bogus"] = HOSTILE
    project.cases.extend(
        {
            "id": f"extra-{i}",
            "input": {"payload": {}, "metadata": {}},
            "expectations": [],
            "typo": 1,
        }
        for i in range(6)
    )
    project.write()
    result = run_cli(
        "evaluate",
        "--check",
        "--config",
        str(project.root / project.SETTINGS),
        "--format",
        "github",
        cwd=project.root,
    )
    lines = result.stdout.splitlines()
    errors = [parse(line) for line in lines if line.startswith("::error")]

    assert result.code == 2
    assert len(errors) == 10
    _, properties, message = errors[0]
    assert properties["file"] == "evaluation/cases/filed.json"
    assert int(properties["line"]) > 0
    assert int(properties["col"]) > 0
    assert properties["title"] == "goldgate check"
    assert message.startswith('unknown key "bogus"')
    assert parse(lines[-2])[0] == "notice"
    assert re.fullmatch(r"\d+ problems in 1 file\.", lines[-1])


def test_check_format_github_when_gold_is_fine(run_cli: Any, gold_project: Any) -> None:
    project = gold_project.write()
    result = run_cli(
        "evaluate",
        "--check",
        "--config",
        str(project.root / project.SETTINGS),
        "--format",
        "github",
        cwd=project.root,
    )

    assert result.code == 0
    assert result.stdout.startswith("gold OK: gold @ r1")


def test_format_github_is_for_checks(run_cli: Any, gold_project: Any) -> None:
    project = gold_project.write()
    result = run_cli(
        "evaluate",
        "--config",
        str(project.root / project.SETTINGS),
        "--format",
        "github",
        cwd=project.root,
    )

    assert result.code == 2
    assert "goldgate report annotations" in result.output


def test_validate_format_github(run_cli: Any, gold_project: Any) -> None:
    project = gold_project
    project.settings += "unknown_key: 1\n"
    project.write()
    result = run_cli(
        "validate",
        "--config",
        str(project.root / project.SETTINGS),
        "--format",
        "github",
        cwd=project.root,
    )
    kind, properties, message = parse(result.stdout.splitlines()[0])

    assert result.code == 2
    assert (kind, properties["file"]) == ("error", "config/settings.yaml")
    assert "unknown_key" in message


@pytest.mark.slow
@pytest.mark.parametrize("split", ["holdout", "Holdout", "HOLDOUT", " holdout "])
def test_no_spelling_of_holdout_shows_held_out_gold(tmp_path: Path, split: str) -> None:
    from run.support import STATUS_OK, case, expect, new_project, run_cli

    project = new_project(tmp_path / "project")
    held = case("held", "ok", STATUS_OK, expect("category", "/payload/category", "sealed-gold"),
                category="sealed-answer")  # fmt: skip
    held["split"] = split
    shown = case("shown", "ok", STATUS_OK, expect("category", "/payload/category", "open-gold"),
                 category="open-answer")  # fmt: skip
    project.suite("main", "py", [held, shown]).write()
    output = project.output()
    assert project.run("--output", str(output)).code == 1

    result = run_cli("report", "markdown", "--details", "values", str(output), cwd=project.root)

    assert result.code == 0, result.output
    assert "open-gold" in result.stdout
    assert "open-answer" in result.stdout
    assert "sealed" not in result.stdout
    assert "\\(held out\\)" in result.stdout
    page = project.root / "page.html"
    shown_page = run_cli("report", "html", "--details", "values", str(output), "-o", str(page),
                         cwd=project.root)  # fmt: skip
    assert shown_page.code == 0, shown_page.output
    assert "open-answer" in page.read_text(encoding="utf-8")
    assert "sealed" not in page.read_text(encoding="utf-8")


def _no_printed_command(text: str) -> None:
    """No line of what goldgate printed is a workflow command to the runner: lines end at
    CR or LF, blanks and invisible marks before '::' are skipped, '##[' counts anywhere."""
    from goldgate.base.textsafe import starts_command

    lines = re.split(r"\r\n|\r|\n", text)
    assert [line for line in lines if starts_command(line) or "##[" in line] == [], text


@pytest.mark.parametrize("name", ["hostile", "hostile_run"])
def test_nothing_printed_from_a_hostile_report_is_a_workflow_command(
    run_cli: Any, report_file: Callable[[str], Path], tmp_path: Path, name: str
) -> None:
    path = report_file(name)
    printed = [
        run_cli("report", "show", str(path)),
        run_cli("report", "markdown", "--details", "values", str(path)),
        run_cli("evaluate", "--compare", str(path), "--baseline", str(path),
                "--output", str(tmp_path / f"{name}.comparison.json")),
        run_cli("evaluate", "--compare", str(path), "--baseline", str(path), "--format", "json",
                "--output", str(tmp_path / f"{name}.comparison2.json")),
    ]  # fmt: skip

    for result in printed:  # a comparison may be refused (no inputs): its sentence too
        assert result.code in (0, 1, 2), result.output
        assert "Traceback" not in result.output
        _no_printed_command(result.stdout)
        _no_printed_command(result.stderr)
    assert "##[" in HOSTILE  # the corpus holds the old command form too


def test_a_refused_file_name_prints_no_workflow_command(run_cli: Any, tmp_path: Path) -> None:
    hostile = tmp_path / "x\n::error::forged\r::stop-commands::t ##[error]y.json"
    hostile.write_text("{}", "utf-8")

    result = run_cli("report", "show", str(hostile))

    assert result.code == 2
    _no_printed_command(result.output)


def test_the_run_summary_of_a_hand_made_report_forges_no_line(corpus: dict[str, Report]) -> None:
    from goldgate.base.errors import ExitCode
    from goldgate.base.textsafe import printable
    from goldgate.report.summary import render_summary

    report = corpus["hostile"]  # names with CR, LF, ESC, NUL and a bidi override
    summary = render_summary(report, Path("out/x\n::error::y.json"), ExitCode.RUNTIME_FAILURE)

    lines = re.split(r"\r\n|\r|\n", summary)
    assert [line for line in lines if line.startswith("verdict:")] == [lines[-2]]
    assert lines[-1] == "report: out/x\\n::error::y.json"
    assert "\x1b" not in summary
    assert "\x00" not in summary
    assert "\u202e" not in summary
    _no_printed_command(printable(summary))  # as stdio prints it
