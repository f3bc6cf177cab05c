"""Reading input files: regular files only, within the cap, and never blocking."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goldgate.base import files
from goldgate.base.errors import InvalidInputError, MissingFileError
from goldgate.base.files import max_file_bytes, read_regular_file


def test_a_regular_file_within_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "gold.json"
    path.write_bytes(b"{}")

    assert read_regular_file(path, "gold.json") == b"{}"


def test_a_fifo_swapped_in_after_the_stat_is_refused_without_blocking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = tmp_path / "regular.json"
    regular.write_bytes(b"{}")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    real_stat = os.stat

    def stale_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        # What the stat saw before the file was replaced by a named pipe.
        return real_stat(regular if Path(str(path)) == fifo else path)  # type: ignore[arg-type]

    monkeypatch.setattr(files.os, "stat", stale_stat)

    with pytest.raises(InvalidInputError, match=r"^pipe\.json: is a named pipe \(FIFO\)"):
        read_regular_file(fifo, "pipe.json")


def test_a_file_that_grew_past_the_cap_after_the_checks_is_cut_and_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "gold.json"
    path.write_bytes(b"x" * 10)
    monkeypatch.setenv("GOLDGATE_MAX_FILE_BYTES", "10")
    checked = os.stat(path)
    path.write_bytes(b"x" * 10_000)  # grew after both checks saw 10 bytes
    monkeypatch.setattr(files.os, "stat", lambda *args, **kwargs: checked)
    monkeypatch.setattr(files.os, "fstat", lambda descriptor: checked)

    with pytest.raises(InvalidInputError, match=r"^gold\.json: is over the limit of 10 bytes"):
        read_regular_file(path, "gold.json")


def test_missing_and_unreadable(tmp_path: Path) -> None:
    with pytest.raises(MissingFileError, match=r"^nope\.json: file not found\.$"):
        read_regular_file(tmp_path / "nope.json", "nope.json")
    with pytest.raises(InvalidInputError, match=r"^odd: cannot be read \("):
        read_regular_file(Path("a\0b"), "odd")


def test_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOLDGATE_MAX_FILE_BYTES", raising=False)
    assert max_file_bytes() == 256 * 1024 * 1024
    assert max_file_bytes({"GOLDGATE_MAX_FILE_BYTES": " 1024 "}) == 1024
    assert max_file_bytes({"GOLDGATE_MAX_FILE_BYTES": ""}) == 256 * 1024 * 1024
