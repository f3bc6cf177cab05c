"""A report that cannot be written where asked is written elsewhere, never lost; the run says
where and exits 4."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import RuntimeFailureError
from goldgate.report import io as report_io
from goldgate.report.io import read_report, write_report, write_report_safely
from goldgate.report.models import Report, validated

from .support import Project, case

MINIMAL_REPORT = {
    "format": "goldgate.report/2",
    "goldgate_version": "0",
    "complete": True,
    "started_at": "2026-11-30T00:00:00+00:00",
    "finished_at": "2026-11-30T00:00:01+00:00",
    "duration_seconds": 1.0,
    "dataset": {"name": "d", "revision": "r", "fingerprint": "sha256:0"},
    "variant": {"name": "v", "revision": "r", "configuration_revision": None},
    "options": {
        "max_concurrency": 1,
        "timeout": 1.0,
        "repeat": 1,
        "suites": [],
        "live": False,
        "include_details": True,
    },
    "suites": [],
    # What a run of no suites decides (a reader recomputes it, and refuses anything else).
    "verdict": {
        "passed": True,
        "exit_code": 0,
        "meaning": "nothing was evaluated",
        "suites": {},
        "evaluated": False,
    },
}


@pytest.fixture
def report() -> Report:
    return validated(Report, MINIMAL_REPORT)


def test_an_unwritable_folder_falls_back_to_a_fresh_temporary_folder(
    tmp_path: Path, report: Report
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")

    written, why = write_report_safely(report, blocked / "report.json")

    assert why is not None
    assert "cannot be written" in why
    assert written.name == "report.json"
    assert written.parent != blocked
    assert read_report(written) == report
    assert (written.stat().st_mode & 0o777) == 0o600


def test_a_name_taken_meanwhile_is_not_overwritten(tmp_path: Path, report: Report) -> None:
    taken = tmp_path / "report.json"
    taken.write_text("someone else's")

    with pytest.raises(RuntimeFailureError, match="the report was not overwritten"):
        write_report(report, taken)
    written, why = write_report_safely(report, taken)

    assert taken.read_text() == "someone else's"
    assert why is not None
    assert "not overwritten" in why
    assert read_report(written) == report


def test_no_usable_temporary_folder_is_one_sentence(
    tmp_path: Path, report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    # Where mkdtemp would go is a file: no temporary folder can be made there.
    monkeypatch.setattr(tempfile, "tempdir", str(blocked))

    with pytest.raises(RuntimeFailureError) as raised:
        write_report_safely(report, blocked / "report.json")

    message = str(raised.value)
    assert message.startswith(f"{blocked}/report.json: cannot be written (Not a directory), ")
    assert message.endswith("; the report is lost.")
    assert "\n" not in message
    assert blocked.read_text() == "not a folder"


def test_a_fallback_that_fails_leaves_no_folder_behind(
    tmp_path: Path, report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))

    blocked = tmp_path / "a-file"  # the report's own folder cannot be made: fall back
    blocked.write_text("not a folder")
    real_open = os.open

    def full_disk(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).startswith(str(temporary)) and str(path).endswith("report.json"):
            raise OSError(28, "No space left on device")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(report_io.os, "open", full_disk)

    with pytest.raises(RuntimeFailureError, match=r"\(No space left on device\); the report"):
        write_report_safely(report, blocked / "report.json")
    assert list(temporary.iterdir()) == []


@pytest.mark.slow
def test_the_cli_says_where_the_report_went_and_exits_4(
    project: Project, run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project.suite("s", "py", [case("one")]).write()
    # In-process: the python target's module and folder must not outlive this test.
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in ("fixture_app",):
        monkeypatch.delitem(sys.modules, name, raising=False)
    wanted = tmp_path / "reports" / "run.json"
    real_link = os.link

    def refusing_link(source: Any, destination: Any, *args: Any, **kwargs: Any) -> None:
        if Path(destination) == wanted:
            raise PermissionError(13, "Permission denied")
        real_link(source, destination, *args, **kwargs)

    monkeypatch.setattr(report_io.os, "link", refusing_link)

    try:
        result = run_cli(
            "evaluate", "--config", str(project.settings_path), "--output", str(wanted),
            cwd=project.root,
        )  # fmt: skip
    finally:
        sys.modules.pop("fixture_app", None)

    assert result.code == 4, result.output
    assert "cannot be written (Permission denied)" in result.stderr
    assert not wanted.exists()
    fallback = Path(result.stdout.strip().splitlines()[-1].removeprefix("report: "))
    assert read_report(fallback).verdict.passed
