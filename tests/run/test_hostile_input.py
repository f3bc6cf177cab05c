"""Hostile gold and input through the real CLI: every refusal is exit 2, one sentence naming
the file and the place, never a traceback, and quick."""

from __future__ import annotations

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
    from goldgate.errors import InvalidInputError
    from goldgate.jsonvalue import load_json_file
    from goldgate.settings.yamlfile import load_yaml_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for load in (load_json_file, load_yaml_file):
        with pytest.raises(InvalidInputError, match="named pipe"):
            load(fifo)
